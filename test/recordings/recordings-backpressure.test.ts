// Recordings' backpressure: while the recordings processor is stalled and its backlog passes
// WREN_MAX_RECORDINGS_BACKLOG, /s/ answers 503 with Retry-After (the error events get past WREN_MAX_BACKLOG)
// while events are still accepted; once the processor catches up /s/ accepts again. Every snapshot /s/
// acknowledged is stored; none it refused is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { api, startWren, waitFor, type TestWren } from '../support/wren'
import { recordingsProcessed } from '../support/recordings'

describe('recordings backpressure', () => {
  let t: TestWren
  let dir: string
  let stallFile: string
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wren-recordings-backpressure-'))
    stallFile = path.join(dir, 'stall')
    t = await startWren({
      WREN_MAX_RECORDINGS_BACKLOG: '5',
      WREN_RECORDINGS_WAIT_MS: '20',
      WREN_FAILPOINTS: `recordings-stall-file=${stallFile}`,
    })
    expect((await api(t)('PATCH', `/api/projects/${t.projectId}/`, { session_recording_opt_in: true })).status).toBe(200)
  })
  afterAll(async () => {
    await t?.close()
    await rm(dir, { recursive: true, force: true })
  })

  const acknowledged = new Set<string>()
  const refused = new Set<string>()
  let seq = 0
  const start = Date.now() - 60_000
  /** Posts one session's snapshot the way posthog-js does; remembers whether it was acknowledged or refused. */
  const send = async () => {
    const n = seq++
    const session = `bp-session-${n}`
    const res = await fetch(`${t.url}/s/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        {
          event: '$snapshot',
          distinct_id: 'user-1',
          properties: {
            token: t.projectKey,
            $session_id: session,
            $window_id: 'w1',
            $snapshot_data: [
              { type: 4, timestamp: start + n, data: { href: 'https://shop.example/', width: 800, height: 600 } },
              { type: 3, timestamp: start + n + 1, data: { source: 2, type: 2, id: 1, x: 10, y: 10 } },
            ],
          },
        },
      ]),
    })
    ;(res.status === 200 ? acknowledged : refused).add(session)
    return res
  }
  const capture = () =>
    fetch(`${t.url}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: t.projectKey, batch: [{ event: 'still-captured', distinct_id: 'user-1' }] }),
    })

  it('refuses /s/ with 503 and Retry-After past the recordings backlog, keeps capturing events, and accepts /s/ again after the catch-up', async () => {
    expect((await send()).status).toBe(200)
    await recordingsProcessed(t.wren)
    await writeFile(stallFile, '')
    const full = await waitFor(
      async () => {
        const res = await send()
        return res.status === 503 ? res : false
      },
      { timeoutMs: 20_000, intervalMs: 50, what: '/s/ to refuse snapshots' },
    )
    expect(Number(full.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(full.headers.get('content-type')).toMatch(/^application\/json/)
    const error = (await full.json()) as { detail: string }
    // Its own code: the recordings bound refused it, not ingestion's.
    expect(error).toMatchObject({ type: 'server_error', code: 'recordings_backlog_full', attr: null })
    expect(error.detail).toMatch(/Recordings processing is \d+ messages behind \(limit WREN_MAX_RECORDINGS_BACKLOG=5\)/)
    expect((await send()).status).toBe(503)

    // Events are another stage's backlog: they are still accepted.
    expect((await capture()).status).toBe(200)
    const health = (await (await fetch(`${t.url}/_health`)).json()) as any
    expect(health.capture).toMatchObject({ refusing: false, recordings: { refusing: true, max_backlog: 5 } })
    expect(health.capture.recordings.max_backlog_bytes).toBeGreaterThan(0)
    const metrics = await (await fetch(`${t.url}/_metrics`)).text()
    expect(metrics).toMatch(/^wren_recordings_backpressure 1$/m)
    expect(metrics).toMatch(/^wren_capture_backpressure 0$/m)
    expect(metrics).toMatch(/^wren_capture_requests_refused_total\{reason="recordings_backlog"\} [1-9]\d*$/m)

    // The processor resumes: once the backlog is drained /s/ accepts again.
    await rm(stallFile)
    await recordingsProcessed(t.wren)
    await waitFor(async () => (await send()).status === 200, { timeoutMs: 20_000, intervalMs: 200, what: '/s/ to accept again' })
    await recordingsProcessed(t.wren)
    const after = (await (await fetch(`${t.url}/_health`)).json()) as any
    expect(after.capture.recordings.refusing).toBe(false)

    // Nothing acknowledged is lost, nothing refused is stored.
    const res = await api(t)('GET', `/api/projects/${t.projectId}/session_recordings/?limit=1000`)
    expect(res.status, res.text).toBe(200)
    const stored = new Set((res.body.results as Array<{ id: string }>).map((r) => r.id))
    expect(refused.size).toBeGreaterThan(0)
    expect(stored).toEqual(acknowledged)
  })
})
