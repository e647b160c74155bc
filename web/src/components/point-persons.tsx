// The persons behind a clicked point of a trend (the trends page's chart, a dashboard tile's): an InsightActorsQuery
// of the trend's series, day, breakdown value and period.
import type { TrendSeries } from '../answers'
import { seriesLabel } from '../chart-data'
import { PersonsPanel } from './persons-panel'

/** The persons behind a clicked point: an InsightActorsQuery of the trend's series, day, breakdown value and period. */
export function PointPersons({
  point: { series, bucket },
  source,
  onClose,
}: {
  point: { series: TrendSeries; bucket: number }
  source: Record<string, unknown>
  onClose: () => void
}) {
  const day = series.days[bucket]
  const label = series.labels?.[bucket] ?? day
  return (
    <PersonsPanel
      title={`${seriesLabel(series)} · ${label}`}
      className="point-persons"
      attributes={{ 'data-day': day, 'data-series': series.order }}
      onClose={onClose}
      source={{
        kind: 'InsightActorsQuery',
        source,
        day,
        series: series.order,
        ...(series.breakdown_value !== undefined ? { breakdown: series.breakdown_value } : {}),
        ...(series.compare_label ? { compare: series.compare_label } : {}),
      }}
    />
  )
}
