// A message that kills the ingestion worker thread (a failpoint makes the worker exit on an event of a
// given name, as a message that ran it out of memory would) does not stall ingestion or take the process
// down: the range is retried on a new worker, then isolated; the message goes to dead letters with the
// worker's exit as its error, every other event is stored once, and ingestion goes on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { api, captureBatch, spawnWren, waitFor, type WrenProcess } from '../support/wren'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'

describe('a message that kills the ingestion worker', () => {
  const env = {
    WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX),
    WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX),
    WREN_INGEST_MAX_RETRIES: '1',
    WREN_FAILPOINTS: 'ingest-worker-exit-event=kills-worker',
  }
  let dataDir = ''
  let wren: WrenProcess | null = null
  const call = () => api({ url: wren!.url, personalKey: env.WREN_PERSONAL_API_KEY })
  const ids = async (event: string) => {
    const res = await call()('GET', `/api/projects/1/events/?event=${event}&limit=1000`)
    return ((res.body?.results ?? []) as Array<{ id: string }>).map((e) => e.id)
  }

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wren-worker-crash-'))
    wren = await spawnWren(dataDir, env)
  })
  afterAll(async () => {
    await wren?.stop()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  it('is dead-lettered alone; every other event is stored once and ingestion goes on', async () => {
    const killer = randomUUID()
    const good = (n: number) => ({ event: 'good', distinct_id: `user-${n % 5}`, uuid: randomUUID(), properties: { n, $set: { n } } })
    const before = Array.from({ length: 40 }, (_, n) => good(n))
    const after = Array.from({ length: 40 }, (_, n) => good(40 + n))
    await captureBatch({ url: wren!.url, projectKey: env.WREN_PROJECT_API_KEY }, [
      ...before,
      { event: 'kills-worker', distinct_id: 'user-1', uuid: killer, properties: {} },
      ...after,
    ])
    await waitFor(async () => (await ids('good')).length === 80, { timeoutMs: 45_000, what: '80 good events' })
    const stored = await ids('good')
    expect(new Set(stored)).toEqual(new Set([...before, ...after].map((e) => e.uuid)))
    expect(await ids('kills-worker')).toEqual([])

    const letters = await call()('GET', '/api/dead_letters/')
    expect(letters.body.count).toBe(1)
    expect(letters.body.results[0].error).toContain('ingestion worker exited')
    expect(letters.body.results[0].payload_preview).toContain(killer)

    // The process lives on, and so does ingestion, on a new worker.
    const later = good(99)
    await captureBatch({ url: wren!.url, projectKey: env.WREN_PROJECT_API_KEY }, [later])
    await waitFor(async () => (await ids('good')).includes(later.uuid), { timeoutMs: 15_000, what: 'an event after the dead letter' })
    const ready = await fetch(`${wren!.url}/_readyz`)
    expect(ready.status).toBe(200)
    expect(wren!.child.exitCode).toBeNull()
  })
})
