// From Wren's trend result to what the page draws: one line (or bar, or area) per series over shared x
// positions, with the legend's labels and colours, or one total per series for the number and table
// displays. No DOM here: the unit tests run it in Node.
import type { TrendSeries as TrendSeriesAnswer } from './answers'

/** One series of Wren's trend result (the fields the page reads). */
export type TrendSeries = Pick<
  TrendSeriesAnswer,
  'label' | 'data' | 'days' | 'labels' | 'count' | 'aggregated_value' | 'breakdown_value' | 'compare_label'
> &
  Partial<Pick<TrendSeriesAnswer, 'action'>>

export interface ChartSeries {
  label: string
  /** One value per x position; null where this series has no bucket (a shorter previous period). */
  values: (number | null)[]
  colour: string
  /** The previous period of a comparison: drawn dashed. */
  dashed: boolean
  /** Wren's count for the whole range: the legend shows it while no bucket is hovered. */
  total: number
  /** What the legend shows instead while no bucket is hovered (a rate's average, where a total means nothing). */
  summary?: string
}

export interface ChartData {
  /** The x axis's labels, one per bucket (the current period's). */
  xLabels: string[]
  /** The buckets' starts, as the result names them (a trend's `days`): where annotations fall. */
  days?: string[]
  /** What the buckets are, as the legend names them (Date unless said). */
  xTitle?: string
  series: ChartSeries[]
}

export interface TotalRow {
  label: string
  value: number
  colour: string
}

export const PALETTE = ['#1d4ed8', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#65a30d', '#475569', '#ea580c']

/** PostHog's label for the events without the breakdown's property (services/query/common/breakdown-sql.ts NULL_LABEL). */
export const BREAKDOWN_NULL = '$$_posthog_breakdown_null_$$'

/** A breakdown value as the legend names it (several properties joined, none as "(none)"). */
export function breakdownLabel(value: unknown): string {
  const parts = Array.isArray(value) ? value : [value]
  return parts.map((v) => (v === null || v === undefined || v === BREAKDOWN_NULL ? '(none)' : v === '' ? '(empty)' : String(v))).join(', ')
}

/**
 * The legend's name for a series: Wren's label (the breakdown value, with the series' name when there are several;
 * a formula's, the formula, so its breakdown value is added), and which period.
 */
export function seriesLabel(series: TrendSeries): string {
  let label = series.label === '' ? '(empty)' : series.label.replace(BREAKDOWN_NULL, '(none)')
  if (series.action === null && series.breakdown_value !== undefined) label = `${label} · ${breakdownLabel(series.breakdown_value)}`
  return series.compare_label === 'previous' ? `${label} (previous period)` : label
}

/** What gives a series its colour: its label and breakdown value (a comparison's two periods share it). */
const colourKey = (s: TrendSeries) => `${s.label}\u0000${JSON.stringify(s.breakdown_value ?? null)}`

/**
 * Each series' colour. A breakdown value keeps its colour whatever else is drawn (another range, a reload, a value
 * more or fewer): its slot in the palette comes from its own text, the next free one when another value has it.
 * Series without a breakdown take the palette in order.
 */
function colours(result: TrendSeries[]): Map<string, string> {
  const out = new Map<string, string>()
  const taken = new Set<number>()
  const keys = [...new Set(result.map(colourKey))]
  const broken = new Set(result.filter((s) => s.breakdown_value !== undefined).map(colourKey))
  for (const key of keys) {
    let slot = broken.has(key) ? hash(key) % PALETTE.length : out.size % PALETTE.length
    for (let i = 0; i < PALETTE.length && taken.has(slot); i++) slot = (slot + 1) % PALETTE.length
    taken.add(slot)
    out.set(key, PALETTE[slot])
  }
  return out
}

/** FNV-1a of a text: a small, stable number for it. */
function hash(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0
  return h
}

/**
 * The series of a time-series result, coloured (colours); a comparison's previous period shares its current
 * period's colour and is dashed.
 */
export function shapeChart(result: TrendSeries[]): ChartData {
  const current = result.find((s) => s.compare_label !== 'previous') ?? result[0]
  const xLabels = current ? (current.labels ?? current.days) : []
  const colour = colours(result)
  const series = result.map((s): ChartSeries => {
    const values: (number | null)[] = xLabels.map((_, i) => (i < s.data.length ? s.data[i] : null))
    return { label: seriesLabel(s), values, colour: colour.get(colourKey(s))!, dashed: s.compare_label === 'previous', total: s.count }
  })
  return { xLabels, days: current?.days ?? [], series }
}

/** One total per series (the number and table displays): Wren's aggregated_value, or the count of a time series. */
export function shapeTotals(result: TrendSeries[]): TotalRow[] {
  const colour = colours(result)
  return result.map((s) => ({ label: seriesLabel(s), value: s.aggregated_value ?? s.count, colour: colour.get(colourKey(s))! }))
}

/** A number as the page shows it: whole numbers grouped, others to at most two decimals. */
export function formatValue(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '–'
  return value.toLocaleString('en-US', { maximumFractionDigits: 2 })
}
