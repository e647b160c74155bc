// Many events at once for tests of what a query may cost: one SQL `INSERT … SELECT` per million rows,
// straight into ClickHouse (capture would take minutes), each event with an `email` of its own.
import type { ClickHouseClient } from '../../services/platform/clickhouse'

/** Rows per insert: a loaded machine's fixture takes one in well under the client's 30 s. */
const CHUNK = 200_000

/** `events` $pageviews by `persons` distinct ids over the `days` before `now` (ISO), event i with email `e<i>@example.com`. */
export async function loadBulkEvents(
  ch: ClickHouseClient,
  opts: { team: number; events: number; now: string; days?: number; persons?: number },
): Promise<void> {
  const seconds = (opts.days ?? 30) * 86_400
  const now = opts.now.replace('T', ' ').replace(/(\.\d+)?Z$/, '')
  for (let offset = 0; offset < opts.events; offset += CHUNK) {
    const n = Math.min(CHUNK, opts.events - offset)
    await ch.command({
      query: `INSERT INTO events (uuid, event, properties, timestamp, team_id, distinct_id, elements_chain, created_at, person_id, person_created_at, person_properties, person_mode, group0_properties, group1_properties, group2_properties, group3_properties, group4_properties, _partition, _offset)
        SELECT generateUUIDv4(number), '$pageview', concat('{"email":"e', toString(number), '@example.com"}'), ts, {team:Int64}, did, '', ts,
          reinterpretAsUUID(concat(reinterpretAsString(cityHash64(did)), reinterpretAsString(cityHash64(did, 1)))),
          toDateTime64('2026-01-01 00:00:00', 6, 'UTC'), '{}', 'full', '{}', '{}', '{}', '{}', '{}', 0, intDiv(number, 10000)
        FROM (SELECT number, toDateTime64({now:String}, 6, 'UTC') - toIntervalSecond(cityHash64(number, 7) % {seconds:UInt32}) AS ts,
                     concat('user', toString(cityHash64(number, 3) % {persons:UInt32})) AS did
              FROM numbers({offset:UInt64}, {n:UInt64}))`,
      query_params: { team: opts.team, now, seconds, persons: opts.persons ?? 100_000, offset, n },
    })
  }
}
