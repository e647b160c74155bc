// HogQL benchmark: (1) parse + print time of typical queries, read by PostHog's parser (WebAssembly) and
// printed by Wren's printer, the first read of a text (the parse) and a repeated one (the parser's cache);
// (2) HogQL queries over N synthetic events (default 1 M; BENCH_EVENTS=10000000 for the figure) run
// through the HogQLQuery kind, each next to the hand-written ClickHouse SQL of the same answer on the same
// engine and data, alternated in the same run. Prints figures; asserts nothing.
//   npm run bench -- hogql                      (BENCH_EVENTS, BENCH_RUNS=7, BENCH_DATA_DIR to keep the data)
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { migrate, openEmbeddedClickHouse, queryRows, queryTypedRows } from '../services/platform/clickhouse'
import { SqlParams } from '../services/platform/clickhouse/params'
import { parseSelect } from '../services/analytics/hogql/parser'
import { printQuery } from '../services/analytics/hogql/printer'
import { hogqlQueryKind } from '../services/query/kinds/hogql'
import type { Project } from '../services/platform/tenancy'
import { loadTrendEvents } from './trend-events'
import { loadAverage, median, ms, x } from './support'

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000)
const RUNS = Number(process.env.BENCH_RUNS ?? 7)
const TEAM = 1

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

// 2. HogQL against hand-written SQL, over N events.
const keep = process.env.BENCH_DATA_DIR
const dataDir = keep ?? (await mkdtemp(path.join(tmpdir(), 'wren-bench-hogql-')))
await mkdir(dataDir, { recursive: true })
const reuse = !!keep && existsSync(path.join(dataDir, 'clickhouse'))
const ch = await openEmbeddedClickHouse(dataDir)
try {
  await migrate(ch)
  if (!reuse) {
    const start = performance.now()
    await loadTrendEvents(ch, { team: TEAM, events: EVENTS, now: '2026-03-15 12:00:00' })
    console.log(`\nloaded ${EVENTS.toLocaleString()} events in ${((performance.now() - start) / 1000).toFixed(1)} s`)
  }
  const [{ n }] = await queryRows<{ n: number }>(ch, 'SELECT count() AS n FROM events')
  const project = { id: TEAM, name: 'bench', apiToken: 'x', timezone: 'UTC', settings: {}, createdAt: '' } as Project
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
  console.log(
    `\n${Number(n).toLocaleString()} events; median of ${RUNS} runs each, alternated; HogQL through the kind (parse, print, run, shape)`,
  )
  console.log('query'.padEnd(30), 'HogQL'.padStart(12), 'hand-written'.padStart(14), 'ratio'.padStart(8))
  for (const c of cases) {
    const hog: number[] = []
    const raw: number[] = []
    const runHogql = async () => {
      const t = performance.now()
      const answer = await hogqlQueryKind.run(
        { clickhouse: ch },
        { project, now: new Date('2026-03-15T12:00:00Z'), signal: new AbortController().signal },
        hogqlQueryKind.parse({ kind: 'HogQLQuery', query: c.hogql }),
      )
      hog.push(performance.now() - t)
      return answer.results as unknown[][]
    }
    const runSql = async () => {
      const t = performance.now()
      const answer = await queryTypedRows(ch, c.sql)
      raw.push(performance.now() - t)
      return answer.rows
    }
    // A warm-up of each, and a check that both answer the same.
    const [a, b] = [await runHogql(), await runSql()]
    hog.length = 0
    raw.length = 0
    const same = JSON.stringify(a.map((r) => r.map(String))) === JSON.stringify(b.map((r) => r.map(String)))
    for (let i = 0; i < RUNS; i++) {
      await runHogql()
      await runSql()
    }
    const ratio = median(hog) / median(raw)
    console.log(
      c.name.padEnd(30),
      ms(median(hog)).padStart(12),
      ms(median(raw)).padStart(14),
      x(ratio).padStart(8),
      same ? '' : '  (answers differ!)',
    )
  }
  console.log(`load average ${loadAverage()}`)
} finally {
  await ch.close()
  if (!keep) await rm(dataDir, { recursive: true, force: true })
}
