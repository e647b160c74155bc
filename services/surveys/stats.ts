// A survey's figures from the events posthog-js sends (`survey shown`, `survey dismissed`, `survey sent`), as PostHog's
// survey stats count them: per event its count, its distinct persons and its first and last time; a dismissal after a
// partial answer is not a dismissal; a submission answered in several steps (the same $survey_submission_id) is one
// response, its latest; a person who both dismissed and answered counts as having answered; "only seen" is what was
// shown less what was dismissed or sent; rates are percentages of the shown, to two decimals.
import type { ClickHouseClient } from '../platform/clickhouse'
import { queryRows } from '../platform/clickhouse'
import { wrenError } from '../platform/errors'
import { EventPersonId, hasPersonOverrides } from '../analytics/sql/persons-sql'
import { eventsSource } from '../analytics/sql/events-source'

export const SHOWN = 'survey shown'
export const DISMISSED = 'survey dismissed'
export const SENT = 'survey sent'
const EVENTS = [SHOWN, DISMISSED, SENT] as const
type SurveyEvent = (typeof EVENTS)[number]

export interface EventStats {
  total_count: number
  total_count_only_seen: number
  unique_persons: number
  unique_persons_only_seen: number
  first_seen: string | null
  last_seen: string | null
}
export interface Rates {
  response_rate: number
  dismissal_rate: number
  unique_users_response_rate: number
  unique_users_dismissal_rate: number
}
export type SurveyStats = Record<SurveyEvent, EventStats>

const NO_RATES: Rates = { response_rate: 0, dismissal_rate: 0, unique_users_response_rate: 0, unique_users_dismissal_rate: 0 }

/** The stats route's date range: ISO 8601 instants (PostHog asks for a timezone; one without is read as UTC). */
export function statsRange(dateFrom: string | undefined, dateTo: string | undefined): { from: number | null; to: number | null } {
  const parse = (value: string | undefined, attr: string) => {
    if (!value) return null
    const at = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(value) || !value.includes('T') ? value : `${value}Z`)
    if (Number.isNaN(at))
      throw wrenError(
        'invalid_date',
        'Invalid date format. Please use ISO 8601 format with timezone info (e.g. 2024-01-01T00:00:00Z or 2024-01-01T00:00:00+00:00)',
        attr,
      )
    return at
  }
  const from = parse(dateFrom, 'date_from')
  const to = parse(dateTo, 'date_to')
  if (from !== null && to !== null && from > to) throw wrenError('invalid_date', 'date_from must be before date_to', 'date_from')
  return { from, to }
}

/** The stats of the surveys `surveyIds` (their uuids) over the range; `{stats: {}}` with no survey at all. */
export async function surveyStats(
  client: ClickHouseClient,
  teamId: number,
  surveyIds: string[],
  range: { from: number | null; to: number | null },
  signal: AbortSignal,
): Promise<{ stats: SurveyStats | Record<string, never>; rates: Rates }> {
  if (surveyIds.length === 0) return { stats: {}, rates: NO_RATES }
  const person = new EventPersonId(await hasPersonOverrides(client, teamId))
  const surveyId = "JSONExtractString(properties, '$survey_id')"
  const submission = "JSONExtractString(properties, '$survey_submission_id')"
  const where = [
    'team_id = {team:Int64}',
    `${surveyId} IN {surveys:Array(String)}`,
    ...(range.from !== null ? ['timestamp >= fromUnixTimestamp64Milli({from:Int64})'] : []),
    ...(range.to !== null ? ['timestamp <= fromUnixTimestamp64Milli({to:Int64})'] : []),
    // A dismissal of a survey partly answered is an answer (sent), not a dismissal.
    `(event != '${DISMISSED}' OR JSONExtractBool(properties, '$survey_partially_completed') = 0)`,
  ]
  // Each submission once, its latest event (posthog-js sends one per step of a partial answer); over all time, so
  // a submission finished after the range is not counted in it.
  const latestOfSubmission = `(event != '${SENT}' OR uuid IN (SELECT argMax(uuid, timestamp) FROM events
    WHERE team_id = {team:Int64} AND event = '${SENT}' AND ${surveyId} IN {surveys:Array(String)}
    GROUP BY ${surveyId}, if(${submission} = '', toString(uuid), ${submission})))`
  const pid = person.sql
  const source = eventsSource('team_id = {team:Int64}', { personId: person })
  const params = { team: teamId, surveys: surveyIds, from: range.from ?? 0, to: range.to ?? 0 }
  const [rows, both] = await Promise.all([
    queryRows<{ event: SurveyEvent; total: string; persons: string; first: string; last: string }>(
      client,
      `SELECT event, count() AS total, count(DISTINCT ${pid}) AS persons,
         toUnixTimestamp64Milli(min(timestamp)) AS first, toUnixTimestamp64Milli(max(timestamp)) AS last
       FROM ${source.from}
       WHERE event IN ('${SHOWN}', '${DISMISSED}', '${SENT}') AND ${where.join(' AND ')} AND ${latestOfSubmission}
       GROUP BY event`,
      params,
      { signal },
    ),
    queryRows<{ n: string }>(
      client,
      `SELECT count() AS n FROM (SELECT ${pid} AS p FROM ${source.from}
         WHERE event IN ('${DISMISSED}', '${SENT}') AND ${where.join(' AND ')}
         GROUP BY p HAVING countIf(event = '${DISMISSED}') > 0 AND countIf(event = '${SENT}') > 0)`,
      params,
      { signal },
    ),
  ])
  const empty = (): EventStats => ({
    total_count: 0,
    total_count_only_seen: 0,
    unique_persons: 0,
    unique_persons_only_seen: 0,
    first_seen: null,
    last_seen: null,
  })
  const stats: SurveyStats = { [SHOWN]: empty(), [DISMISSED]: empty(), [SENT]: empty() }
  for (const r of rows)
    stats[r.event] = {
      ...empty(),
      total_count: Number(r.total),
      unique_persons: Number(r.persons),
      first_seen: new Date(Number(r.first)).toISOString(),
      last_seen: new Date(Number(r.last)).toISOString(),
    }
  const dismissedAndSent = Number(both[0]?.n ?? 0)
  stats[DISMISSED].unique_persons = Math.max(0, stats[DISMISSED].unique_persons - dismissedAndSent)
  const [shown, dismissed, sent] = [stats[SHOWN], stats[DISMISSED], stats[SENT]]
  shown.unique_persons_only_seen = Math.max(0, shown.unique_persons - dismissed.unique_persons - sent.unique_persons)
  shown.total_count_only_seen = Math.max(0, shown.total_count - dismissed.total_count - sent.total_count)
  const percent = (part: number, whole: number) => Math.round((part / whole) * 100 * 100) / 100
  const rates =
    shown.total_count > 0
      ? {
          response_rate: percent(sent.total_count, shown.total_count),
          dismissal_rate: percent(dismissed.total_count, shown.total_count),
          unique_users_response_rate: shown.unique_persons ? percent(sent.unique_persons, shown.unique_persons) : 0,
          unique_users_dismissal_rate: shown.unique_persons ? percent(dismissed.unique_persons, shown.unique_persons) : 0,
        }
      : NO_RATES
  return { stats, rates }
}

/**
 * How many responses each survey has (its uuid → count) since `from` (ms): `survey sent` events, each submission once
 * (its latest), as PostHog's responses_count counts them.
 */
export async function responseCounts(
  client: ClickHouseClient,
  teamId: number,
  from: number,
  signal?: AbortSignal,
): Promise<Map<string, number>> {
  const surveyId = "JSONExtractString(properties, '$survey_id')"
  const submission = "JSONExtractString(properties, '$survey_submission_id')"
  const rows = await queryRows<{ survey: string; n: string }>(
    client,
    `SELECT ${surveyId} AS survey, count() AS n FROM events
     WHERE team_id = {team:Int64} AND event = '${SENT}' AND timestamp >= fromUnixTimestamp64Milli({from:Int64})
       AND uuid IN (SELECT argMax(uuid, timestamp) FROM events WHERE team_id = {team:Int64} AND event = '${SENT}'
         GROUP BY ${surveyId}, if(${submission} = '', toString(uuid), ${submission}))
     GROUP BY survey`,
    { team: teamId, from },
    { signal },
  )
  return new Map(rows.map((r) => [r.survey, Number(r.n)]))
}
