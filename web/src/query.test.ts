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
  breakdownGroupTypeIndex: null,
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
    const q = decodeQuery('series=not-json&interval=fortnight&display=pie&breakdown_type=funnel&properties=%5B1%2C2%5D')
    expect(q.series).toEqual(DEFAULT_QUERY.series)
    expect(q.interval).toBe('day')
    expect(q.display).toBe('line')
    expect(q.breakdownType).toBe('event')
    expect(q.properties).toEqual([])
  })

  it('keeps a series without an id (still being chosen) and keeps unknown math out', () => {
    const q = decodeQuery(
      `series=${encodeURIComponent(
        JSON.stringify([
          { kind: 'events', id: '' },
          { kind: 'events', id: 'buy', math: 'bogus' },
        ]),
      )}`,
    )
    expect(q.series).toEqual([
      { kind: 'events', id: '', math: 'total', mathProperty: null, properties: [] },
      { kind: 'events', id: 'buy', math: 'total', mathProperty: null, properties: [] },
    ])
  })

  it('keeps incomplete edits: an emptied event, an action not yet chosen, a breakdown type without its value', () => {
    const incomplete: TrendQuery = {
      ...DEFAULT_QUERY,
      series: [
        { kind: 'events', id: '', math: 'total', mathProperty: null, properties: [] },
        { kind: 'actions', id: '', math: 'dau', mathProperty: null, properties: [] },
      ],
      breakdownType: 'cohort',
    }
    expect(decodeQuery(encodeQuery(incomplete))).toEqual(incomplete)
    for (const type of ['person', 'group', 'session', 'hogql'] as const)
      expect(decodeQuery(encodeQuery({ ...DEFAULT_QUERY, breakdownType: type })).breakdownType).toBe(type)
    const group = { ...DEFAULT_QUERY, breakdownType: 'group' as const, breakdown: 'industry', breakdownGroupTypeIndex: 2 }
    expect(decodeQuery(encodeQuery(group))).toEqual(group)
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

  it('leaves incomplete parts out until they are complete, keeping the order of the others', () => {
    const body = trendBody({
      ...DEFAULT_QUERY,
      series: [
        { kind: 'events', id: '', math: 'total', mathProperty: null, properties: [] },
        { kind: 'events', id: 'buy', math: 'sum', mathProperty: ' ', properties: [] },
        { kind: 'actions', id: '', math: 'total', mathProperty: null, properties: [] },
        {
          kind: 'events',
          id: 'signup',
          math: 'total',
          mathProperty: null,
          properties: [{ key: '', value: '', operator: 'exact', type: 'event' }],
        },
      ],
      breakdownType: 'person',
      formula: 'A + B',
    })
    expect(body.events).toEqual([{ id: 'signup', type: 'events', order: 4, math: 'total' }])
    expect(body.actions).toEqual([])
    // The formula's letters name series that are not sent yet: it waits.
    expect(body).not.toHaveProperty('formula')
    expect(body).not.toHaveProperty('breakdown_type')
    expect(
      trendBody({ ...DEFAULT_QUERY, breakdownType: 'group', breakdown: 'industry', breakdownGroupTypeIndex: null }),
    ).not.toHaveProperty('breakdown')
  })

  it('sends every breakdown type the API takes', () => {
    expect(trendBody({ ...DEFAULT_QUERY, breakdownType: 'group', breakdown: 'industry', breakdownGroupTypeIndex: 1 })).toMatchObject({
      breakdown: 'industry',
      breakdown_type: 'group',
      breakdown_group_type_index: 1,
    })
    for (const type of ['event', 'person', 'session', 'hogql'] as const)
      expect(trendBody({ ...DEFAULT_QUERY, breakdownType: type, breakdown: ' x ' })).toMatchObject({ breakdown: 'x', breakdown_type: type })
    expect(trendBody({ ...DEFAULT_QUERY, breakdownType: 'cohort', breakdown: 'all' })).toMatchObject({ breakdown: ['all'] })
  })

  it('sends no optional field that is not set', () => {
    expect(Object.keys(trendBody(DEFAULT_QUERY)).sort()).toEqual(['actions', 'date_from', 'display', 'events', 'interval'])
  })
})
