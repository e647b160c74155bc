// From Wren's trend result to what the page draws: one line (or bar, or area) per series over shared x
// positions, with the legend's labels and colours, or one total per series for the number and table
// displays. No DOM here: the unit tests run it in Node.
import type { TrendSeries as TrendSeriesAnswer } from './answers'

/** One series of Wren's trend result (the fields the page reads). */
export type TrendSeries = Pick<
  TrendSeriesAnswer,
  'label' | 'data' | 'days' | 'labels' | 'count' | 'aggregated_value' | 'breakdown_value' | 'compare_label'
>

export interface ChartSeries {
  label: string
  /** One value per x position; null where this series has no bucket (a shorter previous period). */
  values: (number | null)[]
  colour: string
  /** The previous period of a comparison: drawn dashed. */
  dashed: boolean
  /** Wren's count for the whole range: the legend shows it while no bucket is hovered. */
  total: number
}

export interface ChartData {
  /** The x axis's labels, one per bucket (the current period's). */
  xLabels: string[]
  series: ChartSeries[]
}

export interface TotalRow {
  label: string
  value: number
  colour: string
}

export const PALETTE = ['#1d4ed8', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#65a30d', '#475569', '#ea580c']

/** PostHog's label for the events without the breakdown's property (services/query/common/breakdown-sql.ts NULL_LABEL). */
const BREAKDOWN_NULL = '$$_posthog_breakdown_null_$$'

/** The legend's name for a series: Wren's label (the breakdown value, with the series' name when there are several), and which period. */
export function seriesLabel(series: TrendSeries): string {
  const label = series.label === '' ? '(empty)' : series.label.replace(BREAKDOWN_NULL, '(none)')
  return series.compare_label === 'previous' ? `${label} (previous period)` : label
}

/**
 * The series of a time-series result, coloured in order; a comparison's previous period shares its current
 * period's colour (the series come in pairs by label) and is dashed.
 */
export function shapeChart(result: TrendSeries[]): ChartData {
  const current = result.find((s) => s.compare_label !== 'previous') ?? result[0]
  const xLabels = current ? (current.labels ?? current.days) : []
  const colours = new Map<string, string>()
  const series = result.map((s): ChartSeries => {
    if (!colours.has(s.label)) colours.set(s.label, PALETTE[colours.size % PALETTE.length])
    const values: (number | null)[] = xLabels.map((_, i) => (i < s.data.length ? s.data[i] : null))
    return { label: seriesLabel(s), values, colour: colours.get(s.label)!, dashed: s.compare_label === 'previous', total: s.count }
  })
  return { xLabels, series }
}

/** One total per series (the number and table displays): Wren's aggregated_value, or the count of a time series. */
export function shapeTotals(result: TrendSeries[]): TotalRow[] {
  const colours = new Map<string, string>()
  return result.map((s) => {
    if (!colours.has(s.label)) colours.set(s.label, PALETTE[colours.size % PALETTE.length])
    return { label: seriesLabel(s), value: s.aggregated_value ?? s.count, colour: colours.get(s.label)! }
  })
}

/** A number as the page shows it: whole numbers grouped, others to at most two decimals. */
export function formatValue(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '–'
  return value.toLocaleString('en-US', { maximumFractionDigits: 2 })
}
