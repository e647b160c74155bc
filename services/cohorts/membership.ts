// A cohort's current members as a SQL subquery of person uuids: dynamic cohorts match the latest person
// properties against their property groups (which may name other cohorts); static cohorts map their
// distinct ids to the persons those ids belong to now.
import { wrenError } from '../platform/errors'
import { isRecord } from '../platform/json'
import type { SqlParams } from '../platform/clickhouse/params'
import { checkHogqlFilters, compileGroup, PERSON_COLUMNS } from '../analytics/property-filters/sql'
import { isGroup, parsePropertyGroup, type PropertyGroup, type PropertyNode } from '../analytics/property-filters/parse'
import type { Cohort } from './store'

/** The cohort's definition as one property group: `filters.properties`, or legacy `groups` (OR of ANDs). */
export function cohortGroup(filters: unknown, groups?: unknown): PropertyGroup {
  if (isRecord(filters) && filters.properties !== undefined) return parsePropertyGroup(filters.properties, 'filters.properties')
  if (Array.isArray(groups)) {
    return {
      type: 'OR',
      values: groups.map((g, i) => {
        if (!isRecord(g)) throw wrenError('invalid_input', `groups[${i}] must be an object with properties.`, 'groups')
        return parsePropertyGroup(g.properties ?? [], `groups[${i}].properties`)
      }),
    }
  }
  return { type: 'AND', values: [] }
}

/** Only person, cohort and HogQL filters (over the person: properties.<key>) can define a cohort here. */
export function validateCohortGroup(group: PropertyNode): void {
  if (isGroup(group)) return group.values.forEach(validateCohortGroup)
  if (group.type === 'hogql') return checkHogqlFilters(group, 'persons', 'filters')
  if (group.type !== 'person' && group.type !== 'cohort') {
    throw wrenError(
      'unsupported',
      `Cohorts are defined by person properties and other cohorts; '${group.type}' filters (e.g. behavioral) are not supported.`,
      'filters',
    )
  }
}

export function cohortIdsIn(node: PropertyNode): number[] {
  if (isGroup(node)) return node.values.flatMap(cohortIdsIn)
  if (node.type !== 'cohort') return []
  return (Array.isArray(node.value) ? node.value : [node.value]).map(Number)
}

const LATEST_PERSONS = (team: string) => `
  SELECT uuid, argMax(properties, version) AS properties, argMax(is_deleted, version) AS person_deleted
  FROM person WHERE team_id = ${team} GROUP BY uuid HAVING person_deleted = 0`

/** Returns `membersSql(id)`; unknown ids and cycles are 400s. */
export function cohortResolver(teamId: number, cohorts: Map<number, Cohort>, params: SqlParams): (id: number) => string {
  const team = params.add('Int64', teamId)
  const compiled = new Map<number, string>()
  const stack: number[] = []
  const members = (id: number): string => {
    const done = compiled.get(id)
    if (done) return done
    const cohort = cohorts.get(id)
    if (!cohort) throw wrenError('invalid_input', `Cohort ${id} does not exist in this project.`, 'properties')
    if (stack.includes(id)) throw wrenError('invalid_input', `Cohort ${id} refers to itself through ${stack.join(' → ')}.`, 'properties')
    stack.push(id)
    let sql: string
    if (cohort.isStatic) {
      sql = `SELECT person_uuid FROM (
        SELECT distinct_id, argMax(person_uuid, version) AS person_uuid, argMax(is_deleted, version) AS id_deleted
        FROM person_distinct_id WHERE team_id = ${team}
          AND distinct_id IN (SELECT distinct_id FROM cohort_static_members WHERE team_id = ${team} AND cohort_id = ${params.add('UInt64', id)})
        GROUP BY distinct_id HAVING id_deleted = 0)`
    } else {
      const group = cohortGroup(cohort.filters)
      const where =
        group.values.length === 0
          ? '0'
          : compileGroup(group, { params, columns: PERSON_COLUMNS, cohortMembers: members, dateParam: (v) => params.add('String', v) })
      sql = `SELECT uuid FROM (${LATEST_PERSONS(team)}) WHERE ${where}`
    }
    stack.pop()
    compiled.set(id, sql)
    return sql
  }
  return members
}
