// The person work on its worker thread (worker-person-work.ts, compute-worker.ts) against the same work
// in this thread: the same range gives the same parts, the worker asks this thread for what it loads,
// and a worker that cannot start says so through ping (so isolation never blames a message for it).
import { afterEach, describe, expect, it } from 'vitest'
import pino from 'pino'
import { encodeIngest } from '../platform/log/contract'
import { FakePersonStore } from './testing/fake-person-store'
import { ev } from './testing/processor-harness'
import { encodeEventRow, preparePersonRows, type PreparedRows } from './persons/rows'
import { PersonWork, type PartOutput, type RangeInput } from './person-work'
import type { LoadedState, Lookups } from './persons/store'
import { WorkerPersonWork } from './worker-person-work'

const silent = pino({ level: 'silent' })
let work: WorkerPersonWork | null = null
afterEach(async () => {
  await work?.close()
  work = null
})

function range(values: Buffer[]): RangeInput {
  return { topic: 'wren_ingest', partition: 0, firstOffset: 0, lastOffset: values.length - 1, values, replayed: false, partitions: 1 }
}

const text = (chunks: Uint8Array[]) => chunks.map((c) => Buffer.from(c).toString('utf8')).join('')
const readable = (part: PartOutput<PreparedRows>) => ({
  range: part.range,
  persons: part.prepared.persons.map((t) => ({ table: t.table, rows: text(t.chunks) })),
  events: text(part.prepared.events),
  changes: part.changes,
})

describe('the person work on a worker thread', () => {
  it('hands a range’s definitions to its last part only, with every part’s names (one insert per range, not per part)', async () => {
    const store = new FakePersonStore()
    const names = ['first', 'second', 'third']
    const values = names.map((name, i) => encodeIngest({ kind: 'event', event: ev(`u${i}`, name, { [`${name}_prop`]: i }) }))
    const parts: Array<PartOutput<PreparedRows>> = []
    const work = new PersonWork({ prepare: preparePersonRows, encodeEvent: encodeEventRow, geoip: null, partRecords: 1 })
    await work.compute(
      range(values),
      (wanted) => store.load(wanted, null),
      async (part) => void parts.push(part),
    )
    const definitions = parts.map((p) => Object.fromEntries(p.prepared.definitions.map((t) => [t.table, text(t.chunks)])))
    expect(definitions.slice(0, 2)).toEqual([{}, {}])
    for (const name of names) {
      expect(definitions[2].event_definitions).toContain(`"name":"${name}"`)
      expect(definitions[2].property_definitions).toContain(`"name":"${name}_prop"`)
    }
  })

  it('gives the same parts as the work in this thread, loading through this thread', async () => {
    const store = new FakePersonStore()
    const values = [
      ev('u', 'a', { $set: { plan: 'free' } }),
      ev('v', 'b'),
      ev('u', '$identify', { $anon_distinct_id: 'v', $set: { email: 'u@x' } }),
      ev('w', 'c', { $groups: { company: 'acme' } }),
      ev('u', 'd', { $set: { plan: 'pro' } }),
    ].map((event) => encodeIngest({ kind: 'event', event }))
    values.splice(2, 0, Buffer.from('not a Wren message'))
    const loads: Lookups[] = []
    const load = async (wanted: Lookups): Promise<LoadedState> => (loads.push(wanted), store.load(wanted, null))

    const run = async (w: { compute: PersonWork<PreparedRows>['compute'] }) => {
      const parts: Array<ReturnType<typeof readable>> = []
      const output = await w.compute(range(values), load, async (part) => void parts.push(readable(part)))
      return { parts, output }
    }
    work = new WorkerPersonWork({ geoip: null, partRecords: 4 }, silent)
    const onWorker = await run(work)
    const here = await run(new PersonWork({ prepare: preparePersonRows, encodeEvent: encodeEventRow, geoip: null, partRecords: 4 }))

    expect(onWorker).toEqual(here)
    expect(onWorker.parts.map((p) => [p.range.firstOffset, p.range.lastOffset])).toEqual([
      [0, 3],
      [4, 5],
    ])
    expect(onWorker.parts[1].events).toContain('"event":"d"')
    expect(onWorker.output.failed).toEqual([{ index: 2, error: 'not a Wren message (bad magic byte)', teamId: null }])
    expect(loads).toHaveLength(2)
    expect(loads[0]).toEqual(loads[1])
  })

  it('says through ping that it cannot start, and fails the range rather than a message', async () => {
    work = new WorkerPersonWork({ geoip: { database: '/nonexistent/GeoLite2-City.mmdb' } }, silent)
    const ping = await work.ping()
    expect(ping.success).toBe(false)
    expect(ping.success ? '' : ping.error.message).toContain('WREN_GEOIP_DATABASE')
    const values = [encodeIngest({ kind: 'event', event: ev('u', 'a') })]
    await expect(
      work.compute(
        range(values),
        async () => ({ teams: [], distinctIds: [], persons: [], groups: [] }),
        async () => {},
      ),
    ).rejects.toThrow()
  })
})
