// Copies wide persons' events into `events` (schemas/clickhouse/050_wide_events.sql). The person work
// stores such an event in wide_events without its person's properties, and the properties once per part in
// wide_event_persons (rows.ts); once the range is stored, ClickHouse copies them onto the events here, one
// chunk (about WIDE_CHUNK_CHARS of properties) per statement, so that the events of other projects are
// written between two chunks instead of after gigabytes of copies. Then the part's rows are deleted.
//
// Exactly once: only parts of stored ranges are copied (a range's parts are complete once it is stored, and
// a replay writes the same rows under the same tokens, which deduplication drops), each chunk under a
// deduplication token named after its part and chunk, in one block; a crash between a copy and the delete
// copies again, and the events table drops it.
import type { ClickHouseClient } from '../../platform/clickhouse'
import { INSERT_SELECT_SETTINGS, queryRows } from '../../platform/clickhouse'

const COLUMNS = [
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
  'person_mode',
  'group0_properties',
  'group1_properties',
  'group2_properties',
  'group3_properties',
  'group4_properties',
  '_partition',
  '_offset',
]

/** Stored ranges per partition of the ingest topic: parts whose last offset is at most this. */
export type StoredUpTo = ReadonlyMap<number, number>

/**
 * Copies the chunks of every stored part, oldest first, each once `next()` says it may go (false: stop now;
 * asked before the first chunk is looked for), until none is left; returns how many chunks it copied. A part whose chunks are all copied is deleted from
 * the wide tables.
 */
export async function copyWideEvents(client: ClickHouseClient, upTo: StoredUpTo, next: () => Promise<boolean>): Promise<number> {
  if (upTo.size === 0 || !(await next())) return 0
  const chunks = await queryRows<{ partition: number; offset: string; chunk: number; last: number }>(
    client,
    `SELECT _partition AS partition, toString(_offset) AS offset, chunk, max(chunk) OVER (PARTITION BY _partition, _offset) AS last
     FROM wide_events
     WHERE has({partitions:Array(UInt32)}, _partition)
       AND _offset <= transform(_partition, {partitions:Array(UInt32)}, {offsets:Array(UInt64)}, toUInt64(0))
     GROUP BY _partition, _offset, chunk ORDER BY _partition, _offset, chunk`,
    { partitions: [...upTo.keys()], offsets: [...upTo.values()] },
  )
  let copied = 0
  for (const { partition, offset, chunk, last } of chunks) {
    if (copied > 0 && !(await next())) break
    // Numbers only: the part's origin and the chunk, checked, in the text of the statements.
    const [p, o, c] = [Number(partition), BigInt(offset), Number(chunk)]
    const part = (alias: string) => `${alias}_partition = ${p} AND ${alias}_offset = ${o}`
    // Query-level SETTINGS (chDB would keep clickhouse_settings for the session). A chunk is one block (far
    // below the block bytes of INSERT_SELECT_SETTINGS), so its token covers all of it.
    await client.command({
      query: `INSERT INTO events (${COLUMNS.join(', ')}, person_properties)
              SETTINGS insert_deduplication_token = 'wide_events:${p}:${o}:${c}', ${INSERT_SELECT_SETTINGS}
              SELECT ${COLUMNS.map((column) => `w.${column}`).join(', ')}, p.person_properties
              FROM wide_events AS w
              INNER JOIN (SELECT person_properties_ref, any(person_properties) AS person_properties
                          FROM wide_event_persons WHERE ${part('')} GROUP BY person_properties_ref) AS p
                ON w.person_properties_ref = p.person_properties_ref
              WHERE ${part('w.')} AND w.chunk = ${c}
              ORDER BY w.seq LIMIT 1 BY w.seq`,
    })
    copied++
    // The part's last chunk copied (a deletion may have taken others whole): the part is done.
    if (c === Number(last)) {
      await client.command({ query: `DELETE FROM wide_events WHERE ${part('')}` })
      await client.command({ query: `DELETE FROM wide_event_persons WHERE ${part('')}` })
    }
  }
  return copied
}
