// Paths benchmark: page views by URL (5 steps, 50 edges, the last 30 days) over N synthetic events (default 1 M;
// BENCH_EVENTS=10000000 for the figure) through the PathsQuery kind, next to a hand-written ClickHouse
// SQL of the same question on the same engine and data, alternated in the same run (the bench checks the two
// answers agree). The events are paths-shaped: 50 per person, in 5 sessions a day apart of 10 page views a
// minute apart over 20 pages (repeats included). Prints figures; asserts nothing.
//   npm run bench -- paths                    (BENCH_EVENTS, BENCH_RUNS=7, BENCH_DATA_DIR to keep the data)
import { INSERT_SELECT_SETTINGS, type ClickHouseClient } from '../services/platform/clickhouse'
import { pathsQueryKind } from '../services/query/kinds/paths'
import { benchKinds, EVENTS, NOW, TEAM } from './insight-kind'

/** Paths of every person: no funnel to read. */
const pathsKind = pathsQueryKind(() => {
  throw new Error('The bench reads no funnel.')
})

const CHUNK = 1_000_000

/** Event n: person n / 50, session (n % 50) / 10 (a day apart, within the last 30 days), page view n % 10 of it (a minute apart). */
async function loadPathEvents(ch: ClickHouseClient): Promise<void> {
  for (let offset = 0; offset < EVENTS; offset += CHUNK) {
    await ch.command({
      query: `INSERT INTO events (uuid, event, properties, timestamp, team_id, distinct_id, elements_chain, created_at, person_id, person_created_at, person_properties, person_mode, group0_properties, group1_properties, group2_properties, group3_properties, group4_properties, _partition, _offset)
        SETTINGS ${INSERT_SELECT_SETTINGS}
        SELECT generateUUIDv4(number), '$pageview', props, ts, {team:Int64}, did, '', ts, pid, toDateTime64('2026-01-01 00:00:00', 6, 'UTC'), '{}', 'full', '{}', '{}', '{}', '{}', '{}', 0, intDiv(number, 10000)
        FROM (
          SELECT number,
            concat('{"$current_url":"https://app.example.com/p', toString(cityHash64(number) % 20), if(number % 7 = 0, '/', ''), '"}') AS props,
            toDateTime64({now:String}, 6, 'UTC') - toIntervalDay(1 + 5 * intDiv(number % 50, 10) + intDiv(number, 50) % 5)
              + toIntervalSecond(60 * (number % 10) + intDiv(number, 50) % 3600) AS ts,
            concat('user', toString(intDiv(number, 50))) AS did,
            reinterpretAsUUID(concat(reinterpretAsString(cityHash64(did)), reinterpretAsString(cityHash64(did, 1)))) AS pid
          FROM numbers({offset:UInt64}, {n:UInt64}))`,
      query_params: { team: TEAM, now: NOW, offset, n: Math.min(CHUNK, EVENTS - offset) },
    })
  }
}

const query = pathsKind.parse({ kind: 'PathsQuery', dateRange: { date_from: '-30d' }, pathsFilter: { includeEventTypes: ['$pageview'] } })

// The same question by hand: URLs without a trailing slash, sessions split at 30 minutes, repeats collapsed
// into their last view, the first 5 steps, edges counted in PostHog's order.
const hand = `SELECT concat(toString(i - 1), '_', p[i - 1]) AS source, concat(toString(i), '_', p[i]) AS target, count() AS value, avg(t[i] - t[i - 1]) / 1000 AS ms
  FROM (
    SELECT arraySlice(arrayFilter((x, k) -> k, s.2, keep), 1, 5) AS p, arraySlice(arrayFilter((x, k) -> k, s.1, keep), 1, 5) AS t
    FROM (
      SELECT arraySort(groupArray((toUnixTimestamp64Micro(timestamp), replaceRegexpAll(\`mat_$current_url\`, '(.)/$', '\\\\1')))) AS evs
      FROM events
      WHERE team_id = ${TEAM} AND event = '$pageview' AND timestamp >= toDateTime64('2026-02-13 00:00:00', 6, 'UTC') AND timestamp <= toDateTime64('2026-03-15 23:59:59.999999', 6, 'UTC')
      GROUP BY person_id)
    ARRAY JOIN arraySplit((x, d) -> d >= 1800000000, evs, arrayDifference(arrayMap(x -> x.1, evs))) AS s
    ARRAY JOIN [arrayMap((x, y) -> x != y, s.2, arrayPushBack(arrayPopFront(s.2), ''))] AS keep)
  ARRAY JOIN arrayEnumerate(p) AS i WHERE i > 1
  GROUP BY source, target ORDER BY value DESC, source, target LIMIT 50`

type Edge = { source: string; target: string; value: number }
const key = (list: Edge[]) => list.map((l) => `${l.source}>${l.target}:${Number(l.value)}`).join()
await benchKinds(
  'PathsQuery',
  [
    {
      name: 'page views, 5 steps',
      kind: async (deps, run) => (await pathsKind.run(deps as never, run, query)).results,
      hand,
      agree: (kind, rows) => {
        const ours = kind as Edge[]
        const theirs = rows.map(([source, target, value]) => ({ source, target, value }) as Edge)
        // The hand SQL keeps the orphan edges PostHog drops; the kind's edges are the ones a first step reaches.
        const reached = new Set(ours.map((l) => `${l.source}>${l.target}`))
        const same = key(ours) === key(theirs.filter((l) => reached.has(`${l.source}>${l.target}`)))
        return `${ours.length} edges, ${same ? 'edges agree' : 'EDGES DIFFER'}`
      },
    },
  ],
  loadPathEvents,
)
