// A breakdown as SQL: the expression giving each event's breakdown value, for every breakdown type the insight
// kinds take (event, person, group, event metadata, HogQL, session, cohort; several properties at once). The
// labels PostHog gives the missing value and the values ranked after a page are here too.
import { wrenError } from '../../platform/errors'
import type { SqlParams } from '../../platform/clickhouse/params'
import type { PersonIdColumn } from '../../analytics/sql/persons-sql'
import { jsonValue } from '../../analytics/property-filters/sql'
import type { PropertyColumnSource } from '../../analytics/sql/materialized-properties'
import type { SessionColumns } from '../../analytics/sql/sessions'
import type { BreakdownFields, BreakdownType } from './breakdown'

export const NULL_LABEL = '$$_posthog_breakdown_null_$$'
export const OTHER_LABEL = '$$_posthog_breakdown_other_$$'

export interface BreakdownPlan {
  /** A String expression per event, or for cohorts an Array(String) expression to arrayJoin. */
  expr: string
  multi: boolean
}

/** Separates the values of a multi-property breakdown inside one String. */
export const MULTI_SEPARATOR = '\u001f'

/** What a breakdown expression is built with: the query's parameters and its readers of HogQL, cohorts, sessions and persons. */
export interface BreakdownContext {
  params: SqlParams
  hogql(expr: string): string
  cohortMembers(id: number): string
  sessions: SessionColumns
  personId: PersonIdColumn
  /** Event properties stored as columns of their own. */
  materialized: PropertyColumnSource
}

/** The breakdown value of an event as a String (missing or empty: NULL_LABEL); a cohort breakdown's is an Array(String). */
export function breakdownExpr(request: BreakdownFields, ctx: BreakdownContext): BreakdownPlan | null {
  if (request.breakdown === null) return null
  if (request.breakdowns) {
    const parts = request.breakdowns.map((b) =>
      singleBreakdown({ key: b.property, type: b.type, normalizeUrl: b.normalizeUrl, groupTypeIndex: b.groupTypeIndex }, ctx),
    )
    return { expr: parts.length === 1 ? parts[0] : `concat(${parts.join(', char(31), ')})`, multi: false }
  }
  if (request.breakdownType === 'cohort') return cohortBreakdown(request.breakdown, ctx)
  return {
    expr: singleBreakdown(
      {
        key: String(request.breakdown),
        type: request.breakdownType,
        normalizeUrl: request.breakdownNormalizeUrl,
        groupTypeIndex: request.breakdownGroupTypeIndex,
      },
      ctx,
    ),
    multi: false,
  }
}

interface SingleBreakdown {
  key: string
  type: Exclude<BreakdownType, 'cohort'>
  normalizeUrl: boolean
  groupTypeIndex: number | null
}

function singleBreakdown(b: SingleBreakdown, ctx: BreakdownContext): string {
  const { params, hogql, sessions } = ctx
  const nullable = (expr: string) => {
    const v = `ifNull(nullIf(${expr}, ''), '${NULL_LABEL}')`
    return b.normalizeUrl ? `if(empty(trimRight(${v}, '/?#')), '/', trimRight(${v}, '/?#'))` : v
  }
  const json = (column: string, materialized?: PropertyColumnSource) => nullable(jsonValue(column, b.key, params, materialized))
  switch (b.type) {
    case 'event':
      return json('properties', ctx.materialized)
    case 'person':
      return json('person_properties')
    case 'group':
      return json(`group${b.groupTypeIndex ?? 0}_properties`)
    case 'event_metadata': {
      const columns: Record<string, string> = {
        distinct_id: 'distinct_id',
        event: 'event',
        $session_id: '`$session_id`',
        $window_id: '`$window_id`',
      }
      for (let i = 0; i < 5; i++) columns[`$group_${i}`] = `\`$group_${i}\``
      const column = b.key === 'person_id' ? `toString(${ctx.personId.sql})` : Object.hasOwn(columns, b.key) ? columns[b.key] : undefined
      if (!column) throw wrenError('invalid_input', `Unknown event metadata breakdown '${b.key}'.`, 'breakdown')
      return nullable(column)
    }
    case 'hogql':
      return nullable(`toString(${hogql(b.key)})`)
    case 'session':
      return nullable(sessions.value(b.key))
  }
}

function cohortBreakdown(key: NonNullable<BreakdownFields['breakdown']>, ctx: BreakdownContext): BreakdownPlan {
  const { params, cohortMembers } = ctx
  const ids = Array.isArray(key) ? key : [key]
  if (ids.length === 0) throw wrenError('invalid_input', 'A cohort breakdown needs cohort ids.', 'breakdown')
  const parts = ids.map((id) => {
    if (id === 'all' || id === 0 || id === '0') return `'all'`
    const n = Number(id)
    if (!Number.isInteger(n) || n <= 0) throw wrenError('invalid_input', `breakdown: '${id}' is not a cohort id.`, 'breakdown')
    return `if(${ctx.personId.sql} IN (${cohortMembers(n)}), ${params.add('String', String(n))}, '')`
  })
  return { expr: `arrayFilter(x -> x != '', [${parts.join(', ')}])`, multi: true }
}
