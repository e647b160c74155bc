// The persons behind a point of a paths chart (PostHog's PathsQuery to_actors_query, an ActorsQuery's source):
// the same per-step rows as the edges (plan.ts), kept where the point's keys match — `pathDropoffKey` those whose
// path ended at that step, else `pathStartKey` the step before and `pathEndKey` the step — one row per person,
// with how many of its steps matched.
import type { ActorsPoint, ActorsSql, QueryRun } from '../../kind'
import { planPaths, type PathsPlanDeps } from './plan'
import type { PathsRequest } from './model'

export async function pathsActors(deps: PathsPlanDeps, run: QueryRun, request: PathsRequest, _point: ActorsPoint): Promise<ActorsSql> {
  const plan = await planPaths(deps, run, request)
  const { params } = plan
  const key = (v: string) => params.add('String', v)
  const conditions: string[] = []
  if (request.pathDropoffKey !== null) conditions.push(`dropoff_key = ${key(request.pathDropoffKey)} AND dropoff_key = path_key`)
  else {
    if (request.pathStartKey !== null) conditions.push(`last_path_key = ${key(request.pathStartKey)}`)
    if (request.pathEndKey !== null) conditions.push(`path_key = ${key(request.pathEndKey)}`)
  }
  const sql = `SELECT actor AS actor_id, count() AS event_count, CAST([] AS Array(String)) AS event_distinct_ids
    FROM (${plan.stepRows})${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''} GROUP BY actor`
  return { sql, params: params.values }
}
