// The person an event counts for. Events keep the person_id they were ingested with; when a distinct id
// later moved to another person (a merge), its person_distinct_id row has version >= 1, and that row
// overrides the stored person_id (persons-on-events with overrides, as PostHog does).
export const PERSON_ID = "if(override_person_id = toUUID('00000000-0000-0000-0000-000000000000'), person_id, override_person_id)"

/** Where a query that uses PERSON_ID gets the override join (see resolvePersonOverrides). */
export const PERSON_OVERRIDES = '__wren_person_overrides__'

/**
 * Puts the override join where the query builder marked it, or, when the project has no moved distinct
 * ids at all, reads person_id directly (no join, the common case).
 */
export function resolvePersonOverrides(sql: string, hasOverrides: boolean, teamParam: string): string {
  if (!sql.includes(PERSON_OVERRIDES)) return sql
  if (hasOverrides) return sql.split(PERSON_OVERRIDES).join(personOverrideJoin(teamParam))
  return sql.split(PERSON_OVERRIDES).join('').split(PERSON_ID).join('person_id')
}

/** Joined into a trend query only when its SQL uses PERSON_ID. */
export function personOverrideJoin(teamParam: string): string {
  return `LEFT JOIN (SELECT distinct_id AS override_distinct_id, argMax(person_uuid, version) AS override_person_id
    FROM person_distinct_id WHERE ${teamParam} GROUP BY distinct_id
    HAVING max(version) >= 1 AND argMax(is_deleted, version) = 0) AS overrides ON distinct_id = overrides.override_distinct_id`
}
