// PathsQuery through POST …/query/, ported from PostHog's posthog/hogql_queries/insights/paths/test/
// test_paths_query_runner.py and test_paths_query_runner_ee.py: the same events, the same queries, the same edges
// (in PostHog's order) and persons PostHog's tests assert. One project per PostHog test, every case's events
// sent before the first case runs. Wren's clock is PostHog's test_current_url_paths_and_logic's moved to 2023
// (after every case's events), with that case's events; a case frozen at another time, or at none, names the
// range PostHog resolved there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWren, type TestWren } from '../support/wren'
import { custom, edges, pageview, pathsCases, screen, tick, type Captured, type Link, type PathsCase } from '../support/paths'

const NOW = '2023-05-15T03:21:34Z'
/** PostHog's cases whose events carry no timestamp: created in order, a second apart, the day before "now". */
const UNTIMED = '2023-05-14T10:00:00Z'
const ONE_MINUTE = 60_000
const EVIL = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!'

const NAMES = [
  'current_url',
  'custom_events',
  'screens',
  'properties',
  'start',
  'window',
  'replacements',
  'step_limit',
  'conversion_times',
  'ordering',
  'end',
  'inclusion_exclusion',
  'wildcards',
  'single_person',
  'sessions',
  'duplicates',
  'start_and_end',
  'evil',
  'dropoffs',
  'orphans',
  'groups',
  'recording',
  'recording_no_session',
  'recording_start_end',
  'own',
] as const
type Name = (typeof NAMES)[number]

/** Events in the order given, a second apart from UNTIMED. */
function untimed(list: Array<(at: string) => Captured>): Captured[] {
  return list.map((make, i) => make(tick(UNTIMED, i)))
}

/** PostHog's edges as PathsLink objects. */
const link = (source: string, target: string, value: number, average_conversion_time: number): Link => ({
  source,
  target,
  value,
  average_conversion_time,
})

describe('PostHog test_paths_query_runner.py and test_paths_query_runner_ee.py', () => {
  let t: TestWren
  let c: Record<Name, PathsCase>

  beforeAll(async () => {
    t = await startWren({ WREN_NOW: NOW })
    const made = await pathsCases(t, NAMES, {
      replacements: { path_cleaning_filters: [{ alias: '/merchant/:id/dashboard', regex: '/merchant/\\d+/dashboard' }] },
    })
    c = made.cases

    // test_current_url_paths_and_logic
    c.current_url.person(['person_1'], { email: 'test@posthog.com' })
    c.current_url.person(['person_2a', 'person_2b'])
    c.current_url.events.push(
      pageview('fake', '/', '2023-05-01T03:21:34Z'),
      pageview('fake', '/about', '2023-05-01T03:21:34Z'),
      pageview('person_1', '/', '2023-05-14T03:21:34Z'),
      pageview('person_1', '/about', '2023-05-14T03:28:34Z'),
      pageview('person_2a', '/', '2023-05-14T03:21:34Z'),
      pageview('person_2b', '/pricing', '2023-05-14T03:28:34Z'),
      pageview('person_2a', '/about', '2023-05-14T03:29:34Z'),
      pageview('person_3', '/pricing', '2023-05-14T03:21:34Z'),
      pageview('person_3', '/', '2023-05-14T03:28:34Z'),
      pageview('person_4', '/', '2023-05-14T03:21:34Z'),
      pageview('person_4', '/pricing', '2023-05-14T03:28:34Z'),
    )

    // test_custom_event_paths and test_custom_hogql_paths (the same events; the hogql case reads property a)
    const a = { a: '!' }
    c.custom_events.events.push(
      ...untimed([
        (at) => custom('person_1', 'custom_event_1', at, a),
        (at) => custom('person_1', 'custom_event_3', at, a),
        (at) => pageview('person_1', '/', at),
        (at) => custom('person_2', 'custom_event_1', at, a),
        (at) => custom('person_2', 'custom_event_2', at, a),
        (at) => custom('person_2', 'custom_event_3', at, a),
        (at) => custom('person_3', 'custom_event_2', at, a),
        (at) => custom('person_3', 'custom_event_1', at, a),
        (at) => custom('person_4', 'custom_event_1', at, a),
        (at) => custom('person_4', 'custom_event_2', at, a),
      ]),
    )

    // test_screen_paths
    c.screens.person(['person_2a', 'person_2b'])
    c.screens.events.push(
      ...untimed([
        (at) => screen('person_1', '/', at),
        (at) => screen('person_1', '/about', at),
        (at) => screen('person_2b', '/', at),
        (at) => screen('person_2a', '/pricing', at),
        (at) => screen('person_2b', '/about', at),
        (at) => screen('person_3', '/pricing', at),
        (at) => screen('person_3', '/', at),
        (at) => screen('person_4', '/', at),
        (at) => screen('person_4', '/pricing', at),
      ]),
    )

    // test_paths_properties_filter
    const chrome = { $browser: 'Chrome' }
    c.properties.events.push(
      ...untimed([
        (at) => pageview('person_1', '/', at, chrome),
        (at) => pageview('person_1', '/about', at, chrome),
        (at) => pageview('person_2', '/', at, chrome),
        (at) => pageview('person_2', '/pricing', at, chrome),
        (at) => pageview('person_2', '/about', at, chrome),
        (at) => pageview('person_3', '/pricing', at),
        (at) => pageview('person_3', '/', at),
        (at) => pageview('person_4', '/', at),
        (at) => pageview('person_4', '/pricing', at),
      ]),
    )

    // test_paths_start
    c.start.person(['person_5a', 'person_5b'])
    c.start.events.push(
      ...untimed([
        (at) => pageview('person_1', '/', at),
        (at) => pageview('person_1', '/about/', at),
        (at) => pageview('person_2', '/', at),
        (at) => pageview('person_2', '/pricing/', at),
        (at) => pageview('person_2', '/about', at),
        (at) => pageview('person_3', '/pricing', at),
        (at) => pageview('person_3', '/', at),
        (at) => pageview('person_3', '/about/', at),
        (at) => pageview('person_4', '/', at),
        (at) => pageview('person_4', '/pricing/', at),
        (at) => pageview('person_5a', '/pricing', at),
        (at) => pageview('person_5b', '/about', at),
        (at) => pageview('person_5a', '/pricing/', at),
        (at) => pageview('person_5b', '/help', at),
      ]),
    )

    // test_paths_in_window
    c.window.events.push(
      pageview('person_1', '/', '2020-04-14T03:25:34Z'),
      pageview('person_1', '/about', '2020-04-14T03:30:34Z'),
      pageview('person_1', '/', '2020-04-15T03:25:34Z'),
      pageview('person_1', '/about', '2020-04-15T03:30:34Z'),
    )

    // test_path_replacements_none_does_not_apply_team_cleaning and _false_skips_team_cleaning, with a third page
    c.replacements.events.push(
      pageview('person_1', '/merchant/123/dashboard', '2023-05-14T03:21:34Z'),
      pageview('person_1', '/merchant/456/dashboard', '2023-05-14T03:22:34Z'),
      pageview('person_1', '/pricing', '2023-05-14T03:23:34Z'),
    )

    // test_step_limit and test_step_conversion_times (fake2 is the second's)
    for (const k of ['step_limit', 'conversion_times'] as const)
      c[k].events.push(
        pageview('fake', '/1', '2012-01-01T03:21:34Z'),
        pageview('fake', '/2', '2012-01-01T03:22:34Z'),
        pageview('fake', '/3', '2012-01-01T03:24:34Z'),
        pageview('fake', '/4', '2012-01-01T03:27:34Z'),
      )
    c.conversion_times.events.push(
      pageview('fake2', '/1', '2012-01-01T03:21:34Z'),
      pageview('fake2', '/2', '2012-01-01T03:23:34Z'),
      pageview('fake2', '/3', '2012-01-01T03:27:34Z'),
    )

    // test_event_ordering
    for (let i = 0; i < 50; i++) {
      const user = `user_${i}`
      c.ordering.events.push(
        custom(user, 'step one', '2021-05-01T00:00:00Z'),
        custom(user, 'step two', '2021-05-01T00:01:00Z'),
        custom(user, 'step three', '2021-05-01T00:02:00Z'),
      )
      if (i % 2 === 0) c.ordering.events.push(custom(user, 'step branch', '2021-05-01T00:03:00Z'))
    }

    // test_end and test_start_and_end
    const minute = (m: number) => `2021-05-01T00:0${m}:00Z`
    c.end.events.push(
      ...['/1', '/2', '/3/', '/4/', '/5', '/about', '/after/'].map((url, i) => pageview('person_1', url, minute(i + 1))),
      pageview('person_2', '/5', minute(1)),
      pageview('person_2', '/about', minute(2)),
      ...['/3/', '/4', '/about/', '/after'].map((url, i) => pageview('person_3', url, minute(i + 1))),
    )
    c.start_and_end.events.push(
      ...['/1', '/2', '/3', '/4', '/5', '/about', '/after'].map((url, i) => pageview('person_1', url, minute(i + 1))),
      pageview('person_2', '/5', minute(1)),
      pageview('person_2', '/about', minute(2)),
      ...['/3', '/4', '/about', '/after'].map((url, i) => pageview('person_3', url, minute(i + 1))),
    )

    // test_event_inclusion_exclusion_filters
    const jan1 = (time: string) => `2012-01-01T${time}Z`
    c.inclusion_exclusion.events.push(
      pageview('p1', '/1', jan1('03:21:34')),
      pageview('p1', '/2/', jan1('03:22:34')),
      pageview('p1', '/3', jan1('03:24:34')),
      screen('p2', '/screen1', jan1('03:21:34')),
      screen('p2', '/screen2', jan1('03:22:34')),
      screen('p2', '/screen3', jan1('03:24:34')),
      custom('p3', '/custom1', jan1('03:21:34')),
      custom('p3', '/custom2', jan1('03:22:34')),
      custom('p3', '/custom3', jan1('03:24:34')),
    )

    // test_event_exclusion_filters_with_wildcard_groups and test_wildcard_groups_across_people (the same events)
    for (const [p, middle] of [
      ['p1', '/2/bar/1/foo'],
      ['p2', '/bar/2/foo'],
      ['p3', '/bar/33/foo'],
    ])
      c.wildcards.events.push(
        pageview(p, '/1', jan1('03:21:34')),
        pageview(p, middle, jan1('03:22:34')),
        pageview(p, '/3', jan1('03:24:34')),
      )

    // test_event_inclusion_exclusion_filters_across_single_person
    c.single_person.events.push(
      pageview('p1', '/1', jan1('03:21:34')),
      pageview('p1', '/2', jan1('03:22:34')),
      pageview('p1', '/3', jan1('03:24:34')),
      screen('p1', '/screen1', jan1('03:25:34')),
      screen('p1', '/screen2', jan1('03:26:34')),
      screen('p1', '/screen3', jan1('03:28:34')),
      custom('p1', '/custom1', jan1('03:29:34')),
      custom('p1', '/custom2', jan1('03:30:34')),
      custom('p1', '/custom3', jan1('03:32:34')),
    )

    // test_respect_session_limits
    c.sessions.events.push(
      pageview('fake', '/1', jan1('03:21:34')),
      pageview('fake', '/2', jan1('03:22:34')),
      pageview('fake', '/3', jan1('03:24:34')),
      pageview('fake', '/1', '2012-01-02T03:21:54Z'),
      pageview('fake', '/2/', '2012-01-02T03:22:54Z'),
      pageview('fake', '/3', '2012-01-02T03:26:54Z'),
    )

    // test_removes_duplicates
    c.duplicates.events.push(
      pageview('fake', '/1', jan1('03:21:34')),
      pageview('fake', '/1', jan1('03:21:54')),
      pageview('fake', '/2', jan1('03:22:34')),
      pageview('fake', '/2/', jan1('03:22:54')),
      pageview('fake', '/3', jan1('03:24:54')),
      pageview('fake2', '/1', jan1('03:21:34')),
      pageview('fake2', '/2/', jan1('03:23:34')),
      pageview('fake2', '/3', jan1('03:27:34')),
    )

    // test_wildcard_groups_evil_input
    c.evil.events.push(
      pageview('p1', EVIL, jan1('03:21:34')),
      pageview('p1', '/2/bar/aaa', jan1('03:22:34')),
      pageview('p1', '/3', jan1('03:24:34')),
      pageview('p2', '/1', jan1('03:21:34')),
      pageview('p2', '/2/3?q=1', jan1('03:22:34')),
      pageview('p2', '/3?q=1', jan1('03:24:34')),
    )

    // test_person_dropoffs: 5 do two steps, 10 three, 20 four
    for (let i = 0; i < 35; i++) {
      const steps = i < 5 ? 2 : i < 15 ? 3 : 4
      const times = ['00:00', '00:04', '00:05', '00:06']
      for (const [j, event] of ['step one', 'step two', 'step three', 'step four'].slice(0, steps).entries())
        c.dropoffs.events.push(custom(`user_${i}`, event, `2021-05-01T${times[j]}:00Z`))
    }

    // test_start_dropping_orphaned_edges
    for (let i = 0; i < 5; i++)
      c.orphans.events.push(
        ...['/1', '/2', '/3', '/4', '/5', '/about', '/after'].map((url, j) => pageview(`person_${i}`, url, minute(j + 1))),
      )
    for (const [p, via] of [
      ['person_r_2', '/a'],
      ['person_r_3', '/b'],
    ])
      c.orphans.events.push(
        pageview(p, '/2', '2021-05-01T00:01:00Z'),
        pageview(p, via, '2021-05-01T00:01:30Z'),
        pageview(p, '/x', '2021-05-01T00:02:00Z'),
        pageview(p, '/about', '2021-05-01T00:03:00Z'),
      )

    // test_groups_filtering: organizations (type 0) and companies (type 1), as _create_groups makes them
    c.groups.events.push(
      ...(
        [
          ['organization', 'org:5', { industry: 'finance' }],
          ['organization', 'org:6', { industry: 'technology' }],
          ['company', 'company:1', { industry: 'technology' }],
          ['company', 'company:2', {}],
        ] as const
      ).map(([type, key, set]) =>
        custom('group-maker', '$groupidentify', '2000-01-01T00:00:00Z', { $group_type: type, $group_key: key, $group_set: set }),
      ),
      pageview('p1', '/1', jan1('03:21:34'), { $groups: { organization: 'org:5' } }),
      pageview('p1', '/2/', jan1('03:22:34'), { $groups: { organization: 'org:5' } }),
      pageview('p1', '/3', jan1('03:24:34'), { $groups: { organization: 'org:5' } }),
      screen('p2', '/screen1', jan1('03:21:34'), { $groups: { organization: 'org:6' } }),
      screen('p2', '/screen2', jan1('03:22:34'), { $groups: { organization: 'org:6' } }),
      screen('p2', '/screen3', jan1('03:24:34'), { $groups: { organization: 'org:6' } }),
      custom('p3', '/custom1', jan1('03:21:34'), { $groups: { company: 'company:1' } }),
      custom('p3', '/custom2', jan1('03:22:34'), { $groups: { company: 'company:1' } }),
      custom('p3', '/custom3', jan1('03:24:34'), { $groups: { company: 'company:1' } }),
    )

    // test_recording (frozen at 2012-01-01 03:21:34): p1 in two sessions, p2 in one
    const rec = (minutes: number) => tick('2012-01-01T03:21:34Z', minutes * 60)
    c.recording.events.push(
      pageview('p1', '/1', rec(0), { $session_id: 's1', $window_id: 'w1' }),
      pageview('p1', '/2', rec(1), { $session_id: 's1', $window_id: 'w1' }),
      pageview('p1', '/1', rec(31), { $session_id: 's2', $window_id: 'w2' }),
      pageview('p1', '/2', rec(32), { $session_id: 's3', $window_id: 'w3' }),
      pageview('p2', '/1', rec(0), { $session_id: 's5', $window_id: 'w1' }),
      pageview('p2', '/2', rec(1), { $session_id: 's5', $window_id: 'w1' }),
    )
    c.recording_no_session.events.push(pageview('p1', '/1', rec(0)), pageview('p1', '/2', rec(1)))
    // test_recording_with_start_and_end and test_recording_for_dropoff (the same events)
    c.recording_start_end.events.push(
      ...['/1', '/2', '/3'].map((url, i) => pageview('p1', url, rec(i), { $session_id: 's1', $window_id: 'w1' })),
    )

    // Wren's own cases: /a → /b three times (one going on to /c), /a → /c once.
    const own = (m: number) => tick('2023-05-14T09:00:00Z', m * 60)
    c.own.events.push(
      pageview('u1', '/a', own(0)),
      pageview('u1', '/b', own(1)),
      pageview('u1', '/c', own(2)),
      pageview('u2', '/a', own(0)),
      pageview('u2', '/b', own(2)),
      pageview('u3', '/a', own(0)),
      pageview('u3', '/b', own(3)),
      pageview('u4', '/a', own(0)),
      pageview('u4', '/c', own(4)),
      custom('u4', 'clicked', own(5), { $current_url: '/c' }),
    )

    await made.sendAll()
  })
  afterAll(async () => {
    await t?.close()
  })

  it('test_current_url_paths_and_logic: page views by URL over the last 7 days, date ranges and test accounts', async () => {
    const q = c.current_url
    // PostHog: pathsFilter {} (every event type), the default range.
    expect(edges(await q.paths({ pathsFilter: {} }))).toEqual([
      '1_/ → 2_/pricing ×2',
      '1_/ → 2_/about ×1',
      '1_/pricing → 2_/ ×1',
      '2_/pricing → 3_/about ×1',
    ])
    const count = async (dateRange: Record<string, string>, extra = {}) => (await q.paths({ dateRange, pathsFilter: {}, ...extra })).length
    expect(await count({ date_from: '2023-05-08' })).toBe(4)
    expect(await count({ date_to: '2023-05-15' })).toBe(4)
    expect(await count({ date_to: '2023-05-08' })).toBe(0)
    expect(await count({ date_from: '2023-05-08', date_to: '2023-05-22' })).toBe(4)
    // person_1's email is @posthog.com: a test account.
    expect(await count({ date_from: '2023-05-08', date_to: '2023-05-22' }, { filterTestAccounts: true })).toBe(3)
    // PostHog answers no edges for a range that ends before it starts; Wren's every kind answers 400 naming date_to.
    const res = await q.call('POST', `/api/environments/${q.id}/query/`, {
      query: { kind: 'PathsQuery', dateRange: { date_from: '2023-05-22', date_to: '2023-05-08' }, pathsFilter: {} },
    })
    expect([res.status, res.body.attr]).toEqual([400, 'date_to'])
  })

  it('test_custom_event_paths: custom events only', async () => {
    expect(edges(await c.custom_events.paths({ pathsFilter: { includeEventTypes: ['custom_event'] } }))).toEqual([
      '1_custom_event_1 → 2_custom_event_2 ×2',
      '1_custom_event_1 → 2_custom_event_3 ×1',
      '1_custom_event_2 → 2_custom_event_1 ×1',
      '2_custom_event_2 → 3_custom_event_3 ×1',
    ])
  })

  it('test_custom_hogql_paths: items from a HogQL expression', async () => {
    const links = await c.custom_events.paths({
      pathsFilter: { includeEventTypes: ['hogql'], pathsHogQLExpression: 'event || properties.a' },
    })
    expect(edges(links).slice(0, 4)).toEqual([
      '1_custom_event_1! → 2_custom_event_2! ×2',
      '1_custom_event_1! → 2_custom_event_3! ×1',
      '1_custom_event_2! → 2_custom_event_1! ×1',
      '2_custom_event_2! → 3_custom_event_3! ×1',
    ])
  })

  it('test_screen_paths: screens by name', async () => {
    expect(edges(await c.screens.paths({ pathsFilter: { includeEventTypes: ['$screen'] } }))).toEqual([
      '1_/ → 2_/pricing ×2',
      '1_/ → 2_/about ×1',
      '1_/pricing → 2_/ ×1',
      '2_/pricing → 3_/about ×1',
    ])
  })

  it('test_paths_properties_filter: only events with the property', async () => {
    const properties = {
      type: 'AND',
      values: [{ type: 'AND', values: [{ key: '$browser', operator: 'exact', type: 'event', value: ['Chrome'] }] }],
    }
    expect(edges(await c.properties.paths({ pathsFilter: {}, properties }))).toEqual([
      '1_/ → 2_/about ×1',
      '1_/ → 2_/pricing ×1',
      '2_/pricing → 3_/about ×1',
    ])
  })

  it('test_paths_start: paths from a start point, trailing slashes alike', async () => {
    const fromPricing = [
      '1_/pricing → 2_/about ×2',
      '1_/pricing → 2_/ ×1',
      '2_/ → 3_/about ×1',
      '2_/about → 3_/pricing ×1',
      '3_/pricing → 4_/help ×1',
    ]
    expect(edges(await c.start.paths({ pathsFilter: { startPoint: '/pricing' } }))).toEqual(fromPricing)
    expect(edges(await c.start.paths({ pathsFilter: { startPoint: '/pricing/' } }))).toEqual(fromPricing)
    expect(edges(await c.start.paths({ pathsFilter: { startPoint: '/' } }))).toEqual([
      '1_/ → 2_/about ×2',
      '1_/ → 2_/pricing ×2',
      '2_/pricing → 3_/about ×1',
    ])
  })

  it('test_paths_in_window: one path a day, each its own session', async () => {
    const links = await c.window.paths({ dateRange: { date_from: '2020-04-13', date_to: '2020-04-16' }, pathsFilter: {} })
    expect(links[0]).toMatchObject({ source: '1_/', target: '2_/about', value: 2 })
  })

  it('test_path_replacements_none_does_not_apply_team_cleaning, _false_skips_team_cleaning: the project’s rules only when asked', async () => {
    const q = c.replacements
    const raw = ['1_/merchant/123/dashboard → 2_/merchant/456/dashboard ×1', '2_/merchant/456/dashboard → 3_/pricing ×1']
    expect(edges(await q.paths({ pathsFilter: {} }))).toEqual(raw)
    expect(edges(await q.paths({ pathsFilter: { pathReplacements: false } }))).toEqual(raw)
    // Wren's own: asked for, the project's rule makes both merchants one step.
    expect(edges(await q.paths({ pathsFilter: { pathReplacements: true } }))).toEqual(['1_/merchant/:id/dashboard → 2_/pricing ×1'])
    const local = [{ regex: '/\\d+/', alias: '/:n/' }]
    expect(edges(await q.paths({ pathsFilter: { localPathCleaningFilters: local } }))).toEqual(['1_/merchant/:n/dashboard → 2_/pricing ×1'])
  })

  it('test_step_limit: the first steps of each path, with the persons behind an edge', async () => {
    // PostHog froze time at 2012-01-07: its default range.
    const dateRange = { date_from: '2011-12-31', date_to: '2012-01-07' }
    expect(await c.step_limit.paths({ dateRange, pathsFilter: { stepLimit: 2 } })).toEqual([link('1_/1', '2_/2', 1, ONE_MINUTE)])
    expect(await c.step_limit.actors({ dateRange, pathsFilter: { stepLimit: 2 } }, { pathStartKey: '1_/1', pathEndKey: '2_/2' })).toEqual([
      'fake',
    ])
    expect(await c.step_limit.actors({ dateRange, pathsFilter: { stepLimit: 2 } }, { pathStartKey: '2_/2', pathEndKey: '3_/3' })).toEqual(
      [],
    )
    expect(await c.step_limit.paths({ dateRange, pathsFilter: { stepLimit: 3 } })).toEqual([
      link('1_/1', '2_/2', 1, ONE_MINUTE),
      link('2_/2', '3_/3', 1, 2 * ONE_MINUTE),
    ])
    expect(await c.step_limit.paths({ dateRange, pathsFilter: { stepLimit: 4 } })).toEqual([
      link('1_/1', '2_/2', 1, ONE_MINUTE),
      link('2_/2', '3_/3', 1, 2 * ONE_MINUTE),
      link('3_/3', '4_/4', 1, 3 * ONE_MINUTE),
    ])
    for (const [start, end] of [
      ['1_/1', '2_/2'],
      ['2_/2', '3_/3'],
      ['3_/3', '4_/4'],
    ])
      expect(await c.step_limit.actors({ dateRange, pathsFilter: { stepLimit: 4 } }, { pathStartKey: start, pathEndKey: end })).toEqual([
        'fake',
      ])
  })

  it('test_step_conversion_times: average milliseconds between steps', async () => {
    expect(
      await c.conversion_times.paths({
        dateRange: { date_from: '2012-01-01' },
        pathsFilter: { stepLimit: 4, includeEventTypes: ['$pageview'] },
      }),
    ).toEqual([link('1_/1', '2_/2', 2, 1.5 * ONE_MINUTE), link('2_/2', '3_/3', 2, 3 * ONE_MINUTE), link('3_/3', '4_/4', 1, 3 * ONE_MINUTE)])
  })

  it('test_event_ordering: 50 similar paths stay in order', async () => {
    expect(
      await c.ordering.paths({
        dateRange: { date_from: '2021-05-01', date_to: '2021-05-03' },
        pathsFilter: { includeEventTypes: ['custom_event'] },
      }),
    ).toEqual([
      link('1_step one', '2_step two', 50, 60000),
      link('2_step two', '3_step three', 50, 60000),
      link('3_step three', '4_step branch', 25, 60000),
    ])
  })

  const may = { date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 00:00:00' }

  it('test_end: the last steps before an end point, trailing slashes alike', async () => {
    const expected = [
      link('1_/2', '2_/3', 1, 60000),
      link('1_/3', '2_/4', 1, 60000),
      link('1_/5', '2_/about', 1, 60000),
      link('2_/3', '3_/4', 1, 60000),
      link('2_/4', '3_/about', 1, 60000),
      link('3_/4', '4_/5', 1, 60000),
      link('4_/5', '5_/about', 1, 60000),
    ]
    expect(await c.end.paths({ dateRange: may, pathsFilter: { endPoint: '/about' } })).toEqual(expected)
    expect(await c.end.paths({ dateRange: may, pathsFilter: { endPoint: '/about/' } })).toEqual(expected)
  })

  it('test_event_inclusion_exclusion_filters: each event type alone, and excluded items', async () => {
    const run = (pathsFilter: Record<string, unknown>) =>
      c.inclusion_exclusion.paths({ dateRange: { date_from: '2012-01-01' }, pathsFilter: { stepLimit: 4, ...pathsFilter } })
    expect(await run({ includeEventTypes: ['$pageview'] })).toEqual([
      link('1_/1', '2_/2', 1, ONE_MINUTE),
      link('2_/2', '3_/3', 1, 2 * ONE_MINUTE),
    ])
    expect(await run({ includeEventTypes: ['$screen'] })).toEqual([
      link('1_/screen1', '2_/screen2', 1, ONE_MINUTE),
      link('2_/screen2', '3_/screen3', 1, 2 * ONE_MINUTE),
    ])
    expect(await run({ includeEventTypes: ['custom_event'] })).toEqual([
      link('1_/custom1', '2_/custom2', 1, ONE_MINUTE),
      link('2_/custom2', '3_/custom3', 1, 2 * ONE_MINUTE),
    ])
    expect(
      await run({ includeEventTypes: ['$pageview', '$screen', 'custom_event'], excludeEvents: ['/custom1', '/1', '/2', '/3'] }),
    ).toEqual([
      link('1_/custom2', '2_/custom3', 1, 2 * ONE_MINUTE),
      link('1_/screen1', '2_/screen2', 1, ONE_MINUTE),
      link('2_/screen2', '3_/screen3', 1, 2 * ONE_MINUTE),
    ])
  })

  const jan = { date_from: '2012-01-01' }

  it('test_event_exclusion_filters_with_wildcard_groups: an excluded grouping leaves the steps around it', async () => {
    const run = (pathGroupings: string[]) =>
      c.wildcards.paths({
        dateRange: jan,
        pathsFilter: { stepLimit: 4, includeEventTypes: ['$pageview'], excludeEvents: ['/bar/*/foo'], pathGroupings },
      })
    expect(await run(['/bar/*/foo'])).toEqual([link('1_/1', '2_/3', 3, 3 * ONE_MINUTE)])
    expect(await run(['/xxx/invalid/*'])).toHaveLength(6)
  })

  it('test_wildcard_groups_across_people: one grouping for three URLs', async () => {
    expect(
      await c.wildcards.paths({
        dateRange: jan,
        pathsFilter: { stepLimit: 4, includeEventTypes: ['$pageview'], pathGroupings: ['/bar/*/foo'] },
      }),
    ).toEqual([link('1_/1', '2_/bar/*/foo', 3, ONE_MINUTE), link('2_/bar/*/foo', '3_/3', 3, 2 * ONE_MINUTE)])
  })

  it('test_event_inclusion_exclusion_filters_across_single_person: types and exclusions in one path', async () => {
    const run = (pathsFilter: Record<string, unknown>) =>
      c.single_person.paths({ dateRange: jan, pathsFilter: { stepLimit: 10, ...pathsFilter } })
    const pages = [link('1_/1', '2_/2', 1, ONE_MINUTE), link('2_/2', '3_/3', 1, 2 * ONE_MINUTE)]
    const screens = [
      link('3_/3', '4_/screen1', 1, ONE_MINUTE),
      link('4_/screen1', '5_/screen2', 1, ONE_MINUTE),
      link('5_/screen2', '6_/screen3', 1, 2 * ONE_MINUTE),
    ]
    expect(await run({})).toEqual([
      ...pages,
      ...screens,
      link('6_/screen3', '7_/custom1', 1, ONE_MINUTE),
      link('7_/custom1', '8_/custom2', 1, ONE_MINUTE),
      link('8_/custom2', '9_/custom3', 1, 2 * ONE_MINUTE),
    ])
    expect(await run({ includeEventTypes: ['$pageview', '$screen'] })).toEqual([...pages, ...screens])
    expect(await run({ includeEventTypes: ['$pageview', 'custom_event'], excludeEvents: ['/custom1', '/custom3'] })).toEqual([
      ...pages,
      link('3_/3', '4_/custom2', 1, 6 * ONE_MINUTE),
    ])
  })

  it('test_respect_session_limits: a day apart is two sessions', async () => {
    expect(await c.sessions.paths({ dateRange: jan, pathsFilter: {} })).toEqual([
      link('1_/1', '2_/2', 2, ONE_MINUTE),
      link('2_/2', '3_/3', 2, 3 * ONE_MINUTE),
    ])
  })

  it('test_removes_duplicates: a repeated page is one step, timed from its last view', async () => {
    expect(await c.duplicates.paths({ dateRange: jan, pathsFilter: {} })).toEqual([
      link('1_/1', '2_/2', 2, 1.5 * ONE_MINUTE),
      link('2_/2', '3_/3', 2, 3 * ONE_MINUTE),
    ])
  })

  it('test_start_and_end: paths between two points, long ones shortened around "...", and their persons', async () => {
    const q = {
      dateRange: { date_from: '2012-05-01 00:00:00', date_to: '2021-05-07 00:00:00' },
      pathsFilter: { includeEventTypes: ['$pageview'], startPoint: '/5', endPoint: '/about' },
    }
    expect(await c.start_and_end.paths(q)).toEqual([link('1_/5', '2_/about', 2, 60000)])
    expect(await c.start_and_end.actors(q, { pathStartKey: '1_/5', pathEndKey: '2_/about' })).toEqual(['person_1', 'person_2'])
    const long = { ...q, pathsFilter: { ...q.pathsFilter, startPoint: '/2', stepLimit: 4 } }
    expect(await c.start_and_end.paths(long)).toEqual([
      link('1_/2', '2_/3', 1, ONE_MINUTE),
      link('2_/3', '3_...', 1, ONE_MINUTE),
      link('3_...', '4_/5', 1, ONE_MINUTE),
      link('4_/5', '5_/about', 1, ONE_MINUTE),
    ])
    expect(await c.start_and_end.actors(long, { pathStartKey: '3_...', pathEndKey: '4_/5' })).toEqual(['person_1'])
  })

  it('test_properties_queried_using_path_filter: with no types asked, an excluded $pageview is its event name', async () => {
    // PostHog's _should_query_event: no types asked and $pageview excluded: page views are not read as URLs
    // (and, with no types asked, nothing is excluded from the path).
    const links = await c.single_person.paths({ dateRange: jan, pathsFilter: { stepLimit: 10, excludeEvents: ['$pageview'] } })
    expect(links[0]).toEqual(link('1_$pageview', '2_/screen1', 1, ONE_MINUTE))
    expect(links).toHaveLength(6)
  })

  it('test_wildcard_groups_evil_input: groupings are literal text but for *', async () => {
    expect(
      await c.evil.paths({
        dateRange: jan,
        pathsFilter: { includeEventTypes: ['$pageview'], pathGroupings: ['(a+)+', '[aaa|aaaa]+', '1.*', '.*', '/3?q=1', '/3*'] },
      }),
    ).toEqual([
      link('1_/1', '2_/3*', 1, 3 * ONE_MINUTE),
      link(`1_${EVIL}`, '2_/2/bar/aaa', 1, ONE_MINUTE),
      link('2_/2/bar/aaa', '3_/3*', 1, 2 * ONE_MINUTE),
    ])
  })

  it('test_person_dropoffs: persons who stopped at, reached, or went on from a step', async () => {
    const q = { pathsFilter: { includeEventTypes: ['custom_event'] }, dateRange: may }
    const count = async (keys: Record<string, string>) => (await c.dropoffs.actors(q, keys)).length
    expect(await count({ pathDropoffKey: '2_step two' })).toBe(5)
    expect(await count({ pathEndKey: '2_step two' })).toBe(35)
    expect(await count({ pathStartKey: '2_step two' })).toBe(30)
    expect(await count({ pathDropoffKey: '3_step three' })).toBe(10)
    expect(await count({ pathEndKey: '3_step three' })).toBe(30)
    expect(await count({ pathStartKey: '3_step three' })).toBe(20)
    expect(await count({ pathDropoffKey: '4_step four' })).toBe(20)
    expect(await count({ pathEndKey: '4_step four' })).toBe(20)
    expect(await count({ pathStartKey: '4_step four' })).toBe(0)
  })

  it('test_start_dropping_orphaned_edges: an edge the edge limit cut off from the first step is dropped', async () => {
    expect(await c.orphans.paths({ dateRange: may, pathsFilter: { startPoint: '/2', edgeLimit: 6 } })).toEqual([
      link('1_/2', '2_/3', 5, 60000),
      link('2_/3', '3_/4', 5, 60000),
      link('3_/4', '4_/5', 5, 60000),
      link('4_/5', '5_/about', 5, 60000),
      link('1_/2', '2_/a', 1, 30000),
    ])
  })

  it('test_groups_filtering: by a group property of either group type', async () => {
    const run = (index: number, value: string) =>
      c.groups.paths({
        dateRange: { date_from: '2012-01-01', date_to: '2012-02-01' },
        properties: {
          type: 'AND',
          values: [
            { type: 'AND', values: [{ group_type_index: index, key: 'industry', operator: 'exact', type: 'group', value: [value] }] },
          ],
        },
        pathsFilter: { includeEventTypes: ['$pageview', '$screen', 'custom_event'], stepLimit: 4 },
      })
    expect(await run(0, 'finance')).toEqual([link('1_/1', '2_/2', 1, ONE_MINUTE), link('2_/2', '3_/3', 1, 2 * ONE_MINUTE)])
    expect(await run(0, 'technology')).toEqual([
      link('1_/screen1', '2_/screen2', 1, ONE_MINUTE),
      link('2_/screen2', '3_/screen3', 1, 2 * ONE_MINUTE),
    ])
    expect(await run(1, 'technology')).toEqual([
      link('1_/custom1', '2_/custom2', 1, ONE_MINUTE),
      link('2_/custom2', '3_/custom3', 1, 2 * ONE_MINUTE),
    ])
  })

  const day = { date_from: '2012-01-01 00:00:00', date_to: '2012-01-02 00:00:00' }

  it('test_recording, test_recording_with_no_window_or_session_id: the persons at a step (recordings are not listed)', async () => {
    const q = { dateRange: day, pathsFilter: { includeEventTypes: ['$pageview'] } }
    expect(await c.recording.actors(q, { pathEndKey: '2_/2' })).toEqual(['p1', 'p2'])
    expect(await c.recording_no_session.actors(q, { pathEndKey: '2_/2' })).toEqual(['p1'])
  })

  it('test_recording_with_start_and_end, test_recording_for_dropoff: the persons between two points, and who stopped', async () => {
    const q = { dateRange: day, pathsFilter: { includeEventTypes: ['$pageview'] } }
    const between = { ...q, pathsFilter: { ...q.pathsFilter, startPoint: '/1', endPoint: '/3' } }
    expect(await c.recording_start_end.actors(between, { pathEndKey: '2_/2' })).toEqual(['p1'])
    expect(await c.recording_start_end.actors(q, { pathDropoffKey: '2_/2' })).toEqual([])
    expect(await c.recording_start_end.actors(q, { pathDropoffKey: '3_/3' })).toEqual(['p1'])
  })

  describe('Wren’s own: the API’s edges', () => {
    const pages = { pathsFilter: { includeEventTypes: ['$pageview'] } }
    const all = ['1_/a → 2_/b ×3', '1_/a → 2_/c ×1', '2_/b → 3_/c ×1']

    it('keeps edges within minEdgeWeight / maxEdgeWeight, then drops those no path from a first step reaches', async () => {
      expect(edges(await c.own.paths(pages))).toEqual(all)
      expect(edges(await c.own.paths({ pathsFilter: { includeEventTypes: ['$pageview'], minEdgeWeight: 2 } }))).toEqual(['1_/a → 2_/b ×3'])
      // 2_/b → 3_/c is within the maximum, but the edge into 2_/b is not.
      expect(edges(await c.own.paths({ pathsFilter: { includeEventTypes: ['$pageview'], maxEdgeWeight: 1 } }))).toEqual(['1_/a → 2_/c ×1'])
      expect(edges(await c.own.paths({ pathsFilter: { includeEventTypes: ['$pageview'], edgeLimit: 1 } }))).toEqual(['1_/a → 2_/b ×3'])
    })

    it('reads a HogQL item beneath page views, and custom events by name', async () => {
      const links = await c.own.paths({
        pathsFilter: {
          includeEventTypes: ['$pageview', 'custom_event', 'hogql'],
          pathsHogQLExpression: "concat('at ', properties.$current_url)",
        },
      })
      expect(edges(links)).toContain('2_/c → 3_at /c ×1')
    })

    it('answers a saved insight, its legacy PATHS filters and a dashboard tile with the same edges', async () => {
      const at = (path: string) => `/api/projects/${c.own.id}${path}`
      const call = c.own.call
      const saved = await call('POST', at('/insights/'), {
        name: 'Paths',
        query: { kind: 'InsightVizNode', source: { kind: 'PathsQuery', ...pages } },
      })
      expect(saved.status, saved.text).toBe(201)
      const read = await call('GET', at(`/insights/${saved.body.id}/`))
      expect([read.status, read.body.result_unavailable]).toEqual([200, null])
      expect(edges(read.body.result)).toEqual(all)
      const legacy = await call('POST', at('/insights/'), {
        name: 'Legacy paths',
        filters: { insight: 'PATHS', include_event_types: ['$pageview'], min_edge_weight: 2, step_limit: 3 },
      })
      expect(legacy.status, legacy.text).toBe(201)
      expect(edges((await call('GET', at(`/insights/${legacy.body.id}/`))).body.result)).toEqual(['1_/a → 2_/b ×3'])
      const board = await call('POST', at('/dashboards/'), { name: 'Paths' })
      await call('PATCH', at(`/insights/${saved.body.id}/`), { dashboards: [board.body.id] })
      const tiles = await call('GET', at(`/dashboards/${board.body.id}/`))
      expect(edges(tiles.body.tiles[0].insight.result)).toEqual(all)
      const bad = await call('POST', at('/insights/'), { filters: { insight: 'PATHS', include_event_types: ['$autocapture'] } })
      expect([bad.status, bad.body.attr]).toEqual([400, 'include_event_types'])
    })

    it('refuses what it cannot apply with a 400 naming the field', async () => {
      const refused = async (query: Record<string, unknown>) => {
        const res = await c.own.call('POST', `/api/environments/${c.own.id}/query/`, { query: { kind: 'PathsQuery', ...query } })
        expect(res.status, res.text).toBe(400)
        return res.body.attr
      }
      expect(await refused({ pathsFilter: { stepLimit: 1000 } })).toBe('pathsFilter.stepLimit')
      expect(await refused({ pathsFilter: { includeEventTypes: ['$autocapture'] } })).toBe('pathsFilter.includeEventTypes')
      expect(await refused({ pathsFilter: { includeEventTypes: ['hogql'] } })).toBe('pathsFilter.pathsHogQLExpression')
      expect(await refused({ pathsFilter: { funnelPaths: 'x' } })).toBe('pathsFilter.funnelPaths')
      expect(await refused({ pathsFilter: {}, samplingFactor: 0.1 })).toBe('samplingFactor')
      expect(await refused({ pathsFilter: {}, aggregation_group_type_index: 0 })).toBe('aggregation_group_type_index')
      const setting = await c.own.call('PATCH', `/api/projects/${c.own.id}/`, { path_cleaning_filters: [{ regex: 3 }] })
      expect([setting.status, setting.body.attr]).toEqual([400, 'path_cleaning_filters[0]'])
    })
  })
})
