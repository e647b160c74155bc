// Conversion over time and time to convert, ported from PostHog's test_funnel_trends.py and
// test_funnel_time_to_convert.py (posthog/hogql_queries/insights/funnels/test/). PostHog's trends tests read the
// runner's raw rows (reached_from_step_count, reached_to_step_count, conversion_rate per period); through the
// Query API the same facts are the series' `data` (the conversion rate per period) and `days`, and the persons
// who entered in a period and converted or dropped off (FunnelsActorsQuery with funnelTrendsEntrancePeriodStart).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWren, type TestWren } from '../support/wren'
import { portedCases } from '../support/ported-cases'
import { funnelCase, type FunnelCase, type Props, type Step } from '../support/funnels'

const NOW = '2026-03-15T12:00:00Z'

describe('PostHog test_funnel_trends.py and test_funnel_time_to_convert.py', () => {
  let t: TestWren
  beforeAll(async () => {
    t = await startWren({ WREN_NOW: NOW })
  })
  afterAll(async () => {
    await t?.close()
  })
  const ported = portedCases(() => t, funnelCase)

  const ev = (event: string) => ({ kind: 'EventsNode', event, name: event })
  const three = [ev('step one'), ev('step two'), ev('step three')]
  const d = (day: number, hour = 0, minute = 0) =>
    `2021-05-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}:00Z`
  const trends = (range: Props, filter: Props = {}, extra: Props = {}) => ({
    series: three,
    interval: 'day',
    dateRange: range,
    funnelsFilter: { funnelVizType: 'trends', ...filter },
    ...extra,
  })
  const days7 = { funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day' }
  /** Persons who entered in the period starting `start` and converted (or dropped off), as sorted distinct-id lists. */
  const periodActors = async (c: FunnelCase, source: Props, start: string, dropOff: boolean) => {
    const body = await c.query({
      kind: 'ActorsQuery',
      select: ['person'],
      source: {
        kind: 'FunnelsActorsQuery',
        funnelTrendsEntrancePeriodStart: start,
        funnelTrendsDropOff: dropOff,
        source: { kind: 'FunnelsQuery', ...source },
      },
    })
    return body.results.map((row: any[]) => [...row[0].distinct_ids].sort())
  }
  const sample = (c: FunnelCase) =>
    c.journeys({
      user_one: [
        { event: 'step one', at: d(1) },
        { event: 'step two', at: d(3) },
        { event: 'step three', at: d(5) },
      ],
      user_two: [
        { event: 'step one', at: d(2) },
        { event: 'step two', at: d(4) },
      ],
      user_three: [{ event: 'step one', at: d(6) }],
      user_four: [{ event: 'step none', at: d(6) }],
      user_five: [
        { event: 'step one', at: d(1, 1) },
        { event: 'step two', at: d(1, 2) },
        { event: 'step three', at: d(1, 3) },
      ],
      user_six: [
        { event: 'step one', at: d(1) },
        { event: 'step two', at: d(3) },
        { event: 'step three', at: d(5) },
      ],
      user_seven: [
        { event: 'step one', at: d(2) },
        { event: 'step two', at: d(4) },
      ],
    })
  const week = ['2021-05-01', '2021-05-02', '2021-05-03', '2021-05-04', '2021-05-05', '2021-05-06', '2021-05-07']

  ported.it(
    'test_funnel_trends.py test_no_event_in_period: seven daily points from the first day of the range',
    'test_no_event_in_period',
    async (c) => {
      await c.journeys({ 'user a': [{ event: 'Step one', at: '2021-06-06T21:00:00Z' }] })
      await c.ready()
      const [line] = await c.funnel(trends({ date_from: '2021-06-07 00:00:00', date_to: '2021-06-13 23:59:59' }, days7))
      expect(line.data).toHaveLength(7)
      expect(line.days[0]).toBe('2021-06-07')
    },
  )

  ported.it(
    'test_funnel_trends.py test_only_one_user_reached_one_step: 0 % every day, and the one who dropped off on the first',
    `test_only_one_user_reached_one_step US/Pacific`,
    { timezone: 'US/Pacific' },
    async (first, another) => {
      const zones = { 'US/Pacific': first, UTC: await another(`test_only_one_user_reached_one_step UTC`, { timezone: 'UTC' }) }
      for (const c of Object.values(zones)) {
        await c.journeys({ 'user a': [{ event: 'step one', at: '2021-06-07T19:00:00Z' }] })
      }
      await first.ready()
      for (const [timezone, c] of Object.entries(zones)) {
        const q = trends({ date_from: '2021-06-07 00:00:00', date_to: '2021-06-13 23:59:59' }, days7)
        const [line] = await c.funnel(q)
        expect(line.days, timezone).toEqual([
          '2021-06-07',
          '2021-06-08',
          '2021-06-09',
          '2021-06-10',
          '2021-06-11',
          '2021-06-12',
          '2021-06-13',
        ])
        expect(line.data, timezone).toEqual([0, 0, 0, 0, 0, 0, 0])
        expect(await periodActors(c, q, '2021-06-07 00:00:00', true)).toEqual([['user a']])
        expect(await periodActors(c, q, '2021-06-07 00:00:00', false)).toEqual([])
        expect(await periodActors(c, q, '2021-06-08 00:00:00', true)).toEqual([])
      }
    },
  )

  const oneRun = (c: FunnelCase, day = 1, month = '2021-05') =>
    c.journeys({
      user_one: [
        { event: 'step one', at: `${month}-0${day}T00:00:00Z` },
        { event: 'step two', at: `${month}-0${day}T01:00:00Z` },
        { event: 'step three', at: `${month}-0${day}T02:00:00Z` },
      ],
    })

  ported.it(
    'test_funnel_trends.py test_day_interval: seven days, and user_one converted entering on the first',
    'test_day_interval',
    async (c) => {
      await oneRun(c)
      const q = trends({ date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 00:00:00' }, days7)
      await c.ready()
      const [line] = await c.funnel(q)
      expect(line.data).toHaveLength(7)
      expect(await periodActors(c, q, '2021-05-01 00:00:00', false)).toEqual([['user_one']])
    },
  )

  ported.it(
    'test_funnel_trends.py test_week_interval: two weeks, and user_one converted entering in the week of 25 April',
    'test_week_interval',
    async (c) => {
      await oneRun(c)
      const q = trends({ date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 00:00:00' }, days7, { interval: 'week' })
      await c.ready()
      const [line] = await c.funnel(q)
      expect(line.data).toHaveLength(2)
      expect(await periodActors(c, q, '2021-04-25 00:00:00', false)).toEqual([['user_one']])
    },
  )

  ported.it(
    'test_funnel_trends.py test_month_interval: the run lands in May in UTC and in April in US/Pacific',
    `test_month_interval US/Pacific`,
    { timezone: 'US/Pacific' },
    async (first, another) => {
      const zones = { 'US/Pacific': first, UTC: await another(`test_month_interval UTC`, { timezone: 'UTC' }) }
      for (const c of Object.values(zones)) {
        await oneRun(c, 1, '2020-05')
      }
      await first.ready()
      for (const [timezone, c] of Object.entries(zones)) {
        const q = trends({ date_from: '2020-01-01 00:00:00', date_to: '2020-07-01 00:00:00' }, days7, { interval: 'month' })
        const [line] = await c.funnel(q)
        expect(line.days, timezone).toEqual([
          '2020-01-01',
          '2020-02-01',
          '2020-03-01',
          '2020-04-01',
          '2020-05-01',
          '2020-06-01',
          '2020-07-01',
        ])
        const pacific = timezone === 'US/Pacific' ? 100 : 0
        expect(line.data, timezone).toEqual([0, 0, 0, pacific, 100 - pacific, 0, 0])
        const start = timezone === 'UTC' ? '2020-05-01 00:00:00' : '2020-04-01 00:00:00'
        expect(await periodActors(c, q, start, false), timezone).toEqual([['user_one']])
      }
    },
  )

  ported.it(
    'test_funnel_trends.py test_all_results_for_day_interval: 100 % on 1 May, 0 % after',
    'test_all_results_for_day_interval',
    async (c) => {
      await sample(c)
      await c.ready()
      const [line] = await c.funnel(trends({ date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 00:00:00' }, days7))
      expect(line.days).toEqual(week)
      expect(line.data).toEqual([100, 0, 0, 0, 0, 0, 0])
    },
  )

  ported.it(
    'test_funnel_trends.py test_window_size_one_day: a one-day window converts 33.33 % on 1 May',
    'test_window_size_one_day',
    async (c) => {
      await sample(c)
      await c.ready()
      const [line] = await c.funnel(
        trends({ date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 00:00:00' }, { funnelWindowInterval: 1 }),
      )
      expect(line.data).toEqual([33.33, 0, 0, 0, 0, 0, 0])
    },
  )

  ported.it('test_funnel_trends.py test_period_not_final: yesterday 0 %, today 100 %', 'test_period_not_final', async (c) => {
    const now = Date.parse(NOW)
    const iso = (ms: number) => new Date(ms).toISOString()
    await c.journeys({
      user_eight: [
        { event: 'step one', at: iso(now) },
        { event: 'step two', at: iso(now + 60_000) },
        { event: 'step three', at: iso(now + 120_000) },
      ],
    })
    await c.ready()
    const [line] = await c.funnel(
      trends(
        { date_from: '2026-03-14 12:00:00', date_to: '2026-03-15 23:59:59' },
        { funnelWindowInterval: 1, funnelWindowIntervalUnit: 'day' },
      ),
    )
    expect(line.days).toEqual(['2026-03-14', '2026-03-15'])
    expect(line.data).toEqual([0, 100])
  })

  const singleDay = { date_from: '2021-05-01 00:00:00', date_to: '2021-05-01 23:59:59' }
  const oneDay = { funnelWindowInterval: 1, funnelWindowIntervalUnit: 'day' }

  ported.it(
    'test_funnel_trends.py test_two_runs_by_single_user_in_one_period: two runs in a day count once; 100 %',
    'test_two_runs_by_single_user_in_one_period',
    async (c) => {
      await c.journeys({
        user_one: [0, 1, 2, 13, 14, 15].map((hour, i) => ({ event: ['step one', 'step two', 'step three'][i % 3], at: d(1, hour) })),
      })
      await c.ready()
      const [line] = await c.funnel(trends(singleDay, oneDay))
      expect(line.data).toEqual([100])
    },
  )

  ported.it(
    'test_funnel_trends.py test_steps_performed_in_period_but_in_reverse: 0 %',
    'test_steps_performed_in_period_but_in_reverse',
    async (c) => {
      await c.journeys({
        user_one: [
          { event: 'step three', at: d(1, 1) },
          { event: 'step two', at: d(1, 2) },
          { event: 'step one', at: d(1, 3) },
        ],
      })
      await c.ready()
      const [line] = await c.funnel(trends(singleDay, oneDay))
      expect(line.data).toEqual([0])
    },
  )

  const multiplePeriods = (order: 'ordered' | 'unordered' | 'strict'): Record<string, Step[]> => {
    const s = (event: string, day: number, hour: number, minute = 0) => ({ event, at: d(day, hour, minute) })
    if (order === 'unordered')
      return {
        user_one: [
          s('step one', 1, 1),
          s('step three', 1, 2),
          s('step two', 1, 3),
          s('step two', 3, 1),
          s('step one', 3, 2),
          s('step three', 4, 11),
          s('step one', 4, 12),
          s('step two', 4, 13),
        ],
        user_two: [s('step one', 4, 18)],
      }
    if (order === 'strict')
      return {
        user_one: [
          s('step one', 1, 1),
          s('step two', 1, 2),
          s('step three', 1, 3),
          s('step one', 3, 1),
          s('step two', 3, 2),
          s('blah', 3, 2, 30),
          s('step three', 3, 3),
          s('step one', 4, 11),
          s('step two', 4, 12),
          s('step three', 4, 13),
        ],
        user_two: [s('step one', 4, 18), s('blah', 4, 18, 20), s('step two', 4, 19)],
      }
    return {
      user_one: [
        s('step one', 1, 1),
        s('step two', 1, 2),
        s('step three', 1, 3),
        s('step one', 3, 1),
        s('step two', 3, 2),
        s('step one', 4, 11),
        s('step two', 4, 12),
        s('step three', 4, 13),
      ],
      user_two: [s('step one', 4, 18)],
    }
  }
  const fourDays = { date_from: '2021-05-01 00:00:00', date_to: '2021-05-04 23:59:59' }

  ported.it(
    'test_funnel_trends.py test_one_person_in_multiple_periods_and_windows: 100, 0, 0, 50 %, and who converted or dropped off on 4 May',
    'test_one_person_in_multiple_periods_and_windows',
    async (c) => {
      await c.journeys(multiplePeriods('ordered'))
      const q = trends(fourDays, { funnelWindowInterval: 1 })
      await c.ready()
      const [line] = await c.funnel(q)
      expect(line.data).toEqual([100, 0, 0, 50])
      expect(await periodActors(c, q, '2021-05-04 00:00:00', true)).toEqual([['user_two']])
      expect(await periodActors(c, q, '2021-05-04 00:00:00', false)).toEqual([['user_one']])
    },
  )

  ported.it(
    'test_funnel_trends.py test_one_person_in_multiple_periods_and_windows_in_unordered_funnel: 100, 0, 0, 50 %',
    'test_one_person_in_multiple_periods_and_windows_in_unordered_funnel',
    async (c) => {
      await c.journeys(multiplePeriods('unordered'))
      const q = trends(fourDays, { funnelWindowInterval: 1, funnelOrderType: 'unordered' })
      await c.ready()
      const [line] = await c.funnel(q)
      expect(line.data).toEqual([100, 0, 0, 50])
      expect(await periodActors(c, q, '2021-05-04 00:00:00', true)).toEqual([['user_two']])
      expect(await periodActors(c, q, '2021-05-04 00:00:00', false)).toEqual([['user_one']])
    },
  )

  ported.it(
    'test_funnel_trends.py test_one_person_in_multiple_periods_and_windows_in_strict_funnel: 100, 0, 0, 50 %',
    'test_one_person_in_multiple_periods_and_windows_in_strict_funnel',
    async (c) => {
      await c.journeys(multiplePeriods('strict'))
      await c.ready()
      const [line] = await c.funnel(trends(fourDays, { ...oneDay, funnelOrderType: 'strict' }))
      expect(line.data).toEqual([100, 0, 0, 50])
    },
  )

  const secondStepJourneys = {
    user_one: [
      { event: 'step one', at: d(1, 1) },
      { event: 'step two', at: d(2, 2) },
      { event: 'step three', at: d(2, 3) },
    ],
    user_two: [{ event: 'step one', at: d(1, 1) }],
    user_three: [
      { event: 'step two', at: d(2, 2) },
      { event: 'step three', at: d(2, 3) },
    ],
    user_four: [
      { event: 'step one', at: d(2, 1) },
      { event: 'step two', at: d(2, 2) },
    ],
  }
  const twoDays = { date_from: '2021-05-01 00:00:00', date_to: '2021-05-02 23:59:59' }
  const days3 = { funnelWindowInterval: 3, funnelWindowIntervalUnit: 'day' }

  ported.it('test_funnel_trends.py test_from_second_step: counting from step two, 100 % then 0 %', 'test_from_second_step', async (c) => {
    await c.journeys(secondStepJourneys)
    await c.ready()
    const [line] = await c.funnel(trends(twoDays, { ...days3, funnelFromStep: 1 }))
    expect(line.data).toEqual([100, 0])
  })

  ported.it('test_funnel_trends.py test_to_second_step: counting up to step two, 50 % then 100 %', 'test_to_second_step', async (c) => {
    await c.journeys(secondStepJourneys)
    await c.ready()
    const [line] = await c.funnel(trends(twoDays, { ...days3, funnelToStep: 1 }))
    expect(line.data).toEqual([50, 100])
  })

  ported.it(
    'test_funnel_trends.py test_funnel_step_breakdown_event: one line per browser',
    'trends test_funnel_step_breakdown_event',
    async (c) => {
      const b = (event: string, day: number, browser: string) => ({ event, at: d(day), properties: { $browser: browser } })
      await c.journeys({
        user_one: [b('step one', 1, 'Chrome'), b('step two', 3, 'Chrome'), b('step three', 5, 'Chrome')],
        user_two: [b('step one', 2, 'Chrome'), b('step two', 3, 'Chrome'), b('step three', 5, 'Chrome')],
        user_three: [b('step one', 3, 'Safari'), b('step two', 4, 'Safari'), b('step three', 5, 'Safari')],
      })
      await c.ready()
      const lines = await c.funnel(
        trends({ date_from: '2021-05-01 00:00:00', date_to: '2021-05-13 23:59:59' }, days7, {
          breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
        }),
      )
      expect(lines).toHaveLength(2)
      const byBrowser = Object.fromEntries(lines.map((l: any) => [JSON.stringify(l.breakdown_value), l.data]))
      const zeros = (n: number) => Array(n).fill(0)
      expect(byBrowser).toEqual({
        '["Chrome"]': [100, 100, ...zeros(11)],
        '["Safari"]': [0, 0, 100, ...zeros(10)],
      })
    },
  )

  ported.it(
    'test_funnel_trends_actors.py test_funnel_trend_persons_filters_by_breakdown: converted persons of a period per browser',
    'test_funnel_trend_persons_filters_by_breakdown',
    async (c) => {
      const run = (browser: string) =>
        [0, 1, 2].map((hour) => ({ event: three[hour].event, at: d(1, hour), properties: { $browser: browser } }))
      await c.journeys({ chrome_user: run('Chrome'), safari_user: run('Safari') })
      const q = trends(
        { date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 23:59:59' },
        { funnelFromStep: 0 },
        {
          breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
        },
      )
      const converted = async (breakdown?: string[]) => {
        const body = await c.query({
          kind: 'ActorsQuery',
          select: ['person'],
          source: {
            kind: 'FunnelsActorsQuery',
            funnelTrendsEntrancePeriodStart: '2021-05-01 00:00:00',
            funnelTrendsDropOff: false,
            ...(breakdown ? { funnelStepBreakdown: breakdown } : {}),
            source: { kind: 'FunnelsQuery', ...q },
          },
        })
        return body.results.map((row: any[]) => row[0].distinct_ids.join()).sort()
      }
      await c.ready()
      expect(await converted(['Chrome'])).toEqual(['chrome_user'])
      expect(await converted(['Safari'])).toEqual(['safari_user'])
      expect(await converted()).toEqual(['chrome_user', 'safari_user'])
    },
  )

  const threeBrowsers = (withBrowser: boolean): Record<string, Step[]> => {
    const b = (browser: string) => (withBrowser ? { properties: { $browser: browser } } : {})
    const run = (days: number[], browser: string) => days.map((day, i) => ({ event: three[i].event, at: d(day), ...b(browser) }))
    return { user_one: run([1, 3, 5], 'Chrome'), user_two: run([2, 3, 5], 'Chrome'), user_three: run([3, 4, 5], 'Safari') }
  }
  const thirteen = { date_from: '2021-05-01 00:00:00', date_to: '2021-05-13 23:59:59' }
  const zeros = (n: number) => Array(n).fill(0)

  ported.it(
    'test_funnel_trends.py test_funnel_step_breakdown_empty: a HogQL breakdown with empty values, under each attribution',
    'test_funnel_step_breakdown_empty',
    async (c) => {
      await c.ready()
      for (const attribution of ['all_events', 'first_touch', 'last_touch', 'step']) {
        // PostHog's test adds the journeys again on each pass, into the same project.
        await c.journeys(threeBrowsers(true))
        const lines = await c.funnel(
          trends(
            thirteen,
            { ...days7, breakdownAttributionType: attribution, ...(attribution === 'step' ? { breakdownAttributionValue: 1 } : {}) },
            { breakdownFilter: { breakdown: "IF(distinct_id = 'user_two', NULL, 'foo')", breakdown_type: 'hogql' } },
          ),
        )
        expect(lines, attribution).toHaveLength(2)
        expect([lines[0].breakdown_value, lines[0].data], attribution).toEqual([[''], [0, 100, ...zeros(11)]])
        expect([lines[1].breakdown_value, lines[1].data], attribution).toEqual([['foo'], [100, 0, 100, ...zeros(10)]])
      }
    },
  )

  ported.it(
    'test_funnel_trends.py test_funnel_step_breakdown_event_with_breakdown_limit: a limit of 1 keeps Chrome only',
    'trends test_funnel_step_breakdown_event_with_breakdown_limit',
    async (c) => {
      await c.journeys(threeBrowsers(true))
      await c.ready()
      const lines = await c.funnel(
        trends(thirteen, days7, { breakdownFilter: { breakdown: '$browser', breakdown_type: 'event', breakdown_limit: 1 } }),
      )
      expect(lines.map((l: any) => [l.breakdown_value, l.data])).toEqual([[['Chrome'], [100, 100, ...zeros(11)]]])
    },
  )

  ported.it(
    'test_funnel_trends.py test_funnel_step_breakdown_person: one line per person browser',
    'trends test_funnel_step_breakdown_person',
    async (c) => {
      await c.persons([
        { ids: ['user_one'], properties: { $browser: 'Chrome' } },
        { ids: ['user_two'], properties: { $browser: 'Chrome' } },
        { ids: ['user_three'], properties: { $browser: 'Safari' } },
      ])
      await c.journeys(threeBrowsers(false))
      await c.ready()
      const lines = await c.funnel(trends(thirteen, days7, { breakdownFilter: { breakdown: '$browser', breakdown_type: 'person' } }))
      expect(lines).toHaveLength(2)
      expect(Object.fromEntries(lines.map((l: any) => [JSON.stringify(l.breakdown_value), l.data]))).toEqual({
        '["Chrome"]': [100, 100, ...zeros(11)],
        '["Safari"]': [0, 0, 100, ...zeros(10)],
      })
    },
  )

  ported.it(
    'test_funnel_trends.py test_funnel_trend_cohort_breakdown: one line for the cohort',
    'test_funnel_trend_cohort_breakdown',
    async (c) => {
      await c.persons([
        { ids: ['user_one'], properties: { key: 'value' } },
        { ids: ['user_two'], properties: { key: 'value' } },
        { ids: ['user_three'], properties: { $browser: 'Safari' } },
      ])
      await c.journeys(threeBrowsers(false))
      const cohort = await c.cohort({
        name: 'test_cohort',
        filters: { properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'key', value: 'value', type: 'person' }] }] } },
      })
      await c.ready()
      const lines = await c.funnel(trends(thirteen, days7, { breakdownFilter: { breakdown: [cohort], breakdown_type: 'cohort' } }))
      expect(lines.map((l: any) => l.data)).toEqual([[100, 100, ...zeros(11)]])
    },
  )

  ported.it(
    'test_funnel_trends.py test_timezones_trends: entry days move with the project timezone',
    'test_timezones_trends UTC',
    async (utc, another) => {
      const journeys = (hours: number[]) => hours.map((hour, i) => ({ event: three[i].event, at: d(1, hour) }))
      const q = trends({ date_from: '2021-04-30 00:00:00', date_to: '2021-05-07 00:00:00' }, days7)
      const pacific = await another('test_timezones_trends US/Pacific', { timezone: 'US/Pacific' })
      for (const c of [utc, pacific])
        await c.journeys({ user_one: journeys([10, 11, 12]), user_two: journeys([1, 2, 3]), user_three: journeys([1, 10, 11]) })
      await utc.ready()
      const [inUtc] = await utc.funnel(q)
      expect(inUtc.data[1]).toBe(100)
      const [inPacific] = await pacific.funnel(q)
      expect(inPacific.data.slice(0, 2)).toEqual([100, 100])
    },
  )

  const sec = (s: number) => new Date(Date.parse('2021-05-01T00:00:00Z') + s * 1000).toISOString()
  const exclusionTrend = (filter: Props, series = three.slice(0, 2)) => ({
    ...trends(thirteen, { funnelWindowIntervalUnit: 'second', ...filter }),
    series,
  })
  const excluded = (from: number, to: number) => [{ kind: 'EventsNode', event: 'exclusion', funnelFromStep: from, funnelToStep: to }]

  ported.it(
    'test_funnel_trends.py test_short_exclusions: an excluded try, then a clean one in 29 s; 100 % on 1 May',
    'trends test_short_exclusions',
    async (c) => {
      await c.journeys({
        user_one: [
          { event: 'step one', at: sec(0) },
          { event: 'exclusion', at: sec(1) },
          { event: 'step two', at: sec(31) },
          { event: 'step one', at: sec(3600) },
          { event: 'step two', at: sec(3629) },
        ],
      })
      await c.ready()
      const lines = await c.funnel({
        ...exclusionTrend({ funnelWindowInterval: 30, exclusions: excluded(0, 1) }),
        breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
      })
      expect(lines.map((l: any) => l.data)).toEqual([[100, ...zeros(12)]])
    },
  )

  ported.it(
    'test_funnel_trends.py test_funnel_exclusion_no_end_event: persons 1 and 4 of 4 convert; 50 % on 1 May',
    'trends test_funnel_exclusion_no_end_event',
    async (c) => {
      await c.journeys({
        person1: [
          { event: 'user signed up', at: '2021-05-01T01:00:00Z' },
          { event: 'paid', at: '2021-05-01T02:00:00Z' },
        ],
        person2: [
          { event: 'user signed up', at: '2021-05-01T03:00:00Z' },
          { event: 'x', at: '2021-05-01T03:30:00Z' },
          { event: 'paid', at: '2021-05-01T04:00:00Z' },
        ],
        person3: [
          { event: 'user signed up', at: '2021-05-01T05:00:00Z' },
          { event: 'x', at: '2021-05-01T06:00:00Z' },
        ],
        person4: [
          { event: 'user signed up', at: '2021-05-01T07:00:00Z' },
          { event: 'x', at: '2021-05-02T08:00:00Z' },
        ],
      })
      await c.ready()
      const [line] = await c.funnel({
        series: [ev('user signed up'), ev('paid')],
        dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-14 00:00:00' },
        funnelsFilter: {
          funnelVizType: 'trends',
          funnelWindowInterval: 1,
          exclusions: [{ kind: 'EventsNode', event: 'x', funnelFromStep: 0, funnelToStep: 1 }],
        },
      })
      expect(line.data).toEqual([50, ...zeros(13)])
    },
  )

  ported.it(
    'test_funnel_trends.py test_exclusion_after_goal: an exclusion in a later try leaves the first conversion; 100 %',
    'trends test_exclusion_after_goal',
    async (c) => {
      await c.journeys({
        user_one: [
          { event: 'step one', at: sec(0) },
          { event: 'step two', at: sec(1) },
          { event: 'step three', at: sec(3) },
          { event: 'step one', at: sec(4) },
          { event: 'step two', at: sec(5) },
          { event: 'exclusion', at: sec(6) },
          { event: 'step three', at: sec(7) },
        ],
      })
      await c.ready()
      const [line] = await c.funnel(exclusionTrend({ funnelWindowInterval: 10, exclusions: excluded(1, 2) }, three))
      expect(line.data[0]).toBe(100)
    },
  )

  ported.it(
    'test_funnel_trends.py test_funnel_exclusion_multiple_possible_no_end_event1: entered, excluded, not converted; 0 %',
    'trends no_end_event1',
    async (c) => {
      await c.journeys({
        user_one: [
          { event: 'step one', at: sec(0) },
          { event: 'exclusion', at: sec(1) },
          { event: 'step one', at: sec(31) },
        ],
      })
      const q = exclusionTrend({ funnelWindowInterval: 10, exclusions: excluded(0, 1) })
      await c.ready()
      const [line] = await c.funnel(q)
      expect(line.data[0]).toBe(0)
      // reached_from_step_count 1: the person entered on 1 May and dropped off.
      expect(await periodActors(c, q, '2021-05-01 00:00:00', true)).toEqual([['user_one']])
    },
  )

  // time to convert
  const june = { date_from: '2021-06-07 00:00:00', date_to: '2021-06-13 23:59:59' }
  const j = (event: string, at: string) => ({ event, at: `2021-06-${at}:00Z` })
  const ttcJourneys = (a: string, b: string, c: string): Record<string, Step[]> => ({
    'user a': [j(a, '08T18:00'), j(b, '08T19:00'), j(c, '08T21:00')],
    'user b': [j(a, '09T13:00'), j(b, '09T13:37')],
    'user c': [j(a, '11T07:00'), j(b, '12T06:00')],
  })
  const ttc = (series: unknown[], filter: Props = {}) => ({
    series,
    interval: 'day',
    dateRange: june,
    funnelsFilter: { funnelVizType: 'time_to_convert', funnelFromStep: 0, funnelToStep: 1, ...days7, ...filter },
  })
  const autoBins = {
    bins: [
      [2220, 2],
      [42510, 0],
      [82800, 1],
    ],
    average_conversion_time: 29540,
  }

  ported.it(
    'test_funnel_time_to_convert.py test_auto_bin_count_single_step: three automatic bins, average 29 540 s',
    'test_auto_bin_count_single_step',
    async (c) => {
      await c.journeys(ttcJourneys('step one', 'step two', 'step three'))
      await c.ready()
      expect(await c.funnel(ttc(three))).toMatchObject(autoBins)
    },
  )

  ported.it(
    'test_funnel_time_to_convert.py test_auto_bin_count_single_step_duplicate_events: the same event as every step',
    'test_auto_bin_count_single_step_duplicate_events',
    async (c) => {
      await c.journeys(ttcJourneys('step one', 'step one', 'step one'))
      await c.ready()
      expect(await c.funnel(ttc([ev('step one'), ev('step one'), ev('step one')]))).toMatchObject(autoBins)
    },
  )

  ported.it(
    'test_funnel_time_to_convert.py test_custom_bin_count_single_step: seven bins of 11 512 s',
    'test_custom_bin_count_single_step',
    async (c) => {
      await c.journeys(ttcJourneys('step one', 'step two', 'step three'))
      await c.ready()
      expect(await c.funnel(ttc(three, { binCount: 7 }))).toMatchObject({
        bins: [
          [2220, 2],
          [13732, 0],
          [25244, 0],
          [36756, 0],
          [48268, 0],
          [59780, 0],
          [71292, 1],
          [82804, 0],
        ],
        average_conversion_time: 29540,
      })
    },
  )

  ported.it(
    'test_funnel_time_to_convert.py test_basic_unordered: steps in any order, the same three bins',
    'ttc test_basic_unordered',
    async (c) => {
      await c.journeys({
        'user a': [j('step three', '08T18:00'), j('step one', '08T19:00'), j('step two', '08T21:00')],
        'user b': [j('step one', '09T13:00'), j('step two', '09T13:37')],
        'user c': [j('step two', '11T07:00'), j('step one', '12T06:00')],
      })
      await c.ready()
      expect(await c.funnel(ttc(three, { funnelOrderType: 'unordered' }))).toMatchObject(autoBins)
    },
  )

  ported.it(
    'test_funnel_time_to_convert.py test_basic_strict: an event in between cancels a conversion; the same three bins',
    'ttc test_basic_strict',
    async (c) => {
      await c.journeys({
        'user a': [j('step one', '08T18:00'), j('step two', '08T19:00'), j('step three', '08T21:00')],
        'user b': [j('step one', '09T13:00'), j('step two', '09T13:37'), j('blah', '09T13:38'), j('step three', '09T13:39')],
        'user c': [j('step one', '11T07:00'), j('step two', '12T06:00')],
        'user d': [j('step one', '11T07:00'), j('blah', '12T07:00'), j('step two', '12T09:00')],
      })
      await c.ready()
      expect(await c.funnel(ttc(three, { funnelOrderType: 'strict' }))).toMatchObject(autoBins)
    },
  )
})
