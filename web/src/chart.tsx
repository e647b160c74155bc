// A trend drawn by uPlot: lines, bars or areas over the buckets, a legend of the series that shows each
// one's value at the hovered bucket, and the x axis labelled with Wren's bucket labels.
import { useEffect, useRef } from 'preact/hooks'
import uPlot from 'uplot'
import { formatValue, type ChartData } from './chart-data'

export type ChartKind = 'line' | 'bar' | 'area'

const bars = uPlot.paths.bars!({ size: [0.7, 60] })

/** `height`: fixed (a dashboard tile's); else 340 px, or 260 on a narrow screen. */
export function TrendChart({ data, kind, height: fixed }: { data: ChartData; kind: ChartKind; height?: number }) {
  const box = useRef<HTMLDivElement>(null)
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
        // Bars get half a bucket either side, so the first and last are drawn whole.
        x: kind === 'bar' ? { time: false, range: (_u, min, max) => [min - 0.5, max + 0.5] } : { time: false },
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
      cursor: { points: { size: 8 }, drag: { x: false, y: false } },
      legend: { live: true },
      series: [
        { label: data.xTitle ?? 'Date', value: (_u, i) => (i === null ? '' : (data.xLabels[i] ?? '')) },
        ...data.series.map((s): uPlot.Series => ({
          label: s.label,
          stroke: s.colour,
          width: 2,
          dash: s.dashed ? [6, 4] : undefined,
          fill: kind === 'area' ? `${s.colour}33` : kind === 'bar' ? `${s.colour}${s.dashed ? '55' : 'bb'}` : undefined,
          paths: kind === 'bar' ? bars : undefined,
          points: { show: kind !== 'bar' && data.xLabels.length <= 60 },
          // The hovered bucket's value; the range's total while no bucket is hovered.
          value: (_u, v, _series, index) => (index === null ? (s.summary ?? `${formatValue(s.total)} in all`) : formatValue(v)),
        })),
      ],
    }
    const aligned: uPlot.AlignedData = [data.xLabels.map((_, i) => i), ...data.series.map((s) => s.values)]
    const plot = new uPlot(options, aligned, element)
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: height() }))
    resize.observe(element)
    return () => {
      resize.disconnect()
      plot.destroy()
    }
  }, [data, kind, fixed])
  // The drawn numbers, for tools (and tests) that read what the chart shows without hovering every bucket.
  const drawn = JSON.stringify({ labels: data.xLabels, series: data.series.map((s) => ({ label: s.label, values: s.values })) })
  return <div class="chart" ref={box} data-testid="trend-chart" data-values={drawn} />
}
