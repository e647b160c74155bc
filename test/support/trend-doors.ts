// Trends through both doors: the legacy endpoint (POST …/insights/trend/) and the Query API (POST …/query/
// with the TrendsQuery PostHog's web app sends for the same filter). `bothDoors(api(t))` is a drop-in for
// `api(t)`: every legacy trend request a test sends with the test's own key is sent again as a TrendsQuery
// (recomputed: refresh force_blocking), and the two answers must agree (the same series, the same 400).
// WREN_TEST_DOORS_TALLY=<file> appends the test of each agreement to <file>, to count the cases.
import { appendFileSync } from 'node:fs'
import { expect } from 'vitest'
import type { api } from './wren'

type Call = ReturnType<typeof api>
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The TrendsQuery for a legacy trend filter, as PostHog's web app builds it (series in the filter's order). */
export function trendsQueryOf(filter: Record<string, unknown>): Record<string, unknown> {
  const listed = (v: unknown, type: string) => (Array.isArray(v) ? v.filter((e) => typeof e !== 'string').map((e) => ({ e, type })) : [])
  const entities = [...listed(filter.actions, 'actions'), ...listed(filter.events, 'events')]
    .filter(({ e, type }) => !(type === 'actions' && isRecord(e) && (e.id === null || e.id === undefined)))
    .map((x, i) => ({ ...x, i, o: (isRecord(x.e) && Number(x.e.order)) || -1 }))
    .sort((a, b) => a.o - b.o || a.i - b.i)
  const series =
    filter.events !== undefined && filter.events !== null && !Array.isArray(filter.events)
      ? filter.events
      : entities.map(({ e, type }) => {
          if (!isRecord(e)) return e
          const { id, order: _order, type: _type, ...rest } = e
          return type === 'actions' ? { ...rest, kind: 'ActionsNode', id } : { ...rest, kind: 'EventsNode', event: id ?? null }
        })
  const pick = (keys: Record<string, string>) =>
    Object.fromEntries(Object.entries(keys).flatMap(([from, to]) => (filter[from] === undefined ? [] : [[to, filter[from]]])))
  return {
    kind: 'TrendsQuery',
    series,
    ...pick({ interval: 'interval', properties: 'properties', filter_test_accounts: 'filterTestAccounts' }),
    ...pick({ aggregation_group_type_index: 'aggregation_group_type_index' }),
    dateRange: pick({ date_from: 'date_from', date_to: 'date_to', explicit_date: 'explicitDate' }),
    breakdownFilter: pick({
      breakdown: 'breakdown',
      breakdown_type: 'breakdown_type',
      breakdown_limit: 'breakdown_limit',
      breakdowns: 'breakdowns',
      breakdown_group_type_index: 'breakdown_group_type_index',
      breakdown_normalize_url: 'breakdown_normalize_url',
      breakdown_hide_other_aggregation: 'breakdown_hide_other_aggregation',
    }),
    trendsFilter: pick({ display: 'display', formula: 'formula', smoothing_intervals: 'smoothingIntervals' }),
    compareFilter: pick({ compare: 'compare', compare_to: 'compare_to' }),
  }
}

const LEGACY = /^(\/api\/(?:projects|environments)\/[^/]+)\/insights\/trend\/(\?refresh=true)?$/

export function bothDoors(call: Call): Call {
  return async (method, route, body, ...key) => {
    const legacy = await call(method, route, body, ...key)
    const match = LEGACY.exec(route)
    // The test's own key (another key may lack query:read), a JSON body, and no breakdown page (a TrendsQuery has none).
    if (method !== 'POST' || !match || key.length > 0 || !isRecord(body) || body.offset !== undefined) return legacy
    if (legacy.status !== 200 && legacy.status !== 400) return legacy
    const query = await call('POST', `${match[1]}/query/`, { query: trendsQueryOf(body), refresh: 'force_blocking' })
    const what = `${JSON.stringify(body)}: legacy ${JSON.stringify(legacy.body).slice(0, 300)}, query ${JSON.stringify(query.body).slice(0, 300)}`
    expect(query.status, what).toBe(legacy.status)
    if (legacy.status === 200) {
      // Under the real clock the two requests resolve "now" a moment apart: their series' filter echoes it.
      const realClock = /\.\d{3}Z$/.test(String(legacy.body.last_refresh))
      const comparable = (series: unknown) =>
        realClock && Array.isArray(series)
          ? series.map((s) => (isRecord(s) && isRecord(s.filter) ? { ...s, filter: { ...s.filter, date_from: null, date_to: null } } : s))
          : series
      expect(comparable(query.body.results), what).toEqual(comparable(legacy.body.result))
      expect(query.body.hasMore, what).toBe(legacy.body.next !== null)
    }
    const tally = process.env.WREN_TEST_DOORS_TALLY
    if (tally) appendFileSync(tally, `${expect.getState().testPath}\t${expect.getState().currentTestName}\t${legacy.status}\n`)
    return legacy
  }
}
