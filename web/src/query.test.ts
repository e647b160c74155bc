import { describe, expect, it } from 'vitest'
import { DEFAULT_QUERY, decodeQuery, encodeQuery, trendBody, type TrendQuery } from './query'

const full: TrendQuery = {
  series: [
    {
      kind: 'events',
      id: '$pageview',
      math: 'dau',
      mathProperty: null,
      properties: [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }],
    },
    { kind: 'actions', id: '7', math: 'sum', mathProperty: 'price', properties: [] },
  ],
  properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'person' }],
  filterTestAccounts: true,
  dateFrom: '2026-01-01',
  dateTo: '2026-01-31',
  interval: 'week',
  breakdown: '$os',
  breakdownType: 'person',
  compare: true,
  formula: 'A / B',
  display: 'bar',
}

describe('the trends query in the URL', () => {
  it('round-trips every field through the search string', () => {
    expect(decodeQuery(encodeQuery(full))).toEqual(full)
  })

  it('leaves the defaults out, so a plain view has a short link', () => {
    expect(encodeQuery(DEFAULT_QUERY)).toBe('')
    expect(decodeQuery('')).toEqual(DEFAULT_QUERY)
    expect(encodeQuery({ ...DEFAULT_QUERY, interval: 'hour' })).toBe('interval=hour')
  })

  it('opens a malformed link with defaults instead of failing', () => {
    const q = decodeQuery('series=not-json&interval=fortnight&display=pie&breakdown_type=group&properties=%5B1%2C2%5D')
    expect(q.series).toEqual(DEFAULT_QUERY.series)
    expect(q.interval).toBe('day')
    expect(q.display).toBe('line')
    expect(q.breakdownType).toBe('event')
    expect(q.properties).toEqual([])
  })

  it('drops series without an id and keeps unknown math out', () => {
    const q = decodeQuery(
      `series=${encodeURIComponent(
        JSON.stringify([
          { kind: 'events', id: '' },
          { kind: 'events', id: 'buy', math: 'bogus' },
        ]),
      )}`,
    )
    expect(q.series).toEqual([{ kind: 'events', id: 'buy', math: 'total', mathProperty: null, properties: [] }])
  })
})

describe('the body sent to /insights/trend/', () => {
  it('keeps the series order (for the formula’s letters) across events and actions', () => {
    const body = trendBody(full)
    expect(body.events).toEqual([{ id: '$pageview', type: 'events', order: 1, math: 'dau', properties: full.series[0].properties }])
    expect(body.actions).toEqual([{ id: 7, type: 'actions', order: 2, math: 'sum', math_property: 'price' }])
    expect(body).toMatchObject({
      date_from: '2026-01-01',
      date_to: '2026-01-31',
      interval: 'week',
      breakdown: '$os',
      breakdown_type: 'person',
      compare: true,
      formula: 'A / B',
      filter_test_accounts: true,
      display: 'ActionsBar',
      properties: full.properties,
    })
  })

  it('asks for totals for the number and table displays, and a cohort breakdown as a list of ids', () => {
    expect(trendBody({ ...DEFAULT_QUERY, display: 'number' }).display).toBe('BoldNumber')
    expect(trendBody({ ...DEFAULT_QUERY, display: 'table' }).display).toBe('ActionsTable')
    const cohort = trendBody({ ...DEFAULT_QUERY, breakdown: '12', breakdownType: 'cohort' })
    expect(cohort).toMatchObject({ breakdown: [12], breakdown_type: 'cohort' })
  })

  it('sends no optional field that is not set', () => {
    expect(Object.keys(trendBody(DEFAULT_QUERY)).sort()).toEqual(['actions', 'date_from', 'display', 'events', 'interval'])
  })
})
