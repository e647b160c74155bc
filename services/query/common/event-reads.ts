// What one insight query over the events reads with: its parameters, the person of each event (with the
// merges since, when the project has any), the sessions it joins, the cohorts and actions it resolves, the
// persons the viewer may not see, and how a series' event or action reads as SQL. Built once per query.
import type { ClickHouseClient } from '../../platform/clickhouse'
import { SqlParams } from '../../platform/clickhouse/params'
import type { PersonalApiKey, Project } from '../../platform/tenancy'
import { hiddenPersons, visibleEventsSql } from '../../platform/http/hidden-persons'
import type { Action } from '../../actions/store'
import { actionSql } from '../../actions/match'
import type { Cohort } from '../../cohorts/store'
import { cohortResolver } from '../../cohorts/membership'
import { compileHogql } from '../../analytics/sql/hogql'
import { EventPersonId, hasPersonOverrides } from '../../analytics/sql/persons-sql'
import { compileGroup, eventColumns, type FilterContext } from '../../analytics/property-filters/sql'
import type { PropertyColumnSource } from '../../analytics/sql/materialized-properties'
import type { PropertyNode } from '../../analytics/property-filters/parse'
import { SessionColumns } from '../../analytics/sql/sessions'
import { eventsSource, type EventsSource } from '../../analytics/sql/events-source'
import { instantParam, resolveRange, type DateRangeInput } from './dates'
import type { SeriesEntity } from './series'
import type { BreakdownContext } from './breakdown-sql'

export interface EventReadsDeps {
  clickhouse: ClickHouseClient
  materialized?: PropertyColumnSource
}

export interface EventReads {
  params: SqlParams
  personId: EventPersonId
  sessions: SessionColumns
  filters: FilterContext
  /** `team_id = …` */
  team: string
  /** The condition leaving out the events of persons the viewer may not see ('1' when none). */
  visible: string
  /** A HogQL expression over the events as SQL; `attr` names the field a bad one is a 400 on (default: breakdown); `alias`: the events' name in it. */
  hogql(expr: string, attr?: string, alias?: string): string
  /** A property group as SQL ('1' when empty). */
  where(group: PropertyNode): string
  /** The events of a series' event (any event: '1') or action, and its properties. */
  entity(e: SeriesEntity): string
  /** The events of a series' event or action, its properties aside. */
  named(e: SeriesEntity): string
  /** What a breakdown's SQL is built with (breakdown-sql.ts). */
  breakdown: BreakdownContext
  /** A wall time of the project as a DateTime64(6, 'UTC') SQL parameter. */
  instant(wall: Date): string
  /** The events table and its joins, once every condition is compiled. */
  source(bounds?: { from?: string; to?: string }): EventsSource
}

export async function eventReads(
  deps: EventReadsDeps,
  project: Project,
  definitions: { actions: Map<number, Action>; cohorts: Map<number, Cohort> },
  opts: { now: Date; viewer?: PersonalApiKey; tz: string; weekStartDay: number } & (
    | { rangeInput: DateRangeInput }
    /** A filter's date value as a wall time of the project, when the query reads it otherwise than its range's date_from. */
    | { filterDate: (value: string) => Date }
  ),
): Promise<EventReads> {
  const { clickhouse } = deps
  const { tz, weekStartDay, now } = opts
  const params = new SqlParams()
  const personId = new EventPersonId(await hasPersonOverrides(clickhouse, project.id))
  const sessions = new SessionColumns()
  const filters: FilterContext = {
    params,
    sessions,
    columns: eventColumns(personId, deps.materialized),
    cohortMembers: cohortResolver(project.id, definitions.cohorts, params),
    dateParam: (v) => {
      const wall =
        'filterDate' in opts
          ? opts.filterDate(v)
          : resolveRange({ ...opts.rangeInput, dateFrom: v, dateTo: null, exact: true }, now, tz, weekStartDay).from
      return params.add('String', instantParam(wall, tz))
    },
  }
  const team = `team_id = ${params.add('Int64', project.id)}`
  const hidden = opts.viewer ? await hiddenPersons(clickhouse, opts.viewer, project.id) : null
  const named = (e: SeriesEntity) =>
    e.kind === 'actions'
      ? actionSql(definitions.actions.get(Number(e.id))!, filters)
      : e.id === null
        ? '1'
        : `event = ${params.add('String', String(e.id))}`
  const hogql = (expr: string, attr?: string, alias?: string) => compileHogql(expr, params, personId, { sessions, attr, alias })
  return {
    params,
    personId,
    sessions,
    filters,
    team,
    visible: hidden ? visibleEventsSql(hidden, params) : '1',
    hogql,
    where: (group) => compileGroup(group, filters),
    entity: (e) => allOf([named(e), compileGroup(e.properties, filters)]),
    named,
    breakdown: {
      params,
      hogql: (expr) => hogql(expr),
      cohortMembers: filters.cohortMembers,
      sessions,
      personId,
      materialized: filters.columns.materialized,
    },
    instant: (wall) => `toDateTime64(${params.add('String', instantParam(wall, tz))}, 6, 'UTC')`,
    source: (bounds = {}) => eventsSource(team, { sessions, personId }, sessions.used ? bounds : {}),
  }
}

/** Conditions joined with AND, the always-true ones ('1') left out. */
export const allOf = (conditions: string[]): string => conditions.filter((c) => c !== '1').join(' AND ') || '1'
