// The recordings list's semantics where they are PostHog's own (posthog/session_recordings/queries/
// session_recording_list_from_query.py and its tests under queries/test/listing_recordings/): `ongoing` by
// when data last arrived, an action entry's own filters, `{id: null}` events, an empty distinct_ids, cohort
// filters, operand OR between person filters, and negative event filters that hold for every event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_TEST_ACCOUNT_FILTERS } from '../../services/analytics/project-settings'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'
import { createProject } from '../support/management'
import { recordingsProcessed, sendSnapshots } from '../support/recordings'

/** rrweb events of a short session at `at` (a page, a click). */
const page = (at: number, href: string) => [
  { type: 4, timestamp: at, data: { href, width: 800, height: 600 } },
  { type: 3, timestamp: at + 500, data: { source: 2, type: 2, id: 1, x: 10, y: 10 } },
]

// One Wren for the file, on a clock the ongoing recordings' case moves (it runs last, in a project of its own).
let t: TestWren
beforeAll(async () => {
  t = await startWren({ WREN_NOW: new Date().toISOString(), WREN_RECORDINGS_WAIT_MS: '20' })
})
afterAll(async () => {
  await t?.close()
})

describe('recordings list filters as PostHog reads them', () => {
  let call: ReturnType<typeof api>
  let base: string
  const start = Math.floor((Date.now() - 120_000) / 1000) * 1000
  /** The ids the list answers for these query parameters (JSON values encoded). */
  const ids = async (query: Record<string, unknown> = {}) => {
    const qs = new URLSearchParams(
      Object.entries(query).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)] as [string, string]),
    )
    const res = await call('GET', `${base}?${qs}`)
    expect(res.status, res.text).toBe(200)
    return res.body.results.map((r: { id: string }) => r.id)
  }
  const setTestAccounts = async (filters: unknown[]) =>
    expect((await call('PATCH', `/api/projects/${t.projectId}/`, { test_account_filters: filters })).status).toBe(200)
  const event = (key: string, operator: string, value: unknown) => ({ key, operator, value, type: 'event' })
  const person = (key: string, operator: string, value: unknown) => ({ key, operator, value, type: 'person' })

  beforeAll(async () => {
    call = api(t)
    base = `/api/projects/${t.projectId}/session_recordings/`
    expect((await call('PATCH', `/api/projects/${t.projectId}/`, { session_recording_opt_in: true })).status).toBe(200)
    await setTestAccounts([])
    // ann (a corp.example person) viewed a page in Firefox and signed up in Chrome on a local server;
    // ben (on the pro plan) viewed a page in Chrome; cat clicked in Safari.
    await captureBatch(t, [
      {
        event: '$pageview',
        distinct_id: 'ann',
        properties: { $session_id: 'sem-ann', $browser: 'Firefox', $host: 'shop.example', $set: { email: 'ann@corp.example' } },
      },
      { event: 'signed_up', distinct_id: 'ann', properties: { $session_id: 'sem-ann', $browser: 'Chrome', $host: 'localhost:3000' } },
      {
        event: '$pageview',
        distinct_id: 'ben',
        properties: { $session_id: 'sem-ben', $browser: 'Chrome', $host: 'shop.example', $set: { plan: 'pro' } },
      },
      { event: 'clicked', distinct_id: 'cat', properties: { $session_id: 'sem-cat', $browser: 'Safari', $host: 'shop.example' } },
    ])
    await drained(t.wren)
    await sendSnapshots(t, { sessionId: 'sem-ann', distinctId: 'ann', events: page(start, 'https://shop.example/a') })
    await sendSnapshots(t, { sessionId: 'sem-ben', distinctId: 'ben', events: page(start + 1_000, 'https://shop.example/b') })
    await sendSnapshots(t, { sessionId: 'sem-cat', distinctId: 'cat', events: page(start + 2_000, 'https://shop.example/c') })
    await recordingsProcessed(t.wren)
  })

  it('refines an action by the entry’s own properties', async () => {
    const action = await call('POST', `/api/projects/${t.projectId}/actions/`, { name: 'Viewed a page', steps: [{ event: '$pageview' }] })
    expect(action.status).toBe(201)
    expect(await ids({ actions: [{ id: action.body.id }] })).toEqual(['sem-ben', 'sem-ann'])
    expect(await ids({ actions: [{ id: action.body.id, properties: [event('$browser', 'exact', 'Firefox')] }] })).toEqual(['sem-ann'])
    expect(await ids({ actions: [{ id: action.body.id, properties: [event('$browser', 'exact', 'Safari')] }] })).toEqual([])
  })

  it('reads an events entry with id null as any event', async () => {
    // What PostHog's frontend sends for "All events".
    expect(await ids({ events: [{ id: null, name: 'All events', type: 'events' }] })).toEqual(['sem-cat', 'sem-ben', 'sem-ann'])
    expect(
      await ids({ events: [{ id: null, name: 'All events', type: 'events', properties: [event('$browser', 'exact', 'Safari')] }] }),
    ).toEqual(['sem-cat'])
    // ann's Chrome event is not a pageview; ben's is.
    expect(await ids({ events: [{ id: '$pageview', properties: [event('$browser', 'exact', 'Chrome')] }] })).toEqual(['sem-ben'])
  })

  it('takes an empty distinct_ids as no filter', async () => {
    expect(await ids({ distinct_ids: [] })).toEqual(['sem-cat', 'sem-ben', 'sem-ann'])
    expect(await ids({ distinct_ids: ['cat'] })).toEqual(['sem-cat'])
  })

  it('filters by cohort, in properties and in the test-account filters', async () => {
    const cohort = await call('POST', `/api/projects/${t.projectId}/cohorts/`, {
      name: 'Corp',
      filters: { properties: { type: 'AND', values: [person('email', 'icontains', 'corp.example')] } },
    })
    expect(cohort.status, cohort.text).toBe(201)
    const inCorp = { type: 'cohort', key: 'id', value: cohort.body.id }
    expect(await ids({ properties: [inCorp] })).toEqual(['sem-ann'])
    expect(await ids({ properties: [{ ...inCorp, operator: 'not_in' }] })).toEqual(['sem-cat', 'sem-ben'])
    const unknown = await call('GET', `${base}?properties=${encodeURIComponent(JSON.stringify([{ ...inCorp, value: 987654 }]))}`)
    expect({ status: unknown.status, attr: unknown.body.attr }).toEqual({ status: 400, attr: 'properties' })
    await setTestAccounts([{ ...inCorp, operator: 'not_in' }])
    try {
      expect(await ids({ filter_test_accounts: 'true' })).toEqual(['sem-cat', 'sem-ben'])
      expect(await ids({ filter_test_accounts: 'false' })).toEqual(['sem-cat', 'sem-ben', 'sem-ann'])
    } finally {
      await setTestAccounts([])
    }
  })

  it('joins person filters with operand OR', async () => {
    const persons = [person('plan', 'exact', 'pro'), person('email', 'icontains', 'corp.example')]
    expect(await ids({ properties: persons })).toEqual([])
    expect(await ids({ properties: persons, operand: 'OR' })).toEqual(['sem-ben', 'sem-ann'])
    expect(await ids({ properties: persons, operand: 'AND' })).toEqual([])
  })

  it('drops a session when any of its events fails a negative event filter', async () => {
    // Wren's (and PostHog's) default: no traffic from a local server. ann signed up on localhost.
    await setTestAccounts(DEFAULT_TEST_ACCOUNT_FILTERS)
    try {
      expect(await ids({ filter_test_accounts: 'true' })).toEqual(['sem-cat', 'sem-ben'])
    } finally {
      await setTestAccounts([])
    }
    await setTestAccounts([event('$browser', 'not_icontains', 'chrome')])
    try {
      expect(await ids({ filter_test_accounts: 'true' })).toEqual(['sem-cat'])
    } finally {
      await setTestAccounts([])
    }
    // The same in `properties` (PostHog adds the test-account filters to them).
    expect(await ids({ properties: [event('$browser', 'is_not', 'Chrome')] })).toEqual(['sem-cat'])
    expect(await ids({ properties: [event('$host', 'not_regex', '^localhost')] })).toEqual(['sem-cat', 'sem-ben'])
    // Positive filters still need one event only.
    expect(await ids({ properties: [event('$browser', 'exact', 'Chrome')] })).toEqual(['sem-ben', 'sem-ann'])
  })
})

describe('ongoing recordings', () => {
  let project: { id: number; api_token: string }
  let now: number
  const MINUTE = 60_000
  const travelTo = (at: number) => {
    ;(t.wren.clock as { now: () => Date }).now = () => new Date(at)
  }
  const list = (path = '') => api(t)('GET', `/api/projects/${project.id}/session_recordings/${path}`)

  beforeAll(async () => {
    now = Date.now()
    project = await createProject(t, 'Ongoing')
    expect((await api(t)('PATCH', `/api/projects/${project.id}/`, { session_recording_opt_in: true })).status).toBe(200)
    const to = { url: t.url, projectKey: project.api_token }
    // Sent ten minutes ago, its events then fresh; and sent now, with events from half an hour ago (a tab
    // that buffered them, or a session still being sent after a while).
    travelTo(now - 10 * MINUTE)
    await sendSnapshots(to, { sessionId: 'sent-earlier', distinctId: 'u1', events: page(now - 10 * MINUTE, 'https://shop.example/') })
    await recordingsProcessed(t.wren)
    travelTo(now)
    await sendSnapshots(to, { sessionId: 'still-sending', distinctId: 'u2', events: page(now - 30 * MINUTE, 'https://shop.example/') })
    await recordingsProcessed(t.wren)
  })

  it('is ongoing while data for it arrived in the last five minutes, however old its events', async () => {
    const res = await list()
    expect(res.status).toBe(200)
    const ongoing = Object.fromEntries(res.body.results.map((r: { id: string; ongoing: boolean }) => [r.id, r.ongoing]))
    expect(ongoing).toEqual({ 'still-sending': true, 'sent-earlier': false })
    expect((await list('still-sending/')).body.ongoing).toBe(true)
    // Five minutes on, nothing more arrived.
    travelTo(now + 6 * MINUTE)
    expect((await list('still-sending/')).body.ongoing).toBe(false)
  })
})
