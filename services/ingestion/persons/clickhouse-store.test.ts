// The processor on the ClickHouse person store and real chDB, fed by a scripted log (a fake of Wren's own
// Log interface): replaying a batch after a crash must store nothing twice, and a poison message must
// not stop the stream. processor.test.ts runs the loop itself on the fake store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import pino from 'pino'
import { insertEncoded, migrate, openEmbeddedClickHouse, queryRows, type ClickHouseClient } from '../../platform/clickhouse'
import type { Log, LogBatch, SubscribeOptions } from '../../platform/log/log'
import { encodeIngest } from '../../platform/log/contract'
import { Metrics } from '../../platform/metrics'
import { systemClock } from '../../platform/clock'
import { DeadLetterStore } from '../../dead-letters/store'
import { ClickHousePersonStore } from './clickhouse-store'
import { copyWideEvents } from './wide'
import { IngestionProcessor, type ProcessorOptions } from '../processor'
import { FakePersonStore, type FakeWrite } from '../testing/fake-person-store'
import type { LoadedState, Lookups, PersonStore } from './store'
import { personUuid } from './uuid'
import type { IngestEvent, Person, PersonChanges, Properties } from '../types'
import { definitionRows } from '../definitions'

/** Hands the given batches to the handler in order, and reports when each is done. */
function scriptedLog(batches: LogBatch[]): Log & { done: Promise<void> } {
  let resolveDone: () => void = () => {}
  const done = new Promise<void>((r) => (resolveDone = r))
  return {
    done,
    append: async () => {},
    stats: async (topic) => ({ topic, endOffset: 0, committed: {} }),
    partitions: async () => 1,
    close: async () => {},
    subscribe(options: SubscribeOptions) {
      void (async () => {
        for (const batch of batches) await options.handler(batch)
        resolveDone()
      })()
      return { stop: async () => {} }
    },
  }
}

const event = (n: number, distinctId: string, extra: Record<string, unknown> = {}): IngestEvent => ({
  teamId: 1,
  uuid: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  event: 'tick',
  distinctId,
  properties: { n, $set: { last: n }, ...extra },
  timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
  now: '2026-01-01T00:01:00.000Z',
  elementsChain: '',
})

/** Like the real logs: a batch whose handler throws is handed out again (marked redelivered) until it passes. */
function retryingLog(batches: LogBatch[]): Log & { done: Promise<void>; deliveries: number } {
  const log = {
    ...scriptedLog([]),
    deliveries: 0,
    subscribe(options: SubscribeOptions) {
      void (async () => {
        for (let b of batches) {
          for (;;) {
            log.deliveries++
            try {
              await options.handler(b)
              break
            } catch (err) {
              options.onError?.(err, b)
              b = { ...b, redelivered: true }
            }
          }
        }
        resolveDone()
      })()
      return { stop: async () => {} }
    },
  } as Log & { done: Promise<void>; deliveries: number }
  let resolveDone: () => void = () => {}
  log.done = new Promise<void>((r) => (resolveDone = r))
  return log
}

function batch(first: number, values: Buffer[], redelivered = false): LogBatch {
  const records = values.map((value, i) => ({ key: '1', value, partition: 0, offset: first + i }))
  return { topic: 'wren_ingest', partition: 0, records, firstOffset: first, lastOffset: first + values.length - 1, redelivered }
}

describe('ingestion processor on ClickHouse', () => {
  let dir: string
  let client: ClickHouseClient
  const processor = (log: Log, logger: pino.Logger, metrics: Metrics, options: Omit<ProcessorOptions, 'deadLetters'>) =>
    new IngestionProcessor(log, new ClickHousePersonStore(client), logger, metrics, {
      ...options,
      deadLetters: new DeadLetterStore(client, systemClock).recorder('ingestion'),
    })
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wren-processor-'))
    client = await openEmbeddedClickHouse(dir)
    await migrate(client)
    // Background merges would fold duplicates and hide a broken replay; stop them to see raw rows.
    for (const table of ['events', 'person', 'person_distinct_id', 'person_activity'])
      await client.command({ query: `SYSTEM STOP MERGES ${table}` })
  })
  afterAll(async () => {
    await client?.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('replaying a batch that was already written stores every row once, with the same persons', async () => {
    const first = [event(1, 'alice'), event(2, 'bob'), event(3, 'alice', { $set_once: { first: 3 } })].map((e) =>
      encodeIngest({ kind: 'event', event: e }),
    )
    const second = [
      encodeIngest({
        kind: 'event',
        event: { ...event(4, 'alice'), event: '$identify', properties: { $anon_distinct_id: 'bob', $set: { email: 'a@x' } } },
      }),
      encodeIngest({ kind: 'event', event: event(5, 'bob') }),
    ]
    // Batch [3,4] is written, then the process "dies" before committing, and the log redelivers it.
    const log = scriptedLog([batch(0, first), batch(3, second), batch(3, second, true)])
    processor(log, pino({ level: 'silent' }), new Metrics(), { maxBatchRecords: 100, maxWaitMs: 10 }).start()
    await log.done

    const events = await queryRows<{ uuid: string; person_id: string }>(
      client,
      'SELECT toString(uuid) AS uuid, toString(person_id) AS person_id FROM events ORDER BY uuid',
    )
    expect(events.map((e) => e.uuid.slice(-1))).toEqual(['1', '2', '3', '4', '5'])
    const persons = await queryRows<{ uuid: string; rows: number; deleted: number; props: string }>(
      client,
      'SELECT toString(uuid) AS uuid, count() AS rows, argMax(is_deleted, version) AS deleted, argMax(properties, version) AS props FROM person GROUP BY uuid ORDER BY uuid',
    )
    const live = persons.filter((p) => Number(p.deleted) === 0)
    expect(live).toHaveLength(1) // bob was merged into alice
    expect(JSON.parse(live[0].props)).toMatchObject({ email: 'a@x', first: 3, last: 5 })
    // The replayed batch wrote no second copy of any person version or mapping.
    const versions = await queryRows<{ dup: number }>(client, 'SELECT count() - uniqExact(uuid, version) AS dup FROM person')
    expect(Number(versions[0].dup)).toBe(0)
    const mappings = await queryRows<{ dup: number }>(
      client,
      'SELECT count() - uniqExact(distinct_id, version) AS dup FROM person_distinct_id',
    )
    expect(Number(mappings[0].dup)).toBe(0)
    expect(new Set(events.slice(3).map((e) => e.person_id))).toEqual(new Set([live[0].uuid]))
  })

  it('partitions hand out person ids no other partition or project uses, and a replay hands out the same ones', async () => {
    const onPartition = (partition: number, first: number, teamId: number, names: string[], redelivered = false): LogBatch => {
      const records = names.map((name, i) => ({
        key: String(teamId),
        value: encodeIngest({ kind: 'event', event: { ...event(first + i, name), teamId } }),
        partition,
        offset: first + i,
      }))
      return { topic: 'wren_ingest', partition, records, firstOffset: first, lastOffset: first + names.length - 1, redelivered }
    }
    // Team 21 on partition 1 and team 22 on partition 2 of four; partition 1's second batch is written,
    // then redelivered (the process died before its commit) after partition 2 has stored more persons.
    const log = {
      ...scriptedLog([
        onPartition(1, 0, 21, ['p1-a', 'p1-b']),
        onPartition(2, 0, 22, ['p2-a', 'p2-b']),
        onPartition(1, 2, 21, ['p1-c', 'p1-d']),
        onPartition(2, 2, 22, ['p2-c']),
        onPartition(1, 2, 21, ['p1-c', 'p1-d'], true),
        onPartition(1, 4, 21, ['p1-e']),
      ]),
      partitions: async () => 4,
    }
    processor(log, pino({ level: 'silent' }), new Metrics(), { maxBatchRecords: 100, maxWaitMs: 10 }).start()
    await log.done

    const ids = await queryRows<{ team_id: number; uuid: string; ids: number[] }>(
      client,
      'SELECT team_id, toString(uuid) AS uuid, groupUniqArray(id) AS ids FROM person WHERE team_id IN (21, 22) GROUP BY team_id, uuid',
    )
    expect(ids).toHaveLength(8)
    for (const row of ids) expect(row.ids).toHaveLength(1) // the replay gave each person the same id
    const byTeam = (t: number) => ids.filter((r) => Number(r.team_id) === t).map((r) => Number(r.ids[0]))
    expect(byTeam(21).every((id) => id % 4 === 2)).toBe(true)
    expect(byTeam(22).every((id) => id % 4 === 3)).toBe(true)
    expect(new Set(byTeam(21)).size).toBe(5)
    // No id is held by two persons anywhere in the table, whatever their project.
    const [all] = await queryRows<{ persons: number; ids: number }>(
      client,
      'SELECT uniqExact(team_id, uuid) AS persons, uniqExact(id) AS ids FROM person',
    )
    expect(Number(all.ids)).toBe(Number(all.persons))
  })

  it('a message that cannot be decoded goes to dead_letters and the rest of the batch is stored', async () => {
    const values = [
      encodeIngest({ kind: 'event', event: event(6, 'carol') }),
      Buffer.from('not avro'),
      encodeIngest({ kind: 'event', event: event(7, 'carol') }),
    ]
    const log = scriptedLog([batch(100, values)])
    processor(log, pino({ level: 'silent' }), new Metrics(), { maxBatchRecords: 100, maxWaitMs: 10 }).start()
    await log.done
    const dead = await queryRows<{ offset: number; error: string }>(client, 'SELECT offset, error FROM dead_letters')
    expect(dead).toEqual([{ offset: 101, error: 'not a Wren message (bad magic byte)' }])
    const stored = await queryRows<{ c: number }>(client, "SELECT count() AS c FROM events WHERE distinct_id = 'carol'")
    expect(Number(stored[0].c)).toBe(2)
  })

  it('a batch whose write keeps failing is split until the failing event is found: it goes to dead letters, the rest is stored once, also when replayed after a crash', async () => {
    const tick = (n: number, name = 'tick') => encodeIngest({ kind: 'event', event: { ...event(n, `dave-${n % 3}`), event: name } })
    const values = [tick(200), tick(201), tick(202), tick(203, 'poison'), tick(204), tick(205), tick(206)]
    const options = { maxBatchRecords: 100, maxWaitMs: 10, maxRetries: 2, poisonEvent: 'poison' }
    const metrics = new Metrics()
    const log = retryingLog([batch(200, values), batch(207, [tick(207)])])
    const lines: Array<{ msg: string; err?: unknown }> = []
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) })
    processor(log, logger, metrics, options).start()
    await log.done
    // The repeated failure is logged once (with its stack), not once per retry, then its recovery once.
    expect(lines.filter((l) => /ingestion batch failed/.test(l.msg)).map((l) => l.msg)).toEqual([
      'ingestion batch failed; retrying',
      'ingestion batch failed; retrying: recovered after 2 failures',
    ])
    // Two failed tries of the whole range, then the halves (one split per level down to the event).
    expect(metrics.get('wren_ingestion_batch_retries_total')).toBe(2)
    expect(metrics.get('wren_ingestion_batches_split_total')).toBe(3)
    expect(metrics.get('wren_dead_letters_total')).toBe(1)

    // A new process (no memory of the failures) is handed the same range again, as after a SIGKILL
    // in the middle of isolation: the recorded letter sends it straight to isolation.
    const replay = retryingLog([batch(200, values, true)])
    const again = new Metrics()
    processor(replay, pino({ level: 'silent' }), again, options).start()
    await replay.done
    expect(again.get('wren_ingestion_batch_retries_total')).toBe(0)
    expect(replay.deliveries).toBe(1)

    const stored = await queryRows<{ n: number; copies: number }>(
      client,
      "SELECT JSONExtractInt(properties, 'n') AS n, count() AS copies FROM events WHERE distinct_id LIKE 'dave-%' GROUP BY n ORDER BY n",
    )
    expect(stored.map((r) => [Number(r.n), Number(r.copies)])).toEqual([200, 201, 202, 204, 205, 206, 207].map((n) => [n, 1]))
    const dead = await queryRows<{ offset: number; error: string; team_id: number }>(
      client,
      'SELECT offset, error, team_id FROM dead_letters WHERE offset >= 200',
    )
    expect(dead).toEqual([{ offset: 203, error: 'failpoint: ClickHouse refuses a batch holding a "poison" event', team_id: 1 }])
    const versions = await queryRows<{ dup: number }>(client, 'SELECT count() - uniqExact(uuid, version) AS dup FROM person')
    expect(Number(versions[0].dup)).toBe(0)
  })
  it('a batch replayed after a crash that stored its persons but not its events stores its events, even once ClickHouse has merged the person rows', async () => {
    const anon = 'erin-anon'
    const b0 = batch(400, [
      encodeIngest({ kind: 'event', event: event(400, anon, { $set: { plan: 'free' } }) }),
      encodeIngest({
        kind: 'event',
        event: { ...event(401, 'erin'), event: '$identify', properties: { $anon_distinct_id: anon, $set: { email: 'e@x' } } },
      }),
    ])
    const b1 = batch(402, [
      encodeIngest({ kind: 'event', event: event(402, 'erin') }),
      encodeIngest({ kind: 'event', event: event(403, 'erin') }),
    ])
    // The first process stores b0, then b1's person rows, and dies before b1's events and its commit.
    const real = new ClickHousePersonStore(client)
    const dying: PersonStore<FakeWrite> = {
      load: (wanted, bound) => real.load(wanted, bound),
      ping: () => real.ping(),
      prepare: (range, changes, events) => ({ range, changes, events }),
      encodeEvent: (e) => real.encodeEvent(e),
      write: async ({ range, changes, events }) => {
        if (range.firstOffset !== b1.firstOffset)
          return real.write(
            real.prepare(
              range,
              changes,
              events,
              events.map((e) => real.encodeEvent(e)),
              definitionRows(events, changes.groups),
            ),
          )
        await real.write(real.prepare(range, changes, [], [], null))
        throw new Error('SIGKILL')
      },
    }
    const deadLetters = new DeadLetterStore(client, systemClock).recorder('ingestion')
    let died: () => void = () => {}
    const done = new Promise<void>((resolve) => (died = resolve))
    const first: Log = {
      ...scriptedLog([]),
      subscribe(options: SubscribeOptions) {
        void (async () => {
          await options.handler(b0)
          await options.handler(b1).catch(() => died())
        })()
        return { stop: async () => {} }
      },
    }
    new IngestionProcessor(first, dying, pino({ level: 'silent' }), new Metrics(), {
      maxBatchRecords: 100,
      maxWaitMs: 10,
      deadLetters,
    }).start()
    await done
    // Background merges fold each person's versions (ReplacingMergeTree) while the process is down.
    for (const table of ['person', 'person_distinct_id']) {
      await client.command({ query: `SYSTEM START MERGES ${table}` })
      await client.command({ query: `OPTIMIZE TABLE ${table} FINAL` })
      await client.command({ query: `SYSTEM STOP MERGES ${table}` })
    }

    const replay = scriptedLog([{ ...b1, redelivered: true }])
    processor(replay, pino({ level: 'silent' }), new Metrics(), { maxBatchRecords: 100, maxWaitMs: 10 }).start()
    await replay.done

    const dead = await queryRows<{ offset: number; error: string }>(
      client,
      'SELECT offset, error FROM dead_letters WHERE offset >= 400 AND offset < 500',
    )
    expect(dead).toEqual([])
    const events = await queryRows<{ uuid: string; person_id: string }>(
      client,
      "SELECT toString(uuid) AS uuid, toString(person_id) AS person_id FROM events WHERE distinct_id IN ('erin', 'erin-anon') ORDER BY uuid",
    )
    expect(events).toEqual([400, 401, 402, 403].map((n) => ({ uuid: event(n, anon).uuid, person_id: personUuid(1, anon) })))
    const [person] = await queryRows<{ props: string }>(
      client,
      'SELECT argMax(properties, version) AS props FROM person WHERE uuid = {u:UUID}',
      { u: personUuid(1, anon) },
    )
    expect(JSON.parse(person.props)).toMatchObject({ plan: 'free', email: 'e@x', last: 403 })
  })

  it('a batch replayed after a crash that left its insert token without its rows stores them; the batch handed out once more, nothing twice', async () => {
    // A non-replicated table records an insert's token before it commits the rows: a process killed between the
    // two leaves the token without its rows. Such a token is made here by inserting another project's row
    // under the token the part's events insert carries.
    const orphan = (first: number, last: number) =>
      insertEncoded(
        client,
        'events',
        [`${JSON.stringify({ team_id: 999, uuid: randomUUID(), event: 'orphan', distinct_id: 'x', timestamp: '2026-01-01 00:00:00' })}\n`],
        `events:wren_ingest:0:${first}-${last}`,
      )
    const ticks = (first: number, who: string) => [first, first + 1].map((n) => encodeIngest({ kind: 'event', event: event(n, who) }))
    const stored = async (who: string) =>
      (
        await queryRows<{ n: number }>(
          client,
          "SELECT toUInt32(JSONExtractInt(properties, 'n')) AS n FROM events WHERE distinct_id = {who:String} ORDER BY n",
          { who },
        )
      ).map((r) => Number(r.n))
    await orphan(600, 601)
    await orphan(610, 611)
    // Replayed (redelivered): the part's events are not there, so they are written under a token of their own;
    // redelivered again, they are there, and nothing is written twice.
    const replayed = scriptedLog([batch(600, ticks(600, 'gus'), true), batch(600, ticks(600, 'gus'), true)])
    processor(replayed, pino({ level: 'silent' }), new Metrics(), { maxBatchRecords: 100, maxWaitMs: 10 }).start()
    await replayed.done
    expect(await stored('gus')).toEqual([600, 601])
    // Handed out for the first time, the part trusts its token: what the token's record drops is lost (why a
    // replay looks first).
    const fresh = scriptedLog([batch(610, ticks(610, 'hal'))])
    processor(fresh, pino({ level: 'silent' }), new Metrics(), { maxBatchRecords: 100, maxWaitMs: 10 }).start()
    await fresh.done
    expect(await stored('hal')).toEqual([])
  })

  it('loads what the fake store loads from the same writes: same rows, same replay bound, same deduplication', async () => {
    const team = 77
    const uuid = (id: string) => personUuid(team, id)
    const at = '2024-01-01T00:00:01.000000Z'
    const person = (id: string, extra: Partial<Person> = {}): Person => ({
      teamId: team,
      uuid: uuid(id),
      id: 1,
      properties: {},
      isIdentified: false,
      isDeleted: false,
      version: 0,
      createdAt: at,
      ...extra,
    })
    const none: PersonChanges = { persons: [], distinctIds: [], activity: [], groups: [], groupTypes: [] }
    const range = (first: number, last: number) => ({ topic: 'wren_ingest', partition: 3, firstOffset: first, lastOffset: last })
    const writes: Array<[ReturnType<typeof range>, PersonChanges]> = [
      [
        range(0, 1),
        {
          ...none,
          persons: [person('a', { properties: { plan: 'free' } }), person('b', { id: 2 })],
          distinctIds: [
            { teamId: team, distinctId: 'a', personUuid: uuid('a'), isDeleted: false, version: 0 },
            { teamId: team, distinctId: 'b', personUuid: uuid('b'), isDeleted: false, version: 0 },
          ],
          groupTypes: [{ teamId: team, groupType: 'org', groupTypeIndex: 0 }],
          groups: [{ teamId: team, groupTypeIndex: 0, groupKey: 'acme', properties: { n: 1 }, createdAt: at, version: 1 }],
        },
      ],
      [
        range(2, 4),
        {
          ...none,
          // b is merged into a: a's new version, b's tombstone, b's id moved
          persons: [
            person('a', { properties: { plan: 'pro' }, version: 1, isIdentified: true }),
            person('b', { id: 2, version: 1, isDeleted: true }),
          ],
          distinctIds: [{ teamId: team, distinctId: 'b', personUuid: uuid('a'), isDeleted: false, version: 1 }],
          groupTypes: [{ teamId: team, groupType: 'project', groupTypeIndex: 1 }],
          groups: [{ teamId: team, groupTypeIndex: 0, groupKey: 'acme', properties: { n: 2 }, createdAt: at, version: 2 }],
        },
      ],
      // The same range again, even with other rows: both stores drop it.
      [range(2, 4), { ...none, persons: [person('c', { id: 3 })] }],
    ]
    const stores = [new ClickHousePersonStore(client), new FakePersonStore()] as const
    for (const [r, changes] of writes) {
      await stores[0].write(stores[0].prepare(r, changes, [], [], null))
      await stores[1].write(stores[1].prepare(r, changes, []))
    }
    const wanted: Lookups = {
      teamIds: [team],
      distinctIds: ['a', 'b', 'c', 'nobody'].map((distinctId) => ({ teamId: team, distinctId })),
      personUuids: [{ teamId: team, personUuid: uuid('c') }],
      groups: [
        { teamId: team, groupType: 'org', groupKey: 'acme' },
        { teamId: team, groupType: 'project', groupKey: 'p' },
      ],
    }
    const sorted = (state: LoadedState) => ({
      teams: state.teams,
      persons: [...state.persons].sort((x, y) => x.uuid.localeCompare(y.uuid)),
      distinctIds: [...state.distinctIds].sort((x, y) => x.distinctId.localeCompare(y.distinctId)),
      groups: state.groups,
    })
    for (const bound of [null, { partition: 3, firstOffset: 2 }, { partition: 3, firstOffset: 0 }, { partition: 4, firstOffset: 0 }]) {
      const [real, fake] = await Promise.all(stores.map(async (store) => sorted(await store.load(wanted, bound))))
      expect(fake, JSON.stringify(bound)).toEqual(real)
    }
    // Not vacuous: the bound matters, and the duplicate write was dropped.
    const [unbounded, bounded] = [await stores[0].load(wanted, null), await stores[0].load(wanted, { partition: 3, firstOffset: 2 })]
    expect(unbounded.persons.find((p) => p.uuid === uuid('a'))!.properties).toEqual({ plan: 'pro' })
    expect(bounded.persons.find((p) => p.uuid === uuid('a'))!.properties).toEqual({ plan: 'free' })
    expect(unbounded.persons.map((p) => p.uuid)).not.toContain(uuid('c'))
  })
  it('copies a wide person onto its events once: after the range is stored, through a replay, and when a copy runs again', async () => {
    // 40 KB of properties (past WIDE_PERSON_CHARS): the person's events wait in wide_events for their copy.
    const wide = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`w${i}`, 'w'.repeat(1000)]))
    const values = [
      { ...event(300, 'wide'), teamId: 31, properties: { n: 300, $set: wide } },
      ...[301, 302, 303].map((n) => ({ ...event(n, 'wide'), teamId: 31 })),
      { ...event(304, 'narrow'), teamId: 31 },
    ].map((e) => encodeIngest({ kind: 'event', event: e }))
    const copied = async () =>
      queryRows<{ event: number; wide: number; n: number }>(
        client,
        `SELECT JSONExtractInt(properties, 'n') AS event, JSONExtractString(person_properties, 'w39') = {w39:String} AS wide, count() AS n
         FROM events WHERE team_id = 31 GROUP BY event, wide ORDER BY event`,
        { w39: wide.w39 },
      )
    // The second range is written, then handed out again (the process died before its commit).
    let now = 1_000_000
    const store = new ClickHousePersonStore(client, () => now)
    expect(store.copiesWaiting()).toBeNull() // not looked for yet
    const log = scriptedLog([batch(300, values.slice(0, 3)), batch(303, values.slice(3)), batch(303, values.slice(3), true)])
    const running = new IngestionProcessor(log, store, pino({ level: 'silent' }), new Metrics(), {
      maxBatchRecords: 100,
      maxWaitMs: 10,
      deadLetters: new DeadLetterStore(client, systemClock).recorder('ingestion'),
    })
    running.start()
    await log.done
    for (let tries = 0; (await copied()).length < 5 && tries < 200; tries++) await new Promise((r) => setTimeout(r, 50))
    await running.close()

    const expected = [300, 301, 302, 303].map((n) => ({ event: n, wide: 1, n: 1 }))
    expect(await copied()).toEqual([...expected, { event: 304, wide: 0, n: 1 }])
    const [left] = await queryRows<{ n: number }>(
      client,
      'SELECT (SELECT count() FROM wide_events) + (SELECT count() FROM wide_event_persons) AS n',
    )
    expect(Number(left.n)).toBe(0)

    // A crash between a copy and the delete leaves the part's rows: the next copy stores nothing twice.
    const range = { topic: 'wren_ingest', partition: 0, firstOffset: 400, lastOffset: 401 }
    const again = (n: number) => ({ ...event(n, 'wide'), teamId: 31, personProperties: wide })
    const processed = [again(400), again(401)].map((e) => ({
      teamId: 31,
      uuid: e.uuid,
      event: e.event,
      distinctId: e.distinctId,
      properties: { n: e.properties.n },
      timestamp: e.timestamp,
      createdAt: e.timestamp,
      elementsChain: '',
      personId: personUuid(31, 'wide'),
      personProperties: wide,
      personCreatedAt: e.timestamp,
      personMode: 'full' as const,
      groupProperties: [{}, {}, {}, {}, {}] as [Properties, Properties, Properties, Properties, Properties],
    }))
    const prepared = store.prepare(
      range,
      { persons: [], distinctIds: [], activity: [], groups: [], groupTypes: [] },
      processed,
      processed.map((e) => store.encodeEvent(e)),
      null,
    )
    expect(store.copiesWaiting()).toEqual({ parts: 0, seconds: 0 })
    await store.write(prepared)
    now += 7_500
    // Stored, not yet in queries: what /_readyz and the gauges report.
    expect(store.copiesWaiting()).toEqual({ parts: 1, seconds: 7.5 })
    const upTo = new Map([[0, 401]])
    expect(await store.copyWide(upTo, async () => true)).toBe(1)
    expect(store.copiesWaiting()).toEqual({ parts: 0, seconds: 0 })
    await store.write(prepared) // the token drops it: the part stays copied and deleted
    for (const { table, chunks } of prepared.wide) await insertEncoded(client, table, chunks, `left after a crash:${table}`)
    expect(await copyWideEvents(client, upTo, async () => true)).toBe(1)
    expect((await copied()).filter((r) => r.event >= 400)).toEqual([400, 401].map((n) => ({ event: n, wide: 1, n: 1 })))
  })
})
