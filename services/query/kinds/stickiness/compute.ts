// Computing a stickiness: per slot (a series in a period, plan.ts), how many actors were active on exactly N
// of its intervals, counted in ClickHouse; only those counts reach Wren, shaped into PostHog's series (`days`
// 1 … n, "N days" labels; with cumulative, N or more).
import { queryRows } from '../../../platform/clickhouse'
import type { QueryRun } from '../../kind'
import type { StickinessRequest } from './model'
import { planStickiness, withSettings, type StickinessPlanDeps, type StickinessSlot } from './plan'

export type StickinessDeps = StickinessPlanDeps

export async function computeStickiness(deps: StickinessDeps, run: QueryRun, request: StickinessRequest): Promise<Record<string, unknown>> {
  const plan = await planStickiness(deps, run.project, request, { now: run.now, viewer: run.viewer })
  const sql = `SELECT slot, num_intervals, count() AS actors FROM (${plan.actorIntervals}) GROUP BY slot, num_intervals`
  const rows = await queryRows<{ slot: number | string; num_intervals: number | string; actors: number | string }>(
    deps.clickhouse,
    withSettings(sql, plan),
    plan.reads.params.values,
    { signal: run.signal },
  )
  const counts = new Map(rows.map((r) => [`${Number(r.slot)} ${Number(r.num_intervals)}`, Number(r.actors)]))
  const results = plan.slots.map((slot, i) =>
    shapeSeries(
      request,
      slot,
      Array.from({ length: slot.intervals }, (_, n) => counts.get(`${i} ${n + 1}`) ?? 0),
    ),
  )
  return { results }
}

function shapeSeries(request: StickinessRequest, slot: StickinessSlot, exact: number[]): Record<string, unknown> {
  const count = exact.reduce((a, b) => a + b, 0)
  // Cumulative: those active on N intervals or more (the total is the same).
  const data = request.cumulative ? exact.map((_, i) => exact.slice(i).reduce((a, b) => a + b, 0)) : exact
  const days = exact.map((_, i) => i + 1)
  const unit = slot.range.interval
  const series: Record<string, unknown> = {
    count,
    data,
    days,
    label: slot.name ?? 'All events',
    labels: days.map((n) => `${n} ${unit}${n === 1 ? '' : 's'}${request.cumulative ? ' or more' : ''}`),
    // PostHog's minimal action, for colours consistent with trends: its type is always events, its id the name.
    action: { order: slot.series, type: 'events', name: slot.name ?? 'All events', id: slot.name, custom_name: slot.entity.customName },
  }
  if (request.compare) Object.assign(series, { compare: true, compare_label: slot.previous ? 'previous' : 'current' })
  return series
}
