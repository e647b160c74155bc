// Planning a trend: the request resolved against the project — dates, actions, cohorts, the persons the
// viewer may not see — into the one query to run (SQL and its parameters) and what shaping its rows needs.
// What the plan reads besides definitions is what the SQL depends on: the earliest event (for "all"),
// whether the project has person merges, and the hidden persons.
import { wrenError } from '../../../platform/errors'
import type { SqlParams } from '../../../platform/clickhouse/params'
import type { PersonalApiKey, Project } from '../../../platform/tenancy'
import type { Action, ActionStore } from '../../../actions/store'
import type { Cohort, CohortStore } from '../../../cohorts/store'
import { previousRange, rangeInputOf, resolveRange, weekStartOf, type DateRange } from '../../common/dates'
import { breakdownExpr } from '../../common/breakdown-sql'
import { eventReads, type EventReadsDeps } from '../../common/event-reads'
import { actorsSelect, buildTrendQuery, type QueryInput, type ResolvedSeries, type TrendPoint } from './query'
import { PROPERTY_MATHS, type SeriesEntity } from '../../common/series'
import { entityActions, queryDefinitions } from '../../common/definitions'
import { isTotalValue, type TrendRequest } from './request'

/** `materialized`: event properties stored as columns; the trends' reads from the JSON tell it which to add. */
export interface TrendPlanDeps extends EventReadsDeps {
  actions: Pick<ActionStore, 'list'>
  cohorts: Pick<CohortStore, 'list'>
}

export interface TrendPlan {
  teamId: number
  tz: string
  weekStartDay: number
  /** The instant the dates were resolved at. */
  now: Date
  request: TrendRequest
  totalValue: boolean
  cumulative: boolean
  /** The series left (a deleted action's is dropped), in order, with their display names. */
  names: Array<{ entity: SeriesEntity; name: string }>
  /** Every cohort a filter or the breakdown could reach, by id. */
  cohorts: Map<number, Cohort>
  /** The asked range, then the compared one. */
  periods: DateRange[]
  /** The one query; null when no series is left to count. */
  query: { sql: string; params: SqlParams } | null
  /** Per series: whether its numbers are floats (for CSV). */
  floats: boolean[]
}

/**
 * The actions the request's series name, deleted ones included; one this project never had (another
 * project's id) is a 400. An insight is checked with it when it is saved, so that it is never saved uncomputable.
 */
export async function seriesActions(
  deps: Pick<TrendPlanDeps, 'actions'>,
  project: Project,
  request: TrendRequest,
): Promise<Map<number, Action>> {
  return entityActions(deps, project, request.series, 'actions')
}

/**
 * The definitions a trend resolves: what its answer depends on besides the query and the data (kind.ts
 * definitions). A deleted action's series are dropped.
 */
export const trendDefinitions = (deps: Pick<TrendPlanDeps, 'actions' | 'cohorts'>, project: Project, request: TrendRequest) =>
  queryDefinitions(deps, project, { ...request, entities: request.series, attr: 'actions', dropDeleted: true })

/** `viewer`: the key asking; events of persons it may not see are left out. */
export async function planTrend(
  deps: TrendPlanDeps,
  project: Project,
  request: TrendRequest,
  opts: { now: Date; viewer?: PersonalApiKey; point?: TrendPoint },
): Promise<TrendPlan> {
  const { clickhouse } = deps
  const now = opts.now
  const tz = project.timezone || 'UTC'
  const weekStartDay = weekStartOf(project)
  const totalValue = isTotalValue(request.display)
  const cumulative = request.display === 'ActionsLineGraphCumulative'
  const definitions = await trendDefinitions(deps, project, request)
  const { globalProperties, actions, cohorts } = definitions
  const series = request.series.filter((s) => s.kind === 'events' || actions.has(Number(s.id)))

  const rangeInput = await rangeInputOf(
    clickhouse,
    project.id,
    request,
    totalValue ? 'day' : request.interval,
    request.display === 'BoldNumber',
  )
  const current = resolveRange(rangeInput, now, tz, weekStartDay)
  const periods = request.compare ? [current, previousRange(current, rangeInput, request.compareTo)] : [current]

  const reads = await eventReads(deps, project, definitions, { now, viewer: opts.viewer, tz, weekStartDay, rangeInput })
  const { params } = reads
  const resolved: ResolvedSeries[] = series.map((entity) => ({ entity, condition: reads.named(entity) }))
  const names = series.map((entity) => ({
    entity,
    name: entity.kind === 'actions' ? actions.get(Number(entity.id))!.name : entity.id === null ? 'All events' : String(entity.id),
  }))
  if (request.formula && series.length === 0) throw wrenError('invalid_formula', 'The formula has no series to combine.', 'formula')
  const plan: TrendPlan = {
    teamId: project.id,
    tz,
    weekStartDay,
    now,
    request,
    totalValue,
    cumulative,
    names,
    cohorts,
    periods,
    query: null,
    floats: request.formula
      ? [true]
      : series.map(
          (s) => (PROPERTY_MATHS as readonly string[]).includes(s.math) || s.math.endsWith('_count_per_actor') || s.math === 'hogql',
        ),
  }
  if (series.length === 0) return plan

  const breakdown = breakdownExpr(request, reads.breakdown)
  const input: QueryInput = {
    teamId: project.id,
    request,
    series: resolved,
    periods,
    totalValue,
    cumulative,
    params,
    filters: reads.filters,
    globalProperties,
    visible: reads.visible,
    breakdown,
    hogql: reads.breakdown.hogql,
    sessions: reads.sessions,
    personId: reads.personId,
  }
  // The trend's numbers, or the persons behind one of them (an ActorsQuery's source, actors.ts).
  const sql = opts.point ? actorsSelect(input, opts.point) : buildTrendQuery(input)
  return { ...plan, query: { sql, params } }
}
