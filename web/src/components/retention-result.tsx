// A retention's result: the cohort table (each cohort's size and the share of it back in each interval after,
// shaded by that share; a cell lists its persons) and the retention curve (the mean share back in each interval,
// a line per breakdown value). With a breakdown, one breakdown value's cohorts at a time.
import { useMemo, useState } from 'preact/hooks'
import { TrendChart } from '../chart'
import type { ChartData } from '../chart-data'
import { PALETTE } from '../chart-data'
import { breakdownLabel, percent } from '../funnel-query'
import type { RetentionState } from '../insight-queries'

export interface RetentionRow {
  date: string
  label: string
  values: Array<{ count: number; label: string }>
  breakdown_value?: string | number | null
}

/** A cell asked for: the cohort's index (within its breakdown value's rows) and the interval after it. */
export interface RetentionCell {
  cohort: number
  interval: number
  breakdown: string | number | null
  title: string
}

const rowsOf = (result: unknown): RetentionRow[] => (Array.isArray(result) ? (result as RetentionRow[]) : [])

export const retentionHasData = (result: unknown) => rowsOf(result).some((r) => (r.values[0]?.count ?? 0) > 0)

/** The rows grouped by breakdown value, in the answer's order (one group, keyed null, without a breakdown). */
function groups(rows: RetentionRow[]): Array<{ value: string | number | null; rows: RetentionRow[] }> {
  const out: Array<{ value: string | number | null; rows: RetentionRow[] }> = []
  for (const row of rows) {
    const value = row.breakdown_value ?? null
    const group = out.find((g) => g.value === value)
    if (group) group.rows.push(row)
    else out.push({ value, rows: [row] })
  }
  return out
}

/**
 * Whether cohort `r` (of `n`, one a period up to the range's end) has reached interval `i`: PostHog's answer has
 * values only for the intervals a cohort has reached (a triangle); later ones, where an answer has them, are not shown.
 */
export const reached = (r: number, i: number, n: number) => r + i < n

/**
 * Each interval's mean share back (%), over the cohorts that have reached that interval and have anyone in them;
 * null where no such cohort has (the curve has no point there).
 */
export function meanRetention(rows: RetentionRow[]): Array<number | null> {
  const intervals = Math.max(0, ...rows.map((r) => r.values.length))
  return Array.from({ length: intervals }, (_, i) => {
    const shares = rows
      .filter((r, index) => reached(index, i, rows.length) && r.values.length > i && r.values[0].count > 0)
      .map((r) => r.values[i].count / r.values[0].count)
    return shares.length ? (shares.reduce((a, b) => a + b, 0) / shares.length) * 100 : null
  })
}

const cohortDate = (iso: string) =>
  iso
    .replace('T00:00:00', '')
    .replace(/(:00)?([+-]\d\d:\d\d|Z)$/, '')
    .replace('T', ' ')

export function RetentionResult({
  result,
  state,
  compact = false,
  onCell,
}: {
  result: unknown
  state: Pick<RetentionState, 'display'>
  compact?: boolean
  onCell?: (cell: RetentionCell) => void
}) {
  const all = useMemo(() => groups(rowsOf(result)), [result])
  const [chosen, setChosen] = useState(0)
  const group = all[Math.min(chosen, all.length - 1)] ?? { value: null, rows: [] }
  const broken = all.length > 1 || group.value !== null
  const curve = useMemo((): ChartData => {
    const first = all[0]?.rows[0]
    return {
      xLabels: first ? first.values.map((v) => v.label) : [],
      xTitle: 'Interval',
      series: all.map((g, i) => {
        const values = meanRetention(g.rows)
        return {
          label: broken ? breakdownLabel(g.value) : 'Mean retention (%)',
          values,
          colour: PALETTE[i % PALETTE.length],
          dashed: false,
          total: 0,
          summary: values[1] !== null && values[1] !== undefined ? `${percent(values[1] / 100)} after one interval` : '',
        }
      }),
    }
  }, [all, broken])
  const showCurve = !compact || state.display === 'curve'
  const showTable = !compact || state.display !== 'curve'
  const intervals = group.rows[0]?.values.map((v) => v.label) ?? []
  return (
    <div class={compact ? 'retention compact' : 'retention'}>
      {showCurve ? <TrendChart data={curve} kind="line" height={compact ? 200 : undefined} /> : null}
      {showTable && broken && !compact ? (
        <label class="inline retention-breakdown">
          Breakdown value
          <select
            aria-label="Breakdown value"
            value={String(Math.min(chosen, all.length - 1))}
            onChange={(e) => setChosen(Number(e.currentTarget.value))}
          >
            {all.map((g, i) => (
              <option value={String(i)}>{breakdownLabel(g.value)}</option>
            ))}
          </select>
        </label>
      ) : null}
      {showTable ? (
        <div class="table-scroll">
          <table
            class="list retention-table"
            data-testid="retention-table"
            data-breakdown={broken ? breakdownLabel(group.value) : undefined}
          >
            <thead>
              <tr>
                <th>Cohort</th>
                <th class="num">Persons</th>
                {intervals.map((l) => (
                  <th class="num">{l}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {group.rows.map((row, r) => {
                const size = row.values[0]?.count ?? 0
                return (
                  <tr data-cohort={r}>
                    <td class="nowrap">{cohortDate(row.date)}</td>
                    <td class="num" data-testid="cohort-size">
                      {size}
                    </td>
                    {intervals.map((label, i) => {
                      const value = row.values[i]
                      if (!value || !reached(r, i, group.rows.length)) return <td class="retention-cell empty" />
                      if (size === 0)
                        return (
                          <td class="retention-cell nobody num" data-count={value.count}>
                            –
                          </td>
                        )
                      const share = size > 0 ? value.count / size : 0
                      const text = percent(share)
                      const style = {
                        background: `rgba(37, 99, 235, ${(0.08 + share * 0.82).toFixed(2)})`,
                        color: share > 0.55 ? '#fff' : undefined,
                      }
                      return (
                        <td class="retention-cell num" style={style} data-count={value.count} title={`${value.count} of ${size}`}>
                          {onCell && value.count > 0 ? (
                            <button
                              type="button"
                              class="link cell-persons"
                              aria-label={`Persons of the ${cohortDate(row.date)} cohort back in ${label}`}
                              onClick={() =>
                                onCell({
                                  cohort: r,
                                  interval: i,
                                  breakdown: group.value,
                                  title: `The ${cohortDate(row.date)} cohort, back in ${label}${broken ? ` (${breakdownLabel(group.value)})` : ''}`,
                                })
                              }
                            >
                              {text}
                            </button>
                          ) : (
                            text
                          )}
                        </td>
                      )
                    })}
                  </tr>
                )
              })}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  )
}
