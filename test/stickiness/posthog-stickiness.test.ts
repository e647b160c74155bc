// StickinessQuery ported from PostHog's posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py:
// the same persons, events, queries and numbers; then the API's edges (400s, a saved STICKINESS insight, a
// dashboard tile, the persons behind a point through StickinessActorsQuery and InsightActorsQuery).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { drained, startWren, type TestWren } from '../support/wren'
import { insightCase, type InsightCase, type Props, type SentEvent } from '../support/insight-cases'

// PostHog's test_interval_full_weeks freezes now here; the other cases give their dates.
const NOW = '2020-01-23T12:00:00Z'

/** PostHog's _create_events: per person, its events (the first creates it, with `name`, and for p1 an email) with its properties. */
function seriesEvents(data: Array<{ id: string; events: Array<[string, string[]]>; properties: Props }>): SentEvent[] {
  return data.flatMap(({ id, events, properties }) =>
    events.flatMap(([event, times], e) =>
      times.map((at, i) => ({
        event,
        distinct_id: id,
        at,
        properties: {
          ...properties,
          ...(e === 0 && i === 0 ? { $set: { name: id, ...(id === 'p1' ? { email: 'test@posthog.com' } : {}) } } : {}),
        },
      })),
    ),
  )
}
const days = (from: number, to: number, step = 1) =>
  Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => `2020-01-${String(from + i * step).padStart(2, '0')}T12:00:00Z`)
const CHROME = { $browser: 'Chrome', prop: 10, bool_field: true, $group_0: 'org:1' }
const FIREFOX = { $browser: 'Firefox', prop: 10, bool_field: false, $group_0: 'org:1' }
/** PostHog's _create_test_events. */
const TEST_EVENTS = seriesEvents([
  {
    id: 'p1',
    events: [
      ['$pageview', days(11, 19)],
      ['$pageleave', days(11, 19)],
    ],
    properties: CHROME,
  },
  {
    id: 'p2',
    events: [
      ['$pageview', days(11, 19, 2)],
      ['$pageleave', days(11, 19, 2)],
    ],
    properties: FIREFOX,
  },
])
/** p1 three days, p2 two, p3 one (PostHog's cumulative and actors cases). */
const THREE_PERSONS = (properties: [Props, Props, Props] = [{}, {}, {}]) =>
  seriesEvents([
    { id: 'p1', events: [['$pageview', days(11, 13)]], properties: properties[0] },
    { id: 'p2', events: [['$pageview', days(11, 12)]], properties: properties[1] },
    { id: 'p3', events: [['$pageview', days(11, 11)]], properties: properties[2] },
  ])

const stickiness = (extra: Props = {}) => ({
  kind: 'StickinessQuery',
  series: [{ kind: 'EventsNode', event: '$pageview' }],
  dateRange: { date_from: '2020-01-11', date_to: '2020-01-20' },
  interval: 'day',
  ...extra,
})
const range = (date_from: string, date_to: string | null) => ({ dateRange: { date_from, ...(date_to ? { date_to } : {}) } })
const DAY_LABELS = Array.from({ length: 10 }, (_, i) => `${i + 1} day${i ? 's' : ''}`)

describe('PostHog test_stickiness_query_runner.py', () => {
  let t: TestWren
  const c: Record<string, InsightCase> = {}
  beforeAll(async () => {
    t = await startWren({ WREN_NOW: NOW })
    const cases: Array<[string, Props, SentEvent[]]> = [
      ['test', { test_account_filters: [{ key: '$browser', type: 'event', value: 'Chrome', operator: 'exact' }] }, TEST_EVENTS],
      [
        '2 day filtering',
        {},
        seriesEvents([
          { id: 'p1', events: [['$pageview', days(11, 19)]], properties: CHROME },
          { id: 'p2', events: [['$pageview', days(11, 15, 2)]], properties: FIREFOX },
        ]),
      ],
      [
        'criteria',
        {},
        seriesEvents([
          {
            id: 'p1',
            events: [['$pageview', ['11', '11', '13', '13', '15', '15', '17', '17', '17', '19'].map((d) => `2020-01-${d}T12:00:00Z`)]],
            properties: CHROME,
          },
          { id: 'p2', events: [['$pageview', ['12', '12', '13', '13', '19'].map((d) => `2020-01-${d}T12:00:00Z`)]], properties: CHROME },
        ]),
      ],
      ['three persons', {}, THREE_PERSONS()],
      [
        'hours',
        {},
        seriesEvents([
          { id: 'p1', events: [['$pageview', ['12', '13', '14'].map((h) => `2020-01-11T${h}:00:00Z`)]], properties: {} },
          { id: 'p2', events: [['$pageview', ['12', '13'].map((h) => `2020-01-11T${h}:00:00Z`)]], properties: {} },
        ]),
      ],
      [
        'browsers',
        {},
        seriesEvents([
          { id: 'p1', events: [['$pageview', days(11, 13)]], properties: { browser: 'Chrome' } },
          { id: 'p2', events: [['$pageview', days(11, 12)]], properties: { browser: 'Safari' } },
        ]),
      ],
      [
        'cumulative criteria',
        {},
        seriesEvents([
          { id: 'p1', events: [['$pageview', ['11', '11', '12', '12', '13'].map((d) => `2020-01-${d}T12:00:00Z`)]], properties: {} },
          { id: 'p2', events: [['$pageview', ['11', '11', '12'].map((d) => `2020-01-${d}T12:00:00Z`)]], properties: {} },
          { id: 'p3', events: [['$pageview', days(11, 11)]], properties: {} },
        ]),
      ],
      ['empty', {}, []],
    ]
    for (const [name, settings, events] of cases) {
      c[name] = await insightCase(t, name, settings)
      if (events.length) await c[name].send(events)
    }
    await drained(t.wren)
  })
  afterAll(async () => {
    await t?.close()
  })

  const first = async (cs: InsightCase, extra: Props = {}) => (await cs.query(stickiness(extra))).results[0]

  it('test_stickiness_runs: a list of series objects', async () => {
    // PostHog: test_stickiness_runs_with_poe asks the same (persons on events is how Wren stores persons).
    const body = await c.test.query(stickiness())
    expect(Array.isArray(body.results)).toBe(true)
    expect(body.results[0]).toEqual(expect.any(Object))
  })

  it('test_days, test_count, test_labels, test_interval_day: ten days, two persons, "N days"', async () => {
    const result = await first(c.test)
    expect(result.days).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    expect(result.count).toBe(2)
    expect(result.label).toBe('$pageview')
    expect(result.labels).toEqual(DAY_LABELS)
    expect(result.data).toEqual([0, 0, 0, 0, 1, 0, 0, 0, 1, 0])
    expect(result.action).toEqual({ order: 0, type: 'events', name: '$pageview', id: '$pageview', custom_name: null })
  })

  it('test_interval_hour: 25 hours of 11 and 12 January', async () => {
    const result = await first(c.test, { interval: 'hour', ...range('2020-01-11', '2020-01-12') })
    const hours = Array.from({ length: 25 }, (_, h) => h + 1)
    expect(result.labels).toEqual(hours.map((h) => `${h} hour${h === 1 ? '' : 's'}`))
    expect(result.days).toEqual(hours)
    expect(result.data).toEqual(hours.map((h) => (h === 1 ? 2 : 0)))
  })

  it('test_interval_hour_last_days: the 61 hours of the last two days and a half', async () => {
    // PostHog asks -2d to now at 2020-01-20T12:00; the same hours, written out.
    const result = await first(c.test, { interval: 'hour', ...range('2020-01-18', '2020-01-20T12:00:00') })
    expect(result.days).toEqual(Array.from({ length: 61 }, (_, h) => h + 1))
    expect(result.data).toEqual(Array.from({ length: 61 }, (_, h) => (h < 2 ? 1 : 0)))
  })

  it('test_interval_2_day: intervals of two days back from the end', async () => {
    const result = await first(c.test, { intervalCount: 2 })
    expect(result.labels).toEqual(DAY_LABELS.slice(0, 5))
    expect(result.days).toEqual([1, 2, 3, 4, 5])
    expect(result.data).toEqual([0, 0, 0, 0, 2])
  })

  it('test_interval_2_day_filtering: and the persons of a StickinessActorsQuery', async () => {
    const cs = c['2 day filtering']
    const result = await first(cs, { intervalCount: 2 })
    expect(result.days).toEqual([1, 2, 3, 4, 5])
    expect(result.data).toEqual([0, 0, 1, 0, 1])
    const source = stickiness({ intervalCount: 2 })
    expect(await cs.actors({ kind: 'StickinessActorsQuery', source, day: 1, operator: 'exact' })).toEqual([])
    expect(await cs.actors({ kind: 'StickinessActorsQuery', source, day: 3, operator: 'gte' })).toEqual(['p1', 'p2'])
  })

  it('test_interval_week: three weeks', async () => {
    const result = await first(c.test, { interval: 'week' })
    expect(result.labels).toEqual(['1 week', '2 weeks', '3 weeks'])
    expect(result.days).toEqual([1, 2, 3])
    expect(result.data).toEqual([0, 0, 2])
  })

  it('test_interval_full_weeks: the last 30 days in weeks', async () => {
    const result = await first(c.test, { interval: 'week', ...range('-30d', null) })
    expect(result.labels).toEqual(['1 week', '2 weeks', '3 weeks', '4 weeks', '5 weeks'])
    expect(result.days).toEqual([1, 2, 3, 4, 5])
    expect(result.data).toEqual([0, 0, 2, 0, 0])
  })

  it('test_interval_month: one month', async () => {
    const result = await first(c.test, { interval: 'month' })
    expect([result.labels, result.days, result.data]).toEqual([['1 month'], [1], [2]])
  })

  const CHROME_ONLY = [0, 0, 0, 0, 0, 0, 0, 0, 1, 0]

  it('test_property_filtering: an event property filter', async () => {
    const result = await first(c.test, { properties: [{ type: 'event', key: '$browser', operator: 'exact', value: 'Chrome' }] })
    expect(result.data).toEqual(CHROME_ONLY)
  })

  it('test_property_filtering_hogql: a HogQL property filter', async () => {
    const result = await first(c.test, { properties: [{ type: 'hogql', key: "properties.$browser == 'Chrome'" }] })
    expect(result.data).toEqual(CHROME_ONLY)
  })

  it('test_event_filtering: a series’ own property filter', async () => {
    const series = [
      { kind: 'EventsNode', event: '$pageview', properties: [{ type: 'event', key: '$browser', operator: 'exact', value: 'Chrome' }] },
    ]
    expect((await first(c.test, { series })).data).toEqual(CHROME_ONLY)
  })

  it('test_any_event: all events', async () => {
    const result = await first(c.test, { series: [{ kind: 'EventsNode', event: null }] })
    expect(result.label).toBe('All events')
    expect(result.data).toEqual([0, 0, 0, 0, 1, 0, 0, 0, 1, 0])
  })

  it('test_actions: an action with a property on its step', async () => {
    const id = await c.test.action('My Action', [
      { event: '$pageview', properties: [{ key: '$browser', type: 'event', value: 'Chrome', operator: 'exact' }] },
    ])
    const result = await first(c.test, { series: [{ kind: 'ActionsNode', id }] })
    expect(result.data).toEqual(CHROME_ONLY)
    expect(result.label).toBe('My Action')
    expect(result.action).toEqual({ order: 0, type: 'events', name: 'My Action', id: 'My Action', custom_name: null })
  })

  it('test_compare: the previous period beside the current one', async () => {
    const { results } = await c.test.query(stickiness({ stickinessFilter: {}, compareFilter: { compare: true } }))
    expect(results.map((r: Props) => [r.count, r.compare, r.compare_label])).toEqual([
      [2, true, 'current'],
      [0, true, 'previous'],
    ])
  })

  it('test_compare_to: compared with a day earlier', async () => {
    const { results } = await c.test.query(
      stickiness({ ...range('2020-01-12', '2020-01-20'), stickinessFilter: {}, compareFilter: { compare: true, compare_to: '-1d' } }),
    )
    expect(results.map((r: Props) => [r.count, r.compare_label, r.data])).toEqual([
      [2, 'current', [0, 0, 0, 1, 0, 0, 0, 1, 0]],
      [2, 'previous', [0, 0, 0, 0, 1, 0, 0, 0, 1]],
    ])
  })

  it('test_criteria: an interval counts when done gte, lte or exactly N times in it', async () => {
    const cs = c.criteria
    const ask = async (from: string, operator: string, value: number) =>
      first(cs, { ...range(from, '2020-01-20'), stickinessFilter: { stickinessCriteria: { operator, value } } })
    const gte = await ask('2020-01-12', 'gte', 2)
    expect([gte.count, gte.data]).toEqual([2, [0, 1, 1, 0, 0, 0, 0, 0, 0]])
    const lte = await ask('2020-01-12', 'lte', 1)
    expect([lte.count, lte.data]).toEqual([2, [2, 0, 0, 0, 0, 0, 0, 0, 0]])
    const exact = await ask('2020-01-11', 'exact', 2)
    expect([exact.count, exact.data]).toEqual([2, [0, 1, 1, 0, 0, 0, 0, 0, 0, 0]])
  })

  it('test_filter_test_accounts: the project’s test-account filter (Chrome only)', async () => {
    expect((await first(c.test, { filterTestAccounts: true })).data).toEqual(CHROME_ONLY)
  })

  it('test_group_aggregations: unique organizations, and the organizations behind a point', async () => {
    const series = [{ kind: 'EventsNode', event: '$pageview', math: 'unique_group', math_group_type_index: 0 }]
    expect((await first(c.test, { series })).data).toEqual(CHROME_ONLY)
    // The actors are groups (PostHog's GroupStrategy): org:1, active all nine days; none on one day.
    const groupsOn = async (day: number) => {
      const body = await c.test.query({
        kind: 'ActorsQuery',
        source: { kind: 'StickinessActorsQuery', source: stickiness({ series }), day },
      })
      expect(body.columns).toEqual(['group'])
      return body.results.map((row: Array<{ group_key: string; group_type_index: number; type: string }>) => [
        row[0].type,
        row[0].group_type_index,
        row[0].group_key,
      ])
    }
    expect(await groupsOn(CHROME_ONLY.indexOf(1) + 1)).toEqual([['group', 0, 'org:1']])
    expect(await groupsOn(1)).toEqual([])
  })

  it('test_hogql_aggregations: actors named by a HogQL expression', async () => {
    const series = [{ kind: 'EventsNode', event: '$pageview', math: 'hogql', math_hogql: 'e.properties.prop' }]
    expect((await first(c.test, { series })).data).toEqual(CHROME_ONLY)
  })

  const cumulative = { stickinessFilter: { computedAs: 'cumulative' } }

  it('test_cumulative_stickiness: N days or more', async () => {
    const result = await first(c['three persons'], { ...range('2020-01-11', '2020-01-13'), ...cumulative })
    expect([result.data, result.count, result.labels]).toEqual([[3, 2, 1], 3, ['1 day or more', '2 days or more', '3 days or more']])
  })

  it('test_cumulative_stickiness_with_intervals: N hours or more', async () => {
    const result = await first(c.hours, { ...range('2020-01-11T12:00:00Z', '2020-01-11T14:00:00Z'), interval: 'hour', ...cumulative })
    expect([result.data, result.labels]).toEqual([
      [2, 2, 1],
      ['1 hour or more', '2 hours or more', '3 hours or more'],
    ])
  })

  it('test_cumulative_stickiness_with_property_filter: only the Chrome person', async () => {
    const properties = [{ type: 'event', key: 'browser', value: 'Chrome', operator: 'exact' }]
    const result = await first(c.browsers, { ...range('2020-01-11', '2020-01-13'), properties, ...cumulative })
    expect([result.data, result.labels]).toEqual([
      [1, 1, 1],
      ['1 day or more', '2 days or more', '3 days or more'],
    ])
  })

  it('test_cumulative_stickiness_zero_days: no events', async () => {
    const result = await first(c.empty, { ...range('2020-01-11', '2020-01-13'), ...cumulative })
    expect([result.data, result.labels]).toEqual([
      [0, 0, 0],
      ['1 day or more', '2 days or more', '3 days or more'],
    ])
  })

  it('test_cumulative_stickiness_with_criteria: cumulative with stickinessCriteria', async () => {
    const filter = { stickinessFilter: { computedAs: 'cumulative', stickinessCriteria: { operator: 'gte', value: 2 } } }
    const result = await first(c['cumulative criteria'], { ...range('2020-01-11', '2020-01-13'), ...filter })
    expect([result.data, result.labels]).toEqual([
      [2, 1, 0],
      ['1 day or more', '2 days or more', '3 days or more'],
    ])
  })

  const three = (extra: Props, day: number, fields: Props = {}) =>
    c['three persons'].actors({
      kind: 'StickinessActorsQuery',
      day,
      ...fields,
      source: stickiness({ ...range('2020-01-11', '2020-01-13'), ...extra }),
    })

  it('test_actor_query_cumulative: persons active N days or more', async () => {
    expect(await three(cumulative, 1)).toEqual(['p1', 'p2', 'p3'])
    expect(await three(cumulative, 2)).toEqual(['p1', 'p2'])
    expect(await three(cumulative, 3)).toEqual(['p1'])
  })

  it('test_actor_query_non_cumulative: persons active exactly N days', async () => {
    expect(await three({}, 1)).toEqual(['p3'])
    expect(await three({}, 2)).toEqual(['p2'])
    expect(await three({}, 3)).toEqual(['p1'])
  })

  it('test_actor_query_with_operator: gte and lte', async () => {
    expect(await three({}, 2, { operator: 'gte' })).toEqual(['p1', 'p2'])
    expect(await three({}, 2, { operator: 'lte' })).toEqual(['p2', 'p3'])
  })

  describe('StickinessQuery through the API', () => {
    it('refuses an empty series, a math it cannot apply, a bad criteria or field with a 400 naming it', async () => {
      for (const [extra, attr] of [
        [{ series: [] }, 'series'],
        [{ series: [{ kind: 'EventsNode', event: '$pageview', math: 'sum', math_property: 'prop' }] }, 'series[0].math'],
        [{ stickinessFilter: { stickinessCriteria: { operator: 'gt', value: 1 } } }, 'stickinessFilter.stickinessCriteria.operator'],
        [{ stickinessFilter: { computedAs: 'rolling' } }, 'stickinessFilter.computedAs'],
        [{ intervalCount: 0 }, 'intervalCount'],
        [{ breakdownFilter: { breakdown: '$browser' } }, 'breakdownFilter'],
        [{ samplingFactor: 0.1 }, 'samplingFactor'],
      ] as Array<[Props, string]>) {
        const res = await c.test.ask(stickiness(extra))
        expect(res.status, res.text).toBe(400)
        expect(res.body.attr).toBe(attr)
      }
    })

    it('answers a saved legacy STICKINESS insight (with compare) and its dashboard tile', async () => {
      const cs = c.test
      const result = await cs.saved({
        insight: 'STICKINESS',
        shown_as: 'Stickiness',
        events: [{ id: '$pageview', type: 'events', order: 0 }],
        interval: 'day',
        date_from: '2020-01-11',
        date_to: '2020-01-20',
        compare: true,
      })
      expect(result.map((r: Props) => [r.compare_label, r.data])).toEqual([
        ['current', [0, 0, 0, 0, 1, 0, 0, 0, 1, 0]],
        ['previous', [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]],
      ])
      const dashboard = await cs.call('POST', `/api/projects/${cs.id}/dashboards/`, { name: 'engagement' })
      expect(dashboard.status, dashboard.text).toBe(201)
      const insight = await cs.call('POST', `/api/projects/${cs.id}/insights/`, {
        name: 'tile',
        query: { kind: 'InsightVizNode', source: stickiness({ interval: 'week' }) },
      })
      expect(insight.status, insight.text).toBe(201)
      const placed = await cs.call('PATCH', `/api/projects/${cs.id}/insights/${insight.body.id}/`, { dashboards: [dashboard.body.id] })
      expect(placed.status, placed.text).toBe(200)
      const read = await cs.call('GET', `/api/projects/${cs.id}/dashboards/${dashboard.body.id}/`)
      const tile = read.body.tiles.find((x: { insight?: { id: number } }) => x.insight?.id === insight.body.id)
      expect(tile.insight.result[0]).toMatchObject({ days: [1, 2, 3], data: [0, 0, 2], labels: ['1 week', '2 weeks', '3 weeks'] })
    })

    it('lists the persons of a point through an InsightActorsQuery: series and compare', async () => {
      const source = stickiness({
        series: [
          { kind: 'EventsNode', event: '$pageview' },
          {
            kind: 'EventsNode',
            event: '$pageleave',
            properties: [{ type: 'event', key: '$browser', operator: 'exact', value: 'Firefox' }],
          },
        ],
        compareFilter: { compare: true },
      })
      const actors = (fields: Props) => c.test.actors({ kind: 'InsightActorsQuery', source, ...fields })
      expect(await actors({ day: 9 })).toEqual(['p1'])
      expect(await actors({ day: 5, series: 1 })).toEqual(['p2'])
      expect(await actors({ day: 9, series: 1 })).toEqual([])
      expect(await actors({ day: 5, compare: 'previous' })).toEqual([])
      const bad = await c.test.ask({
        kind: 'ActorsQuery',
        select: ['person'],
        source: { kind: 'InsightActorsQuery', source, day: 1, series: 2 },
      })
      expect(bad.status, bad.text).toBe(400)
      expect(bad.body.attr).toBe('source.series')
    })
  })
})
