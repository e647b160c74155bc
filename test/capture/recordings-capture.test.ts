// Recordings' capture over HTTP: posthog-js's $snapshot requests to /s/ in every body encoding capture
// accepts, PostHog capture's answers to bad input, nothing stored for a project that has not opted in,
// and an opted-in project's snapshots stored as blocks that read back in the order they were sent.
import { gzipSync } from 'node:zlib'
import lzString from 'lz-string'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, startWren, waitFor, type TestWren } from '../support/wren'
import { ClickHouseBlockStore, type StoredBlock } from '../../services/recordings/blocks'

describe('POST /s/', () => {
  let t: TestWren
  let blocks: ClickHouseBlockStore
  beforeAll(async () => {
    t = await startWren({ WREN_RECORDINGS_WAIT_MS: '20' })
    blocks = new ClickHouseBlockStore(t.wren.clickhouse)
  })
  afterAll(async () => {
    await t?.close()
  })

  const start = Date.now()
  /** rrweb events at `start + offset` ms: a mouse move each, its offset in data.n. */
  const rrweb = (...offsets: number[]) => offsets.map((n) => ({ type: 3, timestamp: start + n, data: { source: 1, positions: [], n } }))
  /** One $snapshot event as posthog-js sends it. */
  const snapshot = (sessionId: unknown, windowId: string | undefined, data: unknown, extra: Record<string, unknown> = {}) => ({
    event: '$snapshot',
    distinct_id: 'user-1',
    offset: 10,
    properties: {
      token: t.projectKey,
      $session_id: sessionId,
      ...(windowId ? { $window_id: windowId } : {}),
      $snapshot_data: data,
      $snapshot_bytes: 100,
      $lib: 'web',
    },
    ...extra,
  })
  const post = (path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
    fetch(`${t.url}${path}`, { method: 'POST', headers: { 'content-type': 'text/plain', ...headers }, body })
  const snapshotsAppended = async () => (await t.wren.log.stats('wren_snapshots')).endOffset
  const stored = (sessionId: string, events: number) =>
    waitFor(
      async () => {
        const found = await blocks.blocks(t.projectId, sessionId)
        return found.reduce((n, b) => n + b.eventCount, 0) >= events ? found : false
      },
      { what: `${events} events of ${sessionId} to be stored` },
    )
  const lines = (found: StoredBlock[]) =>
    found.flatMap((b) =>
      b.events
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as [string, any]),
    )

  it('answers a project that has not opted in as PostHog does, and stores nothing', async () => {
    const res = await post('/s/', JSON.stringify([snapshot('opted-out', 'w', rrweb(0, 1))]), { 'content-type': 'application/json' })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ status: 'Ok' })
    expect(await snapshotsAppended()).toBe(0)
    const patched = await api(t)('PATCH', `/api/projects/${t.projectId}/`, { session_recording_opt_in: true })
    expect(patched.status).toBe(200)
  })

  it('takes every body encoding posthog-js and older SDKs send', async () => {
    const body = (session: string) => JSON.stringify([snapshot(session, 'w', rrweb(0, 1, 2))])
    const sent = [
      await post('/s/', body('plain-json'), { 'content-type': 'application/json' }),
      await post('/s/?compression=gzip-js&ver=1.200.0', gzipSync(body('gzip-hinted'))),
      await post('/s', gzipSync(body('gzip-sniffed'))),
      await post('/s/?compression=base64', Buffer.from(body('base64')).toString('base64')),
      await post('/s/', `data=${encodeURIComponent(Buffer.from(body('base64-form')).toString('base64'))}&compression=base64`, {
        'content-type': 'application/x-www-form-urlencoded',
      }),
      await post('/s/?compression=lz64', `data=${encodeURIComponent(lzString.compressToBase64(body('lz64')))}`, {
        'content-type': 'application/x-www-form-urlencoded',
      }),
    ]
    for (const res of sent) expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body: { status: 'Ok' } })
    for (const session of ['plain-json', 'gzip-hinted', 'gzip-sniffed', 'base64', 'base64-form', 'lz64']) {
      const found = await stored(session, 3)
      expect(
        lines(found).map(([w, e]) => [w, e.data.n]),
        session,
      ).toEqual([
        ['w', 0],
        ['w', 1],
        ['w', 2],
      ])
    }
  })

  it('stores a session’s snapshots as blocks that read back in the order they were sent, compressed events as sent', async () => {
    // posthog-js's partially compressed FullSnapshot (cv 2024-10): data is a gzip'd JSON string in latin1.
    const full = { type: 2, cv: '2024-10', timestamp: start + 5, data: gzipSync(JSON.stringify({ node: { id: 1 } })).toString('latin1') }
    const requests = [
      [snapshot('ordered', 'win-a', [...rrweb(0), full]), snapshot('ordered', 'win-a', rrweb(10))],
      [snapshot('ordered', 'win-b', rrweb(20, 30))],
      [snapshot('ordered', 'win-a', rrweb(40)), snapshot('ordered', 'win-a', rrweb(50)[0])],
    ]
    for (const events of requests) expect((await post('/s/', gzipSync(JSON.stringify(events)))).status).toBe(200)
    const found = await stored('ordered', 7)
    // Blocks in time order; within a window, its events in the order they were sent (how many blocks
    // depends on how the requests fell into the processor's batches).
    const starts = found.map((b) => b.firstTimestamp)
    expect(starts).toEqual([...starts].sort())
    const inWindow = (w: string) =>
      lines(found)
        .filter(([win]) => win === w)
        .map(([, e]) => (e.type === 2 ? 'full' : e.data.n))
    expect(inWindow('win-a')).toEqual([0, 'full', 10, 40, 50])
    expect(inWindow('win-b')).toEqual([20, 30])
    expect(lines(found).find(([, e]) => e.type === 2)![1]).toEqual(full)
    expect(found[0]).toMatchObject({ windowId: 'win-a', distinctId: 'user-1', snapshotSource: 'web', snapshotLibrary: 'web' })
    expect(found.every((b) => b.size === Buffer.byteLength(b.events))).toBe(true)
  })

  it('serves a stored recording to the player: its sources, then its blocks as JSONL', async () => {
    const call = api(t)
    const base = `/api/projects/${t.projectId}/session_recordings/ordered/snapshots`
    const stored = await blocks.blocks(t.projectId, 'ordered')
    const listed = await call('GET', base)
    expect(listed.status).toBe(200)
    expect(listed.body).toEqual({
      sources: stored.map((b, i) => ({
        source: 'blob_v2',
        start_timestamp: b.firstTimestamp,
        end_timestamp: b.lastTimestamp,
        blob_key: String(i),
      })),
    })
    const last = stored.length - 1
    const all = await call('GET', `${base}?source=blob_v2&start_blob_key=0&end_blob_key=${last}&decompress=true`)
    expect(all.status).toBe(200)
    expect(all.headers.get('content-type')).toMatch(/^application\/jsonl/)
    expect(all.headers.get('cache-control')).toBe('private, max-age=3600')
    expect(all.text).toBe(stored.map((b) => b.events).join(''))
    const one = await call('GET', `/api/environments/${t.projectId}/session_recordings/ordered/snapshots?source=blob_v2&blob_key=${last}`)
    expect(one.text).toBe(stored[last].events)

    for (const [query, status, attr] of [
      [`?source=blob_v2&start_blob_key=0&end_blob_key=${last + 1}`, 400, 'end_blob_key'],
      ['?source=blob_v2&start_blob_key=x&end_blob_key=0', 400, 'start_blob_key'],
      ['?source=blob_v2&start_blob_key=0&end_blob_key=20', 400, 'end_blob_key'],
      ['?source=realtime', 400, 'source'],
    ] as const) {
      const res = await call('GET', base + query)
      expect({ status: res.status, attr: res.body.attr }, query).toEqual({ status, attr })
    }
    expect((await call('GET', `/api/projects/${t.projectId}/session_recordings/never-recorded/snapshots`)).status).toBe(404)
    expect((await call('GET', base, undefined, null)).status).toBe(401)
  })

  it('takes the session, window, source and library from the first event, as PostHog capture does', async () => {
    const first = snapshot('first-wins', undefined, rrweb(0), { properties: undefined })
    first.properties = { token: t.projectKey, $session_id: 'first-wins', $snapshot_data: rrweb(0), $snapshot_source: 'mobile' } as any
    const res = await post('/s/', JSON.stringify([first, snapshot('another-session', 'other-window', rrweb(1))]), {
      'user-agent': 'posthog-android/3.1.0',
    })
    expect(res.status).toBe(200)
    const found = await stored('first-wins', 2)
    // No $window_id: the session id; no $lib: the posthog… user agent's name.
    expect(found.map((b) => [b.windowId, b.eventCount, b.snapshotSource, b.snapshotLibrary])).toEqual([
      ['first-wins', 2, 'mobile', 'posthog-android'],
    ])
    expect(await blocks.blocks(t.projectId, 'another-session')).toEqual([])
  })

  it('refuses bad input with PostHog capture’s errors, and stores none of it', async () => {
    const before = await snapshotsAppended()
    const refused = async (body: unknown[] | string, status: number, code: string, token?: string) => {
      const payload = typeof body === 'string' ? body : JSON.stringify(body)
      const res = await post('/s/', token === undefined ? payload : payload.replaceAll(t.projectKey, token))
      expect({ status: res.status, code: ((await res.json()) as { code: string }).code }, payload.slice(0, 200)).toEqual({ status, code })
    }
    await refused([snapshot(undefined, 'w', rrweb(0))], 400, 'missing_session_id')
    await refused([snapshot('', 'w', rrweb(0))], 400, 'missing_session_id')
    await refused([snapshot('a'.repeat(71), 'w', rrweb(0))], 400, 'invalid_session_id')
    await refused([snapshot('has spaces/and slashes', 'w', rrweb(0))], 400, 'invalid_session_id')
    await refused([snapshot(12345, 'w', rrweb(0))], 400, 'invalid_session_id')
    await refused([snapshot('s', 'w', undefined)], 400, 'missing_snapshot_data')
    await refused([snapshot('s', 'w', rrweb(0)), snapshot('s', 'w', 'not events')], 400, 'missing_snapshot_data')
    await refused([snapshot('s', 'w', rrweb(0), { distinct_id: undefined })], 400, 'missing_distinct_id')
    await refused([snapshot('s', 'w', rrweb(0))], 401, 'ingest_key_invalid', 'phc_not_a_project')
    await refused([snapshot('s', 'w', rrweb(0))], 401, 'ingest_key_required', '')
    await refused('[{"event": "$snapshot", ', 400, 'invalid_payload')
    await refused([], 400, 'empty_payload')
    expect((await post('/s/', Buffer.from([0x1f, 0x8b, 1, 2, 3]))).status).toBe(400)
    expect(await snapshotsAppended()).toBe(before)
  })

  it('tells posthog-js to record only for an opted-in project, with its recording settings', async () => {
    const call = api(t)
    const route = `/api/projects/${t.projectId}/`
    const configs = async () => {
      const post = (path: string) =>
        fetch(`${t.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ token: t.projectKey, distinct_id: 'user-1' }),
        }).then((r) => r.json() as Promise<{ sessionRecording: unknown }>)
      return [
        ((await (await fetch(`${t.url}/array/${t.projectKey}/config`)).json()) as { sessionRecording: unknown }).sessionRecording,
        (await post('/decide/?v=3')).sessionRecording,
        (await post('/flags/?v=2&config=true')).sessionRecording,
      ]
    }
    // Opted out: no recording, even when remote_config asks for one (its snapshots would be dropped).
    expect(
      (await call('PATCH', route, { session_recording_opt_in: false, remote_config: { sessionRecording: { endpoint: '/s/' } } })).status,
    ).toBe(200)
    expect(await configs()).toEqual([false, false, false])

    const patched = await call('PATCH', route, {
      session_recording_opt_in: true,
      capture_console_log_opt_in: false,
      session_recording_sample_rate: '0.5',
      session_recording_minimum_duration_milliseconds: 2000,
      session_recording_linked_flag: { id: 7, key: 'record-me', variant: 'test' },
      session_recording_network_payload_capture_config: { recordHeaders: true, recordBody: false },
      session_recording_url_blocklist_config: [{ url: '/admin', matching: 'regex' }],
      remote_config: null,
    })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({ session_recording_sample_rate: 0.5, session_recording_minimum_duration_milliseconds: 2000 })
    const expected = {
      endpoint: '/s/',
      consoleLogRecordingEnabled: false,
      recorderVersion: 'v2',
      sampleRate: '0.50',
      minimumDurationMilliseconds: 2000,
      linkedFlag: { flag: 'record-me', variant: 'test' },
      networkPayloadCapture: { recordHeaders: true, recordBody: false },
      urlBlocklist: [{ url: '/admin', matching: 'regex' }],
      urlTriggers: [],
      eventTriggers: [],
    }
    for (const config of await configs()) expect(config).toMatchObject(expected)

    // PostHog's defaults: console logs on, no sampling at a rate of 1, no minimum duration.
    await call('PATCH', route, {
      capture_console_log_opt_in: null,
      session_recording_sample_rate: 1,
      session_recording_minimum_duration_milliseconds: null,
      session_recording_linked_flag: null,
    })
    for (const config of await configs())
      expect(config).toMatchObject({
        consoleLogRecordingEnabled: true,
        sampleRate: null,
        minimumDurationMilliseconds: null,
        linkedFlag: null,
      })
    for (const [body, attr] of [
      [{ session_recording_sample_rate: 1.5 }, 'session_recording_sample_rate'],
      [{ session_recording_sample_rate: 'half' }, 'session_recording_sample_rate'],
      [{ session_recording_minimum_duration_milliseconds: 30_001 }, 'session_recording_minimum_duration_milliseconds'],
      [{ session_recording_linked_flag: { id: 1 } }, 'session_recording_linked_flag'],
      [{ session_recording_trigger_match_type_config: 'some' }, 'session_recording_trigger_match_type_config'],
    ] as const) {
      const res = await call('PATCH', route, body)
      expect({ status: res.status, attr: res.body.attr }).toEqual({ status: 400, attr })
    }
  })

  it('answers browsers from any site and is in the OpenAPI document', async () => {
    const preflight = await fetch(`${t.url}/s/`, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://shop.example')
    const posted = await post('/s/', JSON.stringify([snapshot('from-a-shop', 'w', rrweb(0))]), { origin: 'https://shop.example' })
    expect(posted.status).toBe(200)
    expect(posted.headers.get('access-control-allow-origin')).toBe('https://shop.example')
    expect(posted.headers.get('access-control-allow-credentials')).toBe('true')
    const doc = (await (await fetch(`${t.url}/api/schema/`)).json()) as { paths: Record<string, Record<string, unknown>> }
    expect(Object.keys(doc.paths['/s'] ?? {})).toContain('post')
  })
})
