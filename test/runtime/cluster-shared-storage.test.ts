// Cluster mode with every role in its own process, all sharing one storage through the real HTTP client
// path (CLICKHOUSE_URL): `wren ingest`, `wren capture`, two `wren api` and a `wren decide` on a real Kafka
// broker. The storage is the ClickHouse HTTP test fixture (test/support/clickhouse-http-server.ts: one
// chDB behind ClickHouse's HTTP interface), since no ClickHouse server can be installed on these machines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { api, spawnWren, waitFor, type WrenProcess } from '../support/wren'
import { kafkaUnavailableReason, kafkaForThisFile, type FileKafka } from '../support/kafka'
import { startClickHouseFixture, type ClickHouseFixture } from '../support/clickhouse-http'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'
import { skipReason } from '../support/skip'

const unavailable = skipReason('cluster tests', kafkaUnavailableReason())

describe.skipIf(unavailable !== null)(
  `roles in separate processes on one ClickHouse over HTTP${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    let kafka: FileKafka
    let clickhouse: ClickHouseFixture
    const dirs: string[] = []
    const processes: WrenProcess[] = []
    const keys = { WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX), WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX) }
    let capture: WrenProcess
    let apis: WrenProcess[] = []
    let decide: WrenProcess

    const spawn = async (role: string) => {
      const dir = await mkdtemp(path.join(tmpdir(), `wren-${role}-`))
      dirs.push(dir)
      const env = {
        ...keys,
        ...kafka.env,
        KAFKA_PARTITIONS: '4',
        KAFKA_SESSION_TIMEOUT_MS: '6000',
        ...clickhouse.env,
      }
      const p = await spawnWren(dir, env, role)
      processes.push(p)
      return p
    }
    const call = (p: WrenProcess, key = keys.WREN_PERSONAL_API_KEY) => api({ url: p.url, personalKey: key })
    const send = async (events: Array<Record<string, unknown>>) => {
      const res = await fetch(`${capture.url}/batch/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: keys.WREN_PROJECT_API_KEY, batch: events }),
      })
      expect(res.status).toBe(200)
    }
    const decideFlags = async (distinctId: string) => {
      const res = await fetch(`${decide.url}/flags/?v=2`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: keys.WREN_PROJECT_API_KEY, distinct_id: distinctId }),
      })
      return ((await res.json()) as { flags: Record<string, { enabled: boolean }> }).flags
    }

    /** Waits until ingestion has stored the person of `distinctId` (read through an api process). */
    const personVisible = (distinctId: string) =>
      waitFor(
        async () => (await call(apis[0])('GET', `/api/environments/1/persons/?distinct_id=${distinctId}`)).body?.results?.length === 1,
        { timeoutMs: 60_000, what: `the person ${distinctId}` },
      )

    beforeAll(async () => {
      ;[kafka, clickhouse] = await Promise.all([kafkaForThisFile(), startClickHouseFixture({ user: 'wren', password: 'fixture secret' })])
      // The first process creates the database, the tables and the project from the keys; the others find them.
      await spawn('ingest')
      ;[capture, apis[0], apis[1], decide] = await Promise.all([spawn('capture'), spawn('api'), spawn('api'), spawn('decide')])
    }, 180_000)

    afterAll(async () => {
      await Promise.all(processes.map((p) => p.stop()))
      await Promise.all([kafka?.stop(), clickhouse?.stop()])
      await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })))
    })

    it('events sent to the capture process are read through both api processes', async () => {
      const batch = Array.from({ length: 30 }, (_, i) => ({
        event: 'shared_event',
        distinct_id: `shared-${i % 3}`,
        uuid: randomUUID(),
        properties: { i, $set: { last_i: i } },
      }))
      await send(batch)
      for (const p of apis) {
        const events = await waitFor(
          async () => {
            const res = await call(p)('GET', '/api/projects/1/events/?event=shared_event&limit=100')
            return res.body?.results?.length === 30 ? (res.body.results as Array<{ id: string }>) : false
          },
          { timeoutMs: 60_000, what: `30 events through ${p.url}` },
        )
        expect(events.map((e) => e.id).sort()).toEqual(batch.map((e) => e.uuid).sort())
        const withLastI = encodeURIComponent(JSON.stringify([{ key: 'last_i', operator: 'is_set', type: 'person' }]))
        const persons = await call(p)('GET', `/api/environments/1/persons/?properties=${withLastI}&limit=100`)
        expect(persons.body.results.flatMap((r: { distinct_ids: string[] }) => r.distinct_ids).sort()).toEqual([
          'shared-0',
          'shared-1',
          'shared-2',
        ])
      }
    })

    it('a person changed through one api process is seen through the other', async () => {
      await send([{ event: '$identify', distinct_id: 'patched', properties: { $set: { plan: 'free' } } }])
      const person = await waitFor(
        async () => {
          const res = await call(apis[0])('GET', '/api/environments/1/persons/?distinct_id=patched')
          return res.body?.results?.[0] as { uuid: string } | undefined
        },
        { timeoutMs: 60_000, what: 'the captured person' },
      )
      const patched = await call(apis[0])('PATCH', `/api/environments/1/persons/${person.uuid}/`, { properties: { plan: 'pro' } })
      expect(patched.status).toBe(200)
      expect(patched.body.properties).toMatchObject({ plan: 'pro' })
      const seen = await call(apis[1])('GET', `/api/environments/1/persons/${person.uuid}/`)
      expect(seen.body.properties).toMatchObject({ plan: 'pro' })
    })

    it('a flag and a personal key made through one api process work through the other and through decide', async () => {
      const key = await call(apis[0])('POST', '/api/personal_api_keys/', { label: 'made on api 0', scopes: ['feature_flag:read'] })
      expect(key.status).toBe(201)
      const flag = await call(apis[1])('POST', '/api/projects/1/feature_flags/', {
        key: 'shared-pro',
        filters: { groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }] }] },
      })
      expect(flag.status).toBe(201)
      await waitFor(
        async () =>
          (await call(apis[0], key.body.value)('GET', `/api/projects/1/feature_flags/${flag.body.id}/`)).body?.key === 'shared-pro',
        {
          what: "api 0 to serve api 1's flag with api 0's new key",
        },
      )
      // Decide reads a person it has not been asked about from the shared storage.
      await send([{ event: '$identify', distinct_id: 'decided', properties: { $set: { plan: 'pro' } } }])
      await personVisible('decided')
      await waitFor(async () => (await decideFlags('someone-else'))['shared-pro']?.enabled === false, {
        what: 'decide to serve the new flag',
      })
      expect((await decideFlags('decided'))['shared-pro']?.enabled).toBe(true)

      expect((await call(apis[0])('PATCH', `/api/projects/1/feature_flags/${flag.body.id}/`, { active: false })).status).toBe(200)
      await waitFor(async () => (await decideFlags('decided'))['shared-pro'] === undefined, { what: 'decide to drop the deactivated flag' })
    })

    // Skipped until decide keeps its snapshot from the log (issue 10, "Fix": a standalone `wren decide` sees
    // a person's $set sent to a capture process). Today a decide process learns person changes only from an
    // ingestion processor in its own process, so a person it has already answered for keeps its old
    // properties until it restarts: this test times out waiting for the flag to turn on.
    it('decide follows a $set for a person it has already answered for', async () => {
      const flag = await call(apis[0])('POST', '/api/projects/1/feature_flags/', {
        key: 'follows-set',
        filters: { groups: [{ properties: [{ key: 'plan', value: 'team', type: 'person' }] }] },
      })
      expect(flag.status).toBe(201)
      await send([{ event: '$identify', distinct_id: 'warm', properties: { $set: { plan: 'free' } } }])
      await personVisible('warm')
      await waitFor(async () => (await decideFlags('warm'))['follows-set']?.enabled === false, {
        what: 'decide to serve the new flag, off',
      })
      await send([{ event: '$set', distinct_id: 'warm', properties: { $set: { plan: 'team' } } }])
      await waitFor(async () => (await decideFlags('warm'))['follows-set']?.enabled === true, {
        what: "decide to follow the person's $set",
      })
    })
  },
)
