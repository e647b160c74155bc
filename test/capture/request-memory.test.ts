// The SDK intake's one memory budget (WREN_REQUEST_MEMORY_BYTES): concurrent large /s/ and /batch/ bodies
// past it are answered 503 with Retry-After, every one acknowledged is stored, and the budget is back to 0
// after; a refused request is answered before its body is read (a body that never finishes gets the 503
// anyway), whether it announced its length or streams it chunked; one larger than the whole budget is
// served when it is alone; decide's flag answers share the budget.
import http from 'node:http'
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, drained, startWren, waitFor, type TestWren } from '../support/wren'
import { recordingsProcessed } from '../support/recordings'

/** Each request is charged 10× its body (services/platform/http/memory-budget.ts). */
const BUDGET = 25 * 1024 * 1024

describe('request memory budget', () => {
  let t: TestWren
  beforeAll(async () => {
    t = await startWren({ WREN_REQUEST_MEMORY_BYTES: String(BUDGET), WREN_RECORDINGS_WAIT_MS: '20' })
    expect((await api(t)('PATCH', `/api/projects/${t.projectId}/`, { session_recording_opt_in: true })).status).toBe(200)
  })
  afterAll(async () => {
    await t?.close()
  })

  const inUse = async () => {
    const text = await (await fetch(`${t.url}/_metrics`)).text()
    return Number(/^wren_request_memory_bytes (\S+)$/m.exec(text)?.[1])
  }
  const refusals = async () => {
    const text = await (await fetch(`${t.url}/_metrics`)).text()
    return Number(/^wren_request_memory_refused_total (\S+)$/m.exec(text)?.[1])
  }
  const pad = 'x'.repeat(1000)
  /** ~1 MB of rrweb events for one session: charged ~10 MB, so two fit in the budget at once. */
  const snapshotBody = (sessionId: string) =>
    JSON.stringify([
      {
        event: '$snapshot',
        distinct_id: 'user-1',
        properties: {
          token: t.projectKey,
          $session_id: sessionId,
          $window_id: 'w1',
          $snapshot_data: Array.from({ length: 1000 }, (_, n) => ({ type: 3, timestamp: Date.now() + n, data: { pad } })),
        },
      },
    ])
  /** ~1 MB batch of 200 events named `event`. */
  const batchBody = (event: string) =>
    JSON.stringify({
      api_key: t.projectKey,
      batch: Array.from({ length: 200 }, () => ({ event, distinct_id: 'user-1', uuid: randomUUID(), properties: { pad: pad.repeat(5) } })),
    })
  /** A request whose headers announce `length` bytes (or none: chunked) and whose body never finishes. */
  const unfinished = (length: number | null) => {
    const req = http.request(`${t.url}/s/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(length === null ? {} : { 'content-length': String(length) }) },
    })
    req.on('error', () => {})
    req.write('['.padEnd(64 * 1024, ' '))
    const answer = new Promise<http.IncomingMessage & { text: string }>((resolve) =>
      req.on('response', (res) => {
        let text = ''
        res.on('data', (c: Buffer) => (text += c.toString()))
        res.on('end', () => resolve(Object.assign(res, { text })))
      }),
    )
    return { req, answer }
  }

  it('refuses concurrent large /s/ and /batch/ bodies past the budget with 503 and Retry-After, and stores every one it acknowledged', async () => {
    const sent = Array.from({ length: 16 }, (_, i) => {
      const recording = i % 2 === 0
      const name = recording ? `budget-session-${i}` : `budget-event-${i}`
      return fetch(`${t.url}${recording ? '/s/' : '/batch/'}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: recording ? snapshotBody(name) : batchBody(name),
      }).then(async (res) => ({ recording, name, res, body: (await res.json()) as Record<string, unknown> }))
    })
    const answers = await Promise.all(sent)
    const refused = answers.filter((a) => a.res.status === 503)
    const acknowledged = answers.filter((a) => a.res.status === 200)
    expect(refused.length).toBeGreaterThan(0)
    expect(acknowledged.length).toBeGreaterThan(0)
    expect(refused.length + acknowledged.length).toBe(answers.length)
    for (const { res, body } of refused) {
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
      expect(body).toMatchObject({ type: 'server_error', code: 'busy_with_large_requests' })
      expect(body.detail).toMatch(/WREN_REQUEST_MEMORY_BYTES=26214400/)
    }
    expect(await refusals()).toBe(refused.length)
    expect(await inUse()).toBe(0)

    // Every acknowledged request is stored; none refused is.
    await drained(t.wren)
    await recordingsProcessed(t.wren)
    for (const { recording, name, res } of answers) {
      if (recording) {
        const found = await api(t)('GET', `/api/projects/${t.projectId}/session_recordings/${name}/`)
        expect(found.status, name).toBe(res.status === 200 ? 200 : 404)
      } else {
        const found = await api(t)('GET', `/api/projects/${t.projectId}/events/?event=${name}&limit=500`)
        expect(found.body.results.length, name).toBe(res.status === 200 ? 200 : 0)
      }
    }
    // And the server answers normally afterwards.
    const after = await fetch(`${t.url}/batch/`, { method: 'POST', body: batchBody('budget-after') })
    expect(after.status).toBe(200)
  })

  it('serves a body larger than the budget alone, and refuses another before reading its body, announced or chunked', async () => {
    // 19 MB announced: charged 190 MB, over the 25 MB budget, but nothing else is running.
    const alone = unfinished(19 * 1024 * 1024)
    await waitFor(async () => (await inUse()) === 19 * 1024 * 1024 * 10, { what: 'the lone request to be charged' })

    // While it holds the budget, another 19 MB upload is answered at once: its body is never sent in full.
    const announced = unfinished(19 * 1024 * 1024)
    const refused = await announced.answer
    expect(refused.statusCode).toBe(503)
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
    expect(JSON.parse(refused.text)).toMatchObject({ code: 'busy_with_large_requests' })
    announced.req.destroy()

    // A chunked body (no Content-Length) is charged as it arrives, and refused once over.
    const chunked = unfinished(null)
    const refusedChunked = await chunked.answer
    expect(refusedChunked.statusCode).toBe(503)
    expect(Number(refusedChunked.headers['retry-after'])).toBeGreaterThan(0)
    chunked.req.destroy()

    // Decide's flag answers share the budget: a body is refused, a request without one still answered.
    const flags = await fetch(`${t.url}/flags/?v=2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: t.projectKey, distinct_id: 'user-1', person_properties: { pad: pad.repeat(100) } }),
    })
    expect(flags.status).toBe(503)
    expect(Number(flags.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await fetch(`${t.url}/decide/`)).status).toBe(200)

    // The lone request gives its charge back when its client goes away.
    alone.req.destroy()
    await waitFor(async () => (await inUse()) === 0, { what: 'the budget to be released' })
    expect((await fetch(`${t.url}/batch/`, { method: 'POST', body: batchBody('budget-after-abort') })).status).toBe(200)
    expect(await inUse()).toBe(0)
  })
})
