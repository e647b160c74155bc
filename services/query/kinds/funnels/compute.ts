// Computing a funnel: its plan (plan.ts) aggregated in one query per viz type, and the few rows it returns
// shaped into PostHog's answer (funnels/base.py _format_results and its siblings).
import { queryRows } from '../../../platform/clickhouse'
import { wrenError } from '../../../platform/errors'
import type { QueryRun } from '../../kind'
import { bucketKey, dayString, isoInTz } from '../../common/dates'
import { MULTI_SEPARATOR, NULL_LABEL } from '../../common/breakdown-sql'
import { planFunnel, type FunnelPlan, type FunnelPlanDeps } from './plan'
import { stepsSql, timeToConvertSql, trendsSql } from './sql'
import type { FunnelRequest } from './model'

export type FunnelDeps = FunnelPlanDeps

/** One step of a funnel's answer (PostHog's step object). */
export interface FunnelStep {
  action_id: string | number | null
  name: string | null
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
  const results =
    request.vizType === 'time_to_convert'
      ? await timeToConvert(deps, run, plan)
      : request.vizType === 'trends'
        ? await conversionTrends(deps, run, plan)
        : await funnelSteps(deps, run, plan)
  return { results, isUdf: false, ...dates }
}

interface StepsRow {
  breakdown: string
  counts: Array<number | string>
  average_times: Array<number | null>
  median_times: Array<number | null>
}

/** Only these breakdown types keep a page of values and sum the rest into "Other" (PostHog's use_breakdown_limit). */
export const LIMITED = ['person', 'event', 'group']

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
  // No actor entered the funnel: PostHog's (UDF) funnel answers no steps at all.
  if (rows.length === 0) return []
  if (!hasBreakdown) return shapeSteps(plan, rows[0], undefined)
  const lists = rows.map((row) => shapeSteps(plan, row, breakdownValue(plan, row.breakdown)))
  // The rows come ranked (most actors at the last step first). PostHog answers a cohort breakdown's ties in
  // cohort order ("all users", id 0, first), and the values of a list breakdown in their own order.
  if (request.breakdownType === 'cohort') {
    const id = (v: unknown) => (v === 'all' ? 0 : Number(v))
    const rank = (l: FunnelStep[]) => l.map((s) => s.count).reverse()
    return lists.sort((a, b) => compareLists(rank(b), rank(a)) || id(a[0].breakdown_value) - id(b[0].breakdown_value))
  }
  if (request.breakdowns) {
    const key = (l: FunnelStep[]) => l[0].breakdown_value as string[]
    const other = (l: FunnelStep[]) => (l[0].breakdown_value as string[]).join() === 'Other'
    return lists.sort((a, b) => Number(other(a)) - Number(other(b)) || compareLists(key(a), key(b)))
  }
  return lists
}

/** Lists compared element by element (numbers as numbers, strings as strings), a shorter prefix first. */
function compareLists<T extends number | string>(a: T[], b: T[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1
  return a.length - b.length
}

export const withSettings = (sql: string, plan: FunnelPlan) => (plan.settings ? `${sql} SETTINGS ${plan.settings}` : sql)

/**
 * A breakdown value as PostHog answers it: a cohort's id; a group property's value itself; else a list of the
 * properties' values ('' when missing): PostHog's funnel boxes one event, person, HogQL or metadata property
 * into a list (funnel_query_context.py), and Wren does a session property's alike.
 */
export function breakdownValue(plan: FunnelPlan, raw: string): unknown {
  const { request } = plan
  if (request.breakdownType === 'cohort') return raw === 'all' ? 'all' : Number(raw)
  if (raw === 'Other') return request.breakdownType === 'group' && !request.breakdowns ? 'Other' : ['Other']
  const values = raw.split(MULTI_SEPARATOR).map((v) => (v === NULL_LABEL ? '' : v))
  // An actor with none of the properties (first or last touch) has one '' for them all.
  while (request.breakdowns && values.length < request.breakdowns.length) values.push('')
  return request.breakdowns || request.breakdownType !== 'group' ? values : values[0]
}

function shapeSteps(plan: FunnelPlan, row: StepsRow, breakdown: unknown): FunnelStep[] {
  const unordered = plan.request.orderType === 'unordered'
  return plan.steps.map(({ entity, name }, i) => {
    const step: FunnelStep = {
      action_id: unordered ? null : entity.id,
      name: unordered ? `Completed ${i + 1} step${i > 0 ? 's' : ''}` : name,
      custom_name: unordered ? null : entity.customName,
      order: i,
      count: Number(row.counts[i]),
      type: entity.kind,
      people: [],
      average_conversion_time: i > 0 ? nullableNumber(row.average_times[i - 1]) : null,
      median_conversion_time: i > 0 ? nullableNumber(row.median_times[i - 1]) : null,
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

/** PostHog's FunnelTimeToConvertResults: `bins` of [seconds from, actors] and the average seconds. */
async function timeToConvert(deps: FunnelDeps, run: QueryRun, plan: FunnelPlan) {
  const { request } = plan
  const from = request.fromStep ?? 0
  const to = request.toStep ?? plan.steps.length - 1
  if (to <= from || plan.steps.length < 2)
    throw wrenError(
      'invalid_input',
      'Time to convert needs a step after funnelFromStep: a funnel of two steps or more.',
      'funnelsFilter.funnelToStep',
    )
  const sql = timeToConvertSql(plan.actorRows, from, to, request.binCount)
  const [row] = await queryRows<{ bins: Array<[number | string, number | string]>; average: number | null }>(
    deps.clickhouse,
    withSettings(sql, plan),
    plan.params.values,
    { signal: run.signal },
  )
  if (!row || row.average === null) return { bins: [], average_conversion_time: null }
  return { bins: row.bins.map(([s, c]) => [Number(s), Number(c)]), average_conversion_time: Number(row.average) }
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

/**
 * Conversion trends (PostHog's funnel_trends _format_results): per breakdown value, the conversion rate (%,
 * two decimals) of the actors entering in each period of the range, with `days`, `labels` and `count`.
 */
async function conversionTrends(deps: FunnelDeps, run: QueryRun, plan: FunnelPlan) {
  const { request, range } = plan
  const from = request.fromStep ?? 0
  const last = request.toStep ?? plan.steps.length - 1
  if (last <= from && plan.steps.length > 1)
    throw wrenError('invalid_input', 'funnelToStep must come after funnelFromStep.', 'funnelsFilter.funnelToStep')
  const rows = await queryRows<{ breakdown: string; period: string; reached_from: number | string; reached_to: number | string }>(
    deps.clickhouse,
    withSettings(trendsSql(plan.actorRows, from, last, plan.params.add('String', plan.tz)), plan),
    plan.params.values,
    { signal: run.signal },
  )
  let values = request.breakdown === null ? [''] : [...new Set(rows.map((r) => r.breakdown))]
  // A limited breakdown keeps its values with the most actors entering (no "Other" line in conversion trends).
  if (request.breakdown !== null && LIMITED.includes(request.breakdownType) && values.length > request.breakdownLimit) {
    const entered = new Map<string, number>()
    for (const r of rows) entered.set(r.breakdown, (entered.get(r.breakdown) ?? 0) + Number(r.reached_from))
    const ranked = [...values].sort((a, b) => entered.get(b)! - entered.get(a)! || (a < b ? -1 : a > b ? 1 : 0))
    const kept = new Set(ranked.slice(0, request.breakdownLimit))
    values = values.filter((v) => kept.has(v))
  }
  return values.map((value) => {
    const mine = new Map(rows.filter((r) => r.breakdown === value).map((r) => [r.period, r]))
    const data = range.buckets.map((b) => {
      const r = mine.get(bucketKey(b))
      const reachedFrom = r ? Number(r.reached_from) : 0
      return reachedFrom > 0 ? Math.round((Number(r!.reached_to) / reachedFrom) * 10_000) / 100 : 0
    })
    const series: Record<string, unknown> = {
      count: data.length,
      data,
      days: range.buckets.map((b) => dayString(b, range.interval)),
      labels: range.buckets.map((b) => `${b.getUTCDate()}-${MONTHS[b.getUTCMonth()]}-${b.getUTCFullYear()}`),
    }
    if (request.breakdown !== null) series.breakdown_value = breakdownValue(plan, value)
    return series
  })
}
