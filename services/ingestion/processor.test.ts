// The processor's loop itself (decode, load, rules, write, commit; retries, isolation, dead letters), run
// on the fake person store and an in-memory log (testing/processor-harness.ts). The same loop on ClickHouse:
// persons/clickhouse-store.test.ts.
import { describe, expect, it } from 'vitest'
import { FakePersonStore } from './testing/fake-person-store'
import { PersonWork } from './person-work'
import { ev, ingestion } from './testing/processor-harness'
import { personUuid } from './persons/uuid'
import type { Person, PersonCommand, ProcessedEvent } from './types'

const T = 1
const pu = (id: string) => personUuid(T, id)
const named = (events: ProcessedEvent[]) => events.map((e) => `${e.distinctId}:${e.event}`)
/** The person work in this thread, storing ranges in parts of two messages. */
const inPartsOfTwo = (store: FakePersonStore) =>
  new PersonWork({
    prepare: (range, changes, events) => store.prepare(range, changes, events),
    encodeEvent: (e) => store.encodeEvent(e),
    geoip: null,
    partRecords: 2,
  })

describe('ingestion processor loop', () => {
  it('stores events in log order, within a batch and across batches, and applies their person updates in that order', async () => {
    const { run, store } = ingestion()
    await run(ev('u', 'a', { $set: { step: 1 } }), ev('v', 'b'), ev('u', 'c', { $set: { step: 2 } }))
    await run(ev('u', 'd', { $set: { step: 3 } }), ev('v', 'e', { $set_once: { first: 'e' } }), ev('v', 'f', { $set_once: { first: 'f' } }))
    expect(named(store.events())).toEqual(['u:a', 'v:b', 'u:c', 'u:d', 'v:e', 'v:f'])
    expect(store.person(T, pu('u'))!.properties.step).toBe(3)
    expect(store.person(T, pu('v'))!.properties.first).toBe('e')
    // Each event carries its person as of that event.
    expect(store.events().map((e) => e.personProperties.step)).toEqual([1, undefined, 2, 3, undefined, undefined])
    expect([store.person(T, pu('u'))!.id, store.person(T, pu('v'))!.id]).toEqual([1, 2])
  })

  it('merges persons written by an earlier batch, from memory and from storage alike', async () => {
    const earlier = [ev('anon', 'pageview', { $set: { seen: 'anon' } }, 1), ev('user', 'signup', { $set: { plan: 'pro' } }, 2)]
    const later = [ev('user', '$identify', { $anon_distinct_id: 'anon', $set: { email: 'u@x' } }, 3), ev('anon', 'pageview', {}, 4)]
    const merge = async (restart: boolean) => {
      const h = ingestion()
      await h.run(...earlier)
      // A new process knows nothing: the second batch reads both persons from the store.
      if (restart) await h.restart()
      const loadsBefore = h.store.loads.length
      const { outputs } = await h.run(...later)
      return { h, outputs: outputs as ProcessedEvent[], loaded: h.store.loads.slice(loadsBefore) }
    }
    const cached = await merge(false)
    const loaded = await merge(true)
    for (const { h, outputs } of [cached, loaded]) {
      const merged = h.store.person(T, pu('user'))!
      expect(merged).toMatchObject({ isIdentified: true, properties: { seen: 'anon', plan: 'pro', email: 'u@x' } })
      expect(h.store.person(T, pu('anon'))!.isDeleted).toBe(true)
      expect(h.store.idsOf(T, pu('user'))).toEqual(['anon', 'user'])
      expect(outputs.map((o) => o.personId)).toEqual([pu('user'), pu('user')])
    }
    // The same rows either way; only the restarted process had to ask storage for the persons.
    expect(loaded.h.store.persons()).toEqual(cached.h.store.persons())
    expect(loaded.h.store.distinctIds()).toEqual(cached.h.store.distinctIds())
    expect(cached.loaded.flatMap((l) => l.distinctIds)).toEqual([])
    expect(loaded.loaded.flatMap((l) => l.distinctIds).map((d) => d.distinctId)).toEqual(['user', 'anon'])
  })

  it.each([
    ['to a new process after a crash', true],
    ['to the same process, its commit lost', false],
  ])('rebuilds a batch redelivered (%s) from the state before it, writing the same rows, stored once', async (_, restart) => {
    const h = ingestion()
    await h.run(ev('anon', 'pageview', { $set: { a: 1 } }), ev('user', 'e'))
    const items = [
      ev('user', '$identify', { $anon_distinct_id: 'anon', $set: { b: 2 } }),
      ev('anon', 'e', { $set: { c: 3 } }),
      ev('new', 'e'),
      { ...cmd('update_properties', pu('user')), set: { d: 4 } },
    ]
    await h.append(...items)
    // The batch is written, then the process dies before the commit.
    expect((await h.deliver(items, { crash: true })).delivery.committed).toBe(false)
    const stored = { persons: h.store.personVersions(), events: h.store.events(), activity: h.store.activity() }
    if (restart) await h.restart()
    const replay = await h.deliver(items)
    expect(replay.delivery).toMatchObject({ committed: true, batch: { firstOffset: 2, lastOffset: 5, redelivered: true } })
    // Same output, computed from the state before the batch (its own rows are left out of the load)...
    const [first, again] = h.store.writes.slice(-2)
    expect(again).toEqual(first)
    // ...so deduplication drops all of it.
    expect(h.store.personVersions()).toEqual(stored.persons)
    expect(h.store.events()).toEqual(stored.events)
    expect(h.store.activity()).toEqual(stored.activity)
    expect(replay.outputs[3]).toMatchObject({ ok: true, person: { uuid: pu('user'), properties: { a: 1, b: 2, c: 3, d: 4 } } })
    expect(h.store.person(T, pu('new'))!.id).toBe(3)
  })

  it('stores a batch in parts (each its persons, then its events), and a replay after a part failed stores every row once', async () => {
    const store = new FakePersonStore()
    const h = ingestion({ store, processor: { work: inPartsOfTwo(store) } })
    const items = [
      ev('u', 'a', { $set: { n: 1 } }),
      ev('v', 'b'),
      ev('u', 'c', { $set: { n: 2 } }),
      ev('u', 'fails-once', { $set: { n: 3 } }),
      ev('v', 'e', { $set: { m: 1 } }),
    ]
    await h.append(...items)
    store.refuse = (_, events) => events.some((e) => e.event === 'fails-once')
    expect((await h.deliver(items, { attempts: 1 })).delivery).toMatchObject({ committed: false, failures: 1 })
    // The first part is stored; the second got as far as its person rows.
    expect(named(store.events())).toEqual(['u:a', 'v:b'])
    store.refuse = null
    const replay = await h.deliver(items)
    expect(replay.delivery).toMatchObject({ committed: true, batch: { firstOffset: 0, lastOffset: 4, redelivered: true } })
    // Parts cut on offset multiples, written in order, each with its own range.
    expect(store.writes.map((w) => [w.range.firstOffset, w.range.lastOffset])).toEqual([
      [0, 1],
      [2, 3],
      [0, 1],
      [2, 3],
      [4, 4],
    ])
    expect(named(store.events())).toEqual(['u:a', 'v:b', 'u:c', 'u:fails-once', 'v:e'])
    expect(store.events().map((e) => e.personProperties.n ?? e.personProperties.m)).toEqual([1, undefined, 2, 3, 1])
    // One row per person and part (its state at the part's end), none twice: the replay's writes of the
    // parts the first attempt stored were deduplicated.
    const rows = store
      .personVersions()
      .map((p) => `${p.uuid === pu('u') ? 'u' : 'v'} v${p.version} n=${p.properties.n} m=${p.properties.m}`)
    expect(rows.sort()).toEqual(['u v0 n=1 m=undefined', 'u v2 n=3 m=undefined', 'v v0 n=undefined m=undefined', 'v v1 n=undefined m=1'])
    // Decide's snapshot heard each stored part's changes.
    expect(replay.changes.persons.length).toBeGreaterThan(0)
  })

  it.each([
    // Loads after each delivery: the next batch's lookups are made while the one before is stored.
    ['as handed out next', 'next', [2, 3, 3]],
    // Worked ahead on memory that ran ahead of storage: dropped, and the batch loaded again.
    ['dropped when the batch before it fails once', 'fail', [2, 4, 5]],
    ['dropped when it comes reassigned (a rebalance)', 'reassigned', [2, 3, 4]],
    ['dropped when the processor stops and starts again', 'restart', [2, 3, 4]],
  ] as const)('works the next batch while one is stored (%s): the same rows as one batch after the other', async (_, next, loads) => {
    // Three batches of three, each stored in parts of two: merges and $set across batches and parts.
    const batches = [
      [ev('u', 'a', { $set: { n: 1 } }), ev('anon', 'b', { $set: { seen: 1 } }), ev('v', 'c')],
      [
        ev('u', '$identify', { $anon_distinct_id: 'anon', $set: { n: 2 } }),
        ev('anon', 'fails-once', { $set: { n: 3 } }),
        ev('v', 'e', { $set: { m: 1 } }),
      ],
      [ev('u', 'f', { $set: { n: 4 } }), ev('w', 'g'), ev('anon', 'h', { $set_once: { first: 'h' } })],
    ]
    const run = async (ahead: boolean) => {
      const store = new FakePersonStore()
      const h = ingestion({ store, processor: { work: inPartsOfTwo(store), maxBatchRecords: 3 } })
      await h.append(...batches.flat())
      if (ahead && next === 'fail') {
        let refused = 0
        store.refuse = (_, events) => events.some((e) => e.event === 'fails-once') && refused++ === 0
      }
      const ranges: Array<Array<[number, number]>> = []
      const loads: number[] = []
      for (const [i, items] of batches.entries()) {
        const before = store.writes.length
        if (ahead && i === 2 && next === 'restart') await h.restart()
        const { delivery } = await h.deliver(items, { lookahead: ahead, reassigned: ahead && i === 2 && next === 'reassigned' })
        expect(delivery.committed).toBe(true)
        // Nothing of the batch worked ahead is written before it is handed out.
        ranges.push(store.writes.slice(before).map((w) => [w.range.firstOffset, w.range.lastOffset]))
        loads.push(store.loads.length)
      }
      return { store, ranges, loads }
    }
    const plain = await run(false)
    const ahead = await run(true)
    expect(plain.loads).toEqual([1, 2, 3])
    expect(ahead.loads).toEqual(loads)
    // Every write while a batch was delivered is of that batch's range.
    expect(ahead.ranges.map((r, i) => r.every(([first, last]) => first >= 3 * i && last <= 3 * i + 2))).toEqual([true, true, true])
    expect(ahead.store.persons()).toEqual(plain.store.persons())
    expect(ahead.store.personVersions()).toEqual(plain.store.personVersions())
    expect(ahead.store.distinctIds()).toEqual(plain.store.distinctIds())
    expect(ahead.store.events()).toEqual(plain.store.events())
    expect(ahead.store.activity()).toEqual(plain.store.activity())
  })

  it('replays a batch whose write failed half-way from storage, not from memory that ran ahead', async () => {
    const h = ingestion()
    await h.run(ev('u', 'e', { $set: { n: 1 } }))
    h.store.refuse = (_, events) => events.some((e) => e.event === 'fails-once')
    const items = [ev('u', 'e', { $set: { n: 2 } }), ev('u', 'fails-once')]
    await h.append(...items)
    // The person row of the batch is stored, its events are refused: the log hands the batch out again.
    const failing = h.deliver(items, { attempts: 1 })
    expect((await failing).delivery).toMatchObject({ committed: false, failures: 1 })
    h.store.refuse = null
    const replay = await h.deliver(items)
    expect(replay.delivery).toMatchObject({ committed: true, batch: { redelivered: true } })
    expect(named(h.store.events())).toEqual(['u:e', 'u:e', 'u:fails-once'])
    expect(h.store.personVersions().map((p) => [p.version, p.properties.n])).toEqual([
      [0, 1],
      [1, 2],
    ])
  })

  it('re-reads storage when the log reassigns the partition (another process may have written since)', async () => {
    const h = ingestion()
    await h.run(ev('u', 'e', { $set: { plan: 'free' } }))
    const p = h.store.person(T, pu('u'))!
    h.store.seed({ persons: [{ ...p, version: p.version + 1, properties: { ...p.properties, plan: 'pro' } }] })
    await h.append(ev('u', 'e'))
    const { outputs } = await h.deliver([], { reassigned: true })
    expect(h.store.events().at(-1)!.personProperties.plan).toBe('pro')
    expect(outputs).toEqual([])
  })

  it('dead-letters a message that cannot be decoded and stores the rest of the batch', async () => {
    const h = ingestion()
    const items = [ev('carol', 'a'), ev('carol', 'b')]
    await h.append(items[0], Buffer.from('not avro'), items[1])
    const { delivery } = await h.deliver(items)
    expect(delivery).toMatchObject({ committed: true, failures: 0 })
    expect(named(h.store.events())).toEqual(['carol:a', 'carol:b'])
    expect(h.store.letters()).toEqual([
      {
        topic: 'wren_ingest',
        partition: 0,
        offset: 1,
        error: 'not a Wren message (bad magic byte)',
        payload: Buffer.from('not avro'),
        teamId: null,
      },
    ])
    expect(h.metrics.get('wren_dead_letters_total')).toBe(1)
    expect(h.lines.some((l) => l.msg === 'messages sent to the dead-letter store')).toBe(true)
  })

  it('isolates a batch whose write keeps failing: the failing message is dead-lettered, everything else stored once, in order, also when replayed after a crash', async () => {
    const store = new FakePersonStore()
    store.refuse = (_, events) => events.some((e) => e.event === 'poison')
    const options = { maxRetries: 2 }
    const h = ingestion({ store, processor: options })
    const tick = (n: number, name = 'tick') => ev(`dave-${n % 3}`, name, { n })
    const items = [tick(0), tick(1), tick(2), tick(3, 'poison'), tick(4), tick(5), tick(6)]
    await h.append(...items)
    // Isolation is reached after two failures of the whole range; it writes the parts, then the process dies.
    const first = await h.deliver(items, { crash: true })
    expect(first.delivery).toMatchObject({ committed: false, failures: 2 })
    expect(h.metrics.get('wren_ingestion_batch_retries_total')).toBe(2)
    expect(h.metrics.get('wren_ingestion_batches_split_total')).toBe(3)
    expect(h.metrics.get('wren_dead_letters_total')).toBe(1)
    const stored = { events: h.store.events(), persons: h.store.personVersions() }

    // A new process (no memory of the failures) is handed the same range: the recorded letter sends it
    // straight to isolation, which walks the same parts and stores nothing twice.
    await h.restart()
    const replay = await h.deliver(items)
    expect(replay.delivery).toMatchObject({ committed: true, failures: 0, batch: { redelivered: true } })
    expect(h.metrics.get('wren_ingestion_batch_retries_total')).toBe(0)
    expect(h.store.events()).toEqual(stored.events)
    expect(h.store.personVersions()).toEqual(stored.persons)
    await h.run(tick(7))
    expect(h.store.events().map((e) => e.properties.n)).toEqual([0, 1, 2, 4, 5, 6, 7])
    expect(h.store.letters()).toEqual([
      { topic: 'wren_ingest', partition: 0, offset: 3, error: 'the store refuses this write', payload: expect.any(Buffer), teamId: T },
    ])
    // The failed writes of the whole range stored its person rows before the events were refused; the
    // parts store the same versions again, identical, so ReplacingMergeTree folds them into one.
    const firstCopy = new Map<string, Person>()
    for (const p of h.store.personVersions()) {
      const key = `${p.uuid}@${p.version}`
      if (!firstCopy.has(key)) firstCopy.set(key, p)
      expect(p).toEqual(firstCopy.get(key))
    }
  })

  it('applies a person command that shares a batch with a poison message once the poison is isolated', async () => {
    const store = new FakePersonStore()
    store.refuse = (_, events) => events.some((e) => e.event === 'poison')
    const h = ingestion({ store, processor: { maxRetries: 1 } })
    await h.run(ev('u', 'e'))
    const command = { ...cmd('update_properties', pu('u')), set: { a: 1 } }
    const waiting = h.processor.waitForCommand(command.commandId, 5_000)
    const { outputs } = await h.run(command, ev('u', 'poison'))
    expect(await waiting).toMatchObject({ ok: true, person: { properties: { a: 1 } } })
    expect(outputs[0]).toEqual(await waiting)
    expect(h.store.letters().map((l) => l.offset)).toEqual([2])
  })

  it('answers a person command that is dead-lettered at once, with a 500', async () => {
    const store = new FakePersonStore()
    store.refuse = (changes) => changes.persons.some((p) => p.properties.poison === true)
    const h = ingestion({ store, processor: { maxRetries: 1 } })
    await h.run(ev('u', 'e'))
    const command = { ...cmd('update_properties', pu('u')), set: { poison: true } }
    const waiting = h.processor.waitForCommand(command.commandId, 5_000)
    const { outputs } = await h.run(ev('u', 'before'), command, ev('u', 'after'))
    expect(await waiting).toEqual({ ok: false, status: 500, detail: 'the store refuses this write' })
    expect(outputs[1]).toEqual(await waiting)
    expect(named(h.store.events())).toEqual(['u:e', 'u:before', 'u:after'])
    expect(h.store.letters().map((l) => [l.offset, l.teamId])).toEqual([[2, T]])
  })

  it('does not blame any message when storage is down: nothing is dead-lettered, and the batch is stored once it is back', async () => {
    const h = ingestion({ processor: { maxRetries: 1 } })
    await h.run(ev('u', 'e'))
    h.store.down = new Error('connection refused')
    const items = [ev('u', 'a'), ev('u', 'b')]
    await h.append(...items)
    expect((await h.deliver(items, { attempts: 4 })).delivery).toMatchObject({ committed: false, failures: 4 })
    expect(h.metrics.get('wren_ingestion_batches_split_total')).toBe(0)
    h.store.down = null
    expect((await h.deliver(items)).delivery).toMatchObject({ committed: true, failures: 0 })
    expect(named(h.store.events())).toEqual(['u:e', 'u:a', 'u:b'])
    expect(h.store.letters()).toEqual([])
  })
})

let commands = 0

function cmd(action: PersonCommand['action'], uuid: string): PersonCommand {
  return { action, commandId: `c${++commands}`, teamId: T, personUuid: uuid, at: '2024-02-01T00:00:00.000Z' } as PersonCommand
}
