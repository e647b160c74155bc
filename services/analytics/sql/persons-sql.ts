// The person an event counts for. Events keep the person_id they were ingested with; when a distinct id
// later moved to another person (a merge), its person_distinct_id row has version >= 1, and that row
// overrides the stored person_id (persons-on-events with overrides, as PostHog does).
import type { ClickHouseClient } from '../../platform/clickhouse'
import { queryRows } from '../../platform/clickhouse'

const OVERRIDDEN_PERSON_ID = "if(override_person_id = toUUID('00000000-0000-0000-0000-000000000000'), person_id, override_person_id)"

/** Where a filter compiler reads the person id of a row: a column of the persons table, or an events row's person. */
export interface PersonIdColumn {
  readonly sql: string
}

/**
 * The person of each events row, as one query reads it; the query builder chooses it once, from
 * whether the project has any moved distinct id. Without one, person_id is read as stored (no join,
 * the common case); with one, reading `sql` marks the query as needing the override join.
 */
export class EventPersonId implements PersonIdColumn {
  private read = false

  constructor(private readonly overrides: boolean) {}

  get sql(): string {
    this.read = true
    return this.overrides ? OVERRIDDEN_PERSON_ID : 'person_id'
  }

  /** The join the events table needs for `sql` ('' when no part of the query read the person id, or nothing moved). */
  join(teamCondition: string): string {
    if (!this.read || !this.overrides) return ''
    return `LEFT JOIN (SELECT distinct_id AS override_distinct_id, argMax(person_uuid, version) AS override_person_id
    FROM person_distinct_id WHERE ${teamCondition} GROUP BY distinct_id
    HAVING max(version) >= 1 AND argMax(is_deleted, version) = 0) AS overrides ON distinct_id = overrides.override_distinct_id`
  }
}

/** Whether any distinct id of the project ever moved to another person (one cheap read, LIMIT 1). */
export async function hasPersonOverrides(client: ClickHouseClient, teamId: number): Promise<boolean> {
  const [row] = await queryRows<{ n: number }>(
    client,
    'SELECT count() AS n FROM (SELECT 1 FROM person_distinct_id WHERE team_id = {team:Int64} AND version >= 1 LIMIT 1)',
    { team: teamId },
  )
  return Number(row?.n ?? 0) > 0
}
