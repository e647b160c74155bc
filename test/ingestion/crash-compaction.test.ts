// A crash replay after person compaction (ingestion/persons/compaction.ts): the batch in flight when the
// process died is rebuilt from the compacted state before it, so every event is stored once and every
// person keeps what each batch set, as without compaction.
import { afterAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { api, captureBatch, spawnWren, waitFor, type WrenProcess } from '../support/wren'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'

const USERS = 20
const ROUNDS = 4

describe('crash replay after person compaction', () => {
  let dataDir = ''
  let wren: WrenProcess | null = null
  afterAll(async () => {
    await wren?.stop('SIGKILL')
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  it('the replayed batch starts from the compacted state: every event once, every person whole', async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wren-crash-compaction-'))
    const env = {
      WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX),
      WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX),
      WREN_PERSON_COMPACTION_MS: '200',
    }
    const sent: string[] = []
    // Round r sets p<r> on every user (round 2 identifies them): a replay that started from anything but
    // the latest committed version would lose a p<r> or the merge.
    const send = async (url: string, round: number) => {
      const batch = Array.from({ length: USERS }, (_, u) => {
        const uuid = randomUUID()
        sent.push(uuid)
        const $set = { [`p${round}`]: round, last: round }
        return round === 2
          ? { uuid, event: '$identify', distinct_id: `user-${u}`, properties: { $anon_distinct_id: `anon-${u}`, $set } }
          : { uuid, event: 'tick', distinct_id: round < 2 ? `anon-${u}` : `user-${u}`, properties: { $set } }
      })
      await captureBatch({ url, projectKey: env.WREN_PROJECT_API_KEY }, batch)
    }
    const stored = async (url: string) => {
      const call = api({ url, personalKey: env.WREN_PERSONAL_API_KEY })
      const res = await call('GET', `/api/projects/1/events/?limit=10000`)
      return res.body.results as Array<{ id: string }>
    }
    /** The rows compaction has folded so far, of one person table. */
    const folded = async (url: string, table: string) => {
      const text = await (await fetch(`${url}/_metrics`)).text()
      return Number(new RegExp(`^wren_person_compaction_rows_total\\{table="${table}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0)
    }

    // Rounds 1..ROUNDS, each its own batch, then compaction until a run finds nothing left to fold.
    wren = await spawnWren(dataDir, env)
    for (let round = 1; round <= ROUNDS; round++) {
      await send(wren.url, round)
      const url = wren.url
      await waitFor(async () => (await stored(url)).length === round * USERS, { timeoutMs: 30_000, what: `round ${round} stored` })
    }
    // Every version the rounds wrote folded, once its batch is committed: a run may fold part of them and a
    // later run the rest. Each round wrote a person row per user; rounds 1 and 2 a distinct-id row per user.
    const url = wren.url
    await waitFor(async () => (await folded(url, 'person')) >= USERS * ROUNDS && (await folded(url, 'person_distinct_id')) >= USERS * 2, {
      timeoutMs: 30_000,
      intervalMs: 300,
      what: 'compaction to fold every version the rounds wrote',
    })
    await wren.stop()

    // The next batch is written, then the process dies before its commit: the restart replays it.
    const crashing = await spawnWren(dataDir, { ...env, WREN_FAILPOINTS: 'ingest-crash-after-batches=1' })
    wren = crashing
    await send(crashing.url, ROUNDS + 1)
    await waitFor(async () => crashing.child.signalCode !== null, { timeoutMs: 30_000, what: 'the failpoint to fire' })
    expect(crashing.child.signalCode).toBe('SIGKILL')

    wren = await spawnWren(dataDir, env)
    const again = wren.url
    const events = await waitFor(
      async () => {
        const rows = await stored(again)
        return rows.length >= sent.length ? rows : false
      },
      { timeoutMs: 30_000, what: 'the replayed batch stored' },
    )
    expect(events.map((e) => e.id).sort()).toEqual([...sent].sort())

    const persons = await api({ url: again, personalKey: env.WREN_PERSONAL_API_KEY })('GET', `/api/projects/1/persons/?limit=1000`)
    expect(persons.body.results).toHaveLength(USERS)
    const want = Object.fromEntries(Array.from({ length: ROUNDS + 1 }, (_, i) => [`p${i + 1}`, i + 1]))
    for (const p of persons.body.results as Array<{ distinct_ids: string[]; properties: Record<string, unknown> }>) {
      const u = p.distinct_ids.find((d) => d.startsWith('user-'))!.slice('user-'.length)
      expect([...p.distinct_ids].sort()).toEqual([`anon-${u}`, `user-${u}`])
      expect(p.properties).toMatchObject({ ...want, last: ROUNDS + 1 })
    }
  }, 180_000)
})
