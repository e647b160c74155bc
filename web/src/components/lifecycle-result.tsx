// A lifecycle's result (its four statuses per interval as bars stacked around zero, dormant below, in PostHog's
// colours; the legend toggles each status) and a stickiness's (persons by how many intervals they were active,
// a bar per series side by side, a comparison's previous period paler beside the current one).
import { BarChart, type BarSeries } from './bar-chart'
import { PALETTE } from '../chart-data'
import { LIFECYCLE_STATUSES, type LifecycleStatus } from '../insight-queries'

interface StatusSeries {
  status: LifecycleStatus
  data: number[]
  labels: string[]
  /** Each bucket's day as the API names it (what an InsightActorsQuery's `day` takes). */
  days: string[]
  count: number
}

export const LIFECYCLE_COLOURS: Record<LifecycleStatus, string> = {
  new: '#2563eb',
  returning: '#16a34a',
  resurrecting: '#9333ea',
  dormant: '#dc2626',
}
export const STATUS_LABELS: Record<LifecycleStatus, string> = {
  new: 'New',
  returning: 'Returning',
  resurrecting: 'Resurrecting',
  dormant: 'Dormant',
}

const lifecycleSeries = (result: unknown): StatusSeries[] =>
  Array.isArray(result) ? (result as StatusSeries[]).filter((s) => LIFECYCLE_STATUSES.includes(s?.status)) : []

export const lifecycleHasData = (result: unknown) => lifecycleSeries(result).some((s) => s.data.some((v) => v !== 0))

export function LifecycleResult({
  result,
  toggled,
  onToggle,
  onBar,
  compact = false,
}: {
  result: unknown
  toggled: LifecycleStatus[]
  onToggle?: (status: LifecycleStatus) => void
  /** A bar clicked: its status, its day (the API's) and label. */
  onBar?: (bar: { status: LifecycleStatus; day: string; label: string }) => void
  compact?: boolean
}) {
  const answered = lifecycleSeries(result)
  const series: BarSeries[] = LIFECYCLE_STATUSES.map((status) => ({
    key: status,
    label: STATUS_LABELS[status],
    colour: LIFECYCLE_COLOURS[status],
    values: answered.find((s) => s.status === status)?.data ?? [],
  }))
  return (
    <BarChart
      labels={answered[0]?.labels ?? []}
      series={series}
      stacked
      hidden={LIFECYCLE_STATUSES.filter((s) => !toggled.includes(s))}
      onToggle={onToggle ? (key) => onToggle(key as LifecycleStatus) : undefined}
      onBar={
        onBar && answered[0]
          ? (key, i) => onBar({ status: key as LifecycleStatus, day: answered[0].days[i], label: answered[0].labels[i] })
          : undefined
      }
      compact={compact}
      testId="lifecycle-chart"
    />
  )
}

interface StickinessSeries {
  label: string
  data: number[]
  labels: string[]
  /** The numbers of intervals (1, 2, …): an InsightActorsQuery's `day`. */
  days: number[]
  count: number
  compare_label?: 'current' | 'previous'
  action?: { order?: number }
}

const stickinessSeries = (result: unknown): StickinessSeries[] => (Array.isArray(result) ? (result as StickinessSeries[]) : [])

export const stickinessHasData = (result: unknown) => stickinessSeries(result).some((s) => s.data.some((v) => v !== 0))

/** A stickiness bar clicked: its series (the query's index), the period compared, its number of intervals and label. */
export interface StickinessBar {
  series: number
  compare: 'current' | 'previous' | null
  day: number
  label: string
}

export function StickinessResult({
  result,
  onBar,
  compact = false,
}: {
  result: unknown
  onBar?: (bar: StickinessBar) => void
  compact?: boolean
}) {
  const answered = stickinessSeries(result)
  const colours = new Map<string, string>()
  const series: BarSeries[] = answered.map((s, i) => {
    if (!colours.has(s.label)) colours.set(s.label, PALETTE[colours.size % PALETTE.length])
    const previous = s.compare_label === 'previous'
    return {
      key: `${i}`,
      label: previous ? `${s.label} (previous period)` : s.label,
      colour: colours.get(s.label)!,
      values: s.data,
      faded: previous,
    }
  })
  const labels = answered.find((s) => s.compare_label !== 'previous')?.labels ?? answered[0]?.labels ?? []
  const clicked = (key: string, i: number) => {
    const s = answered[Number(key)]
    onBar?.({
      series: s.action?.order ?? Number(key),
      compare: s.compare_label ?? null,
      day: s.days[i],
      label: `${series[Number(key)].label} · ${s.labels[i]}`,
    })
  }
  return (
    <BarChart
      labels={labels}
      series={series}
      stacked={false}
      onBar={onBar ? clicked : undefined}
      compact={compact}
      testId="stickiness-chart"
    />
  )
}
