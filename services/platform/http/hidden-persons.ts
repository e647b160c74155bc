// Persons a key may not see (object access level `none`) are hidden wherever person data is returned:
// the persons routes leave them out, and every events read made for that key (the events list, trends
// and their breakdowns by person properties) leaves out their events. A route that reads person-derived
// data declares `personData` (http/route.ts) and is handed these; a test holds the person-data paths to it.
import type { ClickHouseClient } from '../clickhouse'
import { queryRows } from '../clickhouse'
import { explicitLevels } from './access-controls'
import type { SqlParams } from '../clickhouse/params'
import type { PersonalApiKey } from '../tenancy'

export interface HiddenPersons {
  uuids: string[]
  /** Their distinct ids now: events whose stored person_id predates a merge are still theirs. */
  distinctIds: string[]
}

/** Null when the key sees every person (the common case: no query beyond the rules lookup). */
export async function hiddenPersons(client: ClickHouseClient, key: PersonalApiKey, teamId: number): Promise<HiddenPersons | null> {
  const levels = await explicitLevels(client, key, teamId, 'person')
  const ids = [...levels].filter(([, level]) => level === 'none').map(([id]) => Number(id))
  if (ids.length === 0) return null
  const rows = await queryRows<{ uuid: string; distinct_ids: string[] }>(
    client,
    `SELECT p.uuid AS uuid, groupArrayIf(d.distinct_id, d.distinct_id != '') AS distinct_ids
     FROM (SELECT uuid, argMax(id, version) AS id FROM person WHERE team_id = {team:Int64} GROUP BY uuid HAVING id IN {ids:Array(Int64)}) AS p
     LEFT JOIN (SELECT distinct_id, argMax(person_uuid, version) AS person_uuid, argMax(is_deleted, version) AS gone
                FROM person_distinct_id WHERE team_id = {team:Int64} GROUP BY distinct_id HAVING gone = 0) AS d ON d.person_uuid = p.uuid
     GROUP BY p.uuid`,
    { team: teamId, ids },
  )
  if (rows.length === 0) return null
  return { uuids: rows.map((r) => r.uuid), distinctIds: rows.flatMap((r) => r.distinct_ids) }
}

/** A condition on the events table: true for the events the key may see. */
export function visibleEventsSql(hidden: HiddenPersons, params: SqlParams): string {
  return `NOT (person_id IN ${params.add('Array(UUID)', hidden.uuids)} OR distinct_id IN ${params.add('Array(String)', hidden.distinctIds)})`
}
