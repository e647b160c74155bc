// Cluster mode on a real Kafka broker (started here from Maven Central's jars): several `wren capture`
// processes and an ingest process, events from the real posthog-node SDK, results read through the API.
//
// No ClickHouse server can be installed on these machines (Debian's clickhouse-server is 18.16, which
// lacks DateTime64, query parameters and insert deduplication tokens; no registry package ships a newer
// server), so the ingest and api roles run together in one process on chDB (`wren ingest,api`), which
// allows one process per data directory. Each capture process keeps its own small chDB holding only the
// project and keys, bootstrapped from the same keys. Everything between capture and ingestion is Kafka.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { Kafka, logLevel } from 'kafkajs'
import { PostHog } from 'posthog-node'
import { api, spawnWren, waitFor, type WrenProcess } from '../support/wren'
import { kafkaUnavailableReason, kafkaForThisFile, type FileKafka } from '../support/kafka'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'
import { skipReason } from '../support/skip'
import { openKafkaLog } from '../../services/platform/log/kafka/kafka-log'
import { LogCommandWaiter, publishCommandResults } from '../../services/platform/log/command-results'

const unavailable = skipReason('cluster tests', kafkaUnavailableReason())

describe.skipIf(unavailable !== null)(`cluster mode on a real Kafka broker${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  let kafka: FileKafka
  const dirs: string[] = []
  const processes: WrenProcess[] = []
  const keys = { WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX), WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX) }
  let env: Record<string, string>
  let coreDir = ''
  let core: WrenProcess
  let captures: WrenProcess[] = []
  let stallFile = ''
  /** The next test's failpoint (see there), on the core the kill test restarts: one start fewer than a restart of its own. */
  const poisonCore = () => ({ WREN_FAILPOINTS: `${env.WREN_FAILPOINTS},ingest-poison-event=poison`, WREN_INGEST_MAX_RETRIES: '2' })

  const dir = async (name: string) => {
    const d = await mkdtemp(path.join(tmpdir(), `wren-${name}-`))
    dirs.push(d)
    return d
  }
  const spawn = async (dataDir: string, command: string, extra: Record<string, string> = {}) => {
    const p = await spawnWren(dataDir, { ...env, ...extra }, command)
    processes.push(p)
    return p
  }
  const call = () => api({ url: core.url, personalKey: keys.WREN_PERSONAL_API_KEY })
  const storedEvents = async (event: string) => {
    const res = await call()('GET', `/api/projects/1/events/?event=${event}&limit=10000`)
    return (res.body?.results ?? []) as Array<{ id: string; distinct_id: string; person_id: string; properties: Record<string, unknown> }>
  }

  beforeAll(async () => {
    kafka = await kafkaForThisFile()
    // While stallFile exists the ingest process's batches fail (the last test stalls ingestion with it).
    stallFile = path.join(await dir('stall'), 'stall')
    env = {
      ...keys,
      ...kafka.env,
      KAFKA_PARTITIONS: '4',
      KAFKA_SESSION_TIMEOUT_MS: '6000',
      WREN_INGEST_BATCH: '200',
      WREN_FAILPOINTS: `ingest-stall-file=${stallFile}`,
      WREN_READY_STALL_SECONDS: '3',
      // The stall test waits on the lag each process samples: every second rather than the default 5.
      KAFKA_LAG_INTERVAL_MS: '1000',
    }
    coreDir = await dir('core')
    core = await spawn(coreDir, 'ingest,api')
    captures = await Promise.all([spawn(await dir('capture'), 'capture'), spawn(await dir('capture'), 'capture')])
  }, 180_000)

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()))
    await kafka?.stop()
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })))
  })

  it('each role answers health and readiness, and serves only its own routes', async () => {
    const health = await (await fetch(`${captures[0].url}/_health`)).json()
    // A capture process reports ingestion's lag too, read from Kafka.
    expect(health).toMatchObject({
      status: 'ok',
      roles: ['capture'],
      ingestion: { lag_messages: expect.any(Number), committed_offset: expect.any(Number) },
    })
    const ready = await fetch(`${core.url}/_readyz`)
    expect(ready.status).toBe(200)
    expect(await ready.json()).toMatchObject({ status: 'ready', roles: ['ingest', 'api'], log: 'kafka' })
    // The capture role has no management API, the api role no capture endpoint.
    expect(
      (await fetch(`${captures[0].url}/api/projects/`, { headers: { authorization: `Bearer ${keys.WREN_PERSONAL_API_KEY}` } })).status,
    ).toBe(404)
    expect(
      (await fetch(`${core.url}/batch/`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).status,
    ).toBe(404)
  })

  it('events from posthog-node through two capture processes reach persons and events via the API', async () => {
    const clients = captures.map((c) => new PostHog(keys.WREN_PROJECT_API_KEY, { host: c.url, flushAt: 50, flushInterval: 0 }))
    for (let i = 0; i < 40; i++) {
      clients[i % 2].capture({ distinctId: `sdk-user-${i % 5}`, event: 'sdk_event', properties: { i, $set: { last_i: i } } })
    }
    clients[0].identify({ distinctId: 'sdk-user-0', properties: { email: 'zero@example.com' } })
    await Promise.all(clients.map((c) => c.shutdown()))

    const events = await waitFor(
      async () => {
        const rows = await storedEvents('sdk_event')
        return rows.length >= 40 ? rows : false
      },
      { timeoutMs: 60_000, what: '40 sdk events via the API' },
    )
    expect(events).toHaveLength(40)
    expect(new Set(events.map((e) => e.properties.i))).toEqual(new Set(Array.from({ length: 40 }, (_, i) => i)))

    const persons = await waitFor(
      async () => {
        const res = await call()('GET', `/api/environments/1/persons/?email=zero@example.com`)
        return res.body?.results?.length === 1 ? res.body.results : false
      },
      { timeoutMs: 30_000, what: 'the identified person' },
    )
    expect(persons[0].distinct_ids).toContain('sdk-user-0')
    const all = await call()('GET', `/api/environments/1/persons/?limit=100`)
    expect(all.body.results.filter((p: any) => p.distinct_ids.some((d: string) => d.startsWith('sdk-user-')))).toHaveLength(5)
  })

  it('after kill -9 of the ingest process mid-stream and a restart, every acknowledged event is stored exactly once', async () => {
    const acknowledged = new Set<string>()
    let seq = 0
    const send = async (url: string) => {
      const batch = Array.from({ length: 25 }, () => {
        const n = seq++
        return {
          event: 'tick',
          distinct_id: `user-${n % 30}`,
          uuid: randomUUID(),
          properties: { n, $set: { last_n: n } },
          timestamp: new Date(Date.UTC(2026, 0, 1) + n).toISOString(),
        }
      })
      const res = await fetch(`${url}/batch/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: keys.WREN_PROJECT_API_KEY, batch }),
      }).catch(() => null)
      if (res?.status === 200) for (const e of batch) acknowledged.add(e.uuid)
    }
    // Four senders over both capture processes, until `until` says stop (the events API reads ≤ 10,000).
    const flood = (until: () => boolean) =>
      Promise.all(
        captures
          .flatMap((c) => [c, c])
          .map(async (c) => {
            while (!until()) await send(c.url)
          }),
      )

    // Restart the core with a failpoint: it SIGKILLs itself after its fourth batch is in ClickHouse
    // and before that batch's offset is committed, so the batch is pending in the commit metadata.
    // Capture keeps acknowledging into Kafka the whole time: ingestion being down loses nothing.
    expect(await core.stop()).toBe(0) // SIGTERM: finishes and commits its batch, leaves the group, exits 0
    core = await spawn(coreDir, 'ingest,api', { WREN_FAILPOINTS: `${env.WREN_FAILPOINTS},ingest-crash-after-batches=4` })
    const dying = core
    const died = () => dying.child.signalCode !== null || dying.child.exitCode !== null
    await flood(() => died() || seq >= 4000)
    await waitFor(async () => died(), { timeoutMs: 60_000, what: 'the failpoint to fire' })
    expect(dying.child.signalCode).toBe('SIGKILL')
    // The graceful stop before it left nothing pending.
    expect(dying.output()).not.toContain('redelivering a batch')

    core = await spawn(coreDir, 'ingest,api', poisonCore())
    const restarted = core
    const restartedAt = seq
    await flood(() => seq >= restartedAt + 1000)

    let missing: string[] = []
    const stored = await waitFor(
      async () => {
        const rows = await storedEvents('tick')
        const have = new Set(rows.map((e) => e.id))
        missing = [...acknowledged].filter((uuid) => !have.has(uuid))
        return missing.length === 0 ? rows : false
      },
      { timeoutMs: 90_000, what: 'every acknowledged event to be stored' },
    ).catch(() => [])
    if (missing.length) console.error(`missing ${missing.length} of ${acknowledged.size}; core output:\n${core.output().slice(-8000)}`)
    expect(missing).toEqual([])
    const ids = stored.map((e) => e.id)
    expect(new Set(ids).size).toBe(ids.length)
    // The batch the failpoint left pending was handed out again as exactly that range.
    expect(restarted.output()).toContain('redelivering a batch the previous owner did not commit')
    // The replayed batch was rebuilt from the state before it: one person per user, events point at it.
    const persons = await call()('GET', `/api/environments/1/persons/?limit=1000`)
    const personOf = new Map<string, string>()
    for (const p of persons.body.results) for (const d of p.distinct_ids) if (d.startsWith('user-')) personOf.set(d, p.uuid)
    expect(personOf.size).toBe(30)
    for (const e of stored) expect(e.person_id).toBe(personOf.get(e.distinct_id))
  }, 240_000)

  it('an event ClickHouse refuses goes to dead letters while the rest flows, and after the fix a replay stores it once', async () => {
    // The core the kill test restarted refuses the event named 'poison', and isolates a batch after 2 failures (poisonCore).
    const poison = randomUUID()
    const good = (n: number) => ({ event: 'kgood', distinct_id: `k-user-${n % 5}`, uuid: randomUUID(), properties: { n, $set: { n } } })
    const batch = [
      ...Array.from({ length: 40 }, (_, n) => good(n)),
      { event: 'poison', distinct_id: 'k-user-2', uuid: poison, properties: {} },
      ...Array.from({ length: 40 }, (_, n) => good(40 + n)),
    ]
    const res = await fetch(`${captures[0].url}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: keys.WREN_PROJECT_API_KEY, batch }),
    })
    expect(res.status).toBe(200)
    await waitFor(async () => (await storedEvents('kgood')).length === 80, { timeoutMs: 60_000, what: 'the 80 good events' })
    expect(await storedEvents('poison')).toEqual([])
    const letters = await waitFor(
      async () => {
        const list = await call()('GET', '/api/dead_letters/')
        const found = (list.body?.results ?? []).filter((l: any) => l.error.includes('failpoint'))
        return found.length ? found : false
      },
      { what: 'the dead letter in the API' },
    )
    expect(letters).toHaveLength(1)
    expect(letters[0]).toMatchObject({ team_id: 1, replayed_at: null, source: { topic: 'wren_ingest' } })
    expect(letters[0].payload_preview).toContain(poison)

    expect(await core.stop()).toBe(0)
    core = await spawn(coreDir, 'ingest,api')
    expect((await call()('POST', '/api/dead_letters/replay/', { ids: [letters[0].id] })).body).toEqual({
      replayed: 1,
      ids: [letters[0].id],
    })
    await waitFor(async () => (await storedEvents('poison')).length === 1, { timeoutMs: 60_000, what: 'the replayed event' })
    expect((await call()('POST', '/api/dead_letters/replay/', { ids: [letters[0].id] })).body).toEqual({ replayed: 0, ids: [] })
    const marker = randomUUID()
    await fetch(`${captures[1].url}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        api_key: keys.WREN_PROJECT_API_KEY,
        batch: [{ event: 'kmarker', distinct_id: 'k-user-1', uuid: marker, properties: {} }],
      }),
    })
    await waitFor(async () => (await storedEvents('kmarker')).length === 1, { timeoutMs: 60_000, what: 'a marker after the replays' })
    expect((await storedEvents('poison')).map((e) => e.id)).toEqual([poison])
  }, 240_000)

  it('a poison message lands in the dead-letter topic and the stream goes on', async () => {
    const client = new Kafka({ brokers: [kafka.brokers], logLevel: logLevel.NOTHING })
    const producer = client.producer()
    await producer.connect()
    await producer.send({ topic: `${kafka.topicPrefix}wren_ingest`, messages: [{ key: '1', value: Buffer.from('definitely not avro') }] })
    await producer.disconnect()
    const after = randomUUID()
    const res = await fetch(`${captures[1].url}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        api_key: keys.WREN_PROJECT_API_KEY,
        batch: [{ event: 'after_poison', distinct_id: 'p1', uuid: after, properties: {} }],
      }),
    })
    expect(res.status).toBe(200)
    await waitFor(async () => (await storedEvents('after_poison')).some((e) => e.id === after), {
      timeoutMs: 60_000,
      what: 'the event after the poison message',
    })

    const consumer = client.consumer({ groupId: `${kafka.topicPrefix}dlq-reader` })
    const letters: Array<{ key: string; value: string; error: string }> = []
    await consumer.connect()
    await consumer.subscribe({ topic: `${kafka.topicPrefix}wren_dead_letters`, fromBeginning: true })
    await consumer.run({
      eachMessage: async ({ message }) =>
        void letters.push({
          key: message.key!.toString(),
          value: message.value!.toString(),
          error: String(message.headers?.['wren-error']),
        }),
    })
    // The topic also holds the letter of the refused event above: wait for this one, whatever came first.
    await waitFor(async () => letters.some((l) => l.value === 'definitely not avro'), { timeoutMs: 30_000, what: 'the dead letter' })
    await consumer.disconnect()
    expect(letters.map((l) => l.value)).toContain('definitely not avro')
    const letter = letters.find((l) => l.value === 'definitely not avro')!
    expect(letter.key).toMatch(/^wren_ingest\/\d+\/\d+$/)
    expect(letter.error).toBe('not a Wren message (bad magic byte)')
  })

  it('an api process without the processor learns a command result published by another process', async () => {
    const quiet = { warn: () => {}, error: () => {}, info: () => {}, debug: () => {} }
    const open = () =>
      openKafkaLog({
        brokers: [kafka.brokers],
        topicPrefix: kafka.topicPrefix,
        partitions: 4,
        replicationFactor: 1,
        sessionTimeoutMs: 6000,
        logger: quiet,
      })
    const [ingest, apiSide] = [await open(), await open()]
    const waiter = new LogCommandWaiter(apiSide)
    waiter.start()
    const applied = waiter.waitForCommand('cmd-1', 30_000)
    await publishCommandResults(ingest)([
      ['cmd-0', { ok: false, status: 404, detail: 'no such person' }],
      ['cmd-1', { ok: false, status: 400, detail: 'bad property' }],
    ])
    expect(await applied).toEqual({ ok: false, status: 400, detail: 'bad property' })
    await waiter.stop()
    await Promise.all([ingest.close(), apiSide.close()])
  })

  it('a stalled ingest process is not ready; every role reports the lag it reads from Kafka', async () => {
    const health = async (p: WrenProcess) =>
      (await (await fetch(`${p.url}/_health`)).json()) as { ingestion: { lag_messages: number; stalled_seconds: number } }
    await writeFile(stallFile, '')
    const batch = Array.from({ length: 5 }, (_, i) => ({
      event: 'stalled_on_kafka',
      distinct_id: `k-${i}`,
      uuid: randomUUID(),
      properties: {},
    }))
    const res = await fetch(`${captures[0].url}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: keys.WREN_PROJECT_API_KEY, batch }),
    })
    expect(res.status).toBe(200)
    const unready = await waitFor(
      async () => {
        // The lag is sampled every second (KAFKA_LAG_INTERVAL_MS): a sample from before the batch was appended can already
        // say stalled (a message left by an earlier test), so wait for one that counts the batch too.
        const r = await fetch(`${core.url}/_readyz`)
        if (r.status !== 503) return false
        const body = (await r.json()) as { status: string; reasons: Array<{ code: string }>; ingestion: { lag_messages: number } }
        return body.ingestion.lag_messages >= 5 ? body : false
      },
      { timeoutMs: 60_000, what: 'the ingest process to report the stall' },
    )
    expect(unready.status).toBe('ingestion stalled')
    expect(unready.reasons.map((r) => r.code)).toContain('ingestion_stalled')
    expect(unready.ingestion.lag_messages).toBeGreaterThanOrEqual(5)
    // A capture process does not ingest: it stays ready, and reports the lag from Kafka.
    await waitFor(async () => (await health(captures[1])).ingestion.lag_messages >= 5, {
      timeoutMs: 30_000,
      what: 'a capture process to see the lag',
    })
    expect((await fetch(`${captures[1].url}/_readyz`)).status).toBe(200)

    await rm(stallFile)
    await waitFor(async () => (await fetch(`${core.url}/_readyz`)).status === 200, {
      timeoutMs: 60_000,
      what: 'the ingest process to be ready again',
    })
    await waitFor(async () => (await health(captures[1])).ingestion.lag_messages === 0, {
      timeoutMs: 30_000,
      what: 'the lag to return to 0',
    })
    expect((await storedEvents('stalled_on_kafka')).map((e) => e.id).sort()).toEqual(batch.map((e) => e.uuid).sort())
  }, 120_000)

  // Last: a capture process that has carried every test's traffic (a process started only to be stopped cost a
  // start of its own, ~4 s under load).
  it('capture processes stop cleanly on SIGTERM', async () => {
    expect(await captures[1].stop()).toBe(0)
  })
})
