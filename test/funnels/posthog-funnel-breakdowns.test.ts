// Funnel breakdowns, ported from PostHog's posthog/hogql_queries/insights/funnels/test/breakdown_cases.py (the
// ordered-funnel instances test_funnel.py runs: TestFunnelBreakdown and TestFunnelGroupBreakdown): event, person,
// cohort, group and multi-property breakdowns, the limit with "Other", and each attribution type, with the
// persons at each step of each breakdown value.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWren, type TestWren } from '../support/wren'
import { portedCases } from '../support/ported-cases'
import { funnelCase, type FunnelCase, type Props, type Step } from '../support/funnels'

describe('PostHog breakdown_cases.py (ordered funnels)', () => {
  let t: TestWren
  beforeAll(async () => {
    t = await startWren({ WREN_NOW: '2026-03-15T12:00:00Z' })
  })
  afterAll(async () => {
    await t?.close()
  })
  const ported = portedCases(() => t, funnelCase)

  const ev = (event: string, extra: Props = {}) => ({ kind: 'EventsNode', event, name: event, ...extra })
  const jan = (day: number, hour: number) => `2020-01-0${day}T${String(hour).padStart(2, '0')}:00:00Z`
  const week = { date_from: '2020-01-01', date_to: '2020-01-08' }
  const days7 = { funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day' }
  const funnel = (series: unknown[], breakdownFilter: Props, filter: Props = {}, extra: Props = {}) => ({
    series,
    dateRange: week,
    breakdownFilter,
    funnelsFilter: { ...days7, ...filter },
    ...extra,
  })
  const movie = [ev('sign up'), ev('play movie'), ev('buy')]
  const buy = [ev('sign up'), ev('buy')]

  /** One expected step as PostHog's FunnelStepResult describes it. */
  interface Expected {
    name: string
    count: number
    time?: number
    type?: 'events' | 'actions'
    action_id?: unknown
  }
  const expectSteps = (result: any[], breakdown: unknown, steps: Expected[]) => {
    expect(result.length, JSON.stringify(result)).toBe(steps.length)
    steps.forEach((s, order) =>
      expect(result[order], `${JSON.stringify(breakdown)} step ${order}`).toMatchObject({
        action_id: s.type === 'actions' ? s.action_id : s.name,
        name: s.name,
        custom_name: null,
        order,
        count: s.count,
        type: s.type ?? 'events',
        average_conversion_time: s.time ?? null,
        median_conversion_time: s.time ?? null,
        breakdown,
        breakdown_value: breakdown,
      }),
    )
  }
  /** PostHog sorts the lists by their first step's breakdown (lists compare element by element). */
  const sorted = (results: any[][]) =>
    [...results].sort((a, b) => {
      const x = [a[0].breakdown].flat().map(String)
      const y = [b[0].breakdown].flat().map(String)
      for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1
      return x.length - y.length
    })

  ported.it(
    'test_funnel_step_multi_property_breakdown_event: browser and version, numbers as strings',
    'test_funnel_step_multi_property_breakdown_event',
    async (c) => {
      const p = (browser: string, version: number) => ({ key: 'val', $browser: browser, $browser_version: version })
      await c.journeys({
        person1: [
          { event: 'sign up', at: jan(1, 12), properties: p('Chrome', 95) },
          { event: 'play movie', at: jan(1, 13), properties: p('Chrome', 95) },
          { event: 'buy', at: jan(1, 15), properties: p('Chrome', 95) },
        ],
        person2: [
          { event: 'sign up', at: jan(2, 14), properties: p('Safari', 15) },
          { event: 'play movie', at: jan(2, 16), properties: p('Safari', 15) },
        ],
        person3: [{ event: 'sign up', at: jan(2, 14), properties: p('Safari', 14) }],
      })
      const q = funnel(movie, { breakdown: ['$browser', '$browser_version'], breakdown_type: 'event' })
      await c.ready()
      const results = await c.funnel(q)
      expectSteps(
        results[0],
        ['Chrome', '95'],
        [
          { name: 'sign up', count: 1 },
          { name: 'play movie', count: 1, time: 3600 },
          { name: 'buy', count: 1, time: 7200 },
        ],
      )
      expectSteps(
        results[1],
        ['Safari', '14'],
        [
          { name: 'sign up', count: 1 },
          { name: 'play movie', count: 0 },
          { name: 'buy', count: 0 },
        ],
      )
      expectSteps(
        results[2],
        ['Safari', '15'],
        [
          { name: 'sign up', count: 1 },
          { name: 'play movie', count: 1, time: 7200 },
          { name: 'buy', count: 0 },
        ],
      )
      const at = (step: number, value: string[]) => c.actors(q, step, { funnelStepBreakdown: value })
      expect(await at(1, ['Safari', '14'])).toEqual(['person3'])
      expect(await at(2, ['Safari', '14'])).toEqual([])
      expect(await at(1, ['Safari', '15'])).toEqual(['person2'])
      expect(await at(2, ['Safari', '15'])).toEqual(['person2'])
      expect(await at(1, ['Chrome', '95'])).toEqual(['person1'])
      expect(await at(2, ['Chrome', '95'])).toEqual(['person1'])
    },
  )

  const browserJourneys = {
    person1: [
      { event: 'sign up', at: jan(1, 12), properties: { key: 'val', $browser: 'Chrome' } },
      { event: 'play movie', at: jan(1, 13), properties: { key: 'val', $browser: 'Chrome' } },
      { event: 'buy', at: jan(1, 15), properties: { key: 'val', $browser: 'Chrome' } },
    ],
    person2: [
      { event: 'sign up', at: jan(2, 14), properties: { key: 'val', $browser: 'Safari' } },
      { event: 'play movie', at: jan(2, 16), properties: { key: 'val', $browser: 'Safari' } },
    ],
    person3: [{ event: 'sign up', at: jan(2, 14), properties: { key: 'val', $browser: 'Safari' } }],
  }

  ported.it(
    'test_funnel_step_breakdown_event_with_string_only_breakdown: Chrome 1/1/1, Safari 2/1/0 and their persons',
    'test_funnel_step_breakdown_event_with_string_only_breakdown',
    async (c) => {
      await c.journeys(browserJourneys)
      const q = funnel(movie, { breakdown: '$browser', breakdown_type: 'event' })
      await c.ready()
      const results = await c.funnel(q)
      expectSteps(
        results[0],
        ['Chrome'],
        [
          { name: 'sign up', count: 1 },
          { name: 'play movie', count: 1, time: 3600 },
          { name: 'buy', count: 1, time: 7200 },
        ],
      )
      expectSteps(
        results[1],
        ['Safari'],
        [
          { name: 'sign up', count: 2 },
          { name: 'play movie', count: 1, time: 7200 },
          { name: 'buy', count: 0 },
        ],
      )
      expect(await c.actors(q, 1, { funnelStepBreakdown: 'Chrome' })).toEqual(['person1'])
      expect(await c.actors(q, 2, { funnelStepBreakdown: 'Chrome' })).toEqual(['person1'])
      expect(await c.actors(q, 1, { funnelStepBreakdown: 'Safari' })).toEqual(['person2', 'person3'])
      expect(await c.actors(q, 2, { funnelStepBreakdown: 'Safari' })).toEqual(['person2'])
    },
  )

  const numbered = (upTo: number, withNull: boolean) => {
    const byPerson: Record<string, Step[]> = {}
    for (let num = 0; num < upTo; num++)
      for (let i = 0; i < num; i++) {
        const properties = { some_breakdown_val: String(num) }
        byPerson[`person_${num}_${i}`] = [
          { event: 'sign up', at: jan(1, 12), properties },
          { event: 'play movie', at: jan(1, 13), properties },
          { event: 'buy', at: jan(1, 15), properties },
        ]
      }
    if (withNull)
      byPerson.person_null = [
        { event: 'sign up', at: jan(1, 12) },
        { event: 'play movie', at: jan(1, 13) },
        { event: 'buy', at: jan(1, 15) },
      ]
    return byPerson
  }

  ported.it(
    'test_funnel_step_breakdown_limit: the five most common values, then "Other"',
    'test_funnel_step_breakdown_limit',
    async (c) => {
      await c.journeys(numbered(10, false))
      await c.ready()
      const results = await c.funnel(funnel(movie, { breakdown: ['some_breakdown_val'], breakdown_type: 'event', breakdown_limit: 5 }))
      expect(results.map((r: any[]) => r[0].breakdown).sort()).toEqual([['5'], ['6'], ['7'], ['8'], ['9'], ['Other']])
    },
  )

  ported.it(
    'test_funnel_step_custom_breakdown_limit_with_nulls_included: a limit of 6 keeps every value and the empty one',
    'test_funnel_step_custom_breakdown_limit_with_nulls_included',
    async (c) => {
      await c.journeys(numbered(5, true))
      const q = funnel(movie, { breakdown: ['some_breakdown_val'], breakdown_type: 'event', breakdown_limit: 6 })
      await c.ready()
      const results = await c.funnel(q)
      expect(results.map((r: any[]) => r[0].breakdown).sort()).toEqual([[''], ['1'], ['2'], ['3'], ['4']])
      for (let i = 1; i < 5; i++) expect(await c.actors(q, 3, { funnelStepBreakdown: String(i) })).toHaveLength(i)
      expect(await c.actors(q, 1, { funnelStepBreakdown: '' })).toEqual(['person_null'])
      expect(await c.actors(q, 3, { funnelStepBreakdown: '' })).toEqual(['person_null'])
    },
  )

  ported.it(
    'test_funnel_step_breakdown_event_single_person_multiple_breakdowns: step-0 attribution, one list per value',
    'test_funnel_step_breakdown_event_single_person_multiple_breakdowns',
    async (c) => {
      await c.journeys({
        person1: [
          { event: 'sign up', at: jan(1, 12), properties: { $browser: 'Chrome' } },
          { event: 'sign up', at: jan(1, 13), properties: { $browser: 'Safari' } },
          { event: 'sign up', at: jan(2, 14), properties: { $browser: 'Mac' } },
          { event: 'sign up', at: jan(2, 15), properties: { $browser: 0 } },
        ],
      })
      const q = funnel(
        [ev('sign up'), ev('other event')],
        { breakdown: ['$browser'], breakdown_type: 'event' },
        {
          breakdownAttributionType: 'step',
          breakdownAttributionValue: 0,
        },
      )
      await c.ready()
      const results = sorted(await c.funnel(q))
      const values = ['0', 'Chrome', 'Mac', 'Safari']
      expect(results).toHaveLength(4)
      values.forEach((v, i) =>
        expectSteps(
          results[i],
          [v],
          [
            { name: 'sign up', count: 1 },
            { name: 'other event', count: 0 },
          ],
        ),
      )
      for (const v of values) expect(await c.actors(q, 1, { funnelStepBreakdown: v }), v).toEqual(['person1'])
    },
  )

  ported.it(
    'test_funnel_step_breakdown_event_single_person_events_with_multiple_properties: all-events attribution',
    'test_funnel_step_breakdown_event_single_person_events_with_multiple_properties',
    async (c) => {
      await c.journeys({
        person1: [
          { event: 'sign up', at: jan(1, 12), properties: { $browser: 'Chrome' } },
          { event: 'play movie', at: '2020-01-02T12:30:00Z', properties: { $browser: 'Safari' } },
          { event: 'sign up', at: jan(2, 13), properties: { $browser: 'Safari' } },
          { event: 'play movie', at: jan(2, 14), properties: { $browser: 'Safari' } },
        ],
      })
      const q = funnel(
        [ev('sign up'), ev('play movie')],
        { breakdown: ['$browser'], breakdown_type: 'event' },
        { breakdownAttributionType: 'all_events' },
      )
      await c.ready()
      const results = await c.funnel(q)
      expect(results).toHaveLength(2)
      expectSteps(
        results[0],
        ['Chrome'],
        [
          { name: 'sign up', count: 1 },
          { name: 'play movie', count: 0 },
        ],
      )
      expectSteps(
        results[1],
        ['Safari'],
        [
          { name: 'sign up', count: 1 },
          { name: 'play movie', count: 1, time: 3600 },
        ],
      )
      expect(await c.actors(q, 1, { funnelStepBreakdown: 'Chrome' })).toEqual(['person1'])
      expect(await c.actors(q, 2, { funnelStepBreakdown: 'Chrome' })).toEqual([])
      expect(await c.actors(q, 1, { funnelStepBreakdown: 'Safari' })).toEqual(['person1'])
      expect(await c.actors(q, 2, { funnelStepBreakdown: 'Safari' })).toEqual(['person1'])
    },
  )

  ported.it(
    'test_funnel_cohort_breakdown: "all users" and a cohort, as a list and as a single cohort id',
    'test_funnel_cohort_breakdown',
    async (c) => {
      await c.persons([{ ids: ['person1'], properties: { key: 'value' } }])
      await c.journeys({ person1: [{ event: 'sign up', at: jan(2, 12) }] })
      const cohort = await c.cohort({
        name: 'test_cohort',
        filters: { properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'key', value: 'value', type: 'person' }] }] } },
      })
      const listed = funnel(
        movie,
        { breakdown: ['all', cohort], breakdown_type: 'cohort' },
        { breakdownAttributionType: 'step', breakdownAttributionValue: 0 },
      )
      await c.ready()
      const results = await c.funnel(listed)
      expect([results[0].length, results[0][0].breakdown]).toEqual([3, 'all users'])
      expect([results[1].length, results[1][0].breakdown]).toEqual([3, 'test_cohort'])
      expect(await c.actors(listed, 1, { funnelStepBreakdown: cohort })).toEqual(['person1'])
      expect(await c.actors(listed, 2, { funnelStepBreakdown: cohort })).toEqual([])
      expect(await c.actors(listed, 1, { funnelStepBreakdown: 0 })).toEqual(['person1'])
      expect(await c.actors(listed, 2, { funnelStepBreakdown: 0 })).toEqual([])

      const single = funnel(movie, { breakdown: cohort, breakdown_type: 'cohort' })
      const [only] = await c.funnel(single)
      expect([only.length, only[0].breakdown, only[0].breakdown_value]).toEqual([3, 'test_cohort', cohort])
      expect(await c.actors(single, 1, { funnelStepBreakdown: cohort })).toEqual(['person1'])
      expect(await c.actors(single, 2, { funnelStepBreakdown: cohort })).toEqual([])
    },
  )

  const docsJourney = () => {
    const url = (u: string) => ({ $current_url: u })
    const user_1: Step[] = [
      { event: 'user signed up', at: jan(2, 14), properties: url('https://posthog.com/docs/x') },
      { event: 'paid', at: '2020-01-10T14:00:00Z', properties: url('https://posthog.com/docs/x') },
    ]
    // Twenty other values, each twice, ranking above the one that matters if values were picked before filtering.
    for (const letter of 'abcdefghijklmnopqrst')
      for (let i = 0; i < 2; i++)
        user_1.push({ event: 'user signed up', at: jan(2, 14), properties: url(`https://posthog.com/blog/${letter}`) })
    return { user_1 }
  }
  const docs = [{ key: '$current_url', operator: 'icontains', type: 'event', value: 'https://posthog.com/docs' }]
  const fortnight = { date_from: '2020-01-01', date_to: '2020-01-14' }

  ported.it(
    'test_basic_funnel_default_funnel_days_breakdown_event: values come from the filtered step; 691 200 s',
    'test_basic_funnel_default_funnel_days_breakdown_event',
    async (c) => {
      await c.journeys(docsJourney())
      await c.ready()
      const results = await c.funnel({
        series: [ev('user signed up', { properties: docs }), ev('paid')],
        dateRange: fortnight,
        breakdownFilter: { breakdown: ['$current_url'], breakdown_type: 'event' },
      })
      expectSteps(
        results[0],
        ['https://posthog.com/docs/x'],
        [
          { name: 'user signed up', count: 1 },
          { name: 'paid', count: 1, time: 691200 },
        ],
      )
    },
  )

  ported.it(
    'test_basic_funnel_default_funnel_days_breakdown_action: the same with an action as step one',
    'test_basic_funnel_default_funnel_days_breakdown_action',
    async (c) => {
      const action = await c.action('user signed up', [{ event: 'user signed up', properties: {} }])
      await c.journeys(docsJourney())
      await c.ready()
      const results = await c.funnel({
        series: [{ kind: 'ActionsNode', id: action, properties: docs }, ev('paid')],
        dateRange: fortnight,
        breakdownFilter: { breakdown: ['$current_url'], breakdown_type: 'event' },
      })
      expectSteps(
        results[0],
        ['https://posthog.com/docs/x'],
        [
          { name: 'user signed up', count: 1, type: 'actions', action_id: action },
          { name: 'paid', count: 1, time: 691200 },
        ],
      )
    },
  )

  const touchJourneys = (lastBrowser: string, withPerson5: boolean): Record<string, Step[]> => ({
    person1: [
      { event: 'sign up', at: jan(1, 12), properties: { $browser: 'Chrome' } },
      { event: 'buy', at: jan(1, 13) },
    ],
    person2: [
      { event: 'sign up', at: jan(1, 13) },
      { event: 'buy', at: jan(2, 13), properties: { $browser: 'Safari' } },
    ],
    person3: [
      { event: 'sign up', at: jan(2, 14), properties: { $browser: 'Mac' } },
      { event: 'buy', at: jan(2, 15) },
    ],
    person4: [
      { event: 'sign up', at: jan(2, 15), properties: { $browser: 0 } },
      { event: 'buy', at: jan(2, 16), properties: { $browser: lastBrowser } },
    ],
    ...(withPerson5
      ? {
          person5: [
            { event: 'sign up', at: jan(2, 15) },
            { event: 'buy', at: jan(2, 16) },
          ],
        }
      : {}),
  })
  const byBrowser = { breakdown: ['$browser'], breakdown_type: 'event' }
  const pair = (count: number, time: number) => [
    { name: 'sign up', count },
    { name: 'buy', count, time },
  ]

  ported.it(
    'test_funnel_step_breakdown_with_first_touch_attribution: each person under the first value they had',
    'test_funnel_step_breakdown_with_first_touch_attribution',
    async (c) => {
      await c.journeys(touchJourneys('alakazam', true))
      const q = funnel(buy, byBrowser, { breakdownAttributionType: 'first_touch' })
      await c.ready()
      const results = sorted(await c.funnel(q))
      expect(results).toHaveLength(5)
      const expected: Array<[string, number, string]> = [
        ['', 3600, 'person5'],
        ['0', 3600, 'person4'],
        ['Chrome', 3600, 'person1'],
        ['Mac', 3600, 'person3'],
        ['Safari', 86400, 'person2'],
      ]
      for (const [i, [value, time, person]] of expected.entries()) {
        expectSteps(results[i], [value], pair(1, time))
        expect(await c.actors(q, 1, { funnelStepBreakdown: value }), value).toEqual([person])
      }
    },
  )

  ported.it(
    'test_funnel_step_breakdown_with_last_touch_attribution: each person under the last value they had',
    'test_funnel_step_breakdown_with_last_touch_attribution',
    async (c) => {
      await c.journeys(touchJourneys('Alakazam', true))
      const q = funnel(buy, byBrowser, { breakdownAttributionType: 'last_touch' })
      await c.ready()
      const results = sorted(await c.funnel(q))
      expect(results).toHaveLength(5)
      const expected: Array<[string, number, string]> = [
        ['', 3600, 'person5'],
        ['Alakazam', 3600, 'person4'],
        ['Chrome', 3600, 'person1'],
        ['Mac', 3600, 'person3'],
        ['Safari', 86400, 'person2'],
      ]
      for (const [i, [value, time, person]] of expected.entries()) {
        expectSteps(results[i], [value], pair(1, time))
        expect(await c.actors(q, 1, { funnelStepBreakdown: value }), value).toEqual([person])
      }
    },
  )

  ported.it(
    'test_funnel_step_breakdown_with_step_attribution: the value at step one (index 0)',
    'test_funnel_step_breakdown_with_step_attribution',
    async (c) => {
      await c.journeys(touchJourneys('alakazam', false))
      const q = funnel(buy, byBrowser, { breakdownAttributionType: 'step', breakdownAttributionValue: 0 })
      await c.ready()
      const results = sorted(await c.funnel(q))
      expect(results).toHaveLength(4)
      const expected: Array<[string, number, string]> = [
        ['', 86400, 'person2'],
        ['0', 3600, 'person4'],
        ['Chrome', 3600, 'person1'],
        ['Mac', 3600, 'person3'],
      ]
      for (const [i, [value, time, person]] of expected.entries()) {
        expectSteps(results[i], [value], pair(1, time))
        expect(await c.actors(q, 1, { funnelStepBreakdown: value }), value).toEqual([person])
      }
    },
  )

  ported.it(
    'test_funnel_step_breakdown_with_step_one_attribution: the value at step two (index 1)',
    'test_funnel_step_breakdown_with_step_one_attribution',
    async (c) => {
      await c.journeys(touchJourneys('alakazam', false))
      const q = funnel(buy, byBrowser, { breakdownAttributionType: 'step', breakdownAttributionValue: 1 })
      await c.ready()
      const results = sorted(await c.funnel(q))
      expect(results).toHaveLength(3)
      expectSteps(results[0], [''], pair(2, 3600))
      expectSteps(results[1], ['Safari'], pair(1, 86400))
      expectSteps(results[2], ['alakazam'], pair(1, 3600))
      expect(await c.actors(q, 1, { funnelStepBreakdown: '' })).toEqual(['person1', 'person3'])
      expect(await c.actors(q, 1, { funnelStepBreakdown: 'Safari' })).toEqual(['person2'])
      expect(await c.actors(q, 1, { funnelStepBreakdown: 'alakazam' })).toEqual(['person4'])
    },
  )

  ported.it(
    'test_funnel_step_breakdown_with_step_one_attribution_incomplete_funnel: those who never reach step two are left out',
    'test_funnel_step_breakdown_with_step_one_attribution_incomplete_funnel',
    async (c) => {
      const full = touchJourneys('alakazam', false)
      await c.journeys({ ...full, person2: full.person2.slice(0, 1), person3: full.person3.slice(0, 1) })
      const q = funnel(buy, byBrowser, { breakdownAttributionType: 'step', breakdownAttributionValue: 1 })
      await c.ready()
      const results = sorted(await c.funnel(q))
      expect(results).toHaveLength(2)
      expectSteps(results[0], [''], pair(1, 3600))
      expectSteps(results[1], ['alakazam'], pair(1, 3600))
      expect(await c.actors(q, 1, { funnelStepBreakdown: '' })).toEqual(['person1'])
      expect(await c.actors(q, 1, { funnelStepBreakdown: 'alakazam' })).toEqual(['person4'])
    },
  )

  const twoProperty = (complete: boolean): Record<string, Step[]> => ({
    person1: [
      { event: 'sign up', at: jan(1, 12), properties: { $browser: 'Chrome', $version: 'xyz' } },
      { event: 'buy', at: jan(1, 13) },
    ],
    person2: [
      { event: 'sign up', at: jan(1, 13) },
      { event: 'buy', at: jan(2, 13), properties: { $browser: 'Safari', $version: 'xyz' } },
    ],
    person3: [
      { event: 'sign up', at: jan(2, 14), properties: { $browser: 'Mac' } },
      ...(complete ? [{ event: 'buy', at: jan(2, 15), properties: { $version: 'no-mac' } }] : []),
    ],
    person4: [
      { event: 'sign up', at: jan(2, 15), properties: { $browser: 0, $version: 0 } },
      ...(complete ? [{ event: 'buy', at: jan(2, 16), properties: { $browser: 'alakazam' } }] : []),
    ],
    person5: [
      { event: 'sign up', at: jan(2, 15) },
      { event: 'buy', at: jan(2, 16) },
    ],
  })
  const browserVersion = { breakdown: ['$browser', '$version'], breakdown_type: 'event' }

  ported.it(
    'test_funnel_step_multiple_breakdown_with_first_touch_attribution: both properties from the first event with any',
    'test_funnel_step_multiple_breakdown_with_first_touch_attribution',
    async (c) => {
      await c.journeys(twoProperty(true))
      const q = funnel(buy, browserVersion, { breakdownAttributionType: 'first_touch' })
      await c.ready()
      const results = sorted(await c.funnel(q))
      expect(results).toHaveLength(5)
      const expected: Array<[string[], number, string]> = [
        [['', ''], 3600, 'person5'],
        [['0', '0'], 3600, 'person4'],
        [['Chrome', 'xyz'], 3600, 'person1'],
        [['Mac', ''], 3600, 'person3'],
        [['Safari', 'xyz'], 86400, 'person2'],
      ]
      for (const [i, [value, time, person]] of expected.entries()) {
        expectSteps(results[i], value, pair(1, time))
        expect(await c.actors(q, 1, { funnelStepBreakdown: value }), value.join()).toEqual([person])
      }
    },
  )

  ported.it(
    'test_funnel_step_multiple_breakdown_with_first_touch_attribution_incomplete_funnel: drop-offs keep their values',
    'test_funnel_step_multiple_breakdown_with_first_touch_attribution_incomplete_funnel',
    async (c) => {
      await c.journeys(twoProperty(false))
      const q = funnel(buy, browserVersion, { breakdownAttributionType: 'first_touch' })
      await c.ready()
      const results = sorted(await c.funnel(q))
      expect(results).toHaveLength(5)
      expectSteps(results[0], ['', ''], pair(1, 3600))
      expectSteps(
        results[1],
        ['0', '0'],
        [
          { name: 'sign up', count: 1 },
          { name: 'buy', count: 0 },
        ],
      )
      expectSteps(results[2], ['Chrome', 'xyz'], pair(1, 3600))
      expectSteps(
        results[3],
        ['Mac', ''],
        [
          { name: 'sign up', count: 1 },
          { name: 'buy', count: 0 },
        ],
      )
      expectSteps(results[4], ['Safari', 'xyz'], pair(1, 86400))
      expect(await c.actors(q, 1, { funnelStepBreakdown: ['Mac', ''] })).toEqual(['person3'])
      expect(await c.actors(q, 2, { funnelStepBreakdown: ['Mac', ''] })).toEqual([])
      expect(await c.actors(q, 1, { funnelStepBreakdown: ['0', '0'] })).toEqual(['person4'])
    },
  )

  /** breakdown_cases' group fixtures: organization is type 0 (org:5 finance, org:6 technology), company type 1. */
  const groups = (c: FunnelCase) =>
    c.capture(
      [
        ['organization', 'org:5', { industry: 'finance' }],
        ['organization', 'org:6', { industry: 'technology' }],
        ['company', 'org:5', { industry: 'random' }],
      ].map(([type, key, set]) => ({
        distinct_id: 'group-maker',
        event: '$groupidentify',
        at: '2019-06-01T00:00:00Z',
        properties: { $group_type: type, $group_key: key, $group_set: set },
      })),
    )
  const inOrg = (org: string, browser: string) => ({ $groups: { organization: org }, $browser: browser })
  const byIndustry = { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 0 }

  ported.it(
    'test_funnel_breakdown_group (TestFunnelGroupBreakdown): persons broken down by their organization’s industry',
    'test_funnel_breakdown_group',
    async (c) => {
      await groups(c)
      await c.journeys({
        person1: [
          { event: 'sign up', at: jan(1, 12), properties: inOrg('org:5', 'Chrome') },
          { event: 'play movie', at: jan(1, 13), properties: inOrg('org:5', 'Chrome') },
          { event: 'buy', at: jan(1, 15), properties: inOrg('org:5', 'Chrome') },
        ],
        person2: [
          { event: 'sign up', at: jan(2, 14), properties: inOrg('org:6', 'Safari') },
          { event: 'play movie', at: jan(2, 16), properties: inOrg('org:6', 'Safari') },
        ],
        person3: [{ event: 'sign up', at: jan(2, 14), properties: inOrg('org:6', 'Safari') }],
      })
      const q = funnel(movie, byIndustry)
      await c.ready()
      const results = await c.funnel(q)
      expectSteps(results[0], 'finance', [
        { name: 'sign up', count: 1 },
        { name: 'play movie', count: 1, time: 3600 },
        { name: 'buy', count: 1, time: 7200 },
      ])
      expectSteps(results[1], 'technology', [
        { name: 'sign up', count: 2 },
        { name: 'play movie', count: 1, time: 7200 },
        { name: 'buy', count: 0 },
      ])
      expect(await c.actors(q, 1, { funnelStepBreakdown: 'finance' })).toEqual(['person1'])
      expect(await c.actors(q, 2, { funnelStepBreakdown: 'finance' })).toEqual(['person1'])
      expect(await c.actors(q, 1, { funnelStepBreakdown: 'technology' })).toEqual(['person2', 'person3'])
      expect(await c.actors(q, 2, { funnelStepBreakdown: 'technology' })).toEqual(['person2'])
    },
  )

  ported.it(
    'test_funnel_aggregate_by_groups_breakdown_group (TestFunnelGroupBreakdown): organizations, broken down by industry',
    'test_funnel_aggregate_by_groups_breakdown_group',
    async (c) => {
      await groups(c)
      await c.journeys({
        person1: [
          { event: 'sign up', at: jan(1, 12), properties: inOrg('org:5', 'Chrome') },
          { event: 'play movie', at: jan(1, 13), properties: inOrg('org:5', 'Chrome') },
          { event: 'buy', at: jan(1, 15), properties: inOrg('org:5', 'Chrome') },
        ],
        person2: [
          { event: 'sign up', at: jan(2, 14), properties: inOrg('org:6', 'Safari') },
          { event: 'play movie', at: jan(2, 16), properties: inOrg('org:6', 'Safari') },
        ],
        person3: [{ event: 'buy', at: jan(2, 18), properties: inOrg('org:6', 'Safari') }],
      })
      await c.ready()
      const results = await c.funnel(funnel(movie, byIndustry, {}, { aggregation_group_type_index: 0 }))
      expectSteps(results[0], 'finance', [
        { name: 'sign up', count: 1 },
        { name: 'play movie', count: 1, time: 3600 },
        { name: 'buy', count: 1, time: 7200 },
      ])
      expectSteps(results[1], 'technology', [
        { name: 'sign up', count: 1 },
        { name: 'play movie', count: 1, time: 7200 },
        { name: 'buy', count: 1, time: 7200 },
      ])
    },
  )
  ported.it(
    'test_funnel_breakdowns_by_current_url.py test_breakdown_by_pathname and test_breakdown_by_current_url: normalized URLs',
    'test_funnel_breakdowns_by_current_url',
    async (c) => {
      const watched = (minute: number, url: string, path: string) => ({
        event: 'watched movie',
        at: `2020-01-02T12:0${minute}:00Z`,
        properties: { $current_url: url, $pathname: path },
      })
      const end = (minute: number) => ({ event: 'terminate funnel', at: `2020-01-02T12:0${minute}:00Z` })
      await c.journeys({
        person1: [watched(1, 'https://example.com', ''), watched(2, 'https://example.com?', '?'), end(3)],
        person2: [watched(1, 'https://example.com/', '/'), watched(2, 'https://example.com#', '#'), end(3)],
        person3: [watched(1, 'https://example.com/home', '/home'), end(2)],
        person4: [
          watched(1, 'https://example.com/home/', '/home/'),
          watched(2, 'https://example.com/home#', '/home#'),
          watched(3, 'https://example.com/home/?#', '/home/?#'),
          end(4),
        ],
      })
      const by = async (breakdown: string) => {
        const results = await c.funnel({
          series: [ev('watched movie'), ev('terminate funnel')],
          dateRange: { date_from: '2020-01-02T00:00:00Z', date_to: '2020-01-12T00:00:00Z' },
          breakdownFilter: { breakdown, breakdown_type: 'event', breakdown_normalize_url: true, breakdown_limit: 100 },
          funnelsFilter: { funnelVizType: 'steps' },
        })
        return results
          .flatMap((list: any[]) => list.map((s) => [s.name, s.count, s.breakdown]))
          .sort((a: any[], b: any[]) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
      }
      const expected = (x: string, y: string) =>
        [
          ['watched movie', 2, [x]],
          ['terminate funnel', 2, [x]],
          ['watched movie', 2, [y]],
          ['terminate funnel', 2, [y]],
        ].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
      await c.ready()
      expect(await by('$pathname')).toEqual(expected('/', '/home'))
      expect(await by('$current_url')).toEqual(expected('https://example.com/home', 'https://example.com'))
    },
  )
})
