// HogQL property filters ({"type": "hogql", "key": "<a boolean HogQL expression>"}) everywhere filters are
// taken: trends, the events and persons lists, the recordings list (events entries, properties, the
// test-account filters), cohorts and action steps. PostHog reads one as parse_expr(key) over the rows the
// query reads (posthog/hogql/property.py property_to_expr); its recordings list reads one against a
// session's events, or against its person when it names only person.properties (is_event_property /
// is_person_property in posthog/session_recordings/queries/utils.py; tests in
// queries/test/listing_recordings/test_session_recording_list_hogql_filters.py). Wren compiles them with its
// HogQL printer (analytics/hogql/), and a construct outside HogQL is a 400 naming it, on every surface.
// Run on chDB and on the ClickHouse HTTP test fixture.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startClickHouseFixture, type ClickHouseFixture } from '../support/clickhouse-http'
import { recordingsProcessed, sendSnapshots } from '../support/recordings'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'

/** rrweb events of a short session at `at` (a page, a click). */
const page = (at: number, href: string) => [
  { type: 4, timestamp: at, data: { href, width: 800, height: 600 } },
  { type: 3, timestamp: at + 500, data: { source: 2, type: 2, id: 1, x: 10, y: 10 } },
]
const hogql = (key: string) => ({ type: 'hogql', key })
const LANDING = 'https://shop.example/landing'
const CHECKOUT = 'https://shop.example/checkout'
const BLOG = 'https://shop.example/blog'
/** PostHog's plain session property filter (`type: "session"`). */
const session = (key: string, operator: string, value: unknown) => ({ type: 'session', key, operator, value })
/** Outside HogQL: a function it does not have (PostHog's HogQL has rand(), which Wren's old subset refused). */
const OUTSIDE = "properties.tier = 'gold' OR sleep(1) > 0"

const BACKENDS: Array<{ name: string; env: () => Promise<Record<string, string>> }> = [
  { name: 'chDB', env: async () => ({}) },
  {
    name: 'ClickHouse HTTP',
    env: async () => {
      fixture = await startClickHouseFixture()
      return fixture.env
    },
  },
]
let fixture: ClickHouseFixture | undefined

describe.each(BACKENDS)('HogQL property filters on $name', ({ env }) => {
  let t: TestWren
  let call: ReturnType<typeof api>
  const start = Math.floor((Date.now() - 120_000) / 1000) * 1000
  const q = (query: Record<string, unknown>) =>
    new URLSearchParams(
      Object.entries(query).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)] as [string, string]),
    ).toString()
  const get = async (path: string, query: Record<string, unknown>) => call('GET', `/api/projects/${t.projectId}/${path}?${q(query)}`)
  const ok = async (res: Promise<{ status: number; body: any; text: string }>) => {
    const r = await res
    expect(r.status, r.text).toBe(200)
    return r.body
  }
  /** A 400 that names the construct outside HogQL (`sleep`) and the parameter it is in. */
  const refused = async (res: Promise<{ status: number; body: any; text: string }>, attr: string) => {
    const r = await res
    expect({ status: r.status, code: r.body?.code, attr: r.body?.attr }, r.text).toEqual({ status: 400, code: 'invalid_hogql', attr })
    expect(r.body.detail).toContain("function 'sleep' is not available")
  }
  const recordings = async (query: Record<string, unknown>) =>
    (await ok(get('session_recordings/', query))).results.map((r: { id: string }) => r.id).sort()
  const events = async (properties: unknown[]) =>
    (await ok(get('events/', { properties }))).results.map((e: any) => `${e.distinct_id}:${e.event}`).sort()
  const persons = async (properties: unknown[]) =>
    (await ok(get('persons/', { properties }))).results.map((p: any) => p.distinct_ids[0]).sort()
  const trend = async (body: Record<string, unknown>) =>
    call('POST', `/api/environments/${t.projectId}/insights/trend/`, { date_from: '-7d', ...body })
  const total = async (body: Record<string, unknown>) => {
    const result = (await ok(trend(body))).result
    return result.map((s: { count: number }) => s.count)
  }
  const setTestAccounts = (filters: unknown[]) => call('PATCH', `/api/projects/${t.projectId}/`, { test_account_filters: filters })

  beforeAll(async () => {
    t = await startWren({ WREN_RECORDINGS_WAIT_MS: '20', ...(await env()) })
    call = api(t)
    expect((await call('PATCH', `/api/projects/${t.projectId}/`, { session_recording_opt_in: true })).status).toBe(200)
    expect((await setTestAccounts([])).status).toBe(200)
    // Persons: ann and ben on the pro plan, cat on the free one.
    await captureBatch(t, [
      { event: '$set', distinct_id: 'ann', properties: { $set: { plan: 'pro', email: 'ann@corp.example' } } },
      { event: '$set', distinct_id: 'ben', properties: { $set: { plan: 'pro' } } },
      { event: '$set', distinct_id: 'cat', properties: { $set: { plan: 'free' } } },
    ])
    await drained(t.wren)
    // Events: ann viewed a gold page, ben a silver one, cat clicked something gold.
    await captureBatch(t, [
      { event: '$pageview', distinct_id: 'ann', properties: { $session_id: 'hq-ann', tier: 'gold', amount: 12 } },
      { event: '$pageview', distinct_id: 'ben', properties: { $session_id: 'hq-ben', tier: 'silver', amount: 3 } },
      { event: 'clicked', distinct_id: 'cat', properties: { $session_id: 'hq-cat', tier: 'gold', amount: 7 } },
    ])
    await drained(t.wren)
    await sendSnapshots(t, { sessionId: 'hq-ann', distinctId: 'ann', events: page(start, 'https://shop.example/a') })
    await sendSnapshots(t, { sessionId: 'hq-ben', distinctId: 'ben', events: page(start + 1_000, 'https://shop.example/b') })
    await sendSnapshots(t, { sessionId: 'hq-cat', distinctId: 'cat', events: page(start + 2_000, 'https://shop.example/c') })
    // Sessions: dan's lasts 100 s (two pageviews, landing → checkout, then a purchase), eve's one blog pageview.
    const at = (ms: number) => new Date(start + ms).toISOString()
    await captureBatch(t, [
      { event: '$pageview', distinct_id: 'dan', timestamp: at(3_000), properties: { $session_id: 'hq-long', $current_url: LANDING } },
      { event: '$pageview', distinct_id: 'dan', timestamp: at(93_000), properties: { $session_id: 'hq-long', $current_url: CHECKOUT } },
      { event: 'purchased', distinct_id: 'dan', timestamp: at(103_000), properties: { $session_id: 'hq-long' } },
      { event: '$pageview', distinct_id: 'eve', timestamp: at(4_000), properties: { $session_id: 'hq-short', $current_url: BLOG } },
    ])
    await drained(t.wren)
    await sendSnapshots(t, { sessionId: 'hq-long', distinctId: 'dan', events: page(start + 3_000, LANDING) })
    await sendSnapshots(t, { sessionId: 'hq-short', distinctId: 'eve', events: page(start + 4_000, BLOG) })
    await recordingsProcessed(t.wren)
  })
  afterAll(async () => {
    await t?.close()
    await fixture?.stop()
    fixture = undefined
  })

  it('filters trends by the event and its person, and names the filter when it is outside the subset', async () => {
    expect(await total({ events: [{ id: '$pageview' }], properties: [hogql("properties.tier = 'gold'")] })).toEqual([1])
    expect(await total({ events: [{ id: '$pageview' }], properties: [hogql("person.properties.plan = 'pro'")] })).toEqual([2])
    expect(await total({ events: [{ id: '$pageview', properties: [hogql('toInt(properties.amount) > 5')] }] })).toEqual([1])
    await refused(trend({ events: [{ id: '$pageview' }], properties: [hogql(OUTSIDE)] }), 'properties')
    // The whole expression language, as PostHog's: IN lists, lambdas, CASE, PostHog's functions (rand).
    expect(await total({ events: [{ id: '$pageview' }], properties: [hogql("properties.tier IN ('gold', 'platinum')")] })).toEqual([1])
    expect(
      await total({ events: [{ id: '$pageview' }], properties: [hogql("arrayExists(t -> t = properties.tier, ['silver'])")] }),
    ).toEqual([1])
    expect(
      await total({
        events: [{ id: '$pageview' }],
        properties: [hogql("CASE WHEN properties.tier = 'gold' THEN 1 ELSE 0 END = 1 AND rand() >= 0")],
      }),
    ).toEqual([1])
  })

  it('filters the events list, and never returns every event for a filter it cannot apply', async () => {
    expect(await events([hogql("properties.tier = 'gold'")])).toEqual(['ann:$pageview', 'cat:clicked'])
    expect(await events([hogql("properties.tier = 'gold' AND event = '$pageview'")])).toEqual(['ann:$pageview'])
    expect(await events([hogql("person.properties.plan = 'free'")])).toEqual(['cat:$set', 'cat:clicked'])
    expect(await events([hogql("properties.tier = 'platinum'")])).toEqual([])
    await refused(get('events/', { properties: [hogql(OUTSIDE)] }), 'properties')
    // A filter must be a condition on the row, not a value or an aggregate.
    for (const key of ['properties.tier', "countIf(properties.tier = 'gold') > 0"]) {
      const res = await get('events/', { properties: [hogql(key)] })
      expect({ status: res.status, code: res.body?.code }, key).toEqual({ status: 400, code: 'invalid_hogql' })
    }
  })

  it('filters the persons list by the person’s own properties', async () => {
    expect(await persons([hogql("properties.plan = 'pro'")])).toEqual(['ann', 'ben'])
    expect(await persons([hogql("person.properties.plan = 'free'")])).toEqual(['cat'])
    expect(await persons([hogql("properties.email LIKE '%corp.example'")])).toEqual(['ann'])
    await refused(get('persons/', { properties: [hogql(OUTSIDE)] }), 'properties')
    // A person has no event columns.
    const res = await get('persons/', { properties: [hogql("event = '$pageview'")] })
    expect({ status: res.status, code: res.body?.code }).toEqual({ status: 400, code: 'invalid_hogql' })
    expect(res.body.detail).toContain("'event' is not a field of persons")
  })

  it('filters recordings by a HogQL filter in an events entry', async () => {
    const entry = (key: string) => ({ events: [{ id: '$pageview', type: 'events', properties: [hogql(key)] }] })
    expect(await recordings(entry("properties.tier = 'gold'"))).toEqual(['hq-ann'])
    expect(await recordings(entry("person.properties.plan = 'pro'"))).toEqual(['hq-ann', 'hq-ben'])
    expect(await recordings(entry("properties.tier = 'platinum'"))).toEqual([])
    await refused(get('session_recordings/', entry(OUTSIDE)), 'events')
  })

  it('filters recordings by a HogQL filter in properties: the session’s events, or its person', async () => {
    expect(await recordings({ properties: [hogql("properties.tier = 'gold'")] })).toEqual(['hq-ann', 'hq-cat'])
    expect(await recordings({ properties: [hogql("person.properties.plan = 'pro'")] })).toEqual(['hq-ann', 'hq-ben'])
    expect(await recordings({ properties: [hogql("properties.tier = 'gold'"), hogql("person.properties.plan = 'pro'")] })).toEqual([
      'hq-ann',
    ])
    await refused(get('session_recordings/', { properties: [hogql(OUTSIDE)] }), 'properties')
  })

  it('filters recordings by HogQL test-account filters, and refuses one outside the subset when it is saved', async () => {
    try {
      expect((await setTestAccounts([hogql("person.properties.plan != 'free'")])).status).toBe(200)
      expect(await recordings({ filter_test_accounts: 'true' })).toEqual(['hq-ann', 'hq-ben'])
      expect(await recordings({ filter_test_accounts: 'false' })).toEqual(['hq-ann', 'hq-ben', 'hq-cat', 'hq-long', 'hq-short'])
      expect((await setTestAccounts([hogql("properties.tier = 'gold'")])).status).toBe(200)
      expect(await recordings({ filter_test_accounts: 'true' })).toEqual(['hq-ann', 'hq-cat'])
      // Trends read the same filters.
      expect(await total({ events: [{ id: '$pageview' }], filter_test_accounts: true })).toEqual([1])
      await refused(setTestAccounts([hogql(OUTSIDE)]), 'test_account_filters')
    } finally {
      await setTestAccounts([])
    }
  })

  it('defines a cohort by a HogQL filter over the person', async () => {
    const cohort = await call('POST', `/api/projects/${t.projectId}/cohorts/`, {
      name: 'Pro',
      filters: { properties: { type: 'AND', values: [hogql("properties.plan = 'pro'")] } },
    })
    expect(cohort.status, cohort.text).toBe(201)
    const inCohort = { type: 'cohort', key: 'id', value: cohort.body.id }
    expect(await persons([inCohort])).toEqual(['ann', 'ben'])
    expect(await recordings({ properties: [inCohort] })).toEqual(['hq-ann', 'hq-ben'])
    expect(await total({ events: [{ id: '$pageview' }, { id: 'clicked' }], properties: [inCohort] })).toEqual([2, 0])
    await refused(
      call('POST', `/api/projects/${t.projectId}/cohorts/`, {
        name: 'Bad',
        filters: { properties: { type: 'AND', values: [hogql(OUTSIDE)] } },
      }),
      'filters',
    )
  })

  it('matches an action step by a HogQL filter', async () => {
    const action = await call('POST', `/api/projects/${t.projectId}/actions/`, {
      name: 'Gold page',
      steps: [{ event: '$pageview', properties: [hogql("properties.tier = 'gold'")] }],
    })
    expect(action.status, action.text).toBe(201)
    expect(await recordings({ actions: [{ id: action.body.id, type: 'actions' }] })).toEqual(['hq-ann'])
    expect(await total({ actions: [{ id: action.body.id }] })).toEqual([1])
    await refused(
      call('POST', `/api/projects/${t.projectId}/actions/`, { name: 'Bad', steps: [{ event: '$pageview', properties: [hogql(OUTSIDE)] }] }),
      'steps',
    )
  })

  // The session of an event (PostHog's session.<field>, sessions_v2.py): computed from the session's events.
  it('filters and breaks down trends by the event’s session', async () => {
    expect(await total({ events: [{ id: '$pageview' }], properties: [hogql('session.$session_duration > 60')] })).toEqual([2])
    expect(await total({ events: [{ id: '$pageview' }], properties: [hogql('session.$pageview_count = 1')] })).toEqual([3])
    expect(await total({ events: [{ id: '$pageview', properties: [hogql(`session.$exit_current_url = '${CHECKOUT}'`)] }] })).toEqual([2])
    expect(await total({ events: [{ id: '$pageview', properties: [hogql(`session.$end_current_url = '${CHECKOUT}'`)] }] })).toEqual([2])
    expect(await total({ events: [{ id: '$pageview', properties: [hogql("session.$end_pathname = '/checkout'")] }] })).toEqual([2])
    expect(await total({ events: [{ id: '$pageview', properties: [hogql("session.$entry_pathname = '/landing'")] }] })).toEqual([2])
    expect(await total({ events: [{ id: '$pageview', properties: [hogql('session.$screen_count = 0')] }] })).toEqual([5])
    const res = await ok(trend({ events: [{ id: 'purchased' }], breakdown_type: 'hogql', breakdown: 'session.$entry_current_url' }))
    expect(res.result.map((s: { breakdown_value: string; count: number }) => [s.breakdown_value, s.count])).toEqual([[LANDING, 1]])
    expect(await total({ events: [{ id: 'purchased', math: 'hogql', math_hogql: 'max(session.$session_duration)' }] })).toEqual([100])
    const bad = await trend({ events: [{ id: '$pageview' }], properties: [hogql('session.$channel_type = 1')] })
    expect({ status: bad.status, code: bad.body?.code }, bad.text).toEqual({ status: 400, code: 'invalid_hogql' })
    expect(bad.body.detail).toContain("'session.$channel_type' is not a session field")
  })

  it('filters the events list by the event’s session, as HogQL or a session filter', async () => {
    const long = ['dan:$pageview', 'dan:$pageview', 'dan:purchased']
    expect(await events([hogql(`session.$entry_current_url = '${LANDING}'`)])).toEqual(long)
    expect(await events([hogql("session.$session_duration > 60 AND event = 'purchased'")])).toEqual(['dan:purchased'])
    expect(await events([hogql('session.$pageview_count = 1 AND session.$start_timestamp <= session.$end_timestamp')])).toEqual([
      'ann:$pageview',
      'ben:$pageview',
      'eve:$pageview',
    ])
    expect(await events([session('$session_duration', 'gt', 60)])).toEqual(long)
    expect(await events([session('$entry_current_url', 'exact', BLOG)])).toEqual(['eve:$pageview'])
  })

  it('refuses session fields where the row is a person, naming the construct', async () => {
    const res = await get('persons/', { properties: [hogql('session.$session_duration > 60')] })
    expect({ status: res.status, code: res.body?.code }, res.text).toEqual({ status: 400, code: 'invalid_hogql' })
    expect(res.body.detail).toContain("'session.$session_duration': a person has no session")
    const plain = await get('persons/', { properties: [session('$session_duration', 'gt', 60)] })
    expect({ status: plain.status, attr: plain.body?.attr }, plain.text).toEqual({ status: 400, attr: 'properties' })
    expect(plain.body.detail).toContain('a person has no session')
    const cohort = await call('POST', `/api/projects/${t.projectId}/cohorts/`, {
      name: 'Long',
      filters: { properties: { type: 'AND', values: [hogql('session.$session_duration > 60')] } },
    })
    expect({ status: cohort.status, attr: cohort.body?.attr }, cohort.text).toEqual({ status: 400, attr: 'filters' })
    expect(cohort.body.detail).toContain('a person has no session')
  })

  it('filters recordings by the session’s properties, in properties, events entries and test-account filters', async () => {
    expect(await recordings({ properties: [hogql('session.$session_duration > 60')] })).toEqual(['hq-long'])
    expect(await recordings({ properties: [session('$entry_current_url', 'exact', BLOG)] })).toEqual(['hq-short'])
    expect(await recordings({ properties: [session('$pageview_count', 'gt', 5)] })).toEqual([])
    const entry = { events: [{ id: '$pageview', type: 'events', properties: [hogql('session.$pageview_count >= 2')] }] }
    expect(await recordings(entry)).toEqual(['hq-long'])
    try {
      expect((await setTestAccounts([session('$session_duration', 'lt', 60)])).status).toBe(200)
      expect(await recordings({ filter_test_accounts: 'true' })).toEqual(['hq-ann', 'hq-ben', 'hq-cat', 'hq-short'])
    } finally {
      await setTestAccounts([])
    }
  })
})
