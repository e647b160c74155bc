// Bars drawn as SVG over labelled buckets: stacked around zero (a lifecycle: growth up, dormant down; a trend's
// series, PostHog's ActionsBar) or grouped side by side (a stickiness's series, a comparison's previous period beside
// the current, PostHog's ActionsUnstackedBar), every bar inside its bucket. Hovering a bucket shows every series'
// value in it in a tooltip at the cursor; the legend names the series and, given `onToggle`, shows or hides each
// one; given `onBar`, a click on a bar names its series and bucket (the persons behind it).
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { formatValue } from '../chart-data'
import { ChartTooltip, type CursorAt } from './chart-tooltip'
import { AnnotationStrip, useChartNotes, type AnnotationsOn } from './annotations'

export interface BarSeries {
  key: string
  label: string
  colour: string
  /** One value per bucket; null where the series has none (a shorter previous period): no bar, and '–'. */
  values: (number | null)[]
  /** Drawn paler (a comparison's previous period). */
  faded?: boolean
}

/** The width of `ref`'s element, kept as it changes (0 before the first layout). */
export function useWidth<T extends HTMLElement>(): [preact.RefObject<T>, number] {
  const ref = useRef<T>(null)
  const [width, setWidth] = useState(0)
  useEffect(() => {
    const element = ref.current
    if (!element) return
    setWidth(element.clientWidth)
    const observer = new ResizeObserver(() => setWidth(element.clientWidth))
    observer.observe(element)
    return () => observer.disconnect()
  }, [])
  return [ref, width]
}

const LEFT = 52
const BOTTOM = 30
const TOP = 10

/**
 * Round steps for the value axis: 1, 2 or 5 times a power of ten, about `count` of them over `span`, from the
 * step at or below `min` to the one at or above `max` (the tallest bar ends at a line, not at the plot's top).
 */
function ticks(min: number, max: number, count: number): number[] {
  const span = max - min || 1
  const raw = span / count
  const power = 10 ** Math.floor(Math.log10(raw))
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw
  const out: number[] = []
  for (let v = Math.floor(min / step + 1e-9) * step; out.length === 0 || v < max + step - 1e-9; v += step)
    out.push(Math.round(v * 1e6) / 1e6)
  return out
}

export function BarChart({
  labels,
  series,
  stacked,
  hidden = [],
  onToggle,
  onBar,
  compact = false,
  testId,
  days,
  annotate,
}: {
  labels: string[]
  series: BarSeries[]
  stacked: boolean
  hidden?: string[]
  onToggle?: (key: string) => void
  onBar?: (key: string, bucket: number) => void
  compact?: boolean
  testId: string
  /** The buckets' starts (a trend's `days`), and `annotate`: show their annotations, of this saved insight if it is one. */
  days?: string[]
  annotate?: Omit<AnnotationsOn, 'days'>
}) {
  const [box, width] = useWidth<HTMLDivElement>()
  const on = useMemo(() => (annotate && days ? { ...annotate, days } : undefined), [annotate?.insightId, annotate?.compact, days])
  const notes = useChartNotes(on)
  const [hover, setHover] = useState<{ bucket: number; at: CursorAt } | null>(null)
  const shown = series.filter((s) => !hidden.includes(s.key))
  const height = compact ? 200 : width < 600 ? 240 : 320
  const plotW = Math.max(width - LEFT - 8, 10)
  const plotH = height - TOP - BOTTOM
  // The value range: stacks' sums (positive up, negative down), or the values themselves side by side.
  let max = 0
  let min = 0
  labels.forEach((_, i) => {
    const values = shown.map((s) => s.values[i] ?? 0)
    if (stacked) {
      max = Math.max(
        max,
        values.filter((v) => v > 0).reduce((a, b) => a + b, 0),
      )
      min = Math.min(
        min,
        values.filter((v) => v < 0).reduce((a, b) => a + b, 0),
      )
    } else {
      max = Math.max(max, ...values)
      min = Math.min(min, ...values)
    }
  })
  if (max === min) max = 1
  const axis = ticks(min, max, compact ? 3 : 5)
  const top = Math.max(max, axis[axis.length - 1] ?? max)
  const bottom = Math.min(min, axis[0] ?? min)
  const y = (v: number) => TOP + ((top - v) / (top - bottom)) * plotH
  const bucket = plotW / Math.max(labels.length, 1)
  // A bar (a group of them side by side) takes 70% of its bucket, no more than 64 px a series.
  const barW = Math.min(bucket * 0.7, 64 * (stacked ? 1 : Math.max(shown.length, 1)))
  // Every k-th bucket labelled, so labels never overlap.
  const longest = Math.max(...labels.map((l) => l.length), 3)
  const every = Math.max(1, Math.ceil((longest * 6.5 + 12) / bucket))
  const drawn = JSON.stringify({ labels, series: series.map((s) => ({ key: s.key, label: s.label, values: s.values })) })
  /** The bucket under the cursor (the plot's width over the buckets), or none outside the plot. */
  const track = (event: MouseEvent) => {
    const left = (event.currentTarget as SVGSVGElement).getBoundingClientRect().left
    const i = Math.floor((event.clientX - left - LEFT) / bucket)
    setHover(i >= 0 && i < labels.length ? { bucket: i, at: { x: event.clientX, y: event.clientY } } : null)
  }

  const bars = labels.map((_, i) => {
    const x0 = LEFT + i * bucket + (bucket - barW) / 2
    let up = 0
    let down = 0
    return shown.map((s, j) => {
      const value = s.values[i]
      if (value === null || value === undefined) return null
      const v = value
      let from: number
      let to: number
      let x = x0
      let w = barW
      if (stacked) {
        from = v >= 0 ? up : down
        to = from + v
        if (v >= 0) up = to
        else down = to
      } else {
        from = 0
        to = v
        w = barW / shown.length
        x = x0 + j * w
      }
      const y1 = y(Math.max(from, to))
      const h = Math.abs(y(from) - y(to))
      return (
        <rect
          x={x}
          y={y1}
          width={Math.max(w - (stacked ? 0 : 1), 1)}
          height={h}
          fill={s.colour}
          fill-opacity={s.faded ? 0.45 : 0.9}
          data-series={s.key}
          data-bucket={i}
          class={onBar ? 'bar clickable' : 'bar'}
          onClick={onBar ? () => onBar(s.key, i) : undefined}
        ></rect>
      )
    })
  })

  return (
    <div class={compact ? 'bar-chart compact' : 'bar-chart'}>
      <ul class="chart-legend" aria-label="Series">
        {series.map((s) => {
          const on = !hidden.includes(s.key)
          const swatch = <span class="swatch" style={{ background: s.colour, opacity: s.faded ? 0.45 : 1 }} />
          return (
            <li data-series={s.key} class={on ? '' : 'off'}>
              {onToggle ? (
                <button type="button" class="link legend-toggle" aria-pressed={on} onClick={() => onToggle(s.key)}>
                  {swatch} {s.label}
                </button>
              ) : (
                <span>
                  {swatch} {s.label}
                </span>
              )}
            </li>
          )
        })}
      </ul>
      <div class="chart-box" ref={box} data-testid={testId} data-values={drawn}>
        {width > 0 ? (
          <svg
            width={width}
            height={height}
            role="img"
            aria-label="Bar chart"
            data-layout={stacked ? 'stacked' : 'grouped'}
            onMouseMove={track}
            onMouseLeave={() => setHover(null)}
          >
            {axis.map((v) => (
              <g>
                <line class="grid" x1={LEFT} x2={LEFT + plotW} y1={y(v)} y2={y(v)} stroke={v === 0 ? '#94a3b8' : '#eef2f7'} />
                <text x={LEFT - 6} y={y(v) + 4} text-anchor="end" class="axis-label">
                  {formatValue(v)}
                </text>
              </g>
            ))}
            {labels.map((l, i) =>
              i % every === 0 ? (
                <text x={LEFT + (i + 0.5) * bucket} y={height - 10} text-anchor="middle" class="axis-label">
                  {l}
                </text>
              ) : null,
            )}
            {hover !== null ? <rect x={LEFT + hover.bucket * bucket} y={TOP} width={bucket} height={plotH} fill="#f1f5f9" /> : null}
            {/* Each bucket's space (hovering it anywhere shows its counts); the bars, over it, take the clicks. */}
            {labels.map((_, i) => (
              <rect x={LEFT + i * bucket} y={TOP} width={bucket} height={plotH} fill="transparent" data-hover-bucket={i} />
            ))}
            {bars}
            {notes?.marked.map((i) => (
              <line
                class="annotation-mark"
                x1={LEFT + (i + 0.5) * bucket}
                x2={LEFT + (i + 0.5) * bucket}
                y1={TOP}
                y2={TOP + plotH}
                stroke="#94a3b8"
                stroke-dasharray="4 4"
                pointer-events="none"
              />
            ))}
          </svg>
        ) : null}
      </div>
      {notes && width > 0 ? (
        <AnnotationStrip notes={notes} labels={labels} at={labels.map((_, i) => ({ x: LEFT + (i + 0.5) * bucket, width: bucket }))} />
      ) : null}
      {hover !== null && hover.bucket < labels.length ? (
        <ChartTooltip
          at={hover.at}
          title={labels[hover.bucket]}
          rows={shown.map((s) => ({ label: s.label, colour: s.colour, value: s.values[hover.bucket], faded: s.faded }))}
          hint={onBar ? 'Click a bar to list its persons.' : undefined}
        />
      ) : null}
    </div>
  )
}
