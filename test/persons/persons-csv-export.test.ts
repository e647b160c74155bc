// The persons CSV export (issue 12, item 11): every person, past the old 10,000-row cut, streamed with
// the same columns as before. Wren runs as its own process so that its peak memory during the export can
// be read from /proc and printed (measured, never asserted).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parse } from 'csv-parse/sync'
import { api, spawnWren, waitFor, type WrenProcess } from '../support/wren'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'

const PERSONS = 12_000
const BATCH = 3_000

describe('persons CSV export', () => {
  const keys = { WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX), WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX) }
  let dataDir: string
  let wren: WrenProcess
  let persons: string

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wren-csv-export-'))
    wren = await spawnWren(dataDir, keys)
    const call = api({ url: wren.url, personalKey: keys.WREN_PERSONAL_API_KEY })
    const projectId = (await call('GET', '/api/projects/')).body.results[0].id as number
    persons = `/api/projects/${projectId}/persons/`
    // One $identify per person, a millisecond apart: person 0 is the oldest, so the last row of the export.
    // Only it has a second distinct id and the property `note`: columns that appear on the last row only.
    const base = Date.parse('2026-01-01T00:00:00Z')
    const events = Array.from({ length: PERSONS }, (_, i) => ({
      event: '$identify',
      distinct_id: `user-${i}`,
      timestamp: new Date(base + i).toISOString(),
      properties: {
        $set: { email: `user-${i}@example.com`, ...(i === 0 ? { note: 'oldest, with "quotes", a comma\nand a newline' } : {}) },
        ...(i === 0 ? { $anon_distinct_id: 'anon-0' } : {}),
      },
    }))
    for (let i = 0; i < events.length; i += BATCH) {
      const res = await fetch(`${wren.url}/batch/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: keys.WREN_PROJECT_API_KEY, batch: events.slice(i, i + BATCH) }),
      })
      expect(res.status).toBe(200)
    }
    await waitFor(async () => (await call('GET', `${persons}?limit=1`)).body?.count === PERSONS, {
      timeoutMs: 60_000,
      what: `${PERSONS} persons`,
    })
  }, 90_000)

  afterAll(async () => {
    await wren?.stop()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  it('exports every person, streamed, with the columns of the rows in the order they first appear', async () => {
    const rss = rssSampler(wren.child.pid!)
    const started = Date.now()
    const res = await fetch(`${wren.url}${persons}?format=csv`, { headers: { authorization: `Bearer ${keys.WREN_PERSONAL_API_KEY}` } })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/)
    const text = await res.text()
    const seconds = (Date.now() - started) / 1000
    const { before, peak } = rss.stop()
    console.log(
      `persons CSV export: ${PERSONS} persons, ${(text.length / 2 ** 20).toFixed(1)} MiB in ${seconds.toFixed(1)} s; ` +
        `Wren's RSS ${before} MiB before, at most ${peak} MiB during it (+${peak - before} MiB)`,
    )
    // Streamed: no length known up front, the body goes out in chunks as it is read from ClickHouse.
    expect(res.headers.get('transfer-encoding')).toBe('chunked')
    expect(res.headers.get('content-length')).toBeNull()

    const rows = parse(text) as string[][]
    const [header, ...body] = rows
    // The columns as the CSV has always had them: the first row's, then keys first seen on later rows.
    expect(header).toEqual([
      'id',
      'name',
      'distinct_ids.0',
      'properties.email',
      'properties.$creator_event_uuid',
      'created_at',
      'uuid',
      'is_identified',
      'user_access_level',
      'distinct_ids.1',
      'properties.note',
    ])
    expect(body).toHaveLength(PERSONS)
    expect(new Set(body.map((r) => r[2])).size).toBe(PERSONS)
    expect(body[0].slice(1, 4)).toEqual(['user-11999@example.com', 'user-11999', 'user-11999@example.com'])
    const oldest = body[PERSONS - 1]
    expect(oldest[header.indexOf('properties.note')]).toBe('oldest, with "quotes", a comma\nand a newline')
    expect([oldest[2], oldest[header.indexOf('distinct_ids.1')]].sort()).toEqual(['anon-0', 'user-0'])
    expect(body[1][header.indexOf('distinct_ids.1')]).toBe('')
  }, 60_000)
})

/** Samples a process's resident memory (VmRSS, MiB) every 10 ms until stopped. */
function rssSampler(pid: number): { stop(): { before: number; peak: number } } {
  const read = () => Math.round(Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024)
  const before = read()
  let peak = before
  const timer = setInterval(() => (peak = Math.max(peak, read())), 10)
  return {
    stop() {
      clearInterval(timer)
      return { before, peak: Math.max(peak, read()) }
    },
  }
}
