import { describe, expect, it } from 'vitest'
import { derivedName, editorQuery, insightDisplay, insightQuery } from './insight-query'
import { DEFAULT_QUERY, trendBody, type TrendQuery } from './query'

const query: TrendQuery = {
  ...DEFAULT_QUERY,
  series: [
    { kind: 'events', id: '$pageview', math: 'dau', mathProperty: null, properties: [] },
    { kind: 'actions', id: '7', math: 'sum', mathProperty: 'price', properties: [{ key: '$browser', value: 'Chrome', type: 'event' }] },
  ],
  properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'person' }],
  dateFrom: '-30d',
  interval: 'week',
  breakdown: '$browser',
  breakdownType: 'event',
  compare: true,
  formula: 'A / B',
  display: 'bar',
}

describe('a saved insight and the trends editor', () => {
  it('saves the editor’s query as a TrendsQuery that opens as the same editor', () => {
    const saved = insightQuery(query)
    expect(saved).toMatchObject({
      kind: 'InsightVizNode',
      source: {
        kind: 'TrendsQuery',
        series: [
          { kind: 'EventsNode', event: '$pageview', math: 'dau' },
          { kind: 'ActionsNode', id: 7, math: 'sum', math_property: 'price' },
        ],
        interval: 'week',
        dateRange: { date_from: '-30d', date_to: null },
        breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
        compareFilter: { compare: true },
        trendsFilter: { display: 'ActionsBar', formula: 'A / B' },
      },
    })
    expect(editorQuery({ query: saved, filters: {} })).toEqual(query)
    // What the editor then asks the API is what it asked before saving.
    expect(trendBody(editorQuery({ query: saved, filters: {} })!)).toEqual(trendBody(query))
  })

  it('keeps bars stacked or side by side as PostHog names them: ActionsBar stacked, ActionsUnstackedBar grouped', () => {
    const grouped = insightQuery({ ...query, display: 'grouped' })
    expect(grouped).toMatchObject({ source: { trendsFilter: { display: 'ActionsUnstackedBar' } } })
    expect(editorQuery({ query: grouped, filters: {} })?.display).toBe('grouped')
    const tile = (display: string) =>
      insightDisplay({ query: { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', trendsFilter: { display } } }, filters: {} })
    expect(['ActionsBar', 'ActionsStackedBar', 'ActionsUnstackedBar'].map(tile)).toEqual(['bar', 'bar', 'grouped'])
    expect(insightDisplay({ query: null, filters: { display: 'ActionsUnstackedBar' } })).toBe('grouped')
  })

  it('opens a cohort breakdown and a group breakdown as they were', () => {
    for (const q of [
      { ...query, breakdownType: 'cohort' as const, breakdown: '12' },
      { ...query, breakdownType: 'group' as const, breakdown: 'industry', breakdownGroupTypeIndex: 1 },
    ])
      expect(editorQuery({ query: insightQuery(q), filters: {} })).toEqual(q)
  })

  it('opens the home dashboard’s insights and a legacy filter; other kinds are no trend', () => {
    const topPages = {
      kind: 'InsightVizNode',
      source: {
        kind: 'TrendsQuery',
        series: [{ kind: 'EventsNode', event: '$pageview', name: '$pageview', math: 'total' }],
        interval: 'day',
        dateRange: { date_from: '-30d', date_to: null },
        breakdownFilter: { breakdown: '$current_url', breakdown_type: 'event' },
        trendsFilter: { display: 'ActionsPie' },
      },
    }
    expect(editorQuery({ query: topPages, filters: {} })).toMatchObject({
      series: [{ kind: 'events', id: '$pageview', math: 'total' }],
      dateFrom: '-30d',
      breakdown: '$current_url',
      display: 'table',
    })
    expect(insightDisplay({ query: topPages, filters: {} })).toBe('table')
    const legacy = { insight: 'TRENDS', events: [{ id: 'signed_up', math: 'total' }], date_from: '-7d', display: 'BoldNumber' }
    expect(editorQuery({ query: null, filters: legacy })).toMatchObject({ series: [{ id: 'signed_up' }], display: 'number' })
    expect(insightDisplay({ query: null, filters: legacy })).toBe('number')
    expect(editorQuery({ query: { kind: 'FunnelsQuery' }, filters: {} })).toBeNull()
    expect(editorQuery({ query: null, filters: { insight: 'RETENTION' } })).toBeNull()
  })

  it('names an unnamed insight after its series', () => {
    expect(derivedName(query, (id) => `action ${id}`)).toBe('$pageview unique users & action 7 sum of a property by $browser')
    expect(derivedName(DEFAULT_QUERY)).toBe('$pageview count')
  })
})
