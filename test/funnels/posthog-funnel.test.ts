// Ordered funnels, ported from PostHog's posthog/hogql_queries/insights/funnels/test/test_funnel.py: the same
// events, the same query (as a FunnelsQuery through POST /query/), the same numbers PostHog's test asserts.
// Each case runs in its own project of one shared Wren. Events PostHog creates "now" without a timestamp are
// captured one second apart, in PostHog's order, a little before WREN_NOW.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWren, type TestWren } from '../support/wren'
import { portedCases } from '../support/ported-cases'
import { MOVIE_CHAIN, PAY_CHAIN, counts, funnelCase, names, tick, type FunnelCase, type Props, type Step } from '../support/funnels'

const NOW = '2026-03-15T12:00:00Z'
const BASE = '2026-03-15T10:00:00Z'

describe('PostHog test_funnel.py (ordered funnels)', () => {
  let t: TestWren
  beforeAll(async () => {
    t = await startWren({ WREN_NOW: NOW })
  })
  afterAll(async () => {
    await t?.close()
  })
  const ported = portedCases(() => t, funnelCase)

  /** PostHog's `_basic_funnel` fixtures: "paid" and "watched movie" actions over autocapture, and event helpers. */
  const basic = async (c: FunnelCase) => {
    const paid = await c.action('paid', [{ event: '$autocapture', tag_name: 'button', text: 'Pay $10' }])
    const movie = await c.action('watched movie', [{ event: '$autocapture', tag_name: 'a', href: '/movie' }])
    return { paid, movie }
  }
  /** Events in PostHog's creation order, one second apart. */
  const ordered = () => {
    let n = 0
    const events: Array<{ distinct_id: string } & Step> = []
    const add = (distinct_id: string, event: string, properties: Props = {}, at?: string) =>
      events.push({ distinct_id, event, properties, at: at ?? tick(BASE, n++) })
    return {
      events,
      signup: (id: string, p: Props = {}) => add(id, 'user signed up', p),
      pay: (id: string, p: Props = {}) => add(id, '$autocapture', { $elements_chain: PAY_CHAIN, ...p }),
      movie: (id: string, p: Props = {}, at?: string) => add(id, '$autocapture', { $elements_chain: MOVIE_CHAIN, ...p }, at),
      add,
    }
  }
  const ev = (event: string) => ({ kind: 'EventsNode', event, name: event })
  const act = (id: number) => ({ kind: 'ActionsNode', id })
  const days14 = { funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day' }

  ported.it(
    'test_funnel_events: signed up 4, paid 2, watched movie 1, merged distinct ids count as one person',
    'test_funnel_events',
    async (c) => {
      const { paid, movie } = await basic(c)
      await c.persons([{ ids: ['had_anonymous_id', 'completed_movie'] }])
      const e = ordered()
      e.signup('stopped_after_signup')
      e.signup('stopped_after_pay')
      e.pay('stopped_after_pay')
      e.signup('had_anonymous_id')
      e.pay('completed_movie')
      e.movie('completed_movie')
      e.movie('just_did_movie')
      e.pay('wrong_order')
      e.signup('wrong_order')
      e.movie('wrong_order')
      await c.capture(e.events)
      await c.ready()
      const steps = await c.funnel({ series: [ev('user signed up'), act(paid), act(movie)], funnelsFilter: days14 })
      expect(names(steps)).toEqual(['user signed up', 'paid', 'watched movie'])
      expect(counts(steps)).toEqual([4, 2, 1])
      expect(steps.map((s: any) => [s.order, s.type, s.action_id])).toEqual([
        [0, 'events', 'user signed up'],
        [1, 'actions', paid],
        [2, 'actions', movie],
      ])
    },
  )

  ported.it(
    'test_funnel_with_messed_up_order: a step ordered 2 follows step 0; signed up 4, watched movie 1',
    'test_funnel_with_messed_up_order',
    async (c) => {
      const { movie } = await basic(c)
      await c.persons([{ ids: ['had_anonymous_id', 'completed_movie'] }])
      const e = ordered()
      e.signup('stopped_after_signup')
      e.signup('stopped_after_pay')
      e.movie('completed_movie')
      e.signup('had_anonymous_id')
      e.movie('completed_movie')
      e.movie('just_did_movie')
      e.movie('wrong_order')
      e.signup('wrong_order')
      await c.capture(e.events)
      await c.ready()
      const steps = await c.funnel({ series: [ev('user signed up'), act(movie)], funnelsFilter: days14 })
      expect(names(steps)).toEqual(['user signed up', 'watched movie'])
      expect(counts(steps)).toEqual([4, 1])
    },
  )

  ported.it(
    'test_funnel_with_any_event: three "any event" steps count 5, 3, 1 with null names',
    'test_funnel_with_any_event',
    async (c) => {
      const e = ordered()
      e.signup('stopped_after_signup')
      e.signup('stopped_after_pay')
      e.movie('stopped_after_pay')
      e.signup('completed_movie')
      e.movie('completed_movie')
      e.movie('just_did_movie')
      e.movie('wrong_order')
      e.signup('wrong_order')
      e.movie('wrong_order')
      await c.capture(e.events)
      const any = { kind: 'EventsNode', event: null }
      await c.ready()
      const steps = await c.funnel({ series: [any, any, any], funnelsFilter: days14 })
      expect(names(steps)).toEqual([null, null, null])
      expect(counts(steps)).toEqual([5, 3, 1])
    },
  )

  ported.it(
    'test_funnel_skipped_step: signing up then watching, without paying, reaches neither later step',
    'test_funnel_skipped_step',
    async (c) => {
      const { paid, movie } = await basic(c)
      const e = ordered()
      e.signup('wrong_order')
      e.movie('wrong_order')
      await c.capture(e.events)
      await c.ready()
      const steps = await c.funnel({ series: [ev('user signed up'), act(paid), act(movie)], funnelsFilter: days14 })
      expect(counts(steps)).toEqual([1, 0, 0])
    },
  )

  ported.it(
    'test_funnel_prop_filters: a global event property filter keeps 2 at step one and 1 at step two',
    'test_funnel_prop_filters',
    async (c) => {
      const { paid, movie } = await basic(c)
      const e = ordered()
      e.signup('with_property', { $browser: 'Safari' })
      e.pay('with_property', { $browser: 'Safari' })
      e.signup('without_property')
      e.pay('without_property')
      e.signup('half_property', { $browser: 'Safari' })
      e.pay('half_property')
      await c.capture(e.events)
      await c.ready()
      const steps = await c.funnel({
        series: [ev('user signed up'), act(paid), act(movie)],
        properties: [{ key: '$browser', value: 'Safari', operator: 'exact', type: 'event' }],
        funnelsFilter: days14,
      })
      expect(counts(steps).slice(0, 2)).toEqual([2, 1])
    },
  )

  ported.it(
    'test_funnel_prop_filters_per_entity: each step’s own property filters; 1, 1, 0',
    'test_funnel_prop_filters_per_entity',
    async (c) => {
      const { paid, movie } = await basic(c)
      await c.persons([{ ids: ['with_property'], properties: { $browser: 'Safari' } }])
      const e = ordered()
      e.signup('with_property', { $browser: 'Safari' })
      e.pay('with_property', { $browser: 'Safari' })
      e.movie('with_property')
      e.signup('without_property')
      e.pay('without_property', { $browser: 'Safari' })
      e.signup('half_property')
      e.pay('half_property')
      e.movie('half_property')
      await c.capture(e.events)
      const safari = { key: '$browser', value: 'Safari', operator: 'exact', type: 'event' }
      await c.ready()
      const steps = await c.funnel({
        series: [
          { ...ev('user signed up'), properties: [safari, { key: '$browser', operator: 'is_not', value: 'Chrome', type: 'event' }] },
          { ...act(paid), properties: [safari] },
          { ...act(movie), properties: [{ key: '$browser', value: 'Firefox', operator: 'exact', type: 'event' }] },
        ],
        funnelsFilter: days14,
      })
      expect(counts(steps)).toEqual([1, 1, 0])
    },
  )

  ported.it('test_funnel_person_prop: a person property filter on step one; 1, 1, 1', 'test_funnel_person_prop', async (c) => {
    const { paid, movie } = await basic(c)
    await c.persons([{ ids: ['with_property'], properties: { email: 'hello@posthog.com' } }])
    const e = ordered()
    e.signup('with_property')
    e.pay('with_property')
    e.movie('with_property')
    await c.capture(e.events)
    await c.ready()
    const steps = await c.funnel({
      series: [
        { ...ev('user signed up'), properties: [{ key: 'email', value: 'hello@posthog.com', operator: 'exact', type: 'person' }] },
        act(paid),
        act(movie),
      ],
      funnelsFilter: days14,
    })
    expect(counts(steps)).toEqual([1, 1, 1])
  })

  ported.it(
    'test_funnel_multiple_actions: two actions on one event with different property filters stay apart; 1, 1, 0',
    'test_funnel_multiple_actions',
    async (c) => {
      const e = ordered()
      e.add('person1', 'event1')
      e.add('person1', 'event2', { test_propX: 'a' })
      await c.capture(e.events)
      const a = await c.action('event2', [{ event: 'event2', properties: [{ key: 'test_propX', value: 'a', type: 'event' }] }])
      const b = await c.action('event2 with c', [{ event: 'event2', properties: [{ key: 'test_propX', value: 'c', type: 'event' }] }])
      await c.ready()
      const steps = await c.funnel({ series: [ev('event1'), act(a), act(b)], funnelsFilter: days14 })
      expect(counts(steps)).toEqual([1, 1, 0])
    },
  )

  ported.it(
    'test_funnel_filter_test_accounts: the project’s test-account filter drops the @posthog.com person',
    'test_funnel_filter_test_accounts',
    { test_account_filters: [{ key: 'email', value: '@posthog.com', operator: 'not_icontains', type: 'person' }] },
    async (c) => {
      await c.persons([{ ids: ['person1'], properties: { email: 'test@posthog.com' } }, { ids: ['person2'] }])
      const e = ordered()
      e.add('person1', 'event1')
      e.add('person2', 'event1')
      await c.capture(e.events)
      await c.ready()
      const steps = await c.funnel({ series: [ev('event1'), ev('event1')], filterTestAccounts: true, funnelsFilter: days14 })
      expect(steps[0].count).toBe(1)
    },
  )

  ported.it(
    'test_funnel_with_entity_person_property_filters: "email is set" on step one counts 2',
    'test_funnel_with_entity_person_property_filters',
    async (c) => {
      await c.persons([
        { ids: ['person1'], properties: { email: 'test@posthog.com' } },
        { ids: ['person2'], properties: { email: 'another@example.com' } },
        { ids: ['person3'] },
      ])
      const e = ordered()
      for (const p of ['person1', 'person2', 'person3']) e.add(p, 'event1')
      await c.capture(e.events)
      await c.ready()
      const steps = await c.funnel({
        series: [
          { ...ev('event1'), properties: [{ key: 'email', value: 'is_set', operator: 'is_set', type: 'person' }] },
          { kind: 'EventsNode', event: null },
        ],
        funnelsFilter: days14,
      })
      expect(steps[0].count).toBe(2)
    },
  )

  ported.it(
    'test_funnel_filter_by_action_with_person_properties: an action step with "email is set" counts 2',
    'test_funnel_filter_by_action_with_person_properties',
    async (c) => {
      await c.persons([
        { ids: ['person1'], properties: { email: 'test@posthog.com' } },
        { ids: ['person2'], properties: { email: 'another@example.com' } },
        { ids: ['person3'] },
      ])
      const e = ordered()
      for (const p of ['person1', 'person2', 'person3']) e.add(p, 'event1')
      await c.capture(e.events)
      const action = await c.action('event1', [
        { event: 'event1', properties: [{ key: 'email', value: 'is_set', operator: 'is_set', type: 'person' }] },
      ])
      await c.ready()
      const steps = await c.funnel({ series: [act(action), act(action)], funnelsFilter: days14 })
      expect(steps[0].count).toBe(2)
    },
  )

  ported.it(
    'test_basic_funnel_default_funnel_days: 8 days apart converts within the default 14-day window',
    'test_basic_funnel_default_funnel_days',
    async (c) => {
      await c.journeys({
        user_1: [
          { event: 'user signed up', at: '2020-01-02T14:00:00Z' },
          { event: 'paid', at: '2020-01-10T14:00:00Z' },
        ],
      })
      await c.ready()
      const steps = await c.funnel({
        series: [ev('user signed up'), ev('paid')],
        dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' },
      })
      expect(names(steps)).toEqual(['user signed up', 'paid'])
      expect(counts(steps)).toEqual([1, 1])
    },
  )

  ported.it(
    'test_basic_funnel_with_person_id_override_properties_joined_modifier_and_person_breakdown: one breakdown list, 1 and 1',
    'person breakdown with no value',
    async (c) => {
      await c.journeys({
        user_1: [
          { event: 'user signed up', at: '2020-01-02T14:00:00Z' },
          { event: 'paid', at: '2020-01-10T14:00:00Z' },
        ],
      })
      await c.ready()
      const results = await c.funnel({
        series: [ev('user signed up'), ev('paid')],
        dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' },
        breakdownFilter: { breakdown: '$browser', breakdown_type: 'person' },
      })
      expect(names(results[0])).toEqual(['user signed up', 'paid'])
      expect(counts(results[0])).toEqual([1, 1])
    },
  )

  const repeatSignups = async (c: FunnelCase, props: Props = {}) => {
    const e = ordered()
    e.signup('stopped_after_signup1', props)
    e.signup('stopped_after_signup1')
    e.signup('stopped_after_signup2', props)
    await c.capture(e.events)
  }

  ported.it(
    'test_basic_funnel_with_repeat_steps: the same event twice needs two of them; 2, 1, and the persons at each step',
    'test_basic_funnel_with_repeat_steps',
    async (c) => {
      await repeatSignups(c)
      const q = { series: [ev('user signed up'), ev('user signed up')], funnelsFilter: days14 }
      await c.ready()
      const steps = await c.funnel(q)
      expect(steps[0].name).toBe('user signed up')
      expect(counts(steps)).toEqual([2, 1])
      expect(await c.actors(q, 1)).toEqual(['stopped_after_signup1', 'stopped_after_signup2'])
      expect(await c.actors(q, 2)).toEqual(['stopped_after_signup1'])
    },
  )

  ported.it(
    'test_basic_funnel_with_derivative_steps: step one filtered by key=val, step two any sign-up; 2, 1',
    'test_basic_funnel_with_derivative_steps',
    async (c) => {
      await repeatSignups(c, { key: 'val' })
      const q = {
        series: [
          { ...ev('user signed up'), properties: [{ key: 'key', value: 'val', operator: 'exact', type: 'event' }] },
          ev('user signed up'),
        ],
        funnelsFilter: days14,
      }
      await c.ready()
      const steps = await c.funnel(q)
      expect(counts(steps)).toEqual([2, 1])
      expect(await c.actors(q, 1)).toEqual(['stopped_after_signup1', 'stopped_after_signup2'])
      expect(await c.actors(q, 2)).toEqual(['stopped_after_signup1'])
    },
  )

  ported.it(
    'test_basic_funnel_with_repeat_step_updated_param: 14 days, 2 weeks and 1 hour windows give the same answer',
    'test_basic_funnel_with_repeat_step_updated_param',
    async (c) => {
      await repeatSignups(c)
      const series = [ev('user signed up'), ev('user signed up')]
      await c.ready()
      const byDay = await c.funnel({ series, funnelsFilter: days14 })
      expect(counts(byDay)).toEqual([2, 1])
      const byWeek = await c.funnel({ series, funnelsFilter: { funnelWindowInterval: 2, funnelWindowIntervalUnit: 'week' } })
      const byHour = await c.funnel({ series, funnelsFilter: { funnelWindowInterval: 1, funnelWindowIntervalUnit: 'hour' } })
      expect(byWeek).toEqual(byDay)
      expect(byHour).toEqual(byDay)
    },
  )

  ported.it(
    'test_advanced_funnel_with_repeat_steps: four repeated pageview steps; 5, 4, 3, 2, 1 and the persons at each',
    'test_advanced_funnel_with_repeat_steps',
    async (c) => {
      const e = ordered()
      const journey = (id: string, events: string[]) => events.forEach((name) => e.add(id, name))
      journey('stopped_after_signup1', ['user signed up'])
      journey('stopped_after_pageview1', ['user signed up', '$pageview'])
      journey('stopped_after_pageview2', ['user signed up', '$pageview', 'blaah blaa', '$pageview'])
      journey('stopped_after_pageview3', ['user signed up', '$pageview', 'blaah blaa', '$pageview', '$pageview', 'blaah blaa'])
      journey('stopped_after_pageview4', ['user signed up', '$pageview', '$pageview', '$pageview', '$pageview'])
      await c.capture(e.events)
      const q = { series: [ev('user signed up'), ev('$pageview'), ev('$pageview'), ev('$pageview'), ev('$pageview')] }
      await c.ready()
      const steps = await c.funnel(q)
      expect([steps[0].name, steps[1].name, steps[4].name]).toEqual(['user signed up', '$pageview', '$pageview'])
      expect(counts(steps)).toEqual([5, 4, 3, 2, 1])
      const all = ['stopped_after_pageview1', 'stopped_after_pageview2', 'stopped_after_pageview3', 'stopped_after_pageview4']
      expect(await c.actors(q, 1)).toEqual([...all, 'stopped_after_signup1'])
      expect(await c.actors(q, 2)).toEqual(all)
      expect(await c.actors(q, 3)).toEqual(all.slice(1))
      expect(await c.actors(q, 4)).toEqual(all.slice(2))
      expect(await c.actors(q, 5)).toEqual(all.slice(3))
    },
  )

  ported.it(
    'test_advanced_funnel_with_repeat_steps_out_of_order_events: 5, 4, 1, 1, 1',
    'test_advanced_funnel_with_repeat_steps_out_of_order_events',
    async (c) => {
      await c.persons([{ ids: ['random', 'stopped_after_signup1'] }])
      const e = ordered()
      const journey = (id: string, events: string[]) => events.forEach((name) => e.add(id, name))
      journey('random', ['$pageview'])
      journey('stopped_after_signup1', ['user signed up'])
      journey('stopped_after_pageview1', ['user signed up', '$pageview'])
      journey('stopped_after_pageview2', ['$pageview', 'user signed up', 'blaah blaa', '$pageview'])
      journey('stopped_after_pageview3', ['blaah blaa', '$pageview', 'blaah blaa', '$pageview', 'user signed up', '$pageview'])
      journey('stopped_after_pageview4', ['user signed up', '$pageview', 'blaah blaa', '$pageview', '$pageview', '$pageview'])
      journey('stopped_after_pageview5', ['$pageview', 'blaah blaa', '$pageview', '$pageview', '$pageview'])
      await c.capture(e.events)
      const q = {
        series: [ev('user signed up'), ev('$pageview'), ev('$pageview'), ev('$pageview'), ev('$pageview')],
        funnelsFilter: days14,
      }
      await c.ready()
      const steps = await c.funnel(q)
      expect(counts(steps)).toEqual([5, 4, 1, 1, 1])
      expect(await c.actors(q, 1)).toEqual([
        'random,stopped_after_signup1',
        'stopped_after_pageview1',
        'stopped_after_pageview2',
        'stopped_after_pageview3',
        'stopped_after_pageview4',
      ])
      expect(await c.actors(q, 2)).toEqual([
        'stopped_after_pageview1',
        'stopped_after_pageview2',
        'stopped_after_pageview3',
        'stopped_after_pageview4',
      ])
      for (const step of [3, 4, 5]) expect(await c.actors(q, step)).toEqual(['stopped_after_pageview4'])
    },
  )

  ported.it(
    'test_funnel_with_actions: one action twice (math ignored); 2, 1 and the persons at each step',
    'test_funnel_with_actions',
    async (c) => {
      const signUp = await c.action('sign up', [
        { event: 'sign up', properties: [{ key: 'key', type: 'event', value: ['val'], operator: 'exact' }] },
      ])
      const e = ordered()
      e.add('stopped_after_signup1', 'sign up', { key: 'val' })
      e.add('stopped_after_signup1', 'sign up', { key: 'val' })
      e.add('stopped_after_signup2', 'sign up', { key: 'val' })
      await c.capture(e.events)
      const q = {
        series: [
          { ...act(signUp), math: 'dau' },
          { ...act(signUp), math: 'weekly_active' },
        ],
      }
      await c.ready()
      const steps = await c.funnel(q)
      expect(steps[0].name).toBe('sign up')
      expect(counts(steps)).toEqual([2, 1])
      expect(await c.actors(q, 1)).toEqual(['stopped_after_signup1', 'stopped_after_signup2'])
      expect(await c.actors(q, 2)).toEqual(['stopped_after_signup1'])
    },
  )

  ported.it(
    'test_funnel_with_different_actions_at_same_time_count_as_converted: two steps at one instant convert',
    'test_funnel_with_different_actions_at_same_time_count_as_converted',
    async (c) => {
      const signUp = await c.action('sign up', [
        { event: 'sign up', properties: [{ key: 'key', type: 'event', value: ['val'], operator: 'exact' }] },
      ])
      const at = '2020-01-03T00:00:00Z'
      await c.journeys({
        stopped_after_signup1: [
          { event: 'sign up', at, properties: { key: 'val' } },
          { event: '$pageview', at, properties: { key: 'val' } },
        ],
        stopped_after_signup2: [{ event: 'sign up', at, properties: { key: 'val' } }],
      })
      const q = { series: [act(signUp), ev('$pageview')], dateRange: { date_from: '2020-01-01', date_to: '2020-01-07' } }
      await c.ready()
      const steps = await c.funnel(q)
      expect(steps[0].name).toBe('sign up')
      expect(counts(steps)).toEqual([2, 1])
      expect(await c.actors(q, 1)).toEqual(['stopped_after_signup1', 'stopped_after_signup2'])
      expect(await c.actors(q, 2)).toEqual(['stopped_after_signup1'])
    },
  )

  ported.it(
    'test_funnel_with_actions_and_props: an action with a person property filter; 2, 1',
    'test_funnel_with_actions_and_props',
    async (c) => {
      const signUp = await c.action('sign up', [
        { event: 'sign up', properties: [{ key: 'email', operator: 'icontains', value: '.com', type: 'person' }] },
      ])
      await c.persons([
        { ids: ['stopped_after_signup1'], properties: { email: 'fake@test.com' } },
        { ids: ['stopped_after_signup2'], properties: { email: 'fake@test.com' } },
      ])
      const e = ordered()
      e.add('stopped_after_signup1', 'sign up', { key: 'val' })
      e.add('stopped_after_signup1', 'sign up', { key: 'val' })
      e.add('stopped_after_signup2', 'sign up', { key: 'val' })
      await c.capture(e.events)
      const q = {
        series: [
          { ...act(signUp), math: 'dau' },
          { ...act(signUp), math: 'weekly_active' },
        ],
      }
      await c.ready()
      const steps = await c.funnel(q)
      expect(steps[0].name).toBe('sign up')
      expect(counts(steps)).toEqual([2, 1])
      expect(await c.actors(q, 1)).toEqual(['stopped_after_signup1', 'stopped_after_signup2'])
      expect(await c.actors(q, 2)).toEqual(['stopped_after_signup1'])
    },
  )

  ported.it(
    'test_funnel_with_matching_properties: pageview steps with URL filters; 5, 4, 3, 2, 0 and the persons at each',
    'test_funnel_with_matching_properties',
    async (c) => {
      const e = ordered()
      const url = (u: string) => ({ $current_url: u })
      e.signup('stopped_after_signup1')
      e.signup('stopped_after_pageview1')
      e.add('stopped_after_pageview1', '$pageview', url('aloha.com'))
      e.signup('stopped_after_pageview2')
      e.add('stopped_after_pageview2', '$pageview', url('aloha.com'))
      e.add('stopped_after_pageview2', 'blaah blaa', url('aloha.com'))
      e.add('stopped_after_pageview2', '$pageview', url('aloha2.com'))
      e.signup('stopped_after_pageview3')
      e.add('stopped_after_pageview3', '$pageview', url('aloha.com'))
      e.add('stopped_after_pageview3', '$pageview', url('aloha2.com'))
      e.add('stopped_after_pageview3', '$pageview', url('aloha2.com'))
      e.add('stopped_after_pageview3', 'blaah blaa')
      e.signup('stopped_after_pageview4')
      e.add('stopped_after_pageview4', '$pageview', url('aloha.com'))
      e.add('stopped_after_pageview4', 'blaah blaa')
      e.add('stopped_after_pageview4', '$pageview', url('aloha2.com'))
      e.add('stopped_after_pageview4', '$pageview', url('aloha.com'))
      e.add('stopped_after_pageview4', '$pageview', url('aloha2.com'))
      await c.capture(e.events)
      const pv = (u: string) => ({ ...ev('$pageview'), properties: [{ key: '$current_url', value: u, operator: 'exact', type: 'event' }] })
      const q = {
        series: [ev('user signed up'), pv('aloha.com'), pv('aloha2.com'), pv('aloha2.com'), ev('$pageview')],
        funnelsFilter: days14,
      }
      await c.ready()
      const steps = await c.funnel(q)
      expect([steps[0].name, steps[1].name, steps[4].name]).toEqual(['user signed up', '$pageview', '$pageview'])
      expect(counts(steps)).toEqual([5, 4, 3, 2, 0])
      const p = (n: number) => `stopped_after_pageview${n}`
      expect(await c.actors(q, 1)).toEqual([p(1), p(2), p(3), p(4), 'stopped_after_signup1'])
      expect(await c.actors(q, 2)).toEqual([p(1), p(2), p(3), p(4)])
      expect(await c.actors(q, 3)).toEqual([p(2), p(3), p(4)])
      expect(await c.actors(q, 4)).toEqual([p(3), p(4)])
      expect(await c.actors(q, 5)).toEqual([])
    },
  )

  const windowCase = async (c: FunnelCase, fast: string, slow: string) => {
    const events: Array<{ distinct_id: string } & Step> = []
    for (let i = 0; i < 25; i++) {
      events.push({ distinct_id: `user_${i}`, event: 'step one', at: '2021-05-01T00:00:00Z' })
      events.push({ distinct_id: `user_${i}`, event: 'step two', at: i < 10 ? fast : slow })
    }
    await c.capture(events)
  }
  const tenUsers = Array.from({ length: 10 }, (_, i) => `user_${i}`).sort()

  ported.it(
    'test_funnel_conversion_window: a 7-day window keeps the 10 who converted next day, not the 15 after 9 days',
    'test_funnel_conversion_window',
    async (c) => {
      await windowCase(c, '2021-05-02T00:00:00Z', '2021-05-10T00:00:00Z')
      const q = {
        series: [ev('step one'), ev('step two'), ev('step three')],
        interval: 'day',
        dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-14 00:00:00' },
        funnelsFilter: { funnelWindowInterval: 7 },
      }
      await c.ready()
      expect(counts(await c.funnel(q))).toEqual([25, 10, 0])
      expect(await c.actors(q, 2)).toEqual(tenUsers)
    },
  )

  ported.it(
    'test_funnel_conversion_window_seconds: a 15-second window keeps the 10 who converted in 10 s, not in 20 s',
    'test_funnel_conversion_window_seconds',
    async (c) => {
      await windowCase(c, '2021-05-01T00:00:10Z', '2021-05-01T00:00:20Z')
      const q = {
        series: [ev('step one'), ev('step two'), ev('step three')],
        dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-14 00:00:00' },
        funnelsFilter: { funnelWindowInterval: 15, funnelWindowIntervalUnit: 'second' },
      }
      await c.ready()
      expect(counts(await c.funnel(q))).toEqual([25, 10, 0])
      expect(await c.actors(q, 2)).toEqual(tenUsers)
    },
  )

  ported.it(
    'test_funnel_exclusions_invalid_params: exclusions must span steps of the funnel (1-1, 1-2, 2-1 and 0-2 of 2 steps refused)',
    'test_funnel_exclusions_invalid_params',
    async (c) => {
      const valid = {
        series: [ev('user signed up'), ev('paid')],
        dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-14 00:00:00' },
      }
      // The same funnel with an exclusion from step 0 to 1 answers: what is refused is the range alone.
      await c.ready()
      await c.funnel({
        ...valid,
        funnelsFilter: { ...days14, exclusions: [{ kind: 'EventsNode', event: 'x', funnelFromStep: 0, funnelToStep: 1 }] },
      })
      for (const [from, to] of [
        [1, 1],
        [1, 2],
        [2, 1],
        [0, 2],
      ]) {
        const res = await c.call('POST', `/api/environments/${c.id}/query/`, {
          query: {
            kind: 'FunnelsQuery',
            series: [ev('user signed up'), ev('paid')],
            dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-14 00:00:00' },
            funnelsFilter: { ...days14, exclusions: [{ kind: 'EventsNode', event: 'x', funnelFromStep: from, funnelToStep: to }] },
          },
        })
        expect(res.status, `${from}-${to}: ${res.text}`).toBe(400)
        expect(res.body.type).toBe('validation_error')
      }
    },
  )

  const exclusion = (event: string, from: number, to: number, extra: Props = {}) => ({
    kind: 'EventsNode',
    event,
    funnelFromStep: from,
    funnelToStep: to,
    ...extra,
  })

  ported.it(
    'test_funnel_exclusion_no_end_event: an exclusion inside the window drops the person even without a later step',
    'test_funnel_exclusion_no_end_event',
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
      const q = {
        series: [ev('user signed up'), ev('paid')],
        dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-14 00:00:00' },
        funnelsFilter: { funnelWindowInterval: 1, exclusions: [exclusion('x', 0, 1)] },
      }
      await c.ready()
      const steps = await c.funnel(q)
      expect(names(steps)).toEqual(['user signed up', 'paid'])
      expect(counts(steps)).toEqual([2, 1])
      expect(await c.actors(q, 1)).toEqual(['person1', 'person4'])
      expect(await c.actors(q, 2)).toEqual(['person1'])
    },
  )

  const tenSeconds = {
    series: [ev('step one'), ev('step two')],
    interval: 'day',
    dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-13 23:59:59' },
    funnelsFilter: {
      funnelVizType: 'steps',
      funnelWindowInterval: 10,
      funnelWindowIntervalUnit: 'second',
      exclusions: [exclusion('exclusion', 0, 1)],
    },
  }
  const at = (s: number) => tick('2021-05-01T00:00:00Z', s)

  ported.it(
    'test_funnel_exclusion_multiple_possible_no_end_event1: a later step one starts a clean attempt; 1, 0',
    'no_end_event1',
    async (c) => {
      await c.journeys({
        user_one: [
          { event: 'step one', at: at(0) },
          { event: 'exclusion', at: at(1) },
          { event: 'step one', at: at(31) },
        ],
      })
      await c.ready()
      expect(counts(await c.funnel(tenSeconds))).toEqual([1, 0])
    },
  )

  ported.it(
    'test_funnel_exclusion_multiple_possible_no_end_event2: an exclusion after the second try drops only that try; 1, 0',
    'no_end_event2',
    async (c) => {
      await c.journeys({
        user_one: [
          { event: 'step one', at: at(0) },
          { event: 'step one', at: at(31) },
          { event: 'exclusion', at: at(32) },
        ],
      })
      await c.ready()
      expect(counts(await c.funnel(tenSeconds))).toEqual([1, 0])
    },
  )

  ported.it(
    'test_funnel_exclusion_multiple_possible_no_end_event3: every attempt excluded; nobody in the funnel',
    'no_end_event3',
    async (c) => {
      await c.journeys({
        user_one: [
          { event: 'step one', at: at(0) },
          { event: 'step one', at: at(1) },
          { event: 'exclusion', at: at(2) },
        ],
      })
      await c.ready()
      const steps = await c.funnel(tenSeconds)
      // PostHog accepts either no steps at all or every step at 0.
      expect(steps.length === 0 || counts(steps).every((n) => n === 0), JSON.stringify(steps)).toBe(true)
    },
  )

  const excludedBetween = async (c: FunnelCase, excluded: string, props: Props = {}) =>
    c.journeys({
      person1: [
        { event: 'user signed up', at: '2021-05-01T01:00:00Z' },
        { event: 'paid', at: '2021-05-01T02:00:00Z' },
      ],
      person2: [
        { event: 'user signed up', at: '2021-05-01T03:00:00Z' },
        { event: excluded, at: '2021-05-01T03:30:00Z', properties: props },
        { event: 'paid', at: '2021-05-01T04:00:00Z' },
      ],
      person3: [
        { event: 'user signed up', at: '2021-05-01T05:00:00Z' },
        { event: 'paid', at: '2021-05-01T06:00:00Z' },
      ],
    })

  ported.it('test_funnel_exclusions_with_actions: an action as the exclusion; 2, 2', 'test_funnel_exclusions_with_actions', async (c) => {
    const signUp = await c.action('sign up', [
      { event: 'sign up', properties: [{ key: 'key', type: 'event', value: ['val'], operator: 'exact' }] },
    ])
    await excludedBetween(c, 'sign up', { key: 'val' })
    const q = {
      series: [ev('user signed up'), ev('paid')],
      dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-14 00:00:00' },
      funnelsFilter: { ...days14, exclusions: [{ kind: 'ActionsNode', id: signUp, funnelFromStep: 0, funnelToStep: 1 }] },
    }
    await c.ready()
    const steps = await c.funnel(q)
    expect(names(steps)).toEqual(['user signed up', 'paid'])
    expect(counts(steps)).toEqual([2, 2])
    expect(await c.actors(q, 1)).toEqual(['person1', 'person3'])
    expect(await c.actors(q, 2)).toEqual(['person1', 'person3'])
  })

  ported.it(
    'test_funnel_exclusions_full_window: an exclusion event whose name has digits and spaces; 2, 2',
    'test_funnel_exclusions_full_window',
    async (c) => {
      await excludedBetween(c, 'x 1 name with numbers 2')
      const q = {
        series: [ev('user signed up'), ev('paid')],
        dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-14 00:00:00' },
        funnelsFilter: { ...days14, exclusions: [exclusion('x 1 name with numbers 2', 0, 1)] },
      }
      await c.ready()
      const steps = await c.funnel(q)
      expect(counts(steps)).toEqual([2, 2])
      expect(await c.actors(q, 1)).toEqual(['person1', 'person3'])
      expect(await c.actors(q, 2)).toEqual(['person1', 'person3'])
    },
  )

  const fiveSteps = [ev('user signed up'), ev('$pageview'), ev('insight viewed'), ev('invite teammate'), ev('pageview2')]
  const may = { date_from: '2021-05-01 00:00:00', date_to: '2021-05-14 00:00:00' }
  const h = (time: string) => `2021-05-01T${time}:00Z`

  ported.it(
    'test_advanced_funnel_exclusions_between_steps: an exclusion drops only those it falls between the chosen steps for',
    'test_advanced_funnel_exclusions_between_steps',
    async (c) => {
      const journey = (names: Array<[string, string]>) => names.map(([event, time]) => ({ event, at: h(time) }))
      await c.journeys({
        person1: journey([
          ['user signed up', '01:00'],
          ['$pageview', '02:00'],
          ['x', '03:00'],
          ['insight viewed', '04:00'],
          ['x', '04:30'],
          ['invite teammate', '05:00'],
          ['x', '05:30'],
          ['pageview2', '06:00'],
        ]),
        person2: journey([
          ['user signed up', '01:00'],
          ['$pageview', '02:00'],
          ['insight viewed', '04:00'],
          ['x', '04:30'],
          ['invite teammate', '05:00'],
          ['x', '05:30'],
          ['pageview2', '06:00'],
        ]),
        person3: journey([
          ['user signed up', '01:00'],
          ['x', '01:30'],
          ['$pageview', '02:00'],
          ['insight viewed', '04:00'],
          ['invite teammate', '05:00'],
          ['x', '05:30'],
          ['pageview2', '06:00'],
        ]),
      })
      const q = (from: number, to: number) => ({
        series: fiveSteps,
        dateRange: may,
        funnelsFilter: { exclusions: [exclusion('x', from, to)] },
      })
      const expectations: Array<[number, number, number, string[]]> = [
        [0, 1, 2, ['person1', 'person2']],
        [1, 2, 2, ['person2', 'person3']],
        [2, 3, 1, ['person3']],
        [1, 3, 1, ['person3']],
      ]
      await c.ready()
      for (const [from, to, count, persons] of expectations) {
        const steps = await c.funnel(q(from, to))
        expect(steps[0].name).toBe('user signed up')
        expect([steps[0].count, steps[4].count], `${from}-${to}`).toEqual([count, count])
        expect(await c.actors(q(from, to), 1), `${from}-${to}`).toEqual(persons)
      }
      const none = await c.funnel(q(3, 4))
      expect(none.length === 0 || (none[0].count === 0 && none[4].count === 0), JSON.stringify(none)).toBe(true)
      expect(await c.actors(q(3, 4), 1)).toEqual([])
    },
  )

  ported.it(
    'test_advanced_funnel_multiple_exclusions_between_steps: two exclusions at once leave only person4',
    'test_advanced_funnel_multiple_exclusions_between_steps',
    async (c) => {
      const journey = (names: Array<[string, string]>) => names.map(([event, time]) => ({ event, at: h(time) }))
      await c.journeys({
        person1: journey([
          ['user signed up', '01:00'],
          ['x', '02:00'],
          ['$pageview', '03:00'],
          ['insight viewed', '04:00'],
          ['y', '04:30'],
          ['invite teammate', '05:00'],
          ['pageview2', '06:00'],
        ]),
        person2: journey([
          ['user signed up', '01:00'],
          ['y', '01:30'],
          ['$pageview', '02:00'],
          ['insight viewed', '04:00'],
          ['y', '04:30'],
          ['invite teammate', '05:00'],
          ['x', '05:30'],
          ['pageview2', '06:00'],
        ]),
        person3: journey([
          ['user signed up', '01:00'],
          ['x', '01:30'],
          ['$pageview', '02:00'],
          ['insight viewed', '04:00'],
          ['invite teammate', '05:00'],
          ['x', '05:30'],
          ['pageview2', '06:00'],
        ]),
        person4: journey([
          ['user signed up', '01:00'],
          ['$pageview', '02:00'],
          ['insight viewed', '04:00'],
          ['invite teammate', '05:00'],
          ['pageview2', '06:00'],
        ]),
      })
      await c.ready()
      for (const exclusions of [
        [exclusion('x', 0, 1), exclusion('y', 2, 3)],
        [exclusion('x', 0, 1), exclusion('y', 0, 1)],
        [exclusion('x', 0, 4), exclusion('y', 0, 4)],
      ]) {
        const q = { series: fiveSteps, dateRange: may, funnelsFilter: { exclusions } }
        const steps = await c.funnel(q)
        expect([steps[0].count, steps[4].count], JSON.stringify(exclusions)).toEqual([1, 1])
        expect(await c.actors(q, 1)).toEqual(['person4'])
      }
    },
  )

  ported.it(
    'test_funnel_with_denormalised_properties: the same property as a step filter and a global filter; 1',
    'test_funnel_with_denormalised_properties',
    async (c) => {
      await c.journeys({
        user_1: [
          { event: 'user signed up', at: '2020-01-02T14:00:00Z', properties: { test_prop: 'hi' } },
          { event: 'paid', at: '2020-01-10T14:00:00Z' },
        ],
      })
      const hi = [{ key: 'test_prop', value: 'hi', operator: 'exact', type: 'event' }]
      await c.ready()
      const steps = await c.funnel({
        series: [{ ...ev('user signed up'), properties: hi }, ev('paid')],
        properties: hi,
        dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' },
      })
      expect(steps[0].name).toBe('user signed up')
      expect(steps[0].count).toBe(1)
    },
  )

  ported.it(
    'test_same_event_same_timestamp: twenty identical first steps at one instant still convert once',
    'test_same_event_same_timestamp',
    async (c) => {
      await c.journeys({
        test: [
          ...Array.from({ length: 20 }, () => ({ event: 'step one', at: '2024-01-10T12:01:00Z' })),
          { event: 'step two', at: '2024-01-11T12:01:00Z' },
        ],
      })
      await c.ready()
      const steps = await c.funnel({
        series: [ev('step one'), ev('step two')],
        dateRange: { date_from: '2024-01-10 00:00:00', date_to: '2024-01-12 00:00:00' },
        funnelsFilter: { funnelVizType: 'steps' },
      })
      expect(steps[steps.length - 1].count).toBe(1)
    },
  )

  ported.it(
    'test_funnel_with_elements_chain: an element tag_name filter on a step matches either element of the chain',
    'test_funnel_with_elements_chain',
    async (c) => {
      const e = ordered()
      e.signup('test')
      e.add('test', '$autocapture', {
        $current_url: 'http://example.com/something_else',
        $elements_chain: 'img:nth-child="0"nth-of-type="0";svg:nth-child="0"nth-of-type="0"',
      })
      e.signup('test2')
      await c.capture(e.events)
      await c.ready()
      for (const tag of ['img', 'svg']) {
        const q = {
          series: [
            ev('user signed up'),
            { ...ev('$autocapture'), properties: [{ key: 'tag_name', value: [tag], operator: 'exact', type: 'element' }] },
          ],
        }
        const steps = await c.funnel(q)
        expect(names(steps)).toEqual(['user signed up', '$autocapture'])
        expect(counts(steps), tag).toEqual([2, 1])
        expect(await c.actors(q, 1)).toEqual(['test', 'test2'])
        expect(await c.actors(q, 2)).toEqual(['test'])
      }
    },
  )

  const twoPayers = async (c: FunnelCase) => {
    await c.persons([{ ids: ['user_1'], properties: { email: 'n@test.com' } }, { ids: ['user_2'] }])
    await c.journeys({
      user_1: [
        { event: 'user signed up', at: '2020-01-02T14:00:00Z' },
        { event: 'paid', at: '2020-01-10T14:00:00Z' },
      ],
      user_2: [
        { event: 'user signed up', at: '2020-01-02T14:00:00Z' },
        { event: 'paid', at: '2020-01-10T14:00:00Z' },
      ],
    })
  }

  ported.it(
    'test_funnel_with_precalculated_cohort_step_filter: a dynamic cohort (email contains .com) on step one; 1, 1',
    'test_funnel_with_precalculated_cohort_step_filter',
    async (c) => {
      await twoPayers(c)
      const cohort = await c.cohort({
        name: 'dot com',
        filters: {
          properties: {
            type: 'OR',
            values: [{ type: 'AND', values: [{ key: 'email', operator: 'icontains', value: '.com', type: 'person' }] }],
          },
        },
      })
      await c.ready()
      const steps = await c.funnel({
        series: [{ ...ev('user signed up'), properties: [{ type: 'cohort', key: 'id', value: cohort }] }, ev('paid')],
        dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' },
      })
      expect(names(steps)).toEqual(['user signed up', 'paid'])
      expect(counts(steps)).toEqual([1, 1])
    },
  )

  ported.it(
    'test_funnel_with_static_cohort_step_filter: a static cohort of user_2 on step one; 1, 1',
    'test_funnel_with_static_cohort_step_filter',
    async (c) => {
      await twoPayers(c)
      await c.ready()
      const cohort = await c.cohort({ name: 'listed', is_static: true, distinct_ids: ['user_2', 'rando'] })
      const steps = await c.funnel({
        series: [{ ...ev('user signed up'), properties: [{ type: 'static-cohort', key: 'id', value: cohort }] }, ev('paid')],
        dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' },
      })
      expect(counts(steps)).toEqual([1, 1])
    },
  )

  ported.it(
    'test_funnel_with_property_groups: an OR of AND/OR person property groups; 3, 2, 1 and the persons at each',
    'test_funnel_with_property_groups',
    async (c) => {
      await c.persons([
        { ids: ['stopped_after_signup1'], properties: { email: 'test@b.com', age: '18' } },
        { ids: ['stopped_after_pageview1'], properties: { email: 'test@b.org', age: '28' } },
        { ids: ['stopped_after_pageview2'], properties: { email: 'test2@b.com', age: '28' } },
        { ids: ['stopped_after_pageview3'], properties: { email: 'test3@b.com', age: '28' } },
        { ids: ['stopped_after_pageview4'], properties: { email: 'test4@b.org', age: '18' } },
      ])
      const d = (day: number) => `2020-05-0${day}T00:00:00Z`
      const pv = (u: string, day: number) => ({ event: '$pageview', at: d(day), properties: { $current_url: u } })
      const signup = { event: 'user signed up', at: d(1) }
      await c.journeys({
        stopped_after_signup1: [signup],
        stopped_after_pageview1: [signup],
        stopped_after_pageview2: [signup, pv('aloha.com', 2)],
        stopped_after_pageview3: [signup, pv('aloha.com', 2), pv('aloha2.com', 3)],
        stopped_after_pageview4: [pv('aloha.com', 2), pv('aloha2.com', 3), pv('aloha2.com', 4)],
      })
      const person = (key: string, operator: string, value: string) => ({ key, operator, value, type: 'person' })
      const url = (u: string) => ({ ...ev('$pageview'), properties: [{ key: '$current_url', value: u, operator: 'exact', type: 'event' }] })
      const q = {
        series: [ev('user signed up'), url('aloha.com'), url('aloha2.com')],
        dateRange: { date_from: '2020-01-01 00:00:00', date_to: '2020-07-01 00:00:00' },
        funnelsFilter: days14,
        properties: {
          type: 'OR',
          values: [
            { type: 'AND', values: [person('email', 'icontains', '.com'), person('age', 'exact', '20')] },
            { type: 'OR', values: [person('email', 'icontains', '.org'), person('age', 'exact', '28')] },
          ],
        },
      }
      await c.ready()
      const steps = await c.funnel(q)
      expect(names(steps)).toEqual(['user signed up', '$pageview', '$pageview'])
      expect(counts(steps)).toEqual([3, 2, 1])
      expect(await c.actors(q, 1)).toEqual(['stopped_after_pageview1', 'stopped_after_pageview2', 'stopped_after_pageview3'])
      expect(await c.actors(q, 2)).toEqual(['stopped_after_pageview2', 'stopped_after_pageview3'])
      expect(await c.actors(q, 3)).toEqual(['stopped_after_pageview3'])
    },
  )

  ported.it(
    'test_timezones: in US/Pacific an event at 01:00 UTC on the first day falls before the range',
    'test_timezones',
    { timezone: 'US/Pacific' },
    async (c) => {
      await c.journeys({ user_1: [{ event: 'user signed up', at: '2020-01-01T01:00:00Z' }] })
      await c.ready()
      const steps = await c.funnel({
        series: [ev('user signed up'), ev('paid')],
        dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' },
      })
      expect(steps.length === 0 || steps[0].count === 0, JSON.stringify(steps)).toBe(true)
    },
  )

  ported.it(
    'test_hogql_aggregation: funnelAggregateByHogQL by session, distinct id, person id and a person property',
    'test_hogql_aggregation',
    async (c) => {
      await c.persons([
        { ids: ['user'], properties: { email: 'lembitu@posthog.com', common_prop: 'yes' } },
        { ids: ['second'], properties: { email: 'toomas@posthog.com', common_prop: 'yes' } },
      ])
      const e = ordered()
      e.add('user', 'user signed up', { $session_id: '1' })
      e.add('user', 'added to cart', { $session_id: '1' })
      e.add('user', 'checked out', { $session_id: '1' })
      e.add('user', 'user signed up', { $session_id: '2' })
      e.add('user', 'added to cart', { $session_id: '2' })
      e.add('second', 'user signed up', { $session_id: '3' })
      await c.capture(e.events)
      const by = async (hogql?: string) =>
        counts(
          await c.funnel({
            series: [ev('user signed up'), ev('added to cart'), ev('checked out')],
            funnelsFilter: { ...days14, ...(hogql ? { funnelAggregateByHogQL: hogql } : {}) },
          }),
        )
      await c.ready()
      expect(await by()).toEqual([2, 1, 1])
      expect(await by('properties.$session_id')).toEqual([3, 2, 1])
      expect(await by('distinct_id')).toEqual([2, 1, 1])
      expect(await by('person_id')).toEqual([2, 1, 1])
      expect(await by('person.properties.common_prop')).toEqual([1, 1, 1])
    },
  )

  ported.it(
    'test_funnel_all_events_with_properties: an "all events" step with a boolean property filter; 1, 1',
    'test_funnel_all_events_with_properties',
    async (c) => {
      const e = ordered()
      e.add('user', 'user signed up')
      e.add('user', 'added to cart', { is_saved: true })
      await c.capture(e.events)
      await c.ready()
      const steps = await c.funnel({
        series: [
          { ...ev('user signed up'), math: 'total' },
          {
            kind: 'EventsNode',
            event: null,
            name: 'All events',
            math: 'total',
            properties: [{ key: 'is_saved', value: ['true'], operator: 'exact', type: 'event' }],
          },
        ],
        funnelsFilter: days14,
      })
      expect(counts(steps)).toEqual([1, 1])
    },
  )

  ported.it(
    'test_funnel_all_events_via_action: an action with an "any event" step matches; 1, 1',
    'test_funnel_all_events_via_action',
    async (c) => {
      const e = ordered()
      e.add('user', 'user signed up')
      e.add('user', 'added to cart', { is_saved: true })
      await c.capture(e.events)
      const checkoutOrAll = await c.action('user signed up', [{ event: 'checked out' }, { event: null }])
      await c.ready()
      const steps = await c.funnel({ series: [ev('user signed up'), act(checkoutOrAll)], funnelsFilter: days14 })
      expect(counts(steps)).toEqual([1, 1])
    },
  )

  ported.it(
    'test_funnel_window_ignores_dst_transition: 14 days across the US spring-forward still converts, 1 207 020 s in both zones',
    'test_funnel_window_ignores_dst_transition UTC',
    { timezone: 'UTC' },
    async (utc, another) => {
      const zones = {
        UTC: utc,
        'US/Pacific': await another('test_funnel_window_ignores_dst_transition US/Pacific', { timezone: 'US/Pacific' }),
      }
      for (const c of Object.values(zones))
        await c.journeys({
          user_1: [
            { event: '$pageview', at: '2024-03-01T15:10:00Z' },
            { event: 'user signed up', at: '2024-03-15T14:27:00Z' },
          ],
        })
      await utc.ready()
      for (const [timezone, c] of Object.entries(zones)) {
        const steps = await c.funnel({
          series: [ev('$pageview'), ev('user signed up')],
          dateRange: { date_from: '2024-02-17', date_to: '2024-03-18' },
        })
        expect(steps[1].name).toBe('user signed up')
        expect([steps[1].count, steps[1].average_conversion_time, steps[1].median_conversion_time], timezone).toEqual([
          1, 1_207_020, 1_207_020,
        ])
      }
    },
  )

  ported.it(
    'test_funnel_query_with_event_metadata_breakdown: a breakdown by distinct_id gives one list per distinct id',
    'test_funnel_query_with_event_metadata_breakdown',
    async (c) => {
      const pv = (time: string) => ({ event: '$pageview', at: `2024-03-22T13:${time}:00Z`, properties: { utm_medium: "test''123" } })
      await c.journeys({ user_1: [pv('46'), pv('47')], user_2: [pv('48'), pv('49')] })
      await c.ready()
      const results = await c.funnel({
        series: [ev('$pageview'), ev('$pageview')],
        dateRange: { date_from: '2024-03-22', date_to: '2024-03-22' },
        breakdownFilter: { breakdown: 'distinct_id', breakdown_type: 'event_metadata' },
      })
      expect(results.map((r: any) => [r[1].breakdown_value, r[1].count])).toEqual([
        [['user_1'], 1],
        [['user_2'], 1],
      ])
    },
  )

  ported.it(
    'test_time_to_convert_funnel_ignores_breakdown: time to convert over a 10-minute window ignores the breakdown',
    'test_time_to_convert_funnel_ignores_breakdown',
    async (c) => {
      await c.persons([
        { ids: ['user_1'], properties: { userRole: 'admin' } },
        { ids: ['user_2'], properties: { userRole: 'user' } },
        { ids: ['user_3'], properties: { userRole: 'user' } },
      ])
      const m = (event: string, minute: string) => ({ event, at: `2024-03-22T13:${minute}:00Z` })
      await c.journeys({
        user_1: [m('a', '10'), m('b', '11')],
        user_2: [m('a', '01'), m('a', '35'), m('b', '41')],
        user_3: [m('a', '01'), m('a', '35'), m('a', '41')],
      })
      await c.ready()
      const result = await c.funnel({
        series: [ev('a'), ev('b')],
        dateRange: { date_from: '2024-03-22', date_to: '2024-03-22' },
        breakdownFilter: { breakdown: 'userRoles', breakdown_type: 'person' },
        funnelsFilter: { funnelVizType: 'time_to_convert', funnelWindowInterval: 10, funnelWindowIntervalUnit: 'minute' },
      })
      expect(result.average_conversion_time).toBe(210)
      expect(result.bins).toEqual([
        [60, 1],
        [210, 0],
        [360, 1],
      ])
    },
  )

  ported.it(
    'test_first_time_for_user_funnel_basic: a first-time step counts the first pageview only',
    'test_first_time_for_user_funnel_basic',
    async (c) => {
      await c.journeys({
        user_1: [
          { event: '$pageview', at: '2024-03-22T13:46:00Z' },
          { event: '$pageview', at: '2024-03-22T13:47:00Z' },
        ],
      })
      const day = { date_from: '2024-03-22', date_to: '2024-03-22' }
      const first = { ...ev('$pageview'), math: 'first_time_for_user' }
      await c.ready()
      expect(counts(await c.funnel({ series: [first, ev('$pageview')], dateRange: day }))).toEqual([1, 1])
      expect(counts(await c.funnel({ series: [first, first], dateRange: day }))).toEqual([1, 0])
    },
  )

  ported.it(
    'test_first_time_for_user_funnel_with_actions: a first-time action step done long ago counts nobody',
    'test_first_time_for_user_funnel_with_actions',
    async (c) => {
      const { paid, movie } = await basic(c)
      await c.persons([{ ids: ['had_anonymous_id', 'completed_movie'] }])
      const e = ordered()
      e.signup('stopped_after_signup')
      e.signup('stopped_after_pay')
      e.pay('stopped_after_pay')
      e.signup('had_anonymous_id')
      e.pay('completed_movie')
      e.movie('completed_movie')
      e.movie('just_did_movie')
      e.pay('wrong_order')
      e.signup('wrong_order')
      e.movie('wrong_order')
      e.movie('completed_movie', {}, '2020-01-01T00:00:00Z')
      await c.capture(e.events)
      await c.ready()
      const steps = await c.funnel({
        series: [ev('user signed up'), act(paid), { ...act(movie), math: 'first_time_for_user' }],
        dateRange: { date_from: '-14d' },
      })
      expect(names(steps)).toEqual(['user signed up', 'paid', 'watched movie'])
      expect(counts(steps)).toEqual([4, 2, 0])
    },
  )

  ported.it(
    'test_multiple_events_same_timestamp_exclusions: thirty step-ones, an exclusion and step two at one instant still convert',
    'test_multiple_events_same_timestamp_exclusions',
    async (c) => {
      const minute = '2024-01-10T12:01:00Z'
      await c.journeys({
        test: [
          { event: 'step zero', at: '2024-01-10T12:00:00Z' },
          ...Array.from({ length: 30 }, () => ({ event: 'step one', at: minute })),
          { event: 'exclusion', at: minute },
          { event: 'step two', at: minute },
          { event: 'step three', at: '2024-01-10T12:02:00Z' },
        ],
      })
      await c.ready()
      for (const [from, to] of [
        [0, 1],
        [1, 2],
      ]) {
        const steps = await c.funnel({
          series: [ev('step zero'), ev('step one'), ev('step two'), ev('step three')],
          dateRange: { date_from: '2024-01-10 00:00:00', date_to: '2024-01-12 00:00:00' },
          funnelsFilter: { funnelVizType: 'steps', exclusions: [exclusion('exclusion', from, to)] },
        })
        expect(steps.length).toBe(4)
        expect(steps[3].count, `${from}-${to}`).toBe(1)
      }
    },
  )

  ported.it(
    'test_first_time_for_user_funnel_filters: first time for the user, before and after a step’s property filter',
    'test_first_time_for_user_funnel_filters',
    async (c) => {
      await c.journeys({
        user_1: [
          { event: '$pageview', at: '2024-03-22T13:46:00Z', properties: { $browser: 'Chrome' } },
          { event: '$pageview', at: '2024-03-22T13:47:00Z', properties: { $browser: 'Chrome' } },
        ],
      })
      const day = { date_from: '2024-03-22', date_to: '2024-03-22' }
      const first = { ...ev('$pageview'), math: 'first_time_for_user' }
      await c.ready()
      expect(counts(await c.funnel({ series: [ev('$pageview'), first], dateRange: day }))).toEqual([1, 0])
      const chrome = { ...first, properties: [{ key: '$browser', operator: 'exact', value: 'Chrome', type: 'event' }] }
      expect(counts(await c.funnel({ series: [chrome, ev('$pageview')], dateRange: day }))).toEqual([1, 1])
    },
  )

  ported.it(
    'test_first_time_for_user_funnel_multiple_ids: first time counts across all of a person’s distinct ids',
    'test_first_time_for_user_funnel_multiple_ids',
    async (c) => {
      await c.persons([{ ids: ['user_1', 'anon_1'] }, { ids: ['anon_2', 'user_2'] }, { ids: ['anon_3'] }])
      await c.capture([
        { distinct_id: 'user_1', event: '$pageview', at: '2024-03-22T13:00:00Z' },
        { distinct_id: 'user_1', event: '$pageview', at: '2024-03-22T14:00:00Z' },
        { distinct_id: 'anon_1', event: '$pageview', at: '2023-03-22T13:00:00Z' },
        { distinct_id: 'anon_2', event: '$pageview', at: '2024-03-22T13:00:00Z' },
        { distinct_id: 'user_2', event: '$pageview', at: '2024-03-22T14:00:00Z' },
        { distinct_id: 'anon_3', event: '$pageview', at: '2024-03-22T15:00:00Z' },
      ])
      const series = [{ ...ev('$pageview'), math: 'first_time_for_user' }, ev('$pageview')]
      await c.ready()
      expect(counts(await c.funnel({ series, dateRange: { date_from: '2024-03-22', date_to: '2024-03-22' } }))).toEqual([2, 1])
      expect(counts(await c.funnel({ series, dateRange: { date_from: '2023-03-22', date_to: '2024-03-22' } }))).toEqual([3, 1])
    },
  )

  ported.it(
    'test_first_time_for_user_funnel_person_properties: first time matching the filters, against first time at all',
    'test_first_time_for_user_funnel_person_properties',
    async (c) => {
      await c.persons([
        { ids: ['user_1'], properties: { email: 'test@test.com' } },
        { ids: ['user_2'], properties: { email: 'bonjonjovi@gmail.com' } },
      ])
      await c.capture([
        { distinct_id: 'user_1', event: 'event1', at: '2024-03-20T13:00:00Z' },
        { distinct_id: 'user_1', event: 'event1', at: '2024-03-21T13:00:00Z', properties: { property: 'woah' } },
        { distinct_id: 'user_2', event: 'event1', at: '2024-03-22T14:00:00Z' },
        { distinct_id: 'user_1', event: 'event2', at: '2024-03-23T13:00:00Z' },
      ])
      const q = (math: string, from = '2024-03-20') => ({
        series: [
          { ...ev('event1'), math, properties: [{ key: 'property', value: 'woah', operator: 'exact', type: 'event' }] },
          ev('event2'),
        ],
        dateRange: { date_from: from, date_to: '2024-03-24' },
      })
      await c.ready()
      expect(counts(await c.funnel(q('first_time_for_user_with_filters')))).toEqual([1, 1])
      const plain = await c.funnel(q('first_time_for_user'))
      expect(plain.length === 0 || plain[0].count === 0, JSON.stringify(plain)).toBe(true)
      await c.capture([{ distinct_id: 'user_1', event: 'event2', at: '2024-03-19T13:00:00Z', properties: { property: 'woah' } }])
      expect(counts(await c.funnel(q('first_time_for_user_with_filters', '2024-03-19')))).toEqual([1, 1])
    },
  )

  ported.it(
    'test_funnel_personless_events_are_supported: events sent without a person profile still convert; 1, 1',
    'test_funnel_personless_events_are_supported',
    async (c) => {
      await c.journeys({
        'personless-1': [
          { event: '$pageview', at: '2024-03-22T13:00:00Z', properties: { $process_person_profile: false } },
          { event: 'sign up', at: '2024-03-22T14:00:00Z', properties: { $process_person_profile: false } },
        ],
      })
      await c.ready()
      const steps = await c.funnel({
        series: [ev('$pageview'), ev('sign up')],
        dateRange: { date_from: '2024-03-22', date_to: '2024-03-22' },
      })
      expect(counts(steps)).toEqual([1, 1])
    },
  )

  ported.it('test_short_exclusions: an excluded attempt, then a clean one converting in 29 s', 'test_short_exclusions', async (c) => {
    await c.journeys({
      user_one: [
        { event: 'step one', at: at(0) },
        { event: 'exclusion', at: at(1) },
        { event: 'step two', at: at(31) },
        { event: 'step one', at: at(3600) },
        { event: 'step two', at: at(3629) },
      ],
    })
    await c.ready()
    const steps = await c.funnel({ ...tenSeconds, funnelsFilter: { ...tenSeconds.funnelsFilter, funnelWindowInterval: 30 } })
    expect([steps[1].count, steps[1].average_conversion_time]).toEqual([1, 29])
  })

  ported.it(
    'test_excluded_completion: the only completion has an exclusion inside its window; nobody converts',
    'test_excluded_completion',
    async (c) => {
      await c.journeys({
        user_one: [
          { event: 'step one', at: at(0) },
          { event: 'exclusion', at: at(11) },
          { event: 'step one', at: at(12) },
          { event: 'exclusion', at: at(13) },
          { event: 'step two', at: at(14) },
        ],
      })
      await c.ready()
      const steps = await c.funnel(tenSeconds)
      expect(steps.length === 0 || (steps[0].count === 0 && steps[1].count === 0), JSON.stringify(steps)).toBe(true)
    },
  )

  ported.it(
    'test_exclusion_with_property_filter: exclusions with their own property filters; 2, 1',
    'test_exclusion_with_property_filter',
    async (c) => {
      const trio = (value: string) => [
        { event: 'step one', at: at(0) },
        { event: 'exclusion', at: at(1), properties: { exclude_me: value } },
        { event: 'step two', at: at(2) },
      ]
      await c.journeys({
        user_excluded: trio('true'),
        user_excluded_also: trio('yes'),
        user_first_step: [{ event: 'step one', at: at(0) }],
        user_included: trio('false'),
      })
      const only = (value: string) =>
        exclusion('exclusion', 0, 1, { properties: [{ key: 'exclude_me', value, operator: 'exact', type: 'event' }] })
      await c.ready()
      const steps = await c.funnel({
        series: [ev('step one'), ev('step two')],
        interval: 'day',
        dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-01 23:59:59' },
        funnelsFilter: {
          funnelVizType: 'steps',
          funnelWindowInterval: 10,
          funnelWindowIntervalUnit: 'second',
          exclusions: [only('true'), only('yes')],
        },
      })
      expect(counts(steps)).toEqual([2, 1])
    },
  )

  ported.it(
    'test_breakdown_step_attributions: first touch, all events and each step’s own value',
    'test_breakdown_step_attributions',
    async (c) => {
      await c.journeys({
        user_one: [
          { event: 'step one', at: at(0), properties: { $browser: 'Chrome' } },
          { event: 'step two', at: at(1), properties: { $browser: 'Safari' } },
          { event: 'step two', at: at(2), properties: { $browser: 'Chrome' } },
          { event: 'step three', at: at(3), properties: { $browser: 'Chrome' } },
        ],
      })
      const q = (attribution: Props) => ({
        series: [ev('step one'), ev('step two'), ev('step three')],
        dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-02 23:59:59' },
        breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
        funnelsFilter: { funnelVizType: 'steps', funnelWindowInterval: 30, funnelWindowIntervalUnit: 'second', ...attribution },
      })
      await c.ready()
      const lists = async (attribution: Props) => (await c.funnel(q(attribution))).map((l: any[]) => [l[0].breakdown_value, counts(l)])
      expect(await lists({})).toEqual([[['Chrome'], [1, 1, 1]]])
      expect(await lists({ breakdownAttributionType: 'all_events' })).toEqual([[['Chrome'], [1, 1, 1]]])
      expect(await lists({ breakdownAttributionType: 'step', breakdownAttributionValue: 0 })).toEqual([[['Chrome'], [1, 1, 1]]])
      const second = await lists({ breakdownAttributionType: 'step', breakdownAttributionValue: 1 })
      expect(second.length).toBe(2)
      for (const [, n] of second) expect(n).toEqual([1, 1, 1])
      expect(await lists({ breakdownAttributionType: 'step', breakdownAttributionValue: 2 })).toEqual([[['Chrome'], [1, 1, 1]]])
    },
  )

  ported.it(
    'test_funnel_with_long_interval_no_first_step: a window of 3 122 064 000 s with no first step counts nobody',
    'test_funnel_with_long_interval_no_first_step',
    async (c) => {
      await c.journeys({ only_second_step: [{ event: 'added to cart', at: '2021-05-02T00:00:00Z' }] })
      await c.ready()
      const steps = await c.funnel({
        series: [ev('user signed up'), ev('added to cart')],
        dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-08 23:59:59' },
        funnelsFilter: { funnelWindowInterval: 3122064000, funnelWindowIntervalUnit: 'second' },
      })
      if (steps.length > 0) {
        expect(names(steps)).toEqual(['user signed up', 'added to cart'])
        expect(counts(steps)).toEqual([0, 0])
      }
    },
  )

  /** PostHog's `_create_groups`: organization is group type 0 (org:5 finance, org:6 technology), company type 1. */
  const groups = (c: FunnelCase) =>
    c.capture(
      [
        ['organization', 'org:5', { industry: 'finance' }],
        ['organization', 'org:6', { industry: 'technology' }],
        ['company', 'company:1', {}],
        ['company', 'company:2', {}],
      ].map(([type, key, set]) => ({
        distinct_id: 'group-maker',
        event: '$groupidentify',
        at: '2019-06-01T00:00:00Z',
        properties: { $group_type: type, $group_key: key, $group_set: set },
      })),
    )
  const org = (key: string) => ({ $groups: { organization: key } })
  const jan = (day: number) => `2020-01-${String(day).padStart(2, '0')}T14:00:00Z`
  const january = { date_from: '2020-01-01', date_to: '2020-01-14' }

  ported.it(
    'test_funnel_aggregation_with_groups: companies instead of persons; 2, 1, converting in a day',
    'test_funnel_aggregation_with_groups',
    async (c) => {
      await groups(c)
      await c.journeys({
        user_1: [
          { event: 'user signed up', at: jan(2), properties: org('org:5') },
          { event: 'user signed up', at: jan(10), properties: org('org:6') },
        ],
        user_2: [{ event: 'paid', at: jan(3), properties: org('org:5') }],
      })
      await c.ready()
      const steps = await c.funnel({ series: [ev('user signed up'), ev('paid')], dateRange: january, aggregation_group_type_index: 0 })
      expect(counts(steps)).toEqual([2, 1])
      expect(steps[1].average_conversion_time).toBe(86400)
    },
  )

  ported.it(
    'test_funnel_aggregation_with_groups_across_persons: a group property filter with group aggregation; 1, 1',
    'test_funnel_aggregation_with_groups_across_persons',
    async (c) => {
      await groups(c)
      await c.journeys({
        user_1: [
          { event: 'user signed up', at: jan(2), properties: org('org:5') },
          { event: 'paid', at: jan(3), properties: org('org:6') },
        ],
        user_2: [
          { event: 'user signed up', at: jan(2), properties: org('org:6') },
          { event: 'paid', at: jan(3), properties: org('org:5') },
        ],
      })
      await c.ready()
      const steps = await c.funnel({
        series: [ev('user signed up'), ev('paid')],
        dateRange: january,
        aggregation_group_type_index: 0,
        properties: [{ key: 'industry', value: 'finance', type: 'group', group_type_index: 0, operator: 'exact' }],
      })
      expect(counts(steps)).toEqual([1, 1])
    },
  )

  ported.it(
    'test_funnel_aggregation_with_groups_and_ungrouped_events: events without the group are left out; 1, 1',
    'test_funnel_aggregation_with_groups_and_ungrouped_events',
    async (c) => {
      await groups(c)
      await c.journeys({
        user_1: [
          { event: 'user signed up', at: jan(2), properties: org('org:5') },
          { event: 'paid', at: jan(3), properties: org('org:5') },
        ],
        user_2: [{ event: 'user signed up', at: jan(2) }],
        user_3: [{ event: 'paid', at: jan(3) }],
        user_4: [
          { event: 'user signed up', at: jan(2) },
          { event: 'paid', at: jan(3) },
        ],
      })
      await c.ready()
      const steps = await c.funnel({ series: [ev('user signed up'), ev('paid')], dateRange: january, aggregation_group_type_index: 0 })
      expect(counts(steps)).toEqual([1, 1])
    },
  )

  ported.it(
    'test_funnel_aggregation_with_groups_with_cohort_filtering: a cohort filter on persons, counting organizations; 2, 1',
    'test_funnel_aggregation_with_groups_with_cohort_filtering',
    async (c) => {
      await groups(c)
      await c.persons([
        { ids: ['user_1'], properties: { email: 'fake@test.com' } },
        { ids: ['user_2'], properties: { email: 'fake@test.com' } },
        { ids: ['user_3'], properties: { email: 'fake_2@test.com' } },
      ])
      const cohort = await c.cohort({
        name: 'fake',
        filters: {
          properties: {
            type: 'OR',
            values: [{ type: 'AND', values: [{ key: 'email', operator: 'icontains', value: 'fake@test.com', type: 'person' }] }],
          },
        },
      })
      await c.journeys({
        user_1: [
          { event: '$pageview', at: jan(2), properties: org('org:5') },
          { event: 'user signed up', at: jan(2), properties: org('org:5') },
          { event: 'user signed up', at: jan(10), properties: org('org:6') },
        ],
        user_2: [{ event: 'paid', at: jan(3), properties: org('org:5') }],
        user_3: [
          { event: 'user signed up', at: jan(2), properties: org('org:7') },
          { event: 'paid', at: jan(3), properties: org('org:7') },
        ],
      })
      await c.ready()
      const steps = await c.funnel({
        series: [{ ...ev('user signed up'), properties: [{ type: 'cohort', key: 'id', value: cohort }] }, ev('paid')],
        dateRange: january,
        aggregation_group_type_index: 0,
      })
      expect(names(steps)).toEqual(['user signed up', 'paid'])
      expect(counts(steps)).toEqual([2, 1])
    },
  )
  ported.it(
    'test_funnel_conversion_window.py: a window of none, 0 or -1 falls back to 14 days, and a negative one is no error',
    'test_funnel_conversion_window.py',
    async (c) => {
      await c.journeys({
        user: [
          { event: 'step one', at: '2021-05-01T00:00:00Z' },
          { event: 'step two', at: '2021-05-11T00:00:00Z' },
        ],
      })
      const q = (filter: Props) => ({
        series: [ev('step one'), ev('step two')],
        dateRange: { date_from: '2021-05-01', date_to: '2021-05-14' },
        funnelsFilter: filter,
      })
      await c.ready()
      expect(counts(await c.funnel(q({})))).toEqual([1, 1])
      expect(counts(await c.funnel(q({ funnelWindowInterval: 0 })))).toEqual([1, 1])
      expect(counts(await c.funnel(q({ funnelWindowInterval: -1 })))).toEqual([1, 1])
      expect(counts(await c.funnel(q({ funnelWindowInterval: 7 })))).toEqual([1, 0])
      await c.funnel(q({ funnelWindowInterval: -1, funnelWindowIntervalUnit: 'second' }))
      await c.funnel(q({ funnelWindowInterval: -3, funnelWindowIntervalUnit: 'day' }))
    },
  )
  describe('test_funnel_validation_rules.py', () => {
    // Each refusal is checked against the same funnel made valid, which answers: the refusal is the rule's alone.
    let c: FunnelCase
    beforeAll(async () => {
      c = await funnelCase(t, 'test_funnel_validation_rules.py')
    })
    const steps = (n: number) => Array.from({ length: n }, (_, i) => ev(`step ${i + 1}`))
    const status = async (q: Props) =>
      (await c.call('POST', `/api/environments/${c.id}/query/`, { query: { kind: 'FunnelsQuery', ...q } })).status
    const x = (event: string, from: number, to: number) => ({ kind: 'EventsNode', event, funnelFromStep: from, funnelToStep: to })

    it('test_requires_at_least_two_funnel_steps: one step is refused, two answer', async () => {
      expect(await status({ series: steps(2) })).toBe(200)
      expect(await status({ series: steps(1) })).toBe(400)
    })

    it('test_rejects_more_than_max_funnel_steps and test_allows_max_funnel_steps: 33 steps are refused, 32 answer', async () => {
      expect(await status({ series: steps(32) })).toBe(200)
      expect(await status({ series: steps(33) })).toBe(400)
    })

    it('test_allows_more_than_max_steps_for_trends_funnels: 33 steps answer as conversion trends', async () => {
      expect(await status({ series: steps(33), funnelsFilter: { funnelVizType: 'trends' } })).toBe(200)
    })

    it('test_validates_funnel_step_range: from-step 2 or to-step 3 of 3 steps, or from 1 to 1, are refused', async () => {
      expect(await status({ series: steps(3), funnelsFilter: { funnelFromStep: 1, funnelToStep: 2 } })).toBe(200)
      for (const filter of [{ funnelFromStep: 2 }, { funnelToStep: 3 }, { funnelFromStep: 1, funnelToStep: 1 }])
        expect(await status({ series: steps(3), funnelsFilter: filter }), JSON.stringify(filter)).toBe(400)
    })

    it('test_validates_funnel_exclusion_ranges: exclusions 1-1, 2-3 and 0-3 of 3 steps are refused', async () => {
      expect(await status({ series: steps(3), funnelsFilter: { exclusions: [x('exclude', 0, 2)] } })).toBe(200)
      for (const exclusion of [x('exclude', 1, 1), x('exclude', 2, 3), x('exclude', 0, 3)])
        expect(await status({ series: steps(3), funnelsFilter: { exclusions: [exclusion] } }), JSON.stringify(exclusion)).toBe(400)
    })

    it('test_disallows_exclusion_that_matches_funnel_step: a step’s own event cannot be an exclusion', async () => {
      expect(await status({ series: steps(2), funnelsFilter: { exclusions: [x('other', 0, 1)] } })).toBe(200)
      expect(await status({ series: steps(2), funnelsFilter: { exclusions: [x('step 2', 0, 1)] } })).toBe(400)
    })

    it('test_disallows_partial_exclusions_in_unordered_funnels and test_allows_valid_exclusion', async () => {
      const unordered = (exclusion: Props) => ({
        series: steps(3),
        funnelsFilter: { funnelOrderType: 'unordered', exclusions: [exclusion] },
      })
      expect(await status(unordered(x('exclude', 0, 2)))).toBe(200)
      expect(await status({ series: steps(3), funnelsFilter: { funnelOrderType: 'ordered', exclusions: [x('exclude', 0, 1)] } })).toBe(200)
      for (const exclusion of [x('exclude', 1, 2), x('exclude', 0, 1)]) expect(await status(unordered(exclusion))).toBe(400)
    })
  })
  describe('the same cases as PostHog writes them: legacy FUNNELS filters of a saved insight', () => {
    ported.it('test_funnel_events: signed up 4, paid 2, watched movie 1', 'legacy test_funnel_events', async (c) => {
      const { paid, movie } = await basic(c)
      await c.persons([{ ids: ['had_anonymous_id', 'completed_movie'] }])
      const e = ordered()
      e.signup('stopped_after_signup')
      e.signup('stopped_after_pay')
      e.pay('stopped_after_pay')
      e.signup('had_anonymous_id')
      e.pay('completed_movie')
      e.movie('completed_movie')
      e.movie('just_did_movie')
      e.pay('wrong_order')
      e.signup('wrong_order')
      e.movie('wrong_order')
      await c.capture(e.events)
      await c.ready()
      const steps = await c.saved({
        events: [{ id: 'user signed up', type: 'events', order: 0 }],
        actions: [
          { id: paid, type: 'actions', order: 1 },
          { id: movie, type: 'actions', order: 2 },
        ],
        funnel_window_days: 14,
      })
      expect(names(steps)).toEqual(['user signed up', 'paid', 'watched movie'])
      expect(counts(steps)).toEqual([4, 2, 1])
    })

    ported.it(
      'test_funnel_exclusion_no_end_event: exclusions with funnel_from_step and funnel_to_step; 2, 1',
      'legacy test_funnel_exclusion_no_end_event',
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
        const steps = await c.saved({
          events: [
            { id: 'user signed up', type: 'events', order: 0 },
            { id: 'paid', type: 'events', order: 1 },
          ],
          funnel_window_interval: 1,
          date_from: '2021-05-01 00:00:00',
          date_to: '2021-05-14 00:00:00',
          exclusions: [{ id: 'x', type: 'events', funnel_from_step: 0, funnel_to_step: 1 }],
        })
        expect(names(steps)).toEqual(['user signed up', 'paid'])
        expect(counts(steps)).toEqual([2, 1])
      },
    )

    ported.it(
      'test_funnel_conversion_window_seconds: funnel_window_interval_unit second; 25, 10, 0',
      'legacy test_funnel_conversion_window_seconds',
      async (c) => {
        await windowCase(c, '2021-05-01T00:00:10Z', '2021-05-01T00:00:20Z')
        await c.ready()
        const steps = await c.saved({
          date_from: '2021-05-01 00:00:00',
          date_to: '2021-05-14 00:00:00',
          funnel_window_interval: 15,
          funnel_window_interval_unit: 'second',
          events: [
            { id: 'step one', order: 0 },
            { id: 'step two', order: 1 },
            { id: 'step three', order: 2 },
          ],
        })
        expect(counts(steps)).toEqual([25, 10, 0])
      },
    )

    ported.it(
      'test_breakdown_step_attributions: breakdown_attribution_type step with breakdown_attribution_value 1 gives two lists',
      'legacy test_breakdown_step_attributions',
      async (c) => {
        await c.journeys({
          user_one: [
            { event: 'step one', at: at(0), properties: { $browser: 'Chrome' } },
            { event: 'step two', at: at(1), properties: { $browser: 'Safari' } },
            { event: 'step two', at: at(2), properties: { $browser: 'Chrome' } },
            { event: 'step three', at: at(3), properties: { $browser: 'Chrome' } },
          ],
        })
        await c.ready()
        const lists = await c.saved({
          funnel_viz_type: 'steps',
          date_from: '2021-05-01 00:00:00',
          date_to: '2021-05-02 23:59:59',
          funnel_window_interval: 30,
          funnel_window_interval_unit: 'second',
          events: [
            { id: 'step one', order: 0 },
            { id: 'step two', order: 1 },
            { id: 'step three', order: 2 },
          ],
          breakdown_type: 'event',
          breakdown: '$browser',
          breakdown_attribution_type: 'step',
          breakdown_attribution_value: 1,
        })
        expect(lists.length).toBe(2)
        for (const list of lists) expect(counts(list)).toEqual([1, 1, 1])
      },
    )
  })
})
