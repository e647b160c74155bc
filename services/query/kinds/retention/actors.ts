// The actors behind a retention cell (PostHog's InsightActorsQuery with a RetentionQuery source, `interval` the
// cohort's index and `breakdown` its value as a list): the same per-actor rows as the answer's counts (plan.ts),
// kept where the cohort interval and breakdown value match; `appearances` lists the intervals from the cohort's
// each actor counts in. The ActorsQuery joins them to the persons and pages them.
import { wrenError } from '../../../platform/errors'
import type { ActorsPoint, ActorsSql, QueryRun } from '../../kind'
import { planRetention, type RetentionPlanDeps } from './plan'
import { valueLabels, type RetentionRequest } from './model'

export async function retentionActors(
  deps: RetentionPlanDeps,
  run: QueryRun,
  request: RetentionRequest,
  point: ActorsPoint,
): Promise<ActorsSql> {
  const plan = await planRetention(deps, run.project, request, { now: run.now, viewer: run.viewer, distinctIds: true })
  const { params } = plan
  const conditions: string[] = []
  if (point.interval !== null) {
    if (point.interval >= plan.range.starts.length)
      throw wrenError('invalid_input', `interval must be a cohort of the range: 0 to ${plan.range.starts.length - 1}.`, 'source.interval')
    conditions.push(`s = ${params.add('Int64', point.interval)}`)
  }
  const asked = point.breakdown
  if (asked !== null && asked !== undefined) {
    if (request.breakdown === null) throw wrenError('invalid_input', 'The retention query has no breakdown.', 'source.breakdown')
    // PostHog's: a list of the breakdown's values, joined with '::' (a cohort breakdown: the cohort's id first).
    if (!Array.isArray(asked) || asked.length === 0)
      throw wrenError('invalid_input', 'breakdown must be a list of the breakdown values, e.g. ["Chrome"].', 'source.breakdown')
    const value = request.breakdownType === 'cohort' ? String(asked[0] === 'all' ? 0 : asked[0]) : asked.map(String).join('::')
    conditions.push(`pv = ${params.add('String', value)}`)
  }
  const sql = `SELECT actor AS actor_id, sum(events) AS event_count, arrayDistinct(groupArrayArray(distinct_ids)) AS event_distinct_ids,
      arraySort(groupArrayArray(ks)) AS appearances
    FROM (${plan.actorRows}) ${conditions.length ? `WHERE ${conditions.join(' AND ')}` : ''} GROUP BY actor`
  // PostHog's retention actors' columns: the intervals each counts in, and one flag per interval ("day_3").
  const columns: Record<string, string> = { appearances: 'source.appearances' }
  for (let i = 0; i < valueLabels(request).length; i++) columns[`${request.period}_${i}`] = `has(source.appearances, ${i})`
  return { sql, params: params.values, columns, ...(request.aggregationGroup === null ? {} : { groupTypeIndex: request.aggregationGroup }) }
}
