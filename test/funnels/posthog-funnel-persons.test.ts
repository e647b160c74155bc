// Persons at a funnel step and after a drop-off (ActorsQuery over a FunnelsActorsQuery), ported from PostHog's
// posthog/hogql_queries/insights/funnels/test/test_funnel_persons.py: the same events, the same funnel, the same
// persons (and counts of persons) PostHog's tests assert.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWren, type TestWren } from '../support/wren'
import { portedCases } from '../support/ported-cases'
import { funnelCase, type FunnelCase, type Props, type Step } from '../support/funnels'

describe('PostHog test_funnel_persons.py', () => {
  let t: TestWren
  let dropoffs: FunnelCase
  beforeAll(async () => {
    t = await startWren({ WREN_NOW: '2026-03-15T12:00:00Z' })
    // PostHog's _create_sample_data_multiple_dropoffs: 5 finish, 10 stop after step two, 20 after step one.
    dropoffs = await funnelCase(t, 'multiple dropoffs')
    const events: Array<{ distinct_id: string } & Step> = []
    for (let i = 0; i < 35; i++) {
      const distinct_id = `user_${i}`
      events.push({ distinct_id, event: 'step one', at: '2021-05-01T00:00:00Z' })
      if (i < 15) events.push({ distinct_id, event: 'step two', at: '2021-05-03T00:00:00Z' })
      if (i < 5) events.push({ distinct_id, event: 'step three', at: '2021-05-05T00:00:00Z' })
    }
    await dropoffs.capture(events)
  })
  afterAll(async () => {
    await t?.close()
  })
  const ported = portedCases(() => t, funnelCase)

  const ev = (event: string, extra: Props = {}) => ({ kind: 'EventsNode', event, name: event, ...extra })
  const threeSteps = {
    series: [ev('step one'), ev('step two'), ev('step three')],
    interval: 'day',
    dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 00:00:00' },
    funnelsFilter: { funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day' },
  }
  /** ActorsQuery rows (select id, person) for a FunnelsActorsQuery of these fields. */
  const rows = async (c: FunnelCase, source: Props, fields: Props, page: Props = {}) =>
    (
      await c.query({
        kind: 'ActorsQuery',
        select: ['id', 'person'],
        ...page,
        source: { kind: 'FunnelsActorsQuery', ...fields, source: { kind: 'FunnelsQuery', ...source } },
      })
    ).results as Array<[string, { distinct_ids: string[] }]>
  const ids = (list: Array<[string, { distinct_ids: string[] }]>) => list.map((r) => [...r[1].distinct_ids].sort().join(',')).sort()

  it('test_first_step: all 35 who entered', async () => {
    expect(await rows(dropoffs, threeSteps, { funnelStep: 1 })).toHaveLength(35)
  })

  it('test_last_step: the 5 who finished', async () => {
    expect(ids(await rows(dropoffs, threeSteps, { funnelStep: 3 }))).toEqual(['user_0', 'user_1', 'user_2', 'user_3', 'user_4'])
  })

  it('test_second_step_dropoff: the 20 who stopped after step one', async () => {
    expect(await rows(dropoffs, threeSteps, { funnelStep: -2 })).toHaveLength(20)
  })

  it('test_last_step_dropoff: the 10 who stopped after step two', async () => {
    expect(await rows(dropoffs, threeSteps, { funnelStep: -3 })).toHaveLength(10)
  })

  it('test_steps_with_custom_steps_parameter_are_equivalent_to_funnel_step: funnelCustomSteps lists the same persons', async () => {
    for (const [funnelStep, funnelCustomSteps, expected] of [
      [1, [1, 2, 3], 35],
      [2, [2, 3], 15],
      [3, [3], 5],
      [-2, [1], 20],
      [-3, [2], 10],
    ] as Array<[number, number[], number]>) {
      const byStep = ids(await rows(dropoffs, threeSteps, { funnelStep }))
      const byCustom = ids(await rows(dropoffs, threeSteps, { funnelStep, funnelCustomSteps }))
      expect(byCustom, `${funnelStep} ${funnelCustomSteps}`).toEqual(byStep)
      expect(byStep.length, `${funnelStep}`).toBe(expected)
    }
  })

  it('test_steps_with_custom_steps_parameter_where_funnel_step_equivalence_isnt_possible: any set of final steps', async () => {
    for (const [funnelCustomSteps, expected] of [
      [[1, 2], 30],
      [[1, 3], 25],
      [[3, 1], 25],
      [[1, 3, 3, 1], 25],
    ] as Array<[number[], number]>)
      expect(await rows(dropoffs, threeSteps, { funnelCustomSteps }), `${funnelCustomSteps}`).toHaveLength(expected)
  })

  it('test_steps_with_custom_steps_parameter_overrides_funnel_step: custom steps [3] win over step 1', async () => {
    expect(await rows(dropoffs, threeSteps, { funnelStep: 1, funnelCustomSteps: [3] })).toHaveLength(5)
  })

  ported.it('test_basic_offset: 110 persons come 100 to a page', 'test_basic_offset', async (c) => {
    const events: Array<{ distinct_id: string } & Step> = []
    for (let i = 0; i < 110; i++)
      for (const [event, day] of [
        ['step one', '01'],
        ['step two', '03'],
        ['step three', '05'],
      ])
        events.push({ distinct_id: `user_${i}`, event, at: `2021-05-${day}T00:00:00Z` })
    await c.capture(events)
    await c.ready()
    const first = await rows(c, threeSteps, { funnelStep: 1 })
    const next = await rows(c, threeSteps, { funnelStep: 1 }, { offset: 100 })
    expect([first.length, next.length]).toEqual([100, 10])
    expect(new Set([...ids(first), ...ids(next)]).size).toBe(110)
  })

  /** PostHog's _create_browser_breakdown_events: person1 (PL, Chrome 95) buys, person2 (EE, Safari 14) stops at play movie. */
  const browsers = async (c: FunnelCase) => {
    await c.persons([
      { ids: ['person1'], properties: { $country: 'PL' } },
      { ids: ['person2'], properties: { $country: 'EE' } },
    ])
    const chrome = { $browser: 'Chrome', $browser_version: '95' }
    const safari = { $browser: 'Safari', $browser_version: '14' }
    await c.journeys({
      person1: [
        { event: 'sign up', at: '2020-01-01T12:00:00Z', properties: chrome },
        { event: 'play movie', at: '2020-01-01T13:00:00Z', properties: chrome },
        { event: 'buy', at: '2020-01-01T15:00:00Z', properties: chrome },
      ],
      person2: [
        { event: 'sign up', at: '2020-01-02T14:00:00Z', properties: safari },
        { event: 'play movie', at: '2020-01-02T16:00:00Z', properties: safari },
      ],
    })
  }
  const movieFunnel = (breakdownFilter: Props) => ({
    series: [ev('sign up'), ev('play movie'), ev('buy')],
    interval: 'day',
    dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
    funnelsFilter: { funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day' },
    breakdownFilter,
  })

  ported.it('test_first_step_breakdowns: persons at step one per browser', 'test_first_step_breakdowns', async (c) => {
    await browsers(c)
    const q = movieFunnel({ breakdown: '$browser', breakdown_type: 'event' })
    await c.ready()
    expect(ids(await rows(c, q, { funnelStep: 1 }))).toEqual(['person1', 'person2'])
    expect(ids(await rows(c, q, { funnelStep: 1, funnelStepBreakdown: ['Chrome'] }))).toEqual(['person1'])
    expect(ids(await rows(c, q, { funnelStep: 1, funnelStepBreakdown: ['Safari'] }))).toEqual(['person2'])
  })

  ported.it(
    'test_first_step_breakdowns_with_multi_property_breakdown: browser and version together',
    'test_first_step_breakdowns_with_multi_property_breakdown',
    async (c) => {
      await browsers(c)
      const q = movieFunnel({ breakdown: ['$browser', '$browser_version'], breakdown_type: 'event' })
      await c.ready()
      expect(ids(await rows(c, q, { funnelStep: 1 }))).toEqual(['person1', 'person2'])
      expect(ids(await rows(c, q, { funnelStep: 1, funnelStepBreakdown: ['Chrome', '95'] }))).toEqual(['person1'])
      expect(ids(await rows(c, q, { funnelStep: 1, funnelStepBreakdown: ['Safari', '14'] }))).toEqual(['person2'])
    },
  )

  ported.it(
    'test_first_step_breakdown_person: a person-property breakdown, with and without custom steps',
    'test_first_step_breakdown_person',
    async (c) => {
      await browsers(c)
      const q = movieFunnel({ breakdown: '$country', breakdown_type: 'person' })
      await c.ready()
      expect(ids(await rows(c, q, { funnelStep: 1 }))).toEqual(['person1', 'person2'])
      for (const [country, person] of [
        ['EE', 'person2'],
        ['PL', 'person1'],
      ]) {
        const plain = await rows(c, q, { funnelStep: 1, funnelStepBreakdown: [country] })
        expect(ids(plain)).toEqual([person])
        expect(await rows(c, q, { funnelStep: 1, funnelCustomSteps: [1, 2, 3], funnelStepBreakdown: [country] })).toEqual(plain)
      }
    },
  )

  ported.it(
    'test_funnel_cohort_breakdown_persons: a cohort breakdown lists the cohort’s member',
    'test_funnel_cohort_breakdown_persons',
    async (c) => {
      await c.persons([{ ids: ['person1'], properties: { key: 'value' } }])
      await c.journeys({ person1: [{ event: 'sign up', at: '2020-01-02T12:00:00Z' }] })
      const cohort = await c.cohort({
        name: 'test_cohort',
        filters: { properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'key', value: 'value', type: 'person' }] }] } },
      })
      await c.ready()
      const result = await rows(c, movieFunnel({ breakdown: [cohort], breakdown_type: 'cohort' }), { funnelStep: 1 })
      expect(ids(result)).toEqual(['person1'])
    },
  )

  ported.it(
    'test_first_time_math_basic: a first-time first step done before the range lists nobody',
    'test_first_time_math_basic',
    async (c) => {
      await c.journeys({
        person1: [
          { event: 'sign up', at: '2020-01-01T12:00:00Z' },
          { event: 'sign up', at: '2020-01-02T12:00:00Z' },
          { event: 'play movie', at: '2020-01-01T13:00:00Z' },
          { event: 'play movie', at: '2020-01-02T13:00:00Z' },
        ],
      })
      const q = (from: string, breakdownFilter?: Props) => ({
        series: [ev('sign up', { math: 'first_time_for_user' }), ev('play movie')],
        interval: 'day',
        dateRange: { date_from: from, date_to: '2020-01-08' },
        funnelsFilter: { funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day' },
        ...(breakdownFilter ? { breakdownFilter } : {}),
      })
      await c.ready()
      expect(ids(await rows(c, q('2020-01-01', { breakdown: '$browser', breakdown_type: 'event' }), { funnelStep: 1 }))).toEqual([
        'person1',
      ])
      expect(await rows(c, q('2020-01-02'), { funnelStep: 1 })).toEqual([])
    },
  )

  ported.it(
    'test_first_time_math_multiple_ids: first time counts across a person’s distinct ids',
    'test_first_time_math_multiple_ids',
    async (c) => {
      await c.persons([{ ids: ['anon1', 'person1'] }, { ids: ['anon2', 'person2'] }])
      await c.journeys({
        anon1: [{ event: 'sign up', at: '2020-01-01T12:00:00Z' }],
        person1: [{ event: 'play movie', at: '2020-01-01T13:00:00Z' }],
        anon2: [
          { event: 'sign up', at: '2019-01-01T12:00:00Z' },
          { event: 'sign up', at: '2020-01-01T12:00:00Z' },
        ],
        person2: [{ event: 'play movie', at: '2020-01-01T13:00:00Z' }],
      })
      const q = (from: string, breakdownFilter?: Props) => ({
        series: [ev('sign up', { math: 'first_time_for_user' }), ev('play movie')],
        interval: 'day',
        dateRange: { date_from: from, date_to: '2020-01-08' },
        funnelsFilter: { funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day' },
        ...(breakdownFilter ? { breakdownFilter } : {}),
      })
      await c.ready()
      expect(ids(await rows(c, q('2020-01-01'), { funnelStep: 1 }))).toEqual(['anon1,person1'])
      expect(ids(await rows(c, q('2019-01-01', { breakdown: '$browser', breakdown_type: 'event' }), { funnelStep: 1 }))).toEqual([
        'anon1,person1',
        'anon2,person2',
      ])
    },
  )
  ported.it(
    'test_funnel_unordered_persons.py test_first_step, test_last_step, test_second_step_dropoff, test_last_step_dropoff',
    'unordered persons',
    async (c) => {
      const byPerson: Record<string, Step[]> = {}
      const day = (n: number) => `2021-05-0${n}T00:00:00Z`
      for (let i = 0; i < 35; i++)
        byPerson[`user_${i}`] =
          i < 5
            ? [
                { event: 'step one', at: day(1) },
                { event: 'step three', at: day(3) },
                { event: 'step two', at: day(5) },
              ]
            : i < 15
              ? [
                  { event: 'step two', at: day(1) },
                  { event: 'step one', at: day(3) },
                ]
              : [{ event: 'step one', at: day(1) }]
      await c.journeys(byPerson)
      await c.ready()
      const q = { ...threeSteps, funnelsFilter: { ...threeSteps.funnelsFilter, funnelOrderType: 'unordered' } }
      const sizes: Array<[number, number]> = [
        [1, 35],
        [3, 5],
        [-2, 20],
        [-3, 10],
      ]
      for (const [funnelStep, expected] of sizes) expect(await rows(c, q, { funnelStep }), `${funnelStep}`).toHaveLength(expected)
    },
  )
})
