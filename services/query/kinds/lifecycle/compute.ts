// Computing a lifecycle: each actor's statuses (plan.ts) counted per period and status in ClickHouse; only the
// counts reach Wren, shaped into PostHog's four series (new, returning, resurrecting, dormant; dormant negative).
import { queryRows } from '../../../platform/clickhouse'
import type { QueryRun } from '../../kind'
import { dayString, isoInTz, labelFor } from '../../common/dates'
import { STATUSES, type LifecycleRequest, type LifecycleStatus } from './model'
import { keyOf, planLifecycle, withSettings, type LifecyclePlan, type LifecyclePlanDeps } from './plan'

export type LifecycleDeps = LifecyclePlanDeps

/** One status's series (PostHog's lifecycle result). */
export interface LifecycleSeries {
  action: Record<string, unknown>
  data: number[]
  count: number
  labels: string[]
  days: string[]
  label: string
  status: LifecycleStatus
}

export async function computeLifecycle(deps: LifecycleDeps, run: QueryRun, request: LifecycleRequest): Promise<Record<string, unknown>> {
  const plan = await planLifecycle(deps, run.project, request, { now: run.now, viewer: run.viewer })
  const { reads, buckets } = plan
  const keys = buckets.map((b) => keyOf(plan, b))
  const sql = `SELECT k, status, count() AS n FROM (${plan.statuses(false)})
    WHERE k >= ${reads.params.add('Int64', keys[0] ?? 0)} AND k <= ${reads.params.add('Int64', keys[keys.length - 1] ?? -1)}
    GROUP BY k, status`
  const rows = await queryRows<{ k: number | string; status: number; n: number | string }>(
    deps.clickhouse,
    withSettings(sql, plan),
    reads.params.values,
    { signal: run.signal },
  )
  const counts = new Map(rows.map((r) => [`${STATUSES[r.status]} ${Number(r.k)}`, Number(r.n)]))
  const results = STATUSES.map((status) =>
    shapeSeries(
      plan,
      status,
      keys.map((k) => counts.get(`${status} ${k}`) ?? 0),
    ),
  )
  return {
    results,
    resolved_date_range: { date_from: isoInTz(plan.range.from, plan.tz), date_to: isoInTz(plan.range.to, plan.tz) },
  }
}

function shapeSeries(plan: LifecyclePlan, status: LifecycleStatus, counts: number[]): LifecycleSeries {
  const { series } = plan.request
  const data = counts.map((n) => (status === 'dormant' && n !== 0 ? -n : n))
  const action: Record<string, unknown> = {
    id: series.kind === 'actions' ? String(series.id) : series.id,
    name: plan.name,
    type: series.kind,
    order: 0,
    math: 'total',
  }
  if (series.customName !== null) action.custom_name = series.customName
  return {
    action,
    data,
    count: data.reduce((a, b) => a + b, 0),
    labels: plan.buckets.map((b) => labelFor(b, plan.range)),
    days: plan.buckets.map((b) => dayString(b, plan.range.interval)),
    label: `${plan.name} - ${status}`,
    status,
  }
}
