// Backpressure: while ingestion is stalled and the backlog passes WREN_MAX_BACKLOG, capture answers 503
// with Retry-After and a JSON error (what the SDKs retry on), decide keeps answering, and once ingestion
// catches up capture accepts again. Every event capture acknowledged is stored; none it refused is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { api, drained, startWren, waitFor, type TestWren } from '../support/wren'

describe('capture backpressure', () => {
  let t: TestWren
  let dir: string
  let stallFile: string
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wren-backpressure-'))
    stallFile = path.join(dir, 'stall')
    t = await startWren({ WREN_MAX_BACKLOG: '20', WREN_FAILPOINTS: `ingest-stall-file=${stallFile}` })
  })
  afterAll(async () => {
    await t?.close()
    await rm(dir, { recursive: true, force: true })
  })

  const acknowledged = new Set<string>()
  const refused = new Set<string>()
  let seq = 0
  /** Posts 5 events the way posthog-node does; remembers which were acknowledged and which refused. */
  const send = async () => {
    const batch = Array.from({ length: 5 }, () => ({
      event: 'flood',
      distinct_id: `user-${seq % 7}`,
      uuid: randomUUID(),
      properties: { n: seq++ },
    }))
    const res = await fetch(`${t.url}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: t.projectKey, batch }),
    })
    for (const e of batch) (res.status === 200 ? acknowledged : refused).add(e.uuid)
    return res
  }
  const decide = () =>
    fetch(`${t.url}/decide/?v=3`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: t.projectKey, distinct_id: 'user-1' }),
    })

  it('refuses capture with 503 and Retry-After past the backlog bound, keeps decide up, and accepts again after the catch-up', async () => {
    expect((await send()).status).toBe(200)
    await writeFile(stallFile, '')
    const full = await waitFor(
      async () => {
        const res = await send()
        return res.status === 503 ? res : false
      },
      { timeoutMs: 20_000, intervalMs: 50, what: 'capture to refuse events' },
    )
    expect(Number(full.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(full.headers.get('content-type')).toMatch(/^application\/json/)
    const error = (await full.json()) as { detail: string }
    expect(error).toMatchObject({ type: 'server_error', code: 'ingestion_backlog_full', attr: null })
    expect(error.detail).toMatch(/Ingestion is \d+ messages behind \(limit WREN_MAX_BACKLOG=20\)/)
    // Every path and the browser's beacon GET are refused alike; a preflight still answers.
    expect(
      (await fetch(`${t.url}/e/?ip=1`, { method: 'POST', body: JSON.stringify({ api_key: t.projectKey, event: 'x', distinct_id: 'y' }) }))
        .status,
    ).toBe(503)
    // Recordings' /s/ too.
    const snapshot = { event: '$snapshot', distinct_id: 'y', properties: { token: t.projectKey, $session_id: 's1', $snapshot_data: [] } }
    expect((await fetch(`${t.url}/s/`, { method: 'POST', body: JSON.stringify([snapshot]) })).status).toBe(503)
    expect(
      (
        await fetch(`${t.url}/e/`, {
          method: 'OPTIONS',
          headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
        })
      ).status,
    ).toBe(204)
    expect((await send()).status).toBe(503)

    // Decide is not capture: it keeps answering.
    const flags = await decide()
    expect(flags.status).toBe(200)
    expect(await flags.json()).toMatchObject({ errorsWhileComputingFlags: false })
    const health = (await (await fetch(`${t.url}/_health`)).json()) as any
    expect(health.capture).toMatchObject({ refusing: true, max_backlog: 20, recordings: { refusing: false } })
    const metrics = await (await fetch(`${t.url}/_metrics`)).text()
    expect(metrics).toMatch(/^wren_capture_backpressure 1$/m)
    expect(metrics).toMatch(/^wren_capture_requests_refused_total\{reason="backlog"\} [1-9]\d*$/m)

    // Ingestion resumes: once the backlog is drained capture accepts again.
    await rm(stallFile)
    await drained(t.wren)
    await waitFor(async () => (await send()).status === 200, { timeoutMs: 20_000, intervalMs: 200, what: 'capture to accept again' })
    await drained(t.wren)

    // Nothing acknowledged is lost, nothing refused is stored.
    const res = await api(t)('GET', `/api/projects/${t.projectId}/events/?event=flood&limit=1000`)
    const stored = new Set((res.body.results as Array<{ uuid?: string; id: string }>).map((e) => e.uuid ?? e.id))
    expect(refused.size).toBeGreaterThan(0)
    expect(stored).toEqual(acknowledged)
  })
})
