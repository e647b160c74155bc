// SIGTERM while ingestion works through a long batch: the batch stops at its next part (what it wrote is
// replayed and deduplicated at the next start), so shutdown ends within WREN_SHUTDOWN_TIMEOUT_MS with code 0,
// never by a signal (chDB torn down under a write), and every acknowledged event is stored exactly once.
import { afterAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { api, spawnWren, waitFor, type WrenProcess } from '../support/wren'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'

const EVENTS = 4_000
const TIMEOUT_MS = 4_000

describe('shutdown under a long batch', () => {
  let dataDir = ''
  let wren: WrenProcess | null = null
  afterAll(async () => {
    await wren?.stop('SIGKILL')
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  it('SIGTERM mid-batch exits 0 within the deadline; after a restart every acknowledged event is stored once', async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wren-shutdown-'))
    const env = {
      WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX),
      WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX),
      // One batch of the whole backlog, written in hundreds of small parts: a batch of many seconds.
      WREN_INGEST_BATCH: String(EVENTS),
      WREN_INGEST_PART: '10',
      WREN_SHUTDOWN_TIMEOUT_MS: String(TIMEOUT_MS),
    }

    // The backlog, captured while ingestion is stalled (its first batch fails until the file goes).
    const stall = path.join(dataDir, 'stall')
    await writeFile(stall, '')
    wren = await spawnWren(dataDir, { ...env, WREN_FAILPOINTS: `ingest-stall-file=${stall}` })
    const acknowledged: string[] = []
    for (let sent = 0; sent < EVENTS; sent += 500) {
      const batch = Array.from({ length: 500 }, (_, i) => ({
        uuid: randomUUID(),
        event: 'backlog',
        distinct_id: `user-${(sent + i) % 10}`,
        properties: { n: sent + i },
      }))
      const res = await fetch(`${wren.url}/batch/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: env.WREN_PROJECT_API_KEY, batch }),
      })
      expect(res.status).toBe(200)
      acknowledged.push(...batch.map((e) => e.uuid))
    }
    expect(await wren.stop('SIGTERM')).toBe(0)
    await rm(stall)

    // Ingestion starts on the backlog as one batch (after the stalled one); SIGTERM lands in the middle of it.
    wren = await spawnWren(dataDir, env, 'start')
    // The batch is under way once its first parts are stored (rather than after a fixed second).
    const stored = api({ url: wren.url, personalKey: env.WREN_PERSONAL_API_KEY })
    await waitFor(async () => (await stored('GET', '/api/projects/1/events/?event=backlog&limit=1')).body?.results?.length, {
      intervalMs: 50,
      what: 'the first parts of the batch stored',
    })
    const started = Date.now()
    const child = wren.child
    const code = await wren.stop('SIGTERM')
    const took = Date.now() - started
    expect({ code, signal: child.signalCode }, wren.output()).toEqual({ code: 0, signal: null })
    expect(took).toBeLessThan(TIMEOUT_MS)
    expect(wren.output()).not.toContain('did not finish in time')

    // The next start writes the interrupted batch again: nothing lost, nothing twice.
    wren = await spawnWren(dataDir, env, 'start')
    const call = api({ url: wren.url, personalKey: env.WREN_PERSONAL_API_KEY })
    let ids: string[] = []
    await waitFor(
      async () => {
        ids = []
        let next: string | null = `/api/projects/1/events/?event=backlog&limit=10000`
        while (next) {
          const res = await call('GET', next.replace(/^https?:\/\/[^/]+/, ''))
          ids.push(...(res.body.results as Array<{ id: string }>).map((e) => e.id))
          next = res.body.next
        }
        return ids.length >= EVENTS
      },
      { timeoutMs: 90_000, intervalMs: 500, what: 'the backlog stored' },
    )
    expect(new Set(ids).size).toBe(ids.length)
    expect(new Set(ids)).toEqual(new Set(acknowledged))
  }, 240_000)
})
