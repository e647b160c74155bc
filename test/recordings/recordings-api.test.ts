// The recordings API over HTTP: snapshots a project's users send to /s/ show up in the list and retrieve
// routes with PostHog's metadata (reference §4.3): counts, start url, duration, newest first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'
import { recordingsProcessed, sendSnapshots } from '../support/recordings'

describe('GET /api/projects/:id/session_recordings/', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  const start = Date.now() - 60_000

  /** rrweb events of one page view: a meta href, clicks, an input and a console error. */
  const meta = (at: number, href: string) => ({ type: 4, timestamp: start + at, data: { href, width: 800, height: 600 } })
  const click = (at: number) => ({ type: 3, timestamp: start + at, data: { source: 2, type: 2, id: 1, x: 10, y: 10 } })
  const input = (at: number) => ({ type: 3, timestamp: start + at, data: { source: 5, id: 2, text: 'hi', isChecked: false } })
  const consoleError = (at: number) => ({
    type: 6,
    timestamp: start + at,
    data: { plugin: 'rrweb/console@1', payload: { level: 'error', payload: ['"boom"'], trace: [] } },
  })
  const send = (sessionId: string, distinctId: string, events: unknown[]) =>
    sendSnapshots(t, { sessionId, distinctId, events, properties: { $lib: 'web' } })
  const processed = () => recordingsProcessed(t.wren)

  beforeAll(async () => {
    t = await startWren({ WREN_RECORDINGS_WAIT_MS: '20' })
    call = api(t)
    expect((await call('PATCH', `/api/projects/${t.projectId}/`, { session_recording_opt_in: true })).status).toBe(200)
    // One session in two requests (so two log batches may hold it), then a later second session.
    await send('rec-api-1', 'user-1', [meta(0, 'https://example.com/start'), click(1_000), click(2_000), input(3_000)])
    await processed()
    await send('rec-api-1', 'user-1', [meta(20_000, 'https://example.com/next'), click(21_000), consoleError(22_000), input(25_000)])
    await send('rec-api-2', 'user-2', [meta(30_000, 'https://example.com/other'), click(31_000)])
    await processed()
  })
  afterAll(async () => {
    await t?.close()
  })

  it('lists the recordings newest first with their metadata', async () => {
    const res = await call('GET', `/api/projects/${t.projectId}/session_recordings/`)
    expect(res.status).toBe(200)
    expect(res.body.has_next).toBe(false)
    expect(res.body.results.map((r: any) => r.id)).toEqual(['rec-api-2', 'rec-api-1'])
    const first = res.body.results[1]
    expect(first).toMatchObject({
      id: 'rec-api-1',
      distinct_id: 'user-1',
      viewed: false,
      recording_duration: 25,
      click_count: 3,
      keypress_count: 2,
      console_error_count: 1,
      console_log_count: 0,
      console_warn_count: 0,
      start_url: 'https://example.com/start',
      start_time: new Date(start).toISOString(),
      end_time: new Date(start + 25_000).toISOString(),
      snapshot_source: 'web',
      ongoing: true,
    })
    expect(first.active_seconds + first.inactive_seconds).toBeCloseTo(25)
    expect(res.body.results[0]).toMatchObject({ id: 'rec-api-2', distinct_id: 'user-2', click_count: 1, recording_duration: 1 })
  })

  it('pages with limit and filters by distinct id, person, duration and date', async () => {
    const base = `/api/environments/${t.projectId}/session_recordings/`
    const page = await call('GET', `${base}?limit=1`)
    expect(page.body.results.map((r: any) => r.id)).toEqual(['rec-api-2'])
    expect(page.body.has_next).toBe(true)
    expect((await call('GET', `${base}?limit=1&offset=1`)).body.results.map((r: any) => r.id)).toEqual(['rec-api-1'])
    expect((await call('GET', `${base}?distinct_id=user-1`)).body.results.map((r: any) => r.id)).toEqual(['rec-api-1'])
    expect((await call('GET', `${base}?min_duration=10`)).body.results.map((r: any) => r.id)).toEqual(['rec-api-1'])
    const from = encodeURIComponent(new Date(start + 10_000).toISOString())
    expect((await call('GET', `${base}?date_from=${from}`)).body.results.map((r: any) => r.id)).toEqual(['rec-api-2'])
    expect((await call('GET', `${base}?date_to=${from}`)).body.results.map((r: any) => r.id)).toEqual(['rec-api-1'])
    await captureBatch(t, [{ event: 'pageview', distinct_id: 'user-2', properties: {} }])
    await drained(t.wren)
    const person = (await call('GET', `/api/projects/${t.projectId}/persons/?distinct_id=user-2`)).body.results[0]
    expect((await call('GET', `${base}?person_uuid=${person.uuid}`)).body.results.map((r: any) => r.id)).toEqual(['rec-api-2'])
    expect((await call('GET', `${base}?person_uuid=${crypto.randomUUID()}`)).body.results).toEqual([])
    const bad = await call('GET', `${base}?date_from=yesterday-ish`)
    expect(bad.status).toBe(400)
    expect(bad.body.attr).toBe('date_from')
    expect((await call('GET', `${base}?limit=0`)).status).toBe(400)
  })

  it('retrieves one recording, and answers 404 for an unknown id', async () => {
    const res = await call('GET', `/api/projects/${t.projectId}/session_recordings/rec-api-1/`)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ id: 'rec-api-1', click_count: 3, keypress_count: 2, start_url: 'https://example.com/start' })
    const missing = await call('GET', `/api/projects/${t.projectId}/session_recordings/no-such-session/`)
    expect(missing.status).toBe(404)
    expect(missing.body.type).toBe('invalid_request')
  })

  it('refuses a request without a valid key', async () => {
    const none = await fetch(`${t.url}/api/projects/${t.projectId}/session_recordings/`)
    expect(none.status).toBe(401)
    const wrong = await fetch(`${t.url}/api/projects/${t.projectId}/session_recordings/rec-api-1/`, {
      headers: { authorization: `Bearer ${t.projectKey}` },
    })
    expect(wrong.status).toBe(401)
  })
})
