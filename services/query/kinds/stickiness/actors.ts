// The actors behind a stickiness point (PostHog's StickinessQueryRunner.to_actors_query, from a
// StickinessActorsQuery or an InsightActorsQuery): of the point's series (and compared period), those active on
// exactly `day` intervals, or as `operator` compares (gte, lte), or with cumulative, on `day` or more.
import { wrenError } from '../../../platform/errors'
import type { ActorsPoint, ActorsSql, QueryRun } from '../../kind'
import type { StickinessRequest } from './model'
import { planStickiness, withSettings, type StickinessPlanDeps } from './plan'

export async function stickinessActors(
  deps: StickinessPlanDeps,
  run: QueryRun,
  request: StickinessRequest,
  point: ActorsPoint,
): Promise<ActorsSql> {
  if (point.series >= request.series.length)
    throw wrenError('invalid_input', `series ${point.series}: the stickiness has ${request.series.length} series.`, 'source.series')
  const previous = point.compare === 'previous'
  if (previous && !request.compare)
    throw wrenError('invalid_input', "compare: 'previous' needs a stickiness that compares.", 'source.compare')
  let day: number | null = null
  if (point.day !== null) {
    day = Number(point.day)
    if (!Number.isInteger(day) || day < 1)
      throw wrenError('invalid_input', 'day must be the number of intervals (an integer of at least 1).', 'source.day')
  }
  const plan = await planStickiness(deps, run.project, request, { now: run.now, viewer: run.viewer })
  const index = plan.slots.findIndex((s) => s.series === point.series && s.previous === previous)
  const group = plan.groups[index] ?? null
  if (!plan.persons[index] && group === null)
    throw wrenError('unsupported', 'The actors of a stickiness of HogQL values are not listed: only persons and groups.', 'source.source')
  const { params } = plan.reads
  const conditions = [`slot = ${index}`]
  if (day !== null) {
    const op = request.cumulative ? '>=' : { exact: '=', gte: '>=', lte: '<=' }[point.operator ?? 'exact']
    conditions.push(`num_intervals ${op} ${params.add('Int64', day)}`)
  }
  const sql = withSettings(
    `SELECT ${group === null ? 'toUUID(toString(actor))' : 'toString(actor)'} AS actor_id, event_count, CAST([] AS Array(String)) AS event_distinct_ids
    FROM (${plan.actorIntervals}) WHERE ${conditions.join(' AND ')}`,
    plan,
  )
  return { sql, params: params.values, ...(group === null ? {} : { groupTypeIndex: group }) }
}
