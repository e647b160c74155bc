// A funnel's result as the funnels page and a dashboard's tiles draw it: the steps as horizontal bars (each
// step's count, its conversion from the first and from the previous step, its drop-off and its time to
// convert; with a breakdown, a bar per value per step and a legend), conversion over time as a line, or the
// time to convert as a histogram. `compact`: a tile's size (no persons buttons, a shorter chart). Each step links
// to the paths after it, before it, and from the step before to it (`onPaths`).
import { useMemo } from 'preact/hooks'
import { TrendChart } from '../chart'
import { BarChart } from './bar-chart'
import { PALETTE, shapeChart, type TrendSeries } from '../chart-data'
import {
  breakdownLabel,
  duration,
  percent,
  stepLists,
  stepRows,
  type FunnelStepAnswer,
  type TimeToConvertAnswer,
  type VizType,
} from '../funnel-query'
import { FUNNEL_PATH_TYPES, type FunnelPathType } from '../insight-queries'

/**
 * Which persons a button asks for: `step` is 1-based, negative for those who dropped off before it (FunnelsActorsQuery's
 * funnelStep); or, from conversion over time, those who entered in `period` and converted.
 */
export interface PersonsAsk {
  step: number
  breakdown: unknown
  title: string
  period?: string
}

/** Which paths a step's link opens: PostHog's funnel path type, around `step` (1-based). */
export interface PathsAsk {
  step: number
  type: FunnelPathType
}

export function FunnelResult({
  result,
  vizType,
  compact = false,
  onPersons,
  onPaths,
  insightId = null,
}: {
  result: unknown
  vizType: VizType
  compact?: boolean
  /** The saved insight drawn: its own annotations show on conversion over time with the project's. */
  insightId?: number | null
  onPersons?: (ask: PersonsAsk) => void
  onPaths?: (ask: PathsAsk) => void
}) {
  if (vizType === 'trends')
    return <ConversionTrend result={result} compact={compact} onPersons={compact ? undefined : onPersons} insightId={insightId} />
  if (vizType === 'time_to_convert') return <TimeToConvert result={result as TimeToConvertAnswer} compact={compact} />
  return (
    <FunnelSteps
      lists={stepLists(result)}
      compact={compact}
      onPersons={compact ? undefined : onPersons}
      onPaths={compact ? undefined : onPaths}
    />
  )
}

/** Whether a funnel's result has anything to draw (someone entered it). */
export function funnelHasData(result: unknown, vizType: VizType): boolean {
  if (vizType === 'time_to_convert') {
    const bins = (result as TimeToConvertAnswer | null)?.bins ?? []
    return bins.some(([, count]) => count > 0)
  }
  if (vizType === 'trends') return Array.isArray(result) && result.length > 0
  return stepLists(result).some((steps) => (steps[0]?.count ?? 0) > 0)
}

const stepName = (s: FunnelStepAnswer) => s.custom_name || s.name || String(s.action_id ?? 'Any event')

function FunnelSteps({
  lists,
  compact,
  onPersons,
  onPaths,
}: {
  lists: FunnelStepAnswer[][]
  compact: boolean
  onPersons?: (ask: PersonsAsk) => void
  onPaths?: (ask: PathsAsk) => void
}) {
  const broken = lists.length > 1 || (lists[0]?.[0]?.breakdown_value ?? undefined) !== undefined
  const values = lists.map((steps, i) => ({
    steps,
    rows: stepRows(steps),
    label: broken ? breakdownLabel(steps[0]?.breakdown_value) : 'All persons',
    colour: PALETTE[i % PALETTE.length],
    value: steps[0]?.breakdown_value,
  }))
  const names = [...(lists[0] ?? [])].sort((a, b) => a.order - b.order).map(stepName)
  // Without a breakdown the bars and the text read from one list; with one, the totals are the values' sums.
  const total = names.map((_, i) => values.reduce((n, v) => n + (v.rows[i]?.count ?? 0), 0))
  const totalRows = stepRows(names.map((name, i) => ({ ...lists[0][i], name, count: total[i] })))
  const first = Math.max(total[0] ?? 0, 1)
  return (
    <div class={compact ? 'funnel compact' : 'funnel'} data-testid="funnel-steps">
      {broken ? (
        <ul class="funnel-legend" aria-label="Breakdown values">
          {values.map((v) => (
            <li data-breakdown={v.label}>
              <span class="swatch" style={{ background: v.colour }} /> {v.label}
            </li>
          ))}
        </ul>
      ) : null}
      <ol class="funnel-steps">
        {names.map((name, i) => {
          const row = totalRows[i]
          return (
            <li class="funnel-step" data-step={i + 1}>
              <div class="step-head">
                <span class="step-number">{i + 1}</span>
                <strong class="step-name" title={name}>
                  {name}
                </strong>
                {i > 0 && !compact && !broken ? (
                  <span class="muted small step-time">
                    median <span data-testid="median">{duration(lists[0][i]?.median_conversion_time)}</span> · average{' '}
                    <span data-testid="average">{duration(lists[0][i]?.average_conversion_time)}</span>
                  </span>
                ) : null}
              </div>
              {values.map((v) => {
                const r = v.rows[i]
                if (!r) return null
                // Each bar is its value's count against the first step's total: the breakdown's bars add up to the whole.
                const width = `${Math.max((r.count / (broken ? Math.max(...values.map((w) => w.rows[0]?.count ?? 0), 1) : first)) * 100, 0.5)}%`
                return (
                  <div class="step-bar-row" data-breakdown={broken ? v.label : undefined}>
                    {broken ? (
                      <span class="bar-label" title={v.label}>
                        {v.label}
                      </span>
                    ) : null}
                    <div class="step-bar">
                      <div class="step-fill" style={{ width, background: v.colour }} />
                    </div>
                    <span class="bar-figures small">
                      <strong data-testid="count">{r.count.toLocaleString('en-US')}</strong> ·{' '}
                      <span data-testid="from-first">{percent(r.fromFirst)}</span>
                    </span>
                    <span class="bar-extra">
                      {broken && !compact ? (
                        <span class="bar-time small muted" title={i > 0 ? `average ${duration(r.average)}` : undefined}>
                          {i > 0 ? (
                            <>
                              median <span data-testid="median">{duration(r.median)}</span>
                            </>
                          ) : null}
                        </span>
                      ) : null}
                      {onPersons ? (
                        <span class="bar-persons">
                          <button
                            type="button"
                            class="link small"
                            aria-label={`Persons who reached step ${i + 1}${broken ? ` (${v.label})` : ''}`}
                            onClick={() => onPersons({ step: i + 1, breakdown: v.value, title: `Reached step ${i + 1}: ${name}` })}
                          >
                            persons
                          </button>
                          {i > 0 ? (
                            <button
                              type="button"
                              class="link small"
                              aria-label={`Persons who dropped off before step ${i + 1}${broken ? ` (${v.label})` : ''}`}
                              onClick={() =>
                                onPersons({ step: -(i + 1), breakdown: v.value, title: `Dropped off before step ${i + 1}: ${name}` })
                              }
                            >
                              drop-offs
                            </button>
                          ) : null}
                        </span>
                      ) : null}
                    </span>
                  </div>
                )
              })}
              <div class="step-stats small">
                <span>
                  <strong data-testid="step-count">{row.count.toLocaleString('en-US')}</strong> {row.count === 1 ? 'person' : 'persons'}
                </span>
                {i > 0 ? (
                  <>
                    <span>
                      <span data-testid="step-from-first">{percent(row.fromFirst)}</span> overall
                    </span>
                    <span>
                      <span data-testid="step-from-previous">{percent(row.fromPrevious)}</span> from step {i}
                    </span>
                    <span class="drop">
                      <span data-testid="step-dropped">{row.droppedOff.toLocaleString('en-US')}</span> dropped off (
                      <span data-testid="step-drop-rate">{percent(row.dropOffRate)}</span>)
                    </span>
                  </>
                ) : null}
                {onPaths ? (
                  <span class="step-paths" aria-label={`Paths around step ${i + 1}`}>
                    paths:{' '}
                    {FUNNEL_PATH_TYPES.filter((t) => i > 0 || t.value === 'funnel_path_after_step').map((t) => (
                      <button
                        type="button"
                        class="link"
                        aria-label={`Paths ${t.label} step ${i + 1}`}
                        onClick={() => onPaths({ step: i + 1, type: t.value })}
                      >
                        {t.value === 'funnel_path_between_steps' ? `from step ${i}` : t.label}
                      </button>
                    ))}
                  </span>
                ) : null}
              </div>
            </li>
          )
        })}
      </ol>
    </div>
  )
}

/** Conversion over time: one line per breakdown value (PostHog's funnel trends series: data, days, labels). */
function ConversionTrend({
  result,
  compact,
  onPersons,
  insightId,
}: {
  result: unknown
  compact: boolean
  onPersons?: (ask: PersonsAsk) => void
  insightId: number | null
}) {
  const annotate = useMemo(() => ({ insightId, compact }), [insightId, compact])
  const list = Array.isArray(result) ? (result as Array<Partial<TrendSeries>>) : []
  const chart = useMemo(() => {
    const series = list.map((s): TrendSeries => {
      const data = s.data ?? []
      return {
        label: s.breakdown_value !== undefined && s.breakdown_value !== null ? breakdownLabel(s.breakdown_value) : 'Conversion rate (%)',
        data,
        days: s.days ?? [],
        labels: s.labels ?? s.days ?? [],
        count: 0,
      }
    })
    const chart = shapeChart(series)
    // No figure in the legend while no bucket is hovered: a sum of rates means nothing, and their mean weighs an
    // empty bucket as much as a busy one.
    for (const s of chart.series) s.summary = ''
    return chart
  }, [result])
  // A point: the persons who entered the funnel in its period and converted (PostHog's funnelTrendsDropOff false).
  const onPoint = onPersons
    ? (i: number, bucket: number) => {
        const s = list[i]
        const period = s?.days?.[bucket]
        if (period)
          onPersons({
            step: 0,
            period,
            breakdown: s.breakdown_value ?? undefined,
            title: `Converted, entered ${s.labels?.[bucket] ?? period}`,
          })
      }
    : undefined
  return <TrendChart data={chart} kind="line" height={compact ? 220 : undefined} onPoint={onPoint} annotate={annotate} />
}

/** The time to convert: how many persons converted within each span, and the average. */
function TimeToConvert({ result, compact }: { result: TimeToConvertAnswer; compact: boolean }) {
  const bins = result?.bins ?? []
  return (
    <div class="time-to-convert">
      <p class="small">
        Average time to convert: <strong data-testid="average-conversion">{duration(result?.average_conversion_time)}</strong>
      </p>
      <BarChart
        labels={bins.map(([seconds]) => duration(seconds))}
        series={[{ key: 'converted', label: 'Persons converted', colour: PALETTE[0], values: bins.map(([, count]) => count) }]}
        stacked={false}
        compact={compact}
        testId="trend-chart"
      />
    </div>
  )
}
