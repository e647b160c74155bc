// Computing retention: its plan (plan.ts) aggregated into the answer's cells in one query, shaped into PostHog's
// cohort rows (retention_query_runner.py format_results): per breakdown value, one row per cohort interval with
// `values` of every return interval (0 where no one came back, or in the future).
import { queryRows } from '../../../platform/clickhouse'
import type { QueryRun } from '../../kind'
import { isoInTz } from '../../common/dates'
import { OTHER_LABEL } from '../../common/breakdown-sql'
import { planRetention, type RetentionPlan, type RetentionPlanDeps } from './plan'
import { cellsSql } from './sql'
import { valueLabels, type RetentionRequest } from './model'

export type RetentionDeps = RetentionPlanDeps

/** One cohort row of the answer (PostHog's RetentionResult). */
export interface RetentionRow {
  values: Array<{ count: number; aggregation_value?: number; label: string }>
  label: string
  date: string
  breakdown_value: string | null
}

export const withSettings = (sql: string, plan: RetentionPlan) => (plan.settings ? `${sql} SETTINGS ${plan.settings}` : sql)

/** PostHog's period names: "Day 0", "Week 3". */
const title = (plan: RetentionPlan) => plan.range.interval.charAt(0).toUpperCase() + plan.range.interval.slice(1)

/** A cohort's start as PostHog writes it: ISO with the project's offset, `Z` in UTC. */
const dateOf = (plan: RetentionPlan, i: number) => isoInTz(plan.range.starts[i], plan.range.tz).replace(/\+00:00$/, 'Z')

export async function computeRetention(deps: RetentionDeps, run: QueryRun, request: RetentionRequest): Promise<Record<string, unknown>> {
  const plan = await planRetention(deps, run.project, request, { now: run.now, viewer: run.viewer })
  const other = request.breakdown === null ? null : { limit: request.breakdownLimit, other: plan.params.add('String', OTHER_LABEL) }
  const cells = await queryRows<Cell>(
    deps.clickhouse,
    withSettings(cellsSql(plan.actorRows, other, request.aggregation?.type ?? null), plan),
    plan.params.values,
    { signal: run.signal },
  )
  return { results: shape(plan, cells) }
}

interface Cell {
  s: number | string
  k: number | string
  value: string
  c: number | string
  agg: number | string
  rank: number | string
}

type Counted = { count: number; agg: number }

function shape(plan: RetentionPlan, cells: Cell[]): RetentionRow[] {
  const period = title(plan)
  const labels = valueLabels(plan.request)
  const byValue = new Map<string, { rank: number; counts: Map<string, Counted> }>()
  for (const cell of cells) {
    const value = plan.request.breakdown === null ? '' : cell.value
    let entry = byValue.get(value)
    if (!entry) byValue.set(value, (entry = { rank: Number(cell.rank), counts: new Map() }))
    entry.rank = Math.min(entry.rank, Number(cell.rank))
    entry.counts.set(`${cell.s}:${cell.k}`, { count: Number(cell.c), agg: Number(cell.agg) })
  }
  // With a sum of a property, each value has its aggregation_value (PostHog's keys: count, aggregation_value, label).
  const summed = plan.request.aggregation !== null
  const valueOf = (cell: Counted | undefined, label: string) =>
    summed ? { count: cell?.count ?? 0, aggregation_value: cell?.agg ?? 0, label } : { count: cell?.count ?? 0, label }
  const rows = (value: string | null, counts: Map<string, Counted>): RetentionRow[] =>
    plan.range.starts.map((_, s) => ({
      values: labels.map((label, k) => valueOf(counts.get(`${s}:${k}`), label)),
      label: `${period} ${s}`,
      date: dateOf(plan, s),
      breakdown_value: value,
    }))
  if (plan.request.breakdown === null) return rows(null, byValue.get('')?.counts ?? new Map())
  return [...byValue.entries()].sort((a, b) => a[1].rank - b[1].rank).flatMap(([value, { counts }]) => rows(value, counts))
}
