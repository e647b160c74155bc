// LifecycleQuery ported from PostHog's posthog/hogql_queries/insights/lifecycle/test/test_lifecycle_query_runner.py:
// the same persons (created when PostHog's test freezes time to create them), the same events, the same query,
// the same numbers; then the API's edges (400s, a saved LIFECYCLE insight, a dashboard tile, the persons behind a point).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { drained, startWren, type TestWren } from '../support/wren'
import { insightCase, personEvents, type InsightCase, type Props, type SentEvent } from '../support/insight-cases'

const NOW = '2026-03-15T12:00:00Z'
/** PostHog's _create_test_events. */
const TEST_EVENTS: Array<[string, string[]]> = [
  [
    'p1',
    [
      '2020-01-11T12:00:00Z',
      '2020-01-12T12:00:00Z',
      '2020-01-13T12:00:00Z',
      '2020-01-15T12:00:00Z',
      '2020-01-17T12:00:00Z',
      '2020-01-19T12:00:00Z',
    ],
  ],
  ['p2', ['2020-01-09T12:00:00Z', '2020-01-12T12:00:00Z']],
  ['p3', ['2020-01-12T12:00:00Z']],
  ['p4', ['2020-01-15T12:00:00Z']],
]
const TEST_ACCOUNTS = { test_account_filters: [{ key: 'email', value: '@posthog.com', operator: 'not_icontains', type: 'person' }] }

const pageview = { kind: 'EventsNode', event: '$pageview' }
const lifecycle = (dateFrom: string, dateTo: string | null, extra: Props = {}) => ({
  kind: 'LifecycleQuery',
  dateRange: { date_from: dateFrom, ...(dateTo ? { date_to: dateTo } : {}) },
  interval: 'day',
  series: [pageview],
  ...extra,
})
/** PostHog's assertLifecycleResults: each status's data, compared by status. */
const byStatus = (results: Array<{ status: string; data: number[] }>) =>
  Object.fromEntries(results.map((r) => [r.status, r.data.map((n) => n + 0)]))
const DAYS_9_19 = Array.from({ length: 11 }, (_, i) => `2020-01-${String(9 + i).padStart(2, '0')}`)
const LABELS_9_19 = Array.from({ length: 11 }, (_, i) => `${9 + i}-Jan-2020`)
const GROUP_EVENTS = (data: Array<[string, Array<[string, Props]>]>): SentEvent[] =>
  data.flatMap(([id, list]) =>
    list.map(([at, groups], i) => ({
      event: '$pageview',
      distinct_id: id,
      at,
      properties: { $groups: groups, ...(i === 0 ? { $set: { name: id } } : {}) },
    })),
  )
const groupIdentify = (type: string, key: string, at: string): SentEvent => ({
  event: '$groupidentify',
  distinct_id: 'group-maker',
  at,
  properties: { $group_type: type, $group_key: key, $group_set: { name: key } },
})

describe('PostHog test_lifecycle_query_runner.py', () => {
  let t: TestWren
  const c: Record<string, InsightCase> = {}
  beforeAll(async () => {
    t = await startWren({ WREN_NOW: NOW })
    const cases: Array<[string, Props, SentEvent[]]> = [
      ['standard', TEST_ACCOUNTS, personEvents(TEST_EVENTS)],
      ['all events', {}, [...personEvents([TEST_EVENTS[0], TEST_EVENTS[1]]), ...personEvents([TEST_EVENTS[2], TEST_EVENTS[3]], '$other')]],
      [
        // Persons created "now" (PostHog's _create_person without freeze_time): none of them is ever new.
        'prop filtering',
        {},
        [
          ...['p1', 'p2', 'p3', 'p4'].map((id) => ({ event: '$set', distinct_id: id, at: NOW, properties: { $set: { name: id } } })),
          ...TEST_EVENTS[0][1].map((at) => ({ event: '$pageview', distinct_id: 'p1', at, properties: { $number: 1 } })),
          ...[...TEST_EVENTS.slice(1)].flatMap(([id, times]) => times.map((at) => ({ event: '$pageview', distinct_id: id, at }))),
        ],
      ],
      [
        'distinct id repeat',
        {},
        [
          { event: '$pageview', distinct_id: 'p1', at: '2020-01-12T12:00:00Z', properties: { $set: { name: 'p1' } } },
          { event: '$create_alias', distinct_id: 'p1', at: '2020-01-12T12:00:00Z', properties: { alias: 'another_p1' } },
          { event: '$pageview', distinct_id: 'another_p1', at: '2020-01-14T12:00:00Z' },
          ...['15', '17', '19'].map((d) => ({ event: '$pageview', distinct_id: 'p1', at: `2020-01-${d}T12:00:00Z` })),
        ],
      ],
      ...(['sunday', 'monday'] as const).map((day): [string, Props, SentEvent[]] => [
        `weeks ${day}`,
        { week_start_day: day === 'monday' ? 1 : 0 },
        personEvents([
          [
            'p1',
            [
              '2020-02-01T12:00:00Z',
              '2020-02-05T12:00:00Z',
              '2020-02-10T12:00:00Z',
              '2020-02-15T12:00:00Z',
              '2020-02-27T12:00:00Z',
              '2020-03-02T12:00:00Z',
            ],
          ],
          ['p2', ['2020-02-11T12:00:00Z', '2020-02-18T12:00:00Z']],
          ['p3', ['2020-02-12T12:00:00Z']],
          ['p4', ['2020-02-27T12:00:00Z']],
        ]),
      ]),
      [
        'months',
        {},
        personEvents([
          [
            'p1',
            [
              '2020-01-11T12:00:00Z',
              '2020-02-12T12:00:00Z',
              '2020-03-13T12:00:00Z',
              '2020-05-15T12:00:00Z',
              '2020-07-17T12:00:00Z',
              '2020-09-19T12:00:00Z',
            ],
          ],
          ['p2', ['2019-12-09T12:00:00Z', '2020-02-12T12:00:00Z']],
          ['p3', ['2020-02-12T12:00:00Z']],
          ['p4', ['2020-05-15T12:00:00Z']],
        ]),
      ],
      [
        'timezones',
        {},
        personEvents([
          [
            'p1',
            [
              '2020-01-11T23:00:00Z',
              '2020-01-12T01:00:00Z',
              '2020-01-13T12:00:00Z',
              '2020-01-15T12:00:00Z',
              '2020-01-17T12:00:00Z',
              '2020-01-19T12:00:00Z',
            ],
          ],
          ...TEST_EVENTS.slice(1),
        ]),
      ],
      [
        'personless',
        {},
        [
          ...personEvents([
            ['p1', ['2020-01-11T12:00:00Z', '2020-01-12T12:00:00Z', '2020-01-13T12:00:00Z', '2020-01-14T12:00:00Z']],
            ['p2', ['2020-01-11T12:00:00Z', '2020-01-12T12:00:00Z']],
          ]),
          ...(
            [
              ['p3', ['2020-01-11T12:00:00Z', '2020-01-12T12:00:00Z', '2020-01-13T12:00:00Z', '2020-01-14T12:00:00Z']],
              ['p4', ['2020-01-11T12:00:00Z', '2020-01-12T12:00:00Z']],
            ] as Array<[string, string[]]>
          ).flatMap(([id, times]) =>
            times.map((at) => ({ event: '$pageview', distinct_id: id, at, properties: { $process_person_profile: false } })),
          ),
        ],
      ],
      ['dst', { timezone: 'US/Pacific' }, personEvents([['p1', ['2025-03-09T12:00:00Z']]])],
      [
        'group 0',
        {},
        [
          groupIdentify('organization', 'org:5', '2020-01-09T12:00:00Z'),
          ...GROUP_EVENTS([
            [
              'p1',
              [
                ['2020-01-11T12:00:00Z', { organization: 'org:5', company: 'company:1' }],
                ['2020-01-12T12:00:00Z', { organization: 'org:5', company: 'company:2' }],
                ['2020-01-13T12:00:00Z', { organization: 'org:5', company: 'company:2' }],
                ['2020-01-15T12:00:00Z', { organization: 'org:5', company: 'company:2' }],
                ['2020-01-17T12:00:00Z', { organization: 'org:5', company: 'company:2' }],
                ['2020-01-19T12:00:00Z', { organization: 'org:5', company: 'company:1' }],
              ],
            ],
            [
              'p2',
              [
                ['2020-01-09T12:00:00Z', { organization: 'org:5', company: 'company:1' }],
                ['2020-01-12T12:00:00Z', { organization: 'org:5', company: 'company:1' }],
              ],
            ],
            ['p3', [['2020-01-12T12:00:00Z', { organization: 'org:5', company: 'company:2' }]]],
            [
              'p4',
              [
                ['2020-01-15T12:00:00Z', { organization: 'org:5', company: 'company:1' }],
                ['2020-01-18T12:00:00Z', { organization: 'org:5', company: 'company:1' }],
              ],
            ],
          ]),
        ],
      ],
      [
        'group 1',
        {},
        [
          // organization is group type 0, company 1, as in PostHog's test.
          groupIdentify('organization', 'org:5', '2020-01-01T12:00:00Z'),
          groupIdentify('company', 'company:1', '2020-01-09T12:00:00Z'),
          groupIdentify('company', 'company:2', '2020-01-12T12:00:00Z'),
          ...GROUP_EVENTS([
            [
              'p1',
              [
                ['2020-01-11T12:00:00Z', { organization: 'org:5', company: 'company:1' }],
                ['2020-01-12T12:00:00Z', { organization: 'org:5', company: 'company:2' }],
                ['2020-01-13T12:00:00Z', { organization: 'org:5', company: 'company:2' }],
                ['2020-01-15T12:00:00Z', { organization: 'org:5', company: 'company:2' }],
                ['2020-01-17T12:00:00Z', { organization: 'org:5', company: 'company:2' }],
                ['2020-01-19T12:00:00Z', { organization: 'org:5', company: 'company:1' }],
              ],
            ],
            [
              'p2',
              [
                ['2020-01-09T12:00:00Z', { organization: 'org:5', company: 'company:1' }],
                ['2020-01-12T12:00:00Z', { organization: 'org:5', company: 'company:1' }],
              ],
            ],
            ['p3', [['2020-01-12T12:00:00Z', { organization: 'org:5', company: 'company:2' }]]],
            [
              'p4',
              [
                ['2020-01-13T12:00:00Z', { organization: 'org:5', company: 'company:1' }],
                ['2020-01-16T12:00:00Z', { organization: 'org:5', company: 'company:2' }],
                ['2020-01-18T12:00:00Z', { organization: 'org:5', company: 'company:1' }],
              ],
            ],
          ]),
        ],
      ],
      [
        'group created_at',
        {},
        [
          groupIdentify('organization', 'org:early', '2020-01-05T12:00:00Z'),
          groupIdentify('organization', 'org:new', '2020-01-12T12:00:00Z'),
          ...GROUP_EVENTS([
            [
              'p1',
              [
                ['2020-01-11T12:00:00Z', { organization: 'org:early' }],
                ['2020-01-13T12:00:00Z', { organization: 'org:early' }],
              ],
            ],
            [
              'p2',
              [
                ['2020-01-12T13:00:00Z', { organization: 'org:new' }],
                ['2020-01-14T12:00:00Z', { organization: 'org:new' }],
              ],
            ],
          ]),
        ],
      ],
    ]
    for (const [name, settings, events] of cases) {
      c[name] = await insightCase(t, name, settings)
      await c[name].send(events)
    }
    await drained(t.wren)
  })
  afterAll(async () => {
    await t?.close()
  })

  const run = async (cs: InsightCase, node: Props) => (await cs.query(node)).results

  it('test_lifecycle_query_whole_range: four series in PostHog’s shape', async () => {
    const results = await run(c.standard, lifecycle('2020-01-09', '2020-01-19'))
    const action = { id: '$pageview', math: 'total', name: '$pageview', order: 0, type: 'events' }
    const series = (status: string, data: number[]) => ({
      count: data.reduce((a, b) => a + b, 0),
      data,
      days: DAYS_9_19,
      label: `$pageview - ${status}`,
      labels: LABELS_9_19,
      status,
      action,
    })
    expect(results).toEqual([
      series('new', [1, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0]),
      series('returning', [0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0]),
      series('resurrecting', [0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 1]),
      series('dormant', [0, -1, 0, 0, -2, -1, 0, -2, 0, -1, 0]),
    ])
  })

  const STANDARD_12_19 = {
    dormant: [0, -2, -1, 0, -2, 0, -1, 0],
    new: [1, 0, 0, 1, 0, 0, 0, 0],
    resurrecting: [1, 0, 0, 1, 0, 1, 0, 1],
    returning: [1, 1, 0, 0, 0, 0, 0, 0],
  }

  it('test_lifecycle_trend: 12 to 19 January', async () => {
    const results = await run(c.standard, lifecycle('2020-01-12T00:00:00Z', '2020-01-19T00:00:00Z'))
    expect(results[0].label).toBe('$pageview - new')
    expect(byStatus(results)).toEqual(STANDARD_12_19)
  })

  it('test_lifecycle_trend_all_events: any event makes a person active', async () => {
    const results = await run(
      c['all events'],
      lifecycle('2020-01-12T00:00:00Z', '2020-01-19T00:00:00Z', { series: [{ kind: 'EventsNode', event: null }] }),
    )
    expect(results[0].label).toBe('All events - new')
    expect(byStatus(results)).toEqual(STANDARD_12_19)
  })

  it('test_lifecycle_trend_prop_filtering: global and series event property filters', async () => {
    const expected = {
      dormant: [0, 0, -1, 0, -1, 0, -1, 0],
      new: [0, 0, 0, 0, 0, 0, 0, 0],
      resurrecting: [0, 0, 0, 1, 0, 1, 0, 1],
      returning: [1, 1, 0, 0, 0, 0, 0, 0],
    }
    const number = [{ type: 'event', key: '$number', value: '1', operator: 'exact' }]
    expect(
      byStatus(await run(c['prop filtering'], lifecycle('2020-01-12T00:00:00Z', '2020-01-19T00:00:00Z', { properties: number }))),
    ).toEqual(expected)
    const filtered = { series: [{ ...pageview, properties: number }] }
    expect(byStatus(await run(c['prop filtering'], lifecycle('2020-01-12T00:00:00Z', '2020-01-19T00:00:00Z', filtered)))).toEqual(expected)
  })

  it('test_lifecycle_trend_person_prop_filtering: a person property filter on the series', async () => {
    const filtered = { series: [{ ...pageview, properties: [{ type: 'person', key: 'name', value: 'p1', operator: 'exact' }] }] }
    expect(byStatus(await run(c['prop filtering'], lifecycle('2020-01-12T00:00:00Z', '2020-01-19T00:00:00Z', filtered)))).toEqual({
      new: [0, 0, 0, 0, 0, 0, 0, 0],
      returning: [1, 1, 0, 0, 0, 0, 0, 0],
      resurrecting: [0, 0, 0, 1, 0, 1, 0, 1],
      dormant: [0, 0, -1, 0, -1, 0, -1, 0],
    })
  })

  it('test_lifecycle_trends_distinct_id_repeat: one person’s two distinct ids', async () => {
    expect(byStatus(await run(c['distinct id repeat'], lifecycle('2020-01-12T00:00:00Z', '2020-01-19T00:00:00Z')))).toEqual({
      dormant: [0, -1, 0, 0, -1, 0, -1, 0],
      new: [1, 0, 0, 0, 0, 0, 0, 0],
      resurrecting: [0, 0, 1, 0, 0, 1, 0, 1],
      returning: [0, 0, 0, 1, 0, 0, 0, 0],
    })
  })

  it('test_lifecycle_trend_action: an action as the series', async () => {
    const id = await c.standard.action('$pageview', [{ event: '$pageview' }])
    const results = await run(
      c.standard,
      lifecycle('2020-01-12T00:00:00Z', '2020-01-19T00:00:00Z', { series: [{ kind: 'ActionsNode', id }] }),
    )
    expect(byStatus(results)).toEqual(STANDARD_12_19)
    expect(results[0].action).toEqual({ id: String(id), name: '$pageview', type: 'actions', order: 0, math: 'total' })
    expect(results[3].label).toBe('$pageview - dormant')
  })

  it('test_lifecycle_trend_all_time: date_from all starts at the first event', async () => {
    const results = await run(c.standard, lifecycle('all', null))
    const expected = {
      dormant: [0, -1, 0, 0, -2, -1, 0, -2, 0],
      new: [1, 0, 1, 1, 0, 0, 1, 0, 0],
      returning: [0, 0, 0, 1, 1, 0, 0, 0, 0],
      resurrecting: [0, 0, 0, 1, 0, 0, 1, 0, 1],
    }
    // PostHog froze now at 2020-01-17; here now is later: the first nine days are PostHog's.
    expect(results[0].days[0]).toBe('2020-01-09')
    expect(Object.fromEntries(Object.entries(byStatus(results)).map(([s, d]) => [s, d.slice(0, 9)]))).toEqual(expected)
  })

  for (const [day, days] of [
    ['sunday', ['2020-02-02', '2020-02-09', '2020-02-16', '2020-02-23', '2020-03-01', '2020-03-08']],
    ['monday', ['2020-02-03', '2020-02-10', '2020-02-17', '2020-02-24', '2020-03-02', '2020-03-09']],
  ] as const)
    it(`test_lifecycle_trend_weeks_${day}: weeks start on the project’s week start day`, async () => {
      const results = await run(c[`weeks ${day}`], lifecycle('2020-02-05T00:00:00Z', '2020-03-09T00:00:00Z', { interval: 'week' }))
      expect(results[0].days).toEqual(days)
      expect(byStatus(results)).toEqual({
        dormant: [0, 0, -2, -1, -1, -1],
        new: [0, 2, 0, 1, 0, 0],
        resurrecting: [0, 0, 0, 1, 0, 0],
        returning: [1, 1, 1, 0, 1, 0],
      })
    })

  it('test_lifecycle_trend_months: month interval', async () => {
    const results = await run(c.months, lifecycle('2020-02-01T00:00:00Z', '2020-09-01T00:00:00Z', { interval: 'month' }))
    expect(byStatus(results)).toEqual(STANDARD_12_19)
  })

  it('test_filter_test_accounts: the project’s test-account filters leave p1 out', async () => {
    const results = await run(c.standard, lifecycle('2020-01-12T00:00:00Z', '2020-01-19T00:00:00Z', { filterTestAccounts: true }))
    expect(byStatus(results)).toEqual({
      dormant: [0, -2, 0, 0, -1, 0, 0, 0],
      new: [1, 0, 0, 1, 0, 0, 0, 0],
      resurrecting: [1, 0, 0, 0, 0, 0, 0, 0],
      returning: [0, 0, 0, 0, 0, 0, 0, 0],
    })
  })

  it('test_timezones: periods are days of the project’s timezone', async () => {
    const cs = c.timezones
    expect(byStatus(await run(cs, lifecycle('2020-01-12', '2020-01-19')))).toEqual(STANDARD_12_19)
    const patched = await cs.call('PATCH', `/api/projects/${cs.id}/`, { timezone: 'US/Pacific' })
    expect(patched.status, patched.text).toBe(200)
    expect(byStatus(await run(cs, lifecycle('2020-01-12', '2020-01-19')))).toEqual({
      dormant: [-1, -2, -1, 0, -2, 0, -1, 0],
      new: [1, 0, 0, 1, 0, 0, 0, 0],
      resurrecting: [1, 1, 0, 1, 0, 1, 0, 1],
      returning: [0, 0, 0, 0, 0, 0, 0, 0],
    })
  })

  it('test_sampling: a sampling factor Wren cannot apply is a 400 naming it', async () => {
    const res = await c.standard.ask(lifecycle('2020-01-12T00:00:00Z', '2020-01-19T00:00:00Z', { samplingFactor: 0.1 }))
    expect(res.status, res.text).toBe(400)
    expect(res.body.attr).toBe('samplingFactor')
  })

  it('test_cohort_filter: a cohort of the persons with the test email', async () => {
    const cohort = await c.standard.cohort({
      name: 'posthog emails',
      groups: [{ properties: [{ key: 'email', value: ['test@posthog.com'], type: 'person', operator: 'exact' }] }],
    })
    const results = await run(
      c.standard,
      lifecycle('2020-01-12T00:00:00Z', '2020-01-19T00:00:00Z', { properties: [{ type: 'cohort', key: 'id', value: cohort }] }),
    )
    expect(results.map((r: { count: number }) => r.count + 0)).toEqual([0, 2, 3, -3])
  })

  it('test_excludes_personless_events: events without a person profile make no one active', async () => {
    const results = await run(c.personless, lifecycle('2020-01-11T00:00:00Z', '2020-01-14T00:00:00Z'))
    expect(results[0].data).toEqual([2, 0, 0, 0])
    expect(results[2].data).toEqual([0, 0, 0, 0])
  })

  it('test_dormant_on_dst: dormant the day after, across the DST change', async () => {
    const results = await run(c.dst, lifecycle('2025-03-09T00:00:00Z', '2025-03-12T00:00:00Z'))
    expect(results[0].status).toBe('new')
    expect(results[0].data).toEqual([0, 1, 0, 0])
    expect(results[0].days).toEqual(['2025-03-08', '2025-03-09', '2025-03-10', '2025-03-11'])
    expect(results[3].status).toBe('dormant')
    expect(results[3].data.map((n: number) => n + 0)).toEqual([0, 0, -1, 0])
  })

  it('test_dashboard_breakdown_filter_does_not_update_breakdown_filter: a dashboard’s breakdown is ignored', async () => {
    const node = lifecycle('2020-01-12T00:00:00Z', '2020-01-19T00:00:00Z')
    const res = await c.standard.ask(node, {
      filters_override: { breakdown_filter: { breakdown: '$feature/my-fabulous-feature', breakdown_type: 'event', breakdown_limit: 10 } },
    })
    expect(res.status, res.text).toBe(200)
    expect(byStatus(res.body.results)).toEqual(STANDARD_12_19)
  })

  it('test_lifecycle_interval_boundary_filtering: a mid-week or mid-month date_from rounds to its period', async () => {
    const week = byStatus(await run(c.standard, lifecycle('2020-01-14', '2020-01-19', { interval: 'week' })))
    expect(week).toEqual({ new: [2, 0], returning: [2, 1], resurrecting: [0, 0], dormant: [0, -3] })
    const weekDays = (await run(c.standard, lifecycle('2020-01-14', '2020-01-19', { interval: 'week' })))[0].days
    expect(weekDays).toEqual(['2020-01-12', '2020-01-19'])
    const month = await run(c.standard, lifecycle('2020-01-14', '2020-01-19', { interval: 'month' }))
    expect(byStatus(month)).toEqual({ new: [4], returning: [0], resurrecting: [0], dormant: [0] })
    expect(month[0].days).toEqual(['2020-01-01'])
  })

  const groupDays = (results: Array<{ status: string; data: number[] }>) => byStatus(results)

  it('test_lifecycle_query_group_0: organizations as the actors, new when the group was created', async () => {
    const results = await run(c['group 0'], lifecycle('2020-01-09', '2020-01-19', { aggregation_group_type_index: 0 }))
    expect(results.map((r: { status: string }) => r.status)).toEqual(['new', 'returning', 'resurrecting', 'dormant'])
    expect(groupDays(results)).toEqual({
      new: [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      returning: [0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1],
      resurrecting: [0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0],
      dormant: [0, -1, 0, 0, 0, -1, 0, -1, 0, 0, 0],
    })
    expect(results[0].label).toBe('$pageview - new')
    // The organizations behind a point (PostHog's GroupStrategy): org:5, new on the 9th, returning on the 12th.
    const groupsAt = async (day: string, status: string) => {
      const body = await c['group 0'].query({
        kind: 'ActorsQuery',
        source: {
          kind: 'InsightActorsQuery',
          source: lifecycle('2020-01-09', '2020-01-19', { aggregation_group_type_index: 0 }),
          day,
          status,
        },
      })
      return body.results.map((row: Array<{ group_key: string; group_type_index: number }>) => [row[0].group_type_index, row[0].group_key])
    }
    expect(await groupsAt('2020-01-09', 'new')).toEqual([[0, 'org:5']])
    expect(await groupsAt('2020-01-12', 'returning')).toEqual([[0, 'org:5']])
    expect(await groupsAt('2020-01-10', 'dormant')).toEqual([[0, 'org:5']])
    expect(await groupsAt('2020-01-12', 'new')).toEqual([])
  })

  it('test_lifecycle_query_group_1: companies as the actors', async () => {
    const results = await run(c['group 1'], lifecycle('2020-01-09', '2020-01-19', { aggregation_group_type_index: 1 }))
    expect(groupDays(results)).toEqual({
      new: [1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0],
      returning: [0, 0, 0, 1, 2, 0, 0, 1, 1, 0, 1],
      resurrecting: [0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0],
      dormant: [0, -1, 0, 0, 0, -2, 0, 0, 0, -1, 0],
    })
  })

  it('test_lifecycle_query_group_with_different_created_at: the group’s creation, not its persons’', async () => {
    const results = await run(c['group created_at'], lifecycle('2020-01-09', '2020-01-19', { aggregation_group_type_index: 0 }))
    expect(results.find((r: { status: string }) => r.status === 'new').data).toEqual([0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0])
  })
  describe('LifecycleQuery through the API', () => {
    // Wren's own edges: 400s naming the field, a saved legacy LIFECYCLE insight, a dashboard tile, the persons behind a point.
    it('refuses an empty series, two series, an unknown status or field with a 400 naming it', async () => {
      // PostHog: test_lifecycle_query_rejects_empty_series
      for (const [extra, attr] of [
        [{ series: [] }, 'series'],
        [{ series: [pageview, pageview] }, 'series'],
        [{ lifecycleFilter: { toggledLifecycles: ['new', 'gone'] } }, 'lifecycleFilter.toggledLifecycles'],
        [{ breakdownFilter: { breakdown: '$browser' } }, 'breakdownFilter'],
        [{ interval: 'fortnight' }, 'interval'],
      ] as Array<[Props, string]>) {
        const res = await c.standard.ask(lifecycle('2020-01-09', '2020-01-19', extra))
        expect(res.status, res.text).toBe(400)
        expect(res.body.attr).toBe(attr)
      }
      const empty = await c.standard.ask(lifecycle('2020-01-09', '2020-01-19', { series: [] }))
      expect(empty.body.detail).toMatch(/at least one series/)
    })

    it('answers a saved legacy LIFECYCLE insight and its dashboard tile with the four series', async () => {
      const filters = {
        insight: 'LIFECYCLE',
        shown_as: 'Lifecycle',
        events: [{ id: '$pageview', type: 'events', order: 0 }],
        interval: 'day',
        date_from: '2020-01-12T00:00:00Z',
        date_to: '2020-01-19T00:00:00Z',
        toggledLifecycles: ['new', 'dormant'],
      }
      const result = await c.standard.saved(filters)
      expect(result.map((r: { status: string }) => r.status)).toEqual(['new', 'returning', 'resurrecting', 'dormant'])
      expect(byStatus(result).dormant).toEqual([0, -2, -1, 0, -2, 0, -1, 0])

      const dashboard = await c.standard.call('POST', `/api/projects/${c.standard.id}/dashboards/`, { name: 'growth' })
      expect(dashboard.status, dashboard.text).toBe(201)
      const query = { kind: 'InsightVizNode', source: lifecycle('2020-01-12T00:00:00Z', '2020-01-19T00:00:00Z') }
      const insight = await c.standard.call('POST', `/api/projects/${c.standard.id}/insights/`, { name: 'tile', query })
      expect(insight.status, insight.text).toBe(201)
      const placed = await c.standard.call('PATCH', `/api/projects/${c.standard.id}/insights/${insight.body.id}/`, {
        dashboards: [dashboard.body.id],
      })
      expect(placed.status, placed.text).toBe(200)
      const read = await c.standard.call('GET', `/api/projects/${c.standard.id}/dashboards/${dashboard.body.id}/`)
      expect(read.status, read.text).toBe(200)
      const tile = read.body.tiles.find((x: { insight: { id: number } }) => x.insight.id === insight.body.id)
      expect(byStatus(tile.insight.result).new).toEqual([1, 0, 0, 1, 0, 0, 0, 0])
    })

    it('lists the persons behind a point: day and status of an InsightActorsQuery', async () => {
      const source = (day: string | null, status: string | null) => ({
        kind: 'InsightActorsQuery',
        ...(day ? { day } : {}),
        ...(status ? { status } : {}),
        source: lifecycle('2020-01-09', '2020-01-19'),
      })
      expect(await c.standard.actors(source('2020-01-12', 'new'))).toEqual(['p3'])
      expect(await c.standard.actors(source('2020-01-12', 'returning'))).toEqual(['p1'])
      expect(await c.standard.actors(source('2020-01-13', 'dormant'))).toEqual(['p2', 'p3'])
      expect(await c.standard.actors(source('2020-01-16', 'dormant'))).toEqual(['p1', 'p4'])
      expect(await c.standard.actors(source('2020-01-12', null))).toEqual(['p1', 'p2', 'p3'])
      const bad = await c.standard.ask({ kind: 'ActorsQuery', select: ['person'], source: source('2020-01-12', 'lost') })
      expect(bad.status, bad.text).toBe(400)
      expect(bad.body.attr).toBe('source.status')
    })
  })
})
