// A trend drawn by uPlot: lines or areas over the buckets, a legend of the series that shows each one's value
// at the hovered bucket, a tooltip at the cursor with every series' value there, and the x axis labelled with
// Wren's bucket labels; a click on a point names it (`onPoint`). Bars are drawn by components/bar-chart.tsx.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import uPlot from 'uplot'
import { formatValue, type ChartData } from './chart-data'
import { ChartTooltip, type CursorAt } from './components/chart-tooltip'
import { AnnotationStrip, useChartNotes, type AnnotationsOn, type BucketAt } from './components/annotations'

export type ChartKind = 'line' | 'area'

/** The series a click at `top` of the plot means, at bucket `idx`: the one whose value is drawn nearest. */
function clickedSeries(plot: uPlot, idx: number, top: number): number | null {
  let nearest: number | null = null
  let distance = Infinity
  for (let i = 1; i < plot.series.length; i++) {
    const value = plot.data[i][idx]
    if (value === null || value === undefined) continue
    const y = plot.valToPos(value, 'y')
    if (Math.abs(y - top) < distance) [nearest, distance] = [i - 1, Math.abs(y - top)]
  }
  return nearest
}

/** The strip under the x axis: where each bucket is across the chart's box, and how far down the axis ends. */
interface StripAt {
  at: BucketAt[]
  top: number
}

/** Dashed lines across the plot at the annotated buckets. */
function drawMarks(plot: uPlot, marked: number[]) {
  const ctx = plot.ctx
  ctx.save()
  ctx.strokeStyle = '#94a3b8'
  ctx.lineWidth = devicePixelRatio
  ctx.setLineDash([4 * devicePixelRatio, 4 * devicePixelRatio])
  for (const i of marked) {
    const x = Math.round(plot.valToPos(i, 'x', true))
    ctx.beginPath()
    ctx.moveTo(x, plot.bbox.top)
    ctx.lineTo(x, plot.bbox.top + plot.bbox.height)
    ctx.stroke()
  }
  ctx.restore()
}

/**
 * `height`: fixed (a dashboard tile's); else 340 px, or 260 on a narrow screen. `onPoint`: a click on the plot
 * names a series (its index in `data.series`) and a bucket, as PostHog's charts open the persons behind a point.
 * `annotate`: show the annotations of the buckets (`data.days`), of this saved insight if it is one.
 */
export function TrendChart({
  data,
  kind,
  height: fixed,
  onPoint,
  annotate,
}: {
  data: ChartData
  kind: ChartKind
  height?: number
  onPoint?: (series: number, bucket: number) => void
  annotate?: Omit<AnnotationsOn, 'days'>
}) {
  const box = useRef<HTMLDivElement>(null)
  const on = useMemo(
    () => (annotate && data.days ? { ...annotate, days: data.days } : undefined),
    [annotate?.insightId, annotate?.compact, data.days],
  )
  const notes = useChartNotes(on)
  // The marked buckets, read by each draw; the strip's place, measured by each draw.
  const marked = useRef<number[]>([])
  marked.current = notes?.marked ?? []
  const annotated = !!notes
  const [strip, setStrip] = useState<StripAt | null>(null)
  const plotRef = useRef<uPlot | null>(null)
  // The latest handler, read at the click: a new function each render must not redraw the chart.
  const point = useRef(onPoint)
  point.current = onPoint
  const clickable = !!onPoint
  const [hover, setHover] = useState<{ bucket: number; at: CursorAt } | null>(null)
  useEffect(() => {
    const element = box.current
    if (!element) return
    const width = () => Math.max(280, element.clientWidth)
    const height = () => fixed ?? (element.clientWidth < 600 ? 260 : 340)
    const options: uPlot.Options = {
      width: width(),
      height: height(),
      padding: [12, 44, 0, 0],
      scales: {
        x: { time: false },
        y: { range: (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] },
      },
      axes: [
        {
          values: (_u, splits) => splits.map((i) => (Number.isInteger(i) ? (data.xLabels[i] ?? '') : '')),
          // Room for the longest bucket label, so labels never overlap on a narrow screen.
          space: Math.max(...data.xLabels.map((l) => l.length), 4) * 7 + 16,
          stroke: '#475569',
          grid: { stroke: '#eef2f7' },
        },
        { values: (_u, splits) => splits.map((v) => formatValue(v)), stroke: '#475569', grid: { stroke: '#eef2f7' }, size: 56 },
      ],
      // No dragging; and a click is never taken for the end of a drag (uPlot swallows a click whose pointer it saw
      // move since the press, which a page scrolled since its last scroll event shows it).
      cursor: { points: { size: 8 }, drag: { x: false, y: false, click: () => {} } },
      legend: { live: true },
      hooks: {
        draw: [
          (u) => {
            if (!annotated) return
            drawMarks(u, marked.current)
            const origin = element.getBoundingClientRect()
            const over = u.over.getBoundingClientRect()
            const xs = data.xLabels.map((_, i) => over.left - origin.left + u.valToPos(i, 'x'))
            const width = xs.length > 1 ? xs[1] - xs[0] : over.width
            // Under the x axis: the plot's box ends at the axis labels' bottom.
            const top = u.root.querySelector('.u-wrap')!.getBoundingClientRect().bottom - origin.top
            const next: StripAt = { at: xs.map((x) => ({ x, width })), top }
            setStrip((prev) => (JSON.stringify(prev) === JSON.stringify(next) ? prev : next))
          },
        ],
      },
      series: [
        { label: data.xTitle ?? 'Date', value: (_u, i) => (i === null ? '' : (data.xLabels[i] ?? '')) },
        ...data.series.map((s): uPlot.Series => ({
          label: s.label,
          stroke: s.colour,
          width: 2,
          dash: s.dashed ? [6, 4] : undefined,
          fill: kind === 'area' ? `${s.colour}33` : undefined,
          points: { show: data.xLabels.length <= 60 },
          // The hovered bucket's value; the range's total while no bucket is hovered.
          value: (_u, v, _series, index) => (index === null ? (s.summary ?? `${formatValue(s.total)} in all`) : formatValue(v)),
        })),
      ],
    }
    const aligned: uPlot.AlignedData = [data.xLabels.map((_, i) => i), ...data.series.map((s) => s.values)]
    const plot = new uPlot(options, aligned, element)
    plotRef.current = plot
    // Where the cursor is, from the event itself: uPlot's cursor keeps the plot's position as of its last scroll
    // event, which a page that has just scrolled (a persons panel opening below) has not sent yet.
    const bucketAt = (event: MouseEvent): number | null => {
      const idx = Math.round(plot.posToVal(event.clientX - plot.over.getBoundingClientRect().left, 'x'))
      return idx >= 0 && idx < data.xLabels.length ? idx : null
    }
    const click = (event: MouseEvent) => {
      const idx = bucketAt(event)
      if (!point.current || idx === null) return
      const series = clickedSeries(plot, idx, event.clientY - plot.over.getBoundingClientRect().top)
      if (series !== null) point.current(series, idx)
    }
    const move = (event: MouseEvent) => {
      const bucket = bucketAt(event)
      setHover(bucket === null ? null : { bucket, at: { x: event.clientX, y: event.clientY } })
    }
    const leave = () => setHover(null)
    plot.over.addEventListener('mousemove', move)
    plot.over.addEventListener('mouseleave', leave)
    if (clickable) {
      plot.over.addEventListener('click', click)
      plot.over.style.cursor = 'pointer'
    }
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: height() }))
    resize.observe(element)
    return () => {
      resize.disconnect()
      plot.destroy()
      plotRef.current = null
      setHover(null)
    }
  }, [data, kind, fixed, clickable, annotated])
  // New notes: the lines redrawn (the plot itself is not rebuilt).
  useEffect(() => plotRef.current?.redraw(false), [notes?.marked.join()])
  // The drawn numbers, for tools (and tests) that read what the chart shows without hovering every bucket.
  const drawn = JSON.stringify({
    labels: data.xLabels,
    series: data.series.map((s) => ({ label: s.label, values: s.values, colour: s.colour })),
  })
  return (
    <div class={notes ? 'chart-frame annotated' : 'chart-frame'}>
      <div class="chart" ref={box} data-testid="trend-chart" data-values={drawn} />
      {notes && strip ? <AnnotationStrip notes={notes} at={strip.at} labels={data.xLabels} top={strip.top} /> : null}
      {hover && hover.bucket < data.xLabels.length ? (
        <ChartTooltip
          at={hover.at}
          title={data.xLabels[hover.bucket]}
          rows={data.series.map((s) => ({ label: s.label, colour: s.colour, value: s.values[hover.bucket], faded: s.dashed }))}
          hint={clickable ? 'Click a point to list its persons.' : undefined}
        />
      ) : null}
    </div>
  )
}
