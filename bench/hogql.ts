// HogQL benchmark: (1) parse + print time of typical queries, read by PostHog's parser (WebAssembly) and
// printed by Wren's printer, the first read of a text (the parse) and a repeated one (the parser's cache);
// (2) HogQL queries over N synthetic events (default 1 M; BENCH_EVENTS=10000000 for the figure) run
// through the HogQLQuery kind, each next to the hand-written ClickHouse SQL of the same answer on the same
// engine and data, alternated in the same run. Prints figures; asserts nothing.
//   npm run bench -- hogql                      (BENCH_EVENTS, BENCH_RUNS=7, BENCH_DATA_DIR to keep the data)
import { SqlParams } from '../services/platform/clickhouse/params'
import { parseSelect } from '../services/analytics/hogql/parser'
import { printQuery } from '../services/analytics/hogql/printer'
import { hogqlQueryKind } from '../services/query/kinds/hogql'
import { benchKinds, TEAM } from './insight-kind'
import { loadAverage, median, ms } from './support'

console.log(`HogQL bench — ${new Date().toISOString()}, load average ${loadAverage()}`)

// 1. Parse + print.
const TYPICAL = [
  'SELECT event, count() AS c FROM events WHERE timestamp > now() - INTERVAL 7 DAY GROUP BY event ORDER BY c DESC LIMIT 10',
  "SELECT toStartOfDay(timestamp) AS day, count(DISTINCT person_id) FROM events WHERE event = '$pageview' GROUP BY day ORDER BY day",
  'SELECT properties.$browser AS browser, count() FROM events WHERE {filters} GROUP BY browser ORDER BY count() DESC',
  'SELECT e.event, p.properties.email FROM events e LEFT JOIN persons p ON p.id = e.person_id LIMIT 5',
  "WITH signups AS (SELECT distinct_id FROM events WHERE event = 'signed_up') SELECT count() FROM events WHERE distinct_id IN (SELECT distinct_id FROM signups)",
  "SELECT distinct_id, row_number() OVER (PARTITION BY distinct_id ORDER BY timestamp) AS n FROM events WHERE event = '$pageview' LIMIT 100",
]
const printOne = (text: string) =>
  printQuery(parseSelect(text, 'query'), {
    params: new SqlParams(),
    text,
    attr: 'query',
    team: TEAM,
    timezone: 'UTC',
    placeholders: () => ({ sql: 'true', kind: 'bool' }),
  })
console.log('\nparse + print, median of 15 (first read: a text not seen before; again: its AST from the parser cache, print only)')
console.log('query'.padEnd(60), 'first read'.padStart(12), 'again'.padStart(12))
for (const text of TYPICAL) {
  const first: number[] = []
  const repeated: number[] = []
  for (let i = 0; i < 15; i++) {
    const unique = `${text} -- ${i} ${Math.random()}`
    let t = performance.now()
    printOne(unique)
    first.push(performance.now() - t)
    t = performance.now()
    printOne(unique)
    repeated.push(performance.now() - t)
  }
  console.log(text.slice(0, 58).padEnd(60), ms(median(first)).padStart(12), ms(median(repeated)).padStart(12))
}

// 2. HogQL through the kind (parse, print, run, shape) against hand-written SQL, over N events.
const from = "toDateTime64('2026-02-14 00:00:00', 6, 'UTC')"
const where = `team_id = ${TEAM} AND timestamp >= ${from}`
const cases: Array<{ name: string; hogql: string; sql: string }> = [
  {
    name: 'count by event',
    hogql: "SELECT event, count() AS c FROM events WHERE timestamp >= toDateTime('2026-02-14 00:00:00') GROUP BY event ORDER BY c DESC",
    sql: `SELECT event, count() AS c FROM events WHERE ${where} GROUP BY event ORDER BY c DESC LIMIT 101`,
  },
  {
    name: 'daily pageviews',
    hogql:
      "SELECT toStartOfDay(timestamp) AS day, count() AS c FROM events WHERE event = '$pageview' AND timestamp >= toDateTime('2026-02-14 00:00:00') GROUP BY day ORDER BY day",
    sql: `SELECT toStartOfDay(timestamp, 'UTC') AS day, count() AS c FROM events WHERE ${where} AND event = '$pageview' GROUP BY day ORDER BY day LIMIT 101`,
  },
  {
    name: 'pageviews by $browser',
    hogql: "SELECT properties.$browser AS b, count() AS c FROM events WHERE event = '$pageview' GROUP BY b ORDER BY c DESC",
    sql: `SELECT JSONExtract(properties, '$browser', 'Nullable(String)') AS b, count() AS c FROM events WHERE team_id = ${TEAM} AND event = '$pageview' GROUP BY b ORDER BY c DESC LIMIT 101`,
  },
  {
    name: 'distinct persons signing up',
    hogql: "SELECT count(DISTINCT person_id) FROM events WHERE event = 'signed_up'",
    sql: `SELECT count(DISTINCT person_id) FROM events WHERE team_id = ${TEAM} AND event = 'signed_up' LIMIT 101`,
  },
]
await benchKinds(
  'HogQLQuery',
  cases.map((c) => ({
    name: c.name,
    kind: async (deps, run) => (await hogqlQueryKind.run(deps, run, hogqlQueryKind.parse({ kind: 'HogQLQuery', query: c.hogql }))).results,
    hand: c.sql,
    agree: (kind, rows) =>
      JSON.stringify((kind as unknown[][]).map((r) => r.map(String))) === JSON.stringify(rows.map((r) => r.map(String)))
        ? 'answers agree'
        : '(answers differ!)',
  })),
)
