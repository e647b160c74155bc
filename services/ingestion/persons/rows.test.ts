// The event rows the person work writes (rows.ts): each row carries the person as it was at that event,
// even when the person changes between its events within one part (a person's properties are encoded
// once per version, and a version never changes in place), and a row holds every column of the events table.
import { describe, expect, it } from 'vitest'
import { encodeIngest } from '../../platform/log/contract'
import { FakePersonStore } from '../testing/fake-person-store'
import { ev } from '../testing/processor-harness'
import { PersonWork } from '../person-work'
import { encodeEventRow, preparePersonRows, type PreparedRows } from './rows'

async function preparedParts(events: ReturnType<typeof ev>[]): Promise<PreparedRows[]> {
  const store = new FakePersonStore()
  const values = events.map((event) => encodeIngest({ kind: 'event', event }))
  const parts: PreparedRows[] = []
  await new PersonWork({ prepare: preparePersonRows, encodeEvent: encodeEventRow, geoip: null }).compute(
    { topic: 'wren_ingest', partition: 0, firstOffset: 0, lastOffset: values.length - 1, values, replayed: false, partitions: 1 },
    async (wanted) => store.load(wanted, null),
    async (part) => void parts.push(part.prepared),
  )
  return parts
}

/** JSONEachRow bodies as rows. */
function lines(chunks: Uint8Array[]): Array<Record<string, unknown>> {
  return chunks
    .map((chunk) => Buffer.from(chunk).toString('utf8'))
    .join('')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>)
}

async function eventRows(events: ReturnType<typeof ev>[]): Promise<Array<Record<string, unknown>>> {
  return lines((await preparedParts(events)).flatMap((p) => p.events))
}

describe('event rows', () => {
  it("carry the person's properties as of each event when the person changes mid-batch", async () => {
    const rows = await eventRows([
      ev('u', 'a', { $set: { plan: 'free' } }),
      ev('u', 'b'),
      ev('v', 'c'),
      ev('u', 'd', { $set: { plan: 'pro', seats: 3 } }),
      ev('u', 'e'),
      ev('u', 'f', { $unset: ['seats'] }),
      ev('u', 'g', { $set: { 'quote"d': 'line\nbreak é' } }),
    ])
    const seen = rows.map((r) => [r.event, r.distinct_id, r.person_properties])
    expect(seen).toEqual([
      ['a', 'u', { plan: 'free', $creator_event_uuid: rows[0].uuid }],
      ['b', 'u', { plan: 'free', $creator_event_uuid: rows[0].uuid }],
      ['c', 'v', { $creator_event_uuid: rows[2].uuid }],
      ['d', 'u', { plan: 'pro', seats: 3, $creator_event_uuid: rows[0].uuid }],
      ['e', 'u', { plan: 'pro', seats: 3, $creator_event_uuid: rows[0].uuid }],
      ['f', 'u', { plan: 'pro', $creator_event_uuid: rows[0].uuid }],
      ['g', 'u', { plan: 'pro', 'quote"d': 'line\nbreak é', $creator_event_uuid: rows[0].uuid }],
    ])
    expect(Object.keys(rows[0])).toEqual([
      'uuid',
      'event',
      'properties',
      'timestamp',
      'team_id',
      'distinct_id',
      'elements_chain',
      'created_at',
      'person_id',
      'person_created_at',
      'person_properties',
      'person_mode',
      'group0_properties',
      'group1_properties',
      'group2_properties',
      'group3_properties',
      'group4_properties',
      '_partition',
      '_offset',
    ])
    expect(rows[3]).toMatchObject({ team_id: 1, person_mode: 'full', group0_properties: {}, _partition: 0, _offset: 6 })
    expect(rows[3].properties).toMatchObject({ $set: { plan: 'pro', seats: 3 } })
  })

  it("leave a wide person's properties to wide_events' copy: once per part, with the events in chunks", async () => {
    const wide = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`w${i}`, 'w'.repeat(1000)]))
    const [part] = await preparedParts([ev('u', 'a', { $set: wide }), ev('u', 'b'), ev('v', 'c'), ev('u', 'd', { $set: { w0: 'x' } })])
    expect(lines(part.events).map((r) => [r.event, r.person_properties])).toEqual([['c', { $creator_event_uuid: expect.any(String) }]])
    const tables = Object.fromEntries(part.wide.map(({ table, chunks }) => [table, lines(chunks)]))
    const persons = tables.wide_event_persons
    expect(persons.map((r) => [r.person_properties_ref, (r.person_properties as Record<string, string>).w0, r._offset])).toEqual([
      [0, wide.w0, 3],
      [1, 'x', 3],
    ])
    const staged = tables.wide_events
    expect(staged.map((r) => [r.event, r.person_properties_ref, r.chunk, r.seq, 'person_properties' in r])).toEqual([
      ['a', 0, 0, 0, false],
      ['b', 0, 0, 1, false],
      ['d', 1, 0, 3, false],
    ])
  })
})
