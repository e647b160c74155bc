import { describe, expect, it } from 'vitest'
import { DEFAULT_QUERY, decodeQuery, encodeQuery, trendBody } from './query'
import { createTrendsStore } from './trends-store'

describe('the trends editor’s store', () => {
  it('adds series, and edits the second one without touching the first', () => {
    const store = createTrendsStore()
    store.addSeries()
    expect(store.get().series).toHaveLength(2)
    store.setSeriesEvent(1, 'purchase')
    store.setMath(1, 'dau')
    store.addSeriesFilter(1)
    store.setSeriesFilters(1, [{ key: 'plan', value: 'pro', operator: 'exact', type: 'person' }])
    expect(store.get().series[0]).toEqual(DEFAULT_QUERY.series[0])
    expect(store.get().series[1]).toMatchObject({ kind: 'events', id: 'purchase', math: 'dau', properties: [{ key: 'plan' }] })
    expect(trendBody(store.get()).events).toEqual([
      { id: '$pageview', type: 'events', order: 1, math: 'total' },
      {
        id: 'purchase',
        type: 'events',
        order: 2,
        math: 'dau',
        properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'person' }],
      },
    ])
  })

  it('keeps an emptied event name empty (nothing comes back), so typing gives the typed name', () => {
    const store = createTrendsStore()
    store.setSeriesEvent(0, '')
    // The URL written from this state reopens it as it is.
    expect(decodeQuery(encodeQuery(store.get())).series[0].id).toBe('')
    for (const prefix of ['p', 'pu', 'purchase']) store.setSeriesEvent(0, prefix)
    expect(store.get().series[0].id).toBe('purchase')
  })

  it('keeps an Action chosen before its action is picked, and a breakdown type without its value', () => {
    const store = createTrendsStore()
    store.setSeriesKind(0, 'actions')
    expect(store.get().series[0]).toMatchObject({ kind: 'actions', id: '' })
    store.setBreakdown('$browser')
    store.setBreakdownType('person')
    expect(store.get()).toMatchObject({ breakdownType: 'person', breakdown: null })
    store.setBreakdownType('cohort')
    store.setBreakdown('4')
    expect(trendBody(store.get())).toMatchObject({ breakdown: [4], breakdown_type: 'cohort' })
    store.setBreakdownType('group')
    expect(store.get()).toMatchObject({ breakdownType: 'group', breakdownGroupTypeIndex: 0, breakdown: null })
  })

  it('removes a series but never the last one, and tells subscribers of each change', () => {
    const store = createTrendsStore()
    const seen: number[] = []
    const stop = store.subscribe((q) => seen.push(q.series.length))
    store.addSeries()
    store.removeSeries(0)
    store.removeSeries(0)
    expect(store.get().series).toEqual([{ kind: 'events', id: '', math: 'total', mathProperty: null, properties: [] }])
    stop()
    store.addSeries()
    expect(seen).toEqual([2, 1])
  })

  it('sets the rest: formula, compare, interval, dates, test accounts, display; and replaces the whole state from a URL', () => {
    const store = createTrendsStore()
    store.set({ formula: 'A / B', compare: true, interval: 'week', dateFrom: '-30d', filterTestAccounts: true, display: 'table' })
    expect(trendBody(store.get())).toMatchObject({
      compare: true,
      interval: 'week',
      date_from: '-30d',
      filter_test_accounts: true,
      display: 'ActionsTable',
    })
    store.replace(decodeQuery(''))
    expect(store.get()).toEqual(DEFAULT_QUERY)
  })
})
