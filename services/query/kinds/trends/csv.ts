// `?format=csv`: one row per series, `series` then one column per bucket label of the first series, the
// way PostHog lays it out (later rows are read by the first row's labels; total-value rows are the name).
import { stringify } from 'csv-stringify/sync'
import type { SeriesResult } from './shape'

export function trendCsv(result: SeriesResult[], floats: boolean[]): string {
  if (result.length === 0) return ''
  const header = ['series', ...(result[0].labels ?? [])]
  const rows = result.map((r, i) => {
    const byLabel = new Map<string, number>()
    ;(r.labels ?? []).forEach((l, j) => byLabel.set(l, r.data[j]))
    const name = (r.action?.custom_name as string | null | undefined) || r.label
    return [name, ...header.slice(1).map((l) => (byLabel.has(l) ? formatNumber(byLabel.get(l)!, floats[i]) : ''))]
  })
  return stringify([header, ...rows], { record_delimiter: '\r\n' })
}

/** Counts print as integers; float-valued series (formulas, property math) print like Python floats. */
function formatNumber(n: number, float: boolean): string {
  if (float && Number.isInteger(n)) return `${n}.0`
  return String(n)
}
