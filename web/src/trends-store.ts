// The trends editor's state: one query object and the edits the page makes to it. The state is the truth
// while the page is open; the URL is written from it (and read from only on load and on back/forward), so
// an incomplete edit (an event name being typed, a breakdown type without its value) is never lost. No DOM
// here: the unit tests run it in Node.
import type { PropertyFilter } from './api'
import { DEFAULT_QUERY, type BreakdownType, type Series, type TrendQuery } from './query'

export const emptySeries = (): Series => ({ kind: 'events', id: '', math: 'total', mathProperty: null, properties: [] })

/** What the page may change outside the series and the breakdown, as they are. */
type Settings = Pick<
  TrendQuery,
  'properties' | 'filterTestAccounts' | 'dateFrom' | 'dateTo' | 'interval' | 'compare' | 'formula' | 'display'
>

export interface TrendsStore {
  get(): TrendQuery
  /** Calls `listener` after every change; returns the unsubscribe. */
  subscribe(listener: (query: TrendQuery) => void): () => void
  /** The whole state, as read from a URL (load, back/forward). */
  replace(query: TrendQuery): void
  addSeries(): void
  removeSeries(index: number): void
  /** Event or action: the chosen id goes, since an event's name is no action's id. */
  setSeriesKind(index: number, kind: Series['kind']): void
  /** The event's name or the action's id; an empty one stays (the user is typing). */
  setSeriesEvent(index: number, id: string): void
  setMath(index: number, math: string): void
  setMathProperty(index: number, property: string): void
  setSeriesFilters(index: number, filters: PropertyFilter[]): void
  addSeriesFilter(index: number): void
  /** A new type keeps no value of the old one (a property key is no cohort id). */
  setBreakdownType(type: BreakdownType): void
  setBreakdown(value: string): void
  setBreakdownGroupTypeIndex(index: number | null): void
  set(patch: Partial<Settings>): void
}

export function createTrendsStore(initial: TrendQuery = DEFAULT_QUERY): TrendsStore {
  let state = initial
  const listeners = new Set<(query: TrendQuery) => void>()
  const commit = (next: TrendQuery) => {
    if (next === state) return
    state = next
    for (const listener of listeners) listener(state)
  }
  const editSeries = (index: number, patch: Partial<Series>) => {
    if (!state.series[index]) return
    commit({ ...state, series: state.series.map((s, i) => (i === index ? { ...s, ...patch } : s)) })
  }
  return {
    get: () => state,
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    replace: commit,
    addSeries: () => commit({ ...state, series: [...state.series, emptySeries()] }),
    removeSeries(index) {
      // The last series stays: a trend of nothing is no editor to come back to.
      if (state.series.length <= 1 || !state.series[index]) return
      commit({ ...state, series: state.series.filter((_, i) => i !== index) })
    },
    setSeriesKind(index, kind) {
      if (state.series[index]?.kind !== kind) editSeries(index, { kind, id: '' })
    },
    setSeriesEvent: (index, id) => editSeries(index, { id }),
    setMath: (index, math) => editSeries(index, { math }),
    setMathProperty: (index, property) => editSeries(index, { mathProperty: property }),
    setSeriesFilters: (index, properties) => editSeries(index, { properties }),
    addSeriesFilter(index) {
      const series = state.series[index]
      if (series) editSeries(index, { properties: [...series.properties, { key: '', value: '', operator: 'exact', type: 'event' }] })
    },
    setBreakdownType(type) {
      if (type === state.breakdownType) return
      // A group breakdown starts on the first group type, the one most projects have.
      commit({ ...state, breakdownType: type, breakdown: null, breakdownGroupTypeIndex: type === 'group' ? 0 : null })
    },
    setBreakdown: (value) => commit({ ...state, breakdown: value === '' ? null : value }),
    setBreakdownGroupTypeIndex: (index) => commit({ ...state, breakdownGroupTypeIndex: index }),
    set: (patch) => commit({ ...state, ...patch }),
  }
}
