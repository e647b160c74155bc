// A trend's result as the trends page and a dashboard's tiles draw it: a chart (line, area, bars stacked or side
// by side), one big number per series, or a table of totals. `compact`: a tile's size (a shorter chart, a table whose rows
// show each value's share, long labels cut). `onPoint`: a click on the chart's point (the trends page lists its persons).
import { useMemo } from 'preact/hooks'
import { TrendChart } from '../chart'
import { BarChart } from './bar-chart'
import { formatValue, shapeChart, shapeTotals, type TrendSeries } from '../chart-data'
import type { DisplayName } from '../query'

export function TrendResult({
  result,
  display,
  compact = false,
  onPoint,
  insightId = null,
}: {
  result: TrendSeries[]
  display: DisplayName
  compact?: boolean
  /** The saved insight drawn (its own annotations show with the project's); null: an unsaved trend. */
  insightId?: number | null
  /** A click on the chart: the index in `result` of the series clicked, and its bucket (an index of its `days`). */
  onPoint?: (series: number, bucket: number) => void
}) {
  const chart = useMemo(() => shapeChart(result), [result])
  const totals = useMemo(() => shapeTotals(result), [result])
  const annotate = useMemo(() => ({ insightId, compact }), [insightId, compact])
  if (display === 'number')
    return (
      <div class="numbers">
        {totals.map((t) => (
          <div class="number">
            <div class="value" style={{ color: t.colour }}>
              {formatValue(t.value)}
            </div>
            <div class="muted">{t.label}</div>
          </div>
        ))}
      </div>
    )
  if (display === 'table') {
    const largest = Math.max(...totals.map((t) => Math.abs(t.value)), 1)
    return (
      <table class={compact ? 'list totals compact' : 'list totals'}>
        <thead>
          <tr>
            <th>Series</th>
            <th class="num">Total</th>
          </tr>
        </thead>
        <tbody>
          {totals.map((t) => (
            <tr>
              <td class="label" title={t.label}>
                <span class="swatch" style={{ background: t.colour }} /> {t.label}
                {compact ? <span class="share" style={{ width: `${(Math.abs(t.value) / largest) * 100}%`, background: t.colour }} /> : null}
              </td>
              <td class="num">{formatValue(t.value)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    )
  }
  if (display === 'bar' || display === 'grouped')
    return (
      <BarChart
        labels={chart.xLabels}
        series={chart.series.map((s, i) => ({ key: String(i), label: s.label, colour: s.colour, values: s.values, faded: s.dashed }))}
        stacked={display === 'bar'}
        compact={compact}
        testId="trend-chart"
        onBar={onPoint ? (key, bucket) => onPoint(Number(key), bucket) : undefined}
        days={chart.days}
        annotate={annotate}
      />
    )
  return <TrendChart data={chart} kind={display} height={compact ? 220 : undefined} onPoint={onPoint} annotate={annotate} />
}
