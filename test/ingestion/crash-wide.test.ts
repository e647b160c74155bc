// Kill -9 while a wide person's events are being copied into events (ingestion/persons/wide.ts): after the
// restart every one of them is stored exactly once, with the person's properties.
import { afterAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { api, spawnWren, waitFor, type WrenProcess } from '../support/wren'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'

const EVENTS = 3000
const KEYS = 100

describe('crash while wide events are copied', () => {
  let dataDir = ''
  let wren: WrenProcess | null = null
  afterAll(async () => {
    await wren?.stop()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  it('stores every event of a wide person exactly once after a SIGKILL in the middle of the copies', async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wren-crash-wide-'))
    const env = { WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX), WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX) }
    const wide = Object.fromEntries(Array.from({ length: KEYS }, (_, i) => [`wide_${i}`, `${i}:`.padEnd(1000, 'w')]))
    const uuids = Array.from({ length: EVENTS }, () => randomUUID())

    wren = await spawnWren(dataDir, env)
    const call = (w: WrenProcess) => api({ url: w.url, personalKey: env.WREN_PERSONAL_API_KEY })
    const res = await fetch(`${wren.url}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        api_key: env.WREN_PROJECT_API_KEY,
        batch: [
          { event: '$identify', distinct_id: 'wide', properties: { $set: wide } },
          ...uuids.map((uuid, n) => ({ event: 'wide_tick', distinct_id: 'wide', uuid, properties: { n } })),
        ],
      }),
    })
    expect(res.status).toBe(200)
    const stored = async (w: WrenProcess) => {
      const page = await call(w)('GET', `/api/projects/1/events/?event=wide_tick&limit=10000`)
      return page.body.results as Array<{ id: string }>
    }
    // Some copies are in events, not all: the process dies between two chunks, or inside one.
    const first = wren
    await waitFor(async () => (await stored(first)).length > 0, { timeoutMs: 120_000, intervalMs: 20, what: 'the first copies' })
    await first.stop('SIGKILL')

    wren = await spawnWren(dataDir, env)
    const again = wren
    const rows = await waitFor(
      async () => {
        const all = await stored(again)
        return all.length >= EVENTS ? all : false
      },
      { timeoutMs: 300_000, what: 'every wide event' },
    )
    const ids = rows.map((e) => e.id)
    expect(new Set(ids).size).toBe(ids.length) // none twice
    expect(new Set(ids)).toEqual(new Set(uuids)) // none lost
  }, 600_000)
})
