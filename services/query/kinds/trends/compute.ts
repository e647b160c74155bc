// Computing a trend: its plan (plan.ts) run as one query, the rows shaped into PostHog's series. The cache,
// `refresh` and the envelope are the runner's (services/query/runner.ts).
import { queryRows } from '../../../platform/clickhouse'
import type { Metrics } from '../../../platform/metrics'
import type { QueryRun } from '../../kind'
import { isoInTz, type DateRange } from '../../common/dates'
import type { TrendRow } from './query'
import { PROPERTY_MATHS } from '../../common/series'
import type { TrendRequest } from './request'
import { shapeResults, type SeriesResult } from './shape'
import { planTrend, type TrendPlanDeps } from './plan'

export interface TrendDeps extends TrendPlanDeps {
  metrics?: Metrics
}

/** A TrendsQuery's part of the answer (PostHog's TrendsQueryResponse). */
export interface TrendAnswer {
  results: SeriesResult[]
  /** More breakdown values rank after this page. */
  hasMore: boolean
  resolved_date_range: { date_from: string; date_to: string }
  resolved_compare_date_range?: { date_from: string; date_to: string }
  [field: string]: unknown
}

export async function computeTrend(deps: TrendDeps, run: QueryRun, request: TrendRequest): Promise<TrendAnswer> {
  const plan = await planTrend(deps, run.project, request, { now: run.now, viewer: run.viewer })
  const { tz, periods, cohorts } = plan
  const [current, previous] = periods
  const range = (r: DateRange) => ({ date_from: isoInTz(r.from, tz), date_to: isoInTz(r.to, tz) })
  const dates = { resolved_date_range: range(current), ...(previous ? { resolved_compare_date_range: range(previous) } : {}) }
  if (plan.query === null) return { results: [], hasMore: false, ...dates }
  const { sql, params } = plan.query
  // A query ClickHouse refuses for the caller's input (a bad regex, mixed aggregates) is the caller's 400: the error handler's one rule (fromClickHouseError).
  deps.metrics?.inc('wren_trend_queries_total')
  const rows = (await queryRows<TrendRow>(deps.clickhouse, sql, params.values, { signal: run.signal })).map((r) => ({
    ...r,
    series: Number(r.series),
    period: Number(r.period),
    value: Number(r.value),
  }))
  const shaped = shapeResults({
    request,
    series: plan.names,
    periods,
    rows,
    totalValue: plan.totalValue,
    cumulative: plan.cumulative,
    filter: filterObject(request, current),
    cohortNames: new Map([...cohorts.values()].map((c) => [c.id, c.name])),
  })
  return { results: shaped.result, hasMore: shaped.hasMore, ...dates }
}

/** Per result row: whether its numbers are floats (formulas, property math, per-actor math, HogQL math), for CSV. */
export function floatsOf(result: SeriesResult[], request: TrendRequest): boolean[] {
  return result.map((r) => {
    if (request.formula) return true
    const math = String(r.action?.math ?? 'total')
    return (PROPERTY_MATHS as readonly string[]).includes(math) || math.endsWith('_count_per_actor') || math === 'hogql'
  })
}

function filterObject(request: TrendRequest, range: DateRange): Record<string, unknown> {
  const f: Record<string, unknown> = {
    insight: 'TRENDS',
    properties: request.rawProperties,
    filter_test_accounts: request.filterTestAccounts,
    date_from: isoInTz(range.from, range.tz),
    date_to: isoInTz(range.to, range.tz),
    entity_type: 'events',
    interval: request.interval,
    display: request.display,
    formula: request.formula,
    compare: request.compare || null,
    compare_to: request.compareTo,
    breakdown: request.breakdowns ? null : request.breakdown,
    breakdown_type: request.breakdown !== null && !request.breakdowns ? request.breakdownType : null,
    breakdowns: request.breakdowns?.map((b) => ({
      property: b.property,
      type: b.type,
      ...(b.groupTypeIndex !== null ? { group_type_index: b.groupTypeIndex } : {}),
    })),
    breakdown_limit: request.breakdown !== null ? request.breakdownLimit : null,
    breakdown_group_type_index: request.breakdownGroupTypeIndex,
    smoothing_intervals: request.smoothingIntervals > 1 ? request.smoothingIntervals : null,
  }
  for (const k of Object.keys(f)) if (f[k] === null || f[k] === undefined) delete f[k]
  return f
}
