// The actors behind a lifecycle's point (PostHog's LifecycleQueryRunner.to_actors_query): the persons whose
// status in the period of `day` is `status` (either may be left out), from the same statuses as the counts.
import { wrenError } from '../../../platform/errors'
import { toWall } from '../../../analytics/time/wall-time'
import type { ActorsPoint, ActorsSql, QueryRun } from '../../kind'
import { STATUSES, type LifecycleRequest, type LifecycleStatus } from './model'
import { keyOf, planLifecycle, withSettings, type LifecyclePlanDeps } from './plan'

export async function lifecycleActors(
  deps: LifecyclePlanDeps,
  run: QueryRun,
  request: LifecycleRequest,
  point: ActorsPoint,
): Promise<ActorsSql> {
  const status = point.status
  if (status !== null && !(STATUSES as readonly string[]).includes(status))
    throw wrenError('invalid_input', `status must be one of ${STATUSES.join(', ')}.`, 'source.status')
  const plan = await planLifecycle(deps, run.project, request, { now: run.now, viewer: run.viewer })
  const { params } = plan.reads
  const conditions: string[] = []
  if (point.day !== null) conditions.push(`k = ${params.add('Int64', keyOf(plan, dayWall(point.day, plan.tz)))}`)
  if (status !== null) conditions.push(`status = ${params.add('UInt8', STATUSES.indexOf(status as LifecycleStatus))}`)
  const sql = withSettings(
    `SELECT actor_id, any(event_count) AS event_count, any(event_distinct_ids) AS event_distinct_ids FROM (${plan.statuses(true)})
    ${conditions.length ? `WHERE ${conditions.join(' AND ')}` : ''} GROUP BY actor_id`,
    plan,
  )
  return { sql, params: params.values, ...(request.aggregationGroup === null ? {} : { groupTypeIndex: request.aggregationGroup }) }
}

/** A lifecycle's `days` entry (2024-05-01, 2024-05-01 10:00:00, or an ISO instant) as a wall time of the project. */
function dayWall(day: string | number, tz: string): Date {
  const text = String(day)
  const m = /^(\d{4})-(\d\d)-(\d\d)(?:[ T](\d\d):(\d\d)(?::(\d\d))?)?(Z|[+-]\d\d:?\d\d)?$/.exec(text)
  if (!m) throw wrenError('invalid_input', `day must be a date of the lifecycle, such as 2024-05-01, got '${text}'.`, 'source.day')
  const [, y, mo, d, h = '0', mi = '0', s = '0', zone] = m
  if (zone) return toWall(new Date(text.replace(' ', 'T')), tz)
  return new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)))
}
