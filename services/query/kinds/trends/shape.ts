// From query rows to PostHog's series objects: zero-filled buckets, days and labels, cumulative sums,
// smoothing, the breakdown page the query chose in PostHog's order ("other" last), compare periods and formulas.
import { bucketKey, dayString, isoInTz, labelFor, type DateRange } from '../../common/dates'
import { parseFormula } from './formula'
import type { TrendRow } from './query'
import { MULTI_SEPARATOR, NULL_LABEL, OTHER_LABEL } from '../../common/breakdown-sql'
import type { SeriesEntity } from '../../common/series'
import type { TrendRequest } from './request'

export interface ShapeInput {
  request: TrendRequest
  /** The entities in series order, with their display names (event id, action name, "All events"). */
  series: Array<{ entity: SeriesEntity; name: string }>
  periods: DateRange[]
  rows: TrendRow[]
  totalValue: boolean
  cumulative: boolean
  filter: Record<string, unknown>
  /** Cohort names by id, for cohort breakdown labels. */
  cohortNames: Map<number, string>
}

export interface SeriesResult {
  data: number[]
  labels?: string[]
  days: string[]
  count: number
  aggregated_value?: number
  label: string
  filter: Record<string, unknown>
  action: Record<string, unknown> | null
  order: number
  breakdown_value?: string | number | string[]
  compare?: boolean
  compare_label?: 'current' | 'previous'
}

interface Block {
  raw: string
  data: number[]
  aggregated: number
}

/** PostHog's ranking of breakdown values: real values, then null (a multi-breakdown with any null part), then other. */
const rank = (raw: string) => (raw === OTHER_LABEL ? 2 : raw.split(MULTI_SEPARATOR).includes(NULL_LABEL) ? 1 : 0)
/** Rank, then total descending, then the value ascending. */
const byRanking = (a: { raw: string; total: number }, b: { raw: string; total: number }) =>
  rank(a.raw) - rank(b.raw) || b.total - a.total || (a.raw < b.raw ? -1 : a.raw > b.raw ? 1 : 0)
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)

export interface Shaped {
  result: SeriesResult[]
  /** Breakdown values ranked after this page (what `next` pages to). */
  hasMore: boolean
}

export function shapeResults(input: ShapeInput): Shaped {
  const { request, periods, totalValue } = input
  const hasBreakdown = request.breakdown !== null
  const out: SeriesResult[] = []
  let hasMore = false
  const byKey = new Map<string, number>()
  input.rows.forEach((r, i) => byKey.set(`${r.series}\u0000${r.period}\u0000${r.breakdown}\u0000${r.bucket}`, i))

  periods.forEach((range, period) => {
    const keys = range.buckets.map(bucketKey)
    const perSeries = input.series.map((s, index) => {
      const raws = new Set<string>()
      for (const r of input.rows) if (r.series === index && r.period === period) raws.add(r.breakdown)
      if (!hasBreakdown) raws.add('')
      let blocks: Block[] = [...raws].map((raw) => {
        const value = (bucket: string) => {
          const i = byKey.get(`${index}\u0000${period}\u0000${raw}\u0000${bucket}`)
          return i === undefined ? 0 : input.rows[i].value
        }
        if (totalValue) return { raw, data: [], aggregated: value('') }
        let data = keys.map(value)
        if (input.cumulative) data = runningSum(data)
        if (request.smoothingIntervals > 1) data = smooth(data, request.smoothingIntervals)
        return { raw, data, aggregated: 0 }
      })
      if (hasBreakdown) {
        const page = limitBreakdowns(blocks, request, totalValue)
        blocks = page.blocks
        hasMore ||= page.hasMore
      }
      return blocks.map((b) => seriesObject(input, s, index, range, period, b))
    })
    if (request.formula) out.push(...applyFormula(input, perSeries, range, period))
    else for (const list of perSeries) out.push(...list)
  })
  return { result: out, hasMore }
}

function runningSum(data: number[]): number[] {
  let acc = 0
  return data.map((v) => (acc += v))
}

function smooth(data: number[], n: number): number[] {
  return data.map((_, i) => {
    const window = data.slice(Math.max(0, i - n + 1), i + 1)
    return Math.floor(sum(window) / window.length)
  })
}

/**
 * One page of a series' breakdown values, as the query chose them (query.ts: pageOfBreakdowns), in PostHog's
 * order; "Other" is there when values rank after the page, and is dropped when the request hides it.
 */
function limitBreakdowns(blocks: Block[], request: TrendRequest, totalValue: boolean): { blocks: Block[]; hasMore: boolean } {
  const total = (b: Block) => (totalValue ? b.aggregated : sum(b.data))
  const sorted = blocks
    .map((b) => ({ b, raw: b.raw, total: total(b) }))
    .sort(byRanking)
    .map((x) => x.b)
  const hasMore = sorted.some((b) => b.raw === OTHER_LABEL)
  return { blocks: request.breakdownHideOtherAggregation ? sorted.filter((b) => b.raw !== OTHER_LABEL) : sorted, hasMore }
}

function seriesObject(
  input: ShapeInput,
  s: ShapeInput['series'][number],
  index: number,
  range: DateRange,
  period: number,
  block: Block,
): SeriesResult {
  const { request, totalValue } = input
  const e = s.entity
  const result: SeriesResult = {
    data: block.data,
    ...(totalValue ? {} : { labels: range.buckets.map((b) => labelFor(b, range)) }),
    days: totalValue ? [] : range.buckets.map((b) => dayString(b, range.interval)),
    count: totalValue ? 0 : input.cumulative ? (block.data.at(-1) ?? 0) : sum(block.data),
    ...(totalValue ? { aggregated_value: block.aggregated } : {}),
    label: s.name,
    filter: input.filter,
    action: {
      days: totalValue ? [] : range.buckets.map((b) => isoInTz(b, range.tz)),
      // PostHog's hogql path names the series here and always says "events", even for actions.
      id: s.name === 'All events' && e.kind === 'events' ? null : s.name,
      type: 'events',
      order: index,
      name: s.name,
      custom_name: e.customName,
      math: e.math,
      math_property: e.mathProperty,
      math_hogql: e.mathHogql,
      math_group_type_index: e.mathGroupTypeIndex,
      properties: {},
    },
    order: index,
  }
  if (request.breakdown !== null) {
    const { value, label } = breakdownValue(block.raw, input)
    result.breakdown_value = value
    result.label = input.series.length > 1 ? `${s.name} - ${label}` : label
  }
  if (request.compare) {
    result.compare = true
    result.compare_label = period === 0 ? 'current' : 'previous'
  }
  return result
}

function breakdownValue(raw: string, input: ShapeInput): { value: string | number | string[]; label: string } {
  // The list form answers lists, even for one breakdown (as PostHog does).
  if (input.request.breakdowns) {
    const n = input.request.breakdowns.length
    const values = raw === OTHER_LABEL ? new Array<string>(n).fill(OTHER_LABEL) : raw.split(MULTI_SEPARATOR)
    return { value: values, label: values.join('::') }
  }
  if (input.request.breakdownType !== 'cohort' || raw === OTHER_LABEL) return { value: raw, label: raw }
  if (raw === 'all') return { value: 'all', label: 'all users' }
  const id = Number(raw)
  return { value: id, label: input.cohortNames.get(id) ?? raw }
}

function applyFormula(input: ShapeInput, perSeries: SeriesResult[][], range: DateRange, period: number): SeriesResult[] {
  const { request, totalValue } = input
  const formula = parseFormula(request.formula!, input.series.length)
  const label = `Formula (${request.formula})`
  const groups = new Map<string, Array<SeriesResult | undefined>>()
  perSeries.forEach((list, s) => {
    for (const r of list) {
      const key = JSON.stringify(r.breakdown_value ?? null)
      if (!groups.has(key)) groups.set(key, new Array(perSeries.length).fill(undefined))
      groups.get(key)![s] = r
    }
  })
  const results: SeriesResult[] = []
  for (const members of groups.values()) {
    const template = members.find((m) => m !== undefined)!
    const base: SeriesResult = { ...template, action: null, label, order: 0 }
    if (totalValue) {
      base.aggregated_value = formula.evaluate(members.map((m) => m?.aggregated_value ?? 0))
      base.data = []
      base.count = 0
    } else {
      base.data = range.buckets.map((_, i) => formula.evaluate(members.map((m) => m?.data[i] ?? 0)))
      base.count = sum(base.data)
    }
    if (request.compare) base.compare_label = period === 0 ? 'current' : 'previous'
    results.push(base)
  }
  if (request.breakdown !== null) {
    const ranked = (r: SeriesResult) => ({
      r,
      raw: Array.isArray(r.breakdown_value) ? r.breakdown_value.join(MULTI_SEPARATOR) : String(r.breakdown_value),
      total: totalValue ? (r.aggregated_value ?? 0) : sum(r.data),
    })
    return results
      .map(ranked)
      .sort(byRanking)
      .map((x) => x.r)
  }
  return results
}
