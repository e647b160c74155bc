// A person's properties copied onto thousands of events of one request: every event row carries them, so a
// batch's rows are far larger than its messages. Ingestion writes them in parts bounded by
// WREN_INGEST_PART_BYTES, and stores every event. (Past WIDE_PERSON_CHARS of properties the copies are made
// after the range is stored: ingestion-fairness.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { captureBatch, drained, startWren, type TestWren } from '../support/wren'
import { queryRows } from '../../services/platform/clickhouse'
import { WIDE_PERSON_CHARS } from '../../services/ingestion/persons/rows'

const PART_BYTES = 1 << 20
const EVENTS = 1500
/** Just under WIDE_PERSON_CHARS (persons/rows.ts). */
const KEYS = 15

describe('a wide person on many events', () => {
  let t: TestWren
  beforeAll(async () => {
    t = await startWren({ WREN_INGEST_PART_BYTES: String(PART_BYTES) })
  })
  afterAll(async () => {
    await t?.close()
  })

  it('stores every event with the person’s properties, in writes that stay within WREN_INGEST_PART_BYTES', async () => {
    // ~15 KB of properties, then the events in one request.
    const wide = Object.fromEntries(Array.from({ length: KEYS }, (_, i) => [`p${i}`, `${i}:`.padEnd(1000, 'w')]))
    expect(JSON.stringify(wide).length).toBeLessThan(WIDE_PERSON_CHARS)
    await captureBatch(t, [{ event: '$set', distinct_id: 'wide', properties: { $set: wide } }])
    await captureBatch(
      t,
      Array.from({ length: EVENTS }, (_, i) => ({ event: 'wide_event', distinct_id: 'wide', properties: { i } })),
    )
    await drained(t.wren)

    const [stored] = await queryRows<{ events: number; withPerson: number }>(
      t.wren.clickhouse,
      `SELECT count() AS events, countIf(JSONExtractString(person_properties, 'p14') = {last:String}) AS withPerson
       FROM events WHERE event = 'wide_event'`,
      { last: wide.p14 },
    )
    expect(stored).toEqual({ events: EVENTS, withPerson: EVENTS })

    // Every write is counted in wren_ingestion_part_bytes: none went past the bound.
    const metrics = await (await fetch(`${t.url}/_metrics`)).text()
    const value = (line: RegExp) => Number(metrics.match(line)?.[1] ?? NaN)
    const writes = value(/^wren_ingestion_part_bytes_count (\d+)$/m)
    const withinBound = value(new RegExp(`^wren_ingestion_part_bytes_bucket\\{le="${PART_BYTES}"\\} (\\d+)$`, 'm'))
    expect(writes).toBeGreaterThan((EVENTS * KEYS * 1000) / PART_BYTES)
    expect(withinBound).toBe(writes)
  }, 120_000)
})
