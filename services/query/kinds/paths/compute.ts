// Computing paths: the plan's per-step rows (plan.ts) counted into edges in one query, and the edges no path
// from a first step reaches dropped, as PostHog's validate_results does.
import { queryRows } from '../../../platform/clickhouse'
import type { QueryRun } from '../../kind'
import { isoInTz } from '../../common/dates'
import { planPaths, type PathsPlan, type PathsPlanDeps } from './plan'
import { edgesSql } from './sql'
import type { PathsRequest } from './model'

export type PathsDeps = PathsPlanDeps

/** One edge of the answer (PostHog's PathsLink): `value` sessions took it, `average_conversion_time` in milliseconds. */
export interface PathsLink {
  source: string
  target: string
  value: number
  average_conversion_time: number
}

export const withSettings = (sql: string, plan: PathsPlan) => (plan.settings ? `${sql} SETTINGS ${plan.settings}` : sql)

export async function computePaths(deps: PathsDeps, run: QueryRun, request: PathsRequest): Promise<Record<string, unknown>> {
  const plan = await planPaths(deps, run, request)
  const sql = edgesSql(plan.stepRows, { limit: request.edgeLimit, min: request.minEdgeWeight, max: request.maxEdgeWeight })
  const rows = await queryRows<{ source: string; target: string; value: number | string; average_time: number | string }>(
    deps.clickhouse,
    withSettings(sql, plan),
    plan.params.values,
    { signal: run.signal },
  )
  const results: PathsLink[] = reachable(rows).map((r) => ({
    source: r.source,
    target: r.target,
    value: Number(r.value),
    average_conversion_time: Number(r.average_time) * 1000,
  }))
  return {
    results,
    resolved_date_range: { date_from: isoInTz(plan.range.from, plan.tz), date_to: isoInTz(plan.range.to, plan.tz) },
  }
}

/**
 * The edges a path from a first step (`1_…`) reaches, in their order: the edge limit can cut the edges that led
 * to an edge, which then has no way in (PostHog's validate_results).
 */
export function reachable<E extends { source: string; target: string }>(edges: E[]): E[] {
  const next = new Map<string, string[]>()
  for (const e of edges) next.set(e.source, [...(next.get(e.source) ?? []), e.target])
  const seen = new Set<string>()
  const stack = edges.filter((e) => e.source.startsWith('1_')).map((e) => e.source)
  while (stack.length) {
    const node = stack.pop()!
    if (seen.has(node)) continue
    seen.add(node)
    for (const target of next.get(node) ?? []) if (!seen.has(target)) stack.push(target)
  }
  return edges.filter((e) => seen.has(e.source))
}
