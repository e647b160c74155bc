// One message that cannot be written does not stall ingestion (embedded mode): with a failpoint that
// makes ClickHouse "refuse" any batch holding a `poison` event, the other events of every project are
// stored, the poison event is in dead letters with its error (API and CLI), and once the failpoint is
// gone a replay stores it exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { api, wrenCli, captureBatch, spawnWren, waitFor, type WrenProcess } from '../support/wren'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'

describe('dead letters (embedded mode)', () => {
  const env = {
    WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX),
    WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX),
    WREN_INGEST_MAX_RETRIES: '2',
  }
  let dataDir = ''
  let wren: WrenProcess | null = null
  let otherProject = { id: 0, key: '' }
  const poisonUuid = randomUUID()
  const call = () => api({ url: wren!.url, personalKey: env.WREN_PERSONAL_API_KEY })
  const events = async (projectId: number, event: string) => {
    const res = await call()('GET', `/api/projects/${projectId}/events/?event=${event}&limit=1000`)
    return (res.body?.results ?? []) as Array<{ id: string }>
  }
  const cli = (...args: string[]) => wrenCli(dataDir, 'dead-letters', ...args)

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wren-dead-letters-'))
    wren = await spawnWren(dataDir, { ...env, WREN_FAILPOINTS: 'ingest-poison-event=poison' })
    const created = await call()('POST', '/api/projects/', { name: 'Other' })
    otherProject = { id: created.body.id, key: created.body.api_token }
  })
  afterAll(async () => {
    await wren?.stop()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  it('stores every other event of every project and keeps the failing one as a dead letter with its error', async () => {
    const good = (n: number) => ({ event: 'good', distinct_id: `user-${n % 7}`, properties: { n, $set: { n } } })
    await captureBatch({ url: wren!.url, projectKey: env.WREN_PROJECT_API_KEY }, [
      ...Array.from({ length: 60 }, (_, n) => good(n)),
      { event: 'poison', distinct_id: 'user-3', uuid: poisonUuid, properties: { bad: true } },
      ...Array.from({ length: 60 }, (_, n) => good(60 + n)),
    ])
    await captureBatch(
      { url: wren!.url, projectKey: otherProject.key },
      Array.from({ length: 30 }, (_, n) => good(n)),
    )
    await waitFor(async () => (await events(1, 'good')).length === 120, { timeoutMs: 30_000, what: '120 good events of project 1' })
    await waitFor(async () => (await events(otherProject.id, 'good')).length === 30, {
      timeoutMs: 30_000,
      what: '30 events of the other project',
    })
    expect(await events(1, 'poison')).toEqual([])

    const res = await call()('GET', '/api/dead_letters/')
    expect(res.status, res.text).toBe(200)
    expect(res.body.count).toBe(1)
    const [letter] = res.body.results
    expect(letter).toMatchObject({ team_id: 1, replayed_at: null, source: { topic: 'wren_ingest', partition: 0 } })
    expect(letter.error).toContain('failpoint')
    expect(letter.payload_preview).toContain(poisonUuid)
    expect(letter.size).toBeGreaterThan(0)
    expect(letter.id).toBe(`wren_ingest/0/${letter.source.offset}`)
    // Ingestion goes on after it.
    await captureBatch({ url: wren!.url, projectKey: env.WREN_PROJECT_API_KEY }, [
      { event: 'after', distinct_id: 'user-1', properties: {} },
    ])
    await waitFor(async () => (await events(1, 'after')).length === 1, { what: 'an event after the dead letter' })
  })

  it('answers only a key holding every scope and no project limit', async () => {
    expect((await call()('GET', '/api/dead_letters/', undefined, null)).status).toBe(401)
    expect((await call()('GET', '/api/dead_letters/', undefined, 'phx_not_a_key')).status).toBe(401)
    const scoped = await call()('POST', '/api/personal_api_keys/', { label: 'reader', scopes: ['person:read', 'query:read'] })
    const limited = await call()('POST', '/api/personal_api_keys/', { label: 'limited', scopes: ['*'], scoped_teams: [1] })
    for (const key of [scoped.body.value, limited.body.value]) {
      const list = await call()('GET', '/api/dead_letters/', undefined, key)
      expect(list.status).toBe(403)
      expect(list.body).toMatchObject({ type: 'authentication_error', code: 'permission_denied' })
      expect((await call()('POST', '/api/dead_letters/replay/', { all: true }, key)).status).toBe(403)
    }
    const bad = await call()('POST', '/api/dead_letters/replay/', { ids: 'nope' })
    expect(bad.status).toBe(400)
    expect(bad.body).toMatchObject({ type: 'validation_error', attr: 'ids' })
  })

  it('after a restart without the failpoint, a replay stores the event once, and replaying again stores nothing', async () => {
    expect(await wren!.stop()).toBe(0)
    const listed = await cli('list')
    expect(listed).toHaveLength(1)
    expect(listed[0]).toMatchObject({ team_id: 1, replayed_at: null })
    expect(listed[0].error).toContain('failpoint')

    wren = await spawnWren(dataDir, env)
    const first = await call()('POST', '/api/dead_letters/replay/', { ids: [listed[0].id] })
    expect(first.status, first.text).toBe(200)
    expect(first.body).toEqual({ replayed: 1, ids: [listed[0].id] })
    await waitFor(async () => (await events(1, 'poison')).length === 1, { timeoutMs: 30_000, what: 'the replayed event' })
    expect((await call()('POST', '/api/dead_letters/replay/', { all: true })).body).toEqual({ replayed: 0, ids: [] })
    const after = await call()('GET', '/api/dead_letters/')
    expect(after.body.results[0].replayed_at).not.toBeNull()

    expect(await wren!.stop()).toBe(0)
    expect(await cli('replay', '--all')).toEqual([{ replayed: 0, ids: [] }])
    wren = await spawnWren(dataDir, env)
    await captureBatch({ url: wren.url, projectKey: env.WREN_PROJECT_API_KEY }, [
      { event: 'marker', distinct_id: 'user-1', properties: {} },
    ])
    await waitFor(async () => (await events(1, 'marker')).length === 1, { what: 'a marker after the replays' })
    expect((await events(1, 'poison')).map((e) => e.id)).toEqual([poisonUuid])
  })
})
