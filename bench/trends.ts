// Trend benchmark: N synthetic events (default 10 M) bulk-loaded as the same rows ingestion writes, then
// the daily $pageview trend over 30 days (plain, with a breakdown, dau, and a formula) over HTTP, each
// next to the hand-written ClickHouse SQL for the same answer. Prints figures; asserts nothing.
// The breakdown on `price` (not one of the migration's property columns) runs twice: first read from the
// properties JSON (what a first use costs), then after Wren's materializer has given it a column of its own
// and the stored parts have been rewritten with it (the run a first read starts in the background; here
// the job is stopped and the bench runs it at a known point).
// Resident memory is sampled while the trends run (budget 1 GiB).
//   node --import tsx bench/trends.ts            (BENCH_EVENTS=1000000 for a quicker run)
//   BENCH_DATA_DIR=/tmp/wren-trends-10m ...      keeps the loaded data there and reuses it on the next run
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pino from 'pino'
import { buildWren } from '../services/app'
import { loadConfig } from '../services/platform/config'
import { queryRows } from '../services/platform/clickhouse'
import { loadTrendEvents } from './trend-events'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../services/projects/store'
import { materializedColumnName } from '../services/analytics/sql/materialized-properties'

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000_000)
const RUNS = Number(process.env.BENCH_RUNS ?? 7)
const NOW = '2026-03-15T12:00:00Z'

const keep = process.env.BENCH_DATA_DIR
const reuse = !!keep && existsSync(path.join(keep, 'clickhouse'))
const dataDir = keep ?? (await mkdtemp(path.join(tmpdir(), 'wren-bench-trends-')))
await mkdir(dataDir, { recursive: true })
const startedAt = performance.now()
const wren = await buildWren(
  loadConfig({
    WREN_DATA_DIR: dataDir,
    WREN_NOW: NOW,
    WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX),
    WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX),
  }),
  pino({ level: 'warn' }),
)
// Startup includes any migration the stored data has not had yet (a column rewritten over every event, say).
console.log(`wren started in ${((performance.now() - startedAt) / 1000).toFixed(1)} s`)
const team = wren.projects.list()[0].id
const { value: personalKey } = await wren.projects.createPersonalKey({ label: 'bench', scopes: ['*'] })
const ch = wren.clickhouse

try {
  const loadStart = performance.now()
  if (!reuse) await loadTrendEvents(ch, { team, events: EVENTS, now: '2026-03-15 12:00:00' })
  const loadSeconds = (performance.now() - loadStart) / 1000
  const [{ n }] = await queryRows<{ n: number }>(ch, 'SELECT count() AS n FROM events')
  if (reuse) console.log(`reusing ${Number(n).toLocaleString()} events in ${dataDir}`)
  else
    console.log(
      `loaded ${EVENTS.toLocaleString()} events in ${loadSeconds.toFixed(1)} s (${Math.round(EVENTS / loadSeconds).toLocaleString()} rows/s, bulk SQL loader)`,
    )

  const range = { date_from: '2026-02-14', date_to: '2026-03-15' }
  const from = "toDateTime64('2026-02-14 00:00:00', 6, 'UTC')"
  const to = "toDateTime64('2026-03-15 23:59:59.999999', 6, 'UTC')"
  const where = `team_id = ${team} AND timestamp >= ${from} AND timestamp <= ${to}`
  // The bench runs the materializer itself, at a known point (not on the job's timer).
  await wren.materializer.stop()
  // Each run measures the materializer from scratch: columns it added in an earlier run are dropped.
  const added = await queryRows<{ name: string }>(
    ch,
    "SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'events' AND startsWith(comment, 'wren event property: ')",
  )
  for (const { name } of added) await ch.command({ query: `ALTER TABLE events DROP COLUMN \`${name}\`` })
  await wren.materializer.run()
  const priceColumn = materializedColumnName('price')
  const materializePrice = async () => {
    const start = performance.now()
    const keys = await wren.materializer.run()
    for (;;) {
      const [{ pending }] = await queryRows<{ pending: number }>(
        ch,
        "SELECT count() AS pending FROM system.mutations WHERE database = currentDatabase() AND table = 'events' AND NOT is_done",
      )
      if (Number(pending) === 0) break
      await new Promise((r) => setTimeout(r, 100))
    }
    console.log(
      `  (materializer added ${keys.map((k) => `'${k}'`).join(', ') || 'nothing'}; column added and ${Number(n).toLocaleString()} rows rewritten in ${((performance.now() - start) / 1000).toFixed(1)} s)`,
    )
  }
  const cases: Array<{ name: string; body: Record<string, unknown>; sql: string; before?: () => Promise<void> }> = [
    {
      name: 'daily $pageview, 30 days',
      body: { ...range, events: [{ id: '$pageview' }] },
      sql: `SELECT toStartOfDay(timestamp) AS d, count() FROM events WHERE ${where} AND event = '$pageview' GROUP BY d ORDER BY d`,
    },
    {
      name: '... by $browser',
      body: { ...range, events: [{ id: '$pageview' }], breakdown: '$browser' },
      sql: `SELECT toStartOfDay(timestamp) AS d, \`mat_$browser\` AS b, count() FROM events WHERE ${where} AND event = '$pageview' GROUP BY d, b`,
    },
    {
      name: '... by price (JSON, first use)',
      body: { ...range, events: [{ id: '$pageview' }], breakdown: 'price' },
      sql: `SELECT toStartOfDay(timestamp) AS d, JSONExtractRaw(properties, 'price') AS b, count() FROM events WHERE ${where} AND event = '$pageview' GROUP BY d, b`,
    },
    {
      name: '... by price, vs SQL on JSON',
      body: { ...range, events: [{ id: '$pageview' }], breakdown: 'price' },
      sql: `SELECT toStartOfDay(timestamp) AS d, JSONExtractRaw(properties, 'price') AS b, count() FROM events WHERE ${where} AND event = '$pageview' GROUP BY d, b`,
      before: materializePrice,
    },
    {
      name: '... by price, vs SQL on column',
      body: { ...range, events: [{ id: '$pageview' }], breakdown: 'price' },
      sql: `SELECT toStartOfDay(timestamp) AS d, \`${priceColumn}\` AS b, count() FROM events WHERE ${where} AND event = '$pageview' GROUP BY d, b`,
    },
    {
      name: '... dau',
      body: { ...range, events: [{ id: '$pageview', math: 'dau' }] },
      sql: `SELECT toStartOfDay(timestamp) AS d, uniqExact(person_id) FROM events WHERE ${where} AND event = '$pageview' GROUP BY d ORDER BY d`,
    },
    {
      name: '... formula A/B',
      body: { ...range, events: [{ id: 'signed_up' }, { id: '$pageview' }], formula: 'A / B' },
      sql: `SELECT toStartOfDay(timestamp) AS d, countIf(event = 'signed_up') / countIf(event = '$pageview') FROM events WHERE ${where} AND event IN ('signed_up', '$pageview') GROUP BY d ORDER BY d`,
    },
  ]
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  /**
   * Runs the contenders alternately (after one warm-up each), so load from elsewhere hits both alike.
   * Also the process's CPU time per call (chDB runs in this process): other work on a shared machine
   * stretches the wall time but hardly the CPU time, so CPU ratios stay comparable across noisy runs.
   */
  const race = async (fns: Array<() => Promise<unknown>>) => {
    for (const fn of fns) await fn()
    const ms: number[][] = fns.map(() => [])
    const cpu: number[][] = fns.map(() => [])
    for (let i = 0; i < RUNS; i++) {
      for (let j = 0; j < fns.length; j++) {
        const start = performance.now()
        const startCpu = process.cpuUsage()
        await fns[j]()
        const used = process.cpuUsage(startCpu)
        ms[j].push(performance.now() - start)
        cpu[j].push((used.user + used.system) / 1000)
      }
    }
    return { wall: ms.map(median), cpu: cpu.map(median) }
  }
  console.log(
    `\n${'case'.padEnd(32)} ${'wren (ms)'.padStart(10)} ${'hand SQL (ms)'.padStart(14)} ${'ratio'.padStart(6)}  ${'CPU ms: wren'.padStart(12)} ${'SQL'.padStart(6)} ${'ratio'.padStart(6)}  ${'cached (ms)'.padStart(11)} ${'peak RSS'.padStart(9)}`,
  )
  // Resident memory, sampled while the trends run (chDB answers off the event loop, so the sampler keeps running).
  let peakRss = process.memoryUsage().rss
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 10)
  for (const c of cases) {
    await c.before?.()
    let casePeak = process.memoryUsage().rss
    const caseSampler = setInterval(() => (casePeak = Math.max(casePeak, process.memoryUsage().rss)), 10)
    const request = (refresh: boolean) => async () => {
      const res = await wren.app.inject({
        method: 'POST',
        url: `/api/environments/${team}/insights/trend/${refresh ? '?refresh=true' : ''}`,
        headers: { authorization: `Bearer ${personalKey}` },
        payload: c.body,
      })
      if (res.statusCode !== 200) throw new Error(`${c.name}: ${res.statusCode} ${res.body}`)
    }
    const { wall, cpu } = await race([request(true), () => queryRows(ch, c.sql), request(false)])
    clearInterval(caseSampler)
    const [wrenMs, sqlMs, cachedMs] = wall
    console.log(
      `${c.name.padEnd(32)} ${wrenMs.toFixed(1).padStart(10)} ${sqlMs.toFixed(1).padStart(14)} ${(wrenMs / sqlMs).toFixed(2).padStart(6)}  ${cpu[0].toFixed(0).padStart(12)} ${cpu[1].toFixed(0).padStart(6)} ${(cpu[0] / cpu[1]).toFixed(2).padStart(6)}  ${cachedMs.toFixed(1).padStart(11)} ${`${(casePeak / 2 ** 20).toFixed(0)} MiB`.padStart(9)}`,
    )
  }
  clearInterval(sampler)
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`
  console.log(
    `\nresident memory while the trends ran: peak ${mib(peakRss)}, now ${mib(process.memoryUsage().rss)} (budget 1024 MiB); peak of the whole process${reuse ? '' : ', bulk load included'}: ${mib(process.resourceUsage().maxRSS * 1024)}`,
  )
  console.log(`${RUNS} timed runs per case, median`)
} finally {
  await wren.close()
  if (!keep) await rm(dataDir, { recursive: true, force: true })
}
