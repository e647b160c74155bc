// Computing a funnel: its plan (plan.ts) aggregated in one query per viz type, and the few rows it returns
// shaped into PostHog's answer (funnels/base.py _format_results and its siblings).
import { queryRows } from '../../../platform/clickhouse'
import type { QueryRun } from '../../kind'
import { isoInTz } from '../../common/dates'
import { MULTI_SEPARATOR, NULL_LABEL } from '../../common/breakdown-sql'
import { planFunnel, type FunnelPlan, type FunnelPlanDeps } from './plan'
import { stepsSql } from './sql'
import type { FunnelRequest } from './model'

export type FunnelDeps = FunnelPlanDeps

/** One step of a funnel's answer (PostHog's step object). */
export interface FunnelStep {
  action_id: string | number | null
  name: string
  custom_name: string | null
  order: number
  count: number
  type: 'events' | 'actions'
  people: []
  average_conversion_time: number | null
  median_conversion_time: number | null
  breakdown?: unknown
  breakdown_value?: unknown
}

export async function computeFunnel(deps: FunnelDeps, run: QueryRun, request: FunnelRequest): Promise<Record<string, unknown>> {
  const plan = await planFunnel(deps, run.project, request, { now: run.now, viewer: run.viewer })
  const dates = { resolved_date_range: { date_from: isoInTz(plan.range.from, plan.tz), date_to: isoInTz(plan.range.to, plan.tz) } }
  return { results: await funnelSteps(deps, run, plan), isUdf: false, ...dates }
}

interface StepsRow {
  breakdown: string
  counts: Array<number | string>
  average_times: Array<number | null>
  median_times: Array<number | null>
}

/** Only these breakdown types keep a page of values and sum the rest into "Other" (PostHog's use_breakdown_limit). */
const LIMITED = ['person', 'event', 'group']

async function funnelSteps(deps: FunnelDeps, run: QueryRun, plan: FunnelPlan): Promise<FunnelStep[] | FunnelStep[][]> {
  const { request } = plan
  const n = plan.steps.length
  const hasBreakdown = request.breakdown !== null
  const sql = stepsSql(
    plan.actorRows,
    n,
    hasBreakdown ? { limit: request.breakdownLimit, other: LIMITED.includes(request.breakdownType) } : null,
  )
  const rows = await queryRows<StepsRow>(deps.clickhouse, withSettings(sql, plan), plan.params.values, { signal: run.signal })
  if (!hasBreakdown) return shapeSteps(plan, rows[0] ?? null, undefined)
  return rows.map((row) => shapeSteps(plan, row, breakdownValue(plan, row.breakdown)))
}

export const withSettings = (sql: string, plan: FunnelPlan) => (plan.settings ? `${sql} SETTINGS ${plan.settings}` : sql)

/** A breakdown value as PostHog answers it: a list of the properties' values ('' when missing), a cohort's id. */
export function breakdownValue(plan: FunnelPlan, raw: string): unknown {
  if (plan.request.breakdownType === 'cohort') return raw === 'all' ? 'all' : Number(raw)
  if (raw === 'Other') return ['Other']
  return raw.split(MULTI_SEPARATOR).map((v) => (v === NULL_LABEL ? '' : v))
}

function shapeSteps(plan: FunnelPlan, row: StepsRow | null, breakdown: unknown): FunnelStep[] {
  const unordered = plan.request.orderType === 'unordered'
  return plan.steps.map(({ entity, name }, i) => {
    const step: FunnelStep = {
      action_id: unordered ? null : entity.id,
      name: unordered ? `Completed ${i + 1} step${i > 0 ? 's' : ''}` : name,
      custom_name: unordered ? null : entity.customName,
      order: i,
      count: row ? Number(row.counts[i]) : 0,
      type: entity.kind,
      people: [],
      average_conversion_time: i > 0 && row ? nullableNumber(row.average_times[i - 1]) : null,
      median_conversion_time: i > 0 && row ? nullableNumber(row.median_times[i - 1]) : null,
    }
    if (breakdown !== undefined) {
      const label = plan.request.breakdownType === 'cohort' ? cohortLabel(plan, breakdown) : breakdown
      Object.assign(step, { breakdown: label, breakdown_value: breakdown })
    }
    return step
  })
}

const nullableNumber = (v: number | string | null | undefined) => (v === null || v === undefined ? null : Number(v))

function cohortLabel(plan: FunnelPlan, value: unknown): string {
  if (value === 'all') return 'all users'
  return plan.cohorts.get(Number(value))?.name ?? String(value)
}
