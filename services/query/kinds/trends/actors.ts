// The persons behind one point of a trend (PostHog's TrendsQueryRunner.to_actors_query): the InsightActorsQuery's
// `series`, `day`, `breakdown` and `compare` resolved against the trend, and the plan's own conditions (plan.ts
// with a point: query.ts actorsSelect) selecting the persons instead of counting them.
import { wrenError } from '../../../platform/errors'
import type { ActorsPoint, ActorsSql, QueryRun } from '../../kind'
import { planTrend, type TrendPlanDeps } from './plan'
import { groupActorOf, type TrendPoint } from './query'
import { MULTI_SEPARATOR } from '../../common/breakdown-sql'
import type { TrendRequest } from './request'

export async function trendActors(deps: TrendPlanDeps, run: QueryRun, request: TrendRequest, point: ActorsPoint): Promise<ActorsSql> {
  const resolved: TrendPoint = {
    series: point.series,
    period: point.compare === 'previous' ? 1 : 0,
    bucket: bucketOf(point.day),
    breakdown: breakdownOf(point.breakdown),
  }
  if (point.series >= request.series.length)
    throw wrenError('invalid_input', `series ${point.series}: the trend has ${request.series.length} series.`, 'series')
  if (resolved.period === 1 && !request.compare)
    throw wrenError('invalid_input', "compare: 'previous' needs a trend that compares.", 'compare')
  const plan = await planTrend(deps, run.project, request, { now: run.now, viewer: run.viewer, point: resolved })
  if (!plan.query) throw wrenError('invalid_input', 'The trend has no series left to count (its actions were deleted).', 'series')
  const group = groupActorOf(request.series[point.series])
  return { sql: plan.query.sql, params: plan.query.params.values, ...(group === null ? {} : { groupTypeIndex: group }) }
}

/** A trend's `days` entry (`2024-05-01`, `2024-05-01 10:00:00`, or with a `T`) as its bucket's wall date-time. */
function bucketOf(day: ActorsPoint['day']): string | null {
  if (day === null) return null
  const m = /^(\d{4}-\d\d-\d\d)(?:[ T](\d\d:\d\d)(:\d\d)?)?/.exec(String(day))
  if (!m) throw wrenError('invalid_input', `day must be a date of the trend, such as 2024-05-01, got '${String(day)}'.`, 'day')
  return `${m[1]} ${m[2] ?? '00:00'}${m[3] ?? ':00'}`
}

/** A breakdown value as the trend's rows hold it: a multi-property one's parts joined, a cohort id as text. */
function breakdownOf(value: unknown): string | null {
  if (value === null || value === undefined) return null
  if (Array.isArray(value)) return value.map(String).join(MULTI_SEPARATOR)
  if (typeof value === 'string' || typeof value === 'number') return String(value)
  throw wrenError(
    'invalid_input',
    'breakdown must be the breakdown value of the point (a string, a number or a list of them).',
    'breakdown',
  )
}
