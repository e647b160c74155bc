// HogQL property filters ({"type": "hogql", "key": "<a boolean HogQL expression>"}) everywhere filters are
// taken: trends, the events and persons lists, the recordings list (events entries, properties, the
// test-account filters), cohorts and action steps. PostHog reads one as parse_expr(key) over the rows the
// query reads (posthog/hogql/property.py property_to_expr); its recordings list reads one against a
// session's events, or against its person when it names only person.properties (is_event_property /
// is_person_property in posthog/session_recordings/queries/utils.py; tests in
// queries/test/listing_recordings/test_session_recording_list_hogql_filters.py). Wren compiles them with its
// HogQL subset (shared/query/hogql.ts), and a construct outside it is a 400 naming it, on every surface.
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
/** Outside Wren's subset: a function it does not have. */
const OUTSIDE = "properties.tier = 'gold' OR rand() > 0"

const BACKENDS: Array<{ name: string; env: () => Promise<Record<string, string>> }> = [
  { name: 'chDB', env: async () => ({}) },
  {
    name: 'ClickHouse HTTP',
    env: async () => {
      fixture = await startClickHouseFixture()
      return { CLICKHOUSE_URL: fixture.url, CLICKHOUSE_USER: fixture.user, CLICKHOUSE_PASSWORD: fixture.password }
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
  /** A 400 that names the construct outside the subset (`rand`) and the parameter it is in. */
  const refused = async (res: Promise<{ status: number; body: any; text: string }>, attr: string) => {
    const r = await res
    expect({ status: r.status, code: r.body?.code, attr: r.body?.attr }, r.text).toEqual({ status: 400, code: 'invalid_hogql', attr })
    expect(r.body.detail).toContain("function 'rand' is not available")
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
      expect(await recordings({ filter_test_accounts: 'false' })).toEqual(['hq-ann', 'hq-ben', 'hq-cat'])
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
})
