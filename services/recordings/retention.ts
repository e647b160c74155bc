// How long recordings are kept (schemas/clickhouse/039): a project's session_recording_retention_period
// ('30d', '90d', '1y', '5y'; PostHog's default 30 days). Stores write each row with the project's retention
// in days at that moment, and ClickHouse's TTL drops the row a day after it expires. Readers show a
// recording only while its start is within the shorter of the retention its rows were stored with and the
// project's current one: shortening the setting hides older recordings at once; lengthening it shows them
// again only while their rows are still kept (a recording stored under 30 days is dropped after 30 days).
import type { Tenants } from '../platform/tenancy'
import { RECORDING_RETENTION_DAYS, recordingRetentionDays } from '../analytics/project-settings'
import type { Clock } from '../platform/clock'

export interface Retention {
  /** The project's retention now, in days. */
  daysOf(teamId: number): number
  /** The instant retention is measured back from (WREN_NOW when set). */
  now(): Date
}

/** The retention of each project, from its settings, measured from the service's clock. */
export function projectRetention(projects: Tenants, clock: Clock): Retention {
  return {
    daysOf: (teamId) => recordingRetentionDays(projects.byId(teamId)?.settings ?? {}),
    now: () => clock.now(),
  }
}

/** Without projects (unit tests of the stores): the longest retention, so nothing expires under them. */
export const LONGEST_RETENTION: Retention = {
  daysOf: () => Math.max(...Object.values(RECORDING_RETENTION_DAYS)),
  now: () => new Date(),
}

/**
 * SQL true while a session whose earliest timestamp is `start` and whose rows' shortest retention is `days`
 * (both expressions over the session: aggregates of its rows, or its pre-aggregated row) is within retention;
 * its parameters come from `retentionParams`.
 */
export const withinRetention = (start: string, days: string) =>
  `${start} >= parseDateTime64BestEffort({retention_now:String}, 3) - toIntervalDay(least({retention_days:UInt16}, ${days}))`

export function retentionParams(retention: Retention, teamId: number): { retention_now: string; retention_days: number } {
  return { retention_now: retention.now().toISOString(), retention_days: retention.daysOf(teamId) }
}
