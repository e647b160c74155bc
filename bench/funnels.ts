// Funnels benchmark: a 4-step funnel over N synthetic events (default 1 M; BENCH_EVENTS=10000000 for the issue's
// figure) through the FunnelsQuery kind, for each viz type, next to hand-written ClickHouse SQL on the same
// engine and data, alternated in the same run: windowFunnel for the steps (the step counts must agree), and for
// time to convert and conversion trends the same windowFunnel per actor with the step times taken from its
// events. Prints figures; asserts nothing.
//   npm run bench -- funnels                    (BENCH_EVENTS, BENCH_RUNS=7, BENCH_DATA_DIR to keep the data)
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { migrate, openEmbeddedClickHouse, queryRows, queryTypedRows } from '../services/platform/clickhouse'
import { funnelsKind } from '../services/query/kinds/funnels'
import type { Project } from '../services/platform/tenancy'
import { loadTrendEvents } from './trend-events'
import { loadAverage, median, ms, x } from './support'

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000)
const RUNS = Number(process.env.BENCH_RUNS ?? 7)
const TEAM = 1
const NOW = '2026-03-15 12:00:00'

console.log(`Funnels bench — ${new Date().toISOString()}, load average ${loadAverage()}`)
const keep = process.env.BENCH_DATA_DIR
const dataDir = keep ?? (await mkdtemp(path.join(tmpdir(), 'wren-bench-funnels-')))
await mkdir(dataDir, { recursive: true })
const reuse = !!keep && existsSync(path.join(dataDir, 'clickhouse'))
const ch = await openEmbeddedClickHouse(dataDir)
try {
  await migrate(ch)
  if (!reuse) {
    const start = performance.now()
    await loadTrendEvents(ch, { team: TEAM, events: EVENTS, now: NOW })
    console.log(`\nloaded ${EVENTS.toLocaleString()} events in ${((performance.now() - start) / 1000).toFixed(1)} s`)
  }
  const [{ n }] = await queryRows<{ n: number }>(ch, 'SELECT count() AS n FROM events')
  const project = { id: TEAM, name: 'bench', apiToken: 'x', timezone: 'UTC', settings: {}, createdAt: '' } as Project
  const deps = { clickhouse: ch, actions: { list: async () => [] }, cohorts: { list: async () => [] } }

  // The funnel: a pageview, a sign-up, an autocapture, then a pageview in Chrome, within 14 days, over the last 30.
  const series = [
    { kind: 'EventsNode', event: '$pageview' },
    { kind: 'EventsNode', event: 'signed_up' },
    { kind: 'EventsNode', event: '$autocapture' },
    {
      kind: 'EventsNode',
      event: '$pageview',
      properties: [{ type: 'event', key: '$browser', operator: 'exact', value: ['Chrome'] }],
    },
  ]
  const query = (vizType: string) =>
    funnelsKind.parse({ kind: 'FunnelsQuery', series, dateRange: { date_from: '-30d' }, funnelsFilter: { funnelVizType: vizType } })

  const range = `team_id = ${TEAM} AND timestamp >= toDateTime64('2026-02-13 00:00:00', 6, 'UTC') AND timestamp <= toDateTime64('2026-03-15 23:59:59.999999', 6, 'UTC')`
  const conditions = `event = '$pageview', event = 'signed_up', event = '$autocapture', event = '$pageview' AND JSONExtract(properties, '$browser', 'Nullable(String)') = 'Chrome'`
  const perActor = `SELECT person_id, windowFunnel(14 * 86400)(toDateTime(timestamp, 'UTC'), ${conditions}) AS level FROM events WHERE ${range} GROUP BY person_id`
  const hand: Record<string, string> = {
    steps: `SELECT countIf(level >= 1), countIf(level >= 2), countIf(level >= 3), countIf(level >= 4) FROM (${perActor})`,
    // Time to convert: each converted actor's first step-1 time to its last step-4 time, in 60 bins.
    time_to_convert: `SELECT groupArray(d) AS ds, arrayMin(ds) AS lo, arrayMax(ds) AS hi, (hi - lo) / 60 AS w,
        arrayMap(i -> countEqual(arrayMap(t -> least(59, toInt64(floor((t - lo) / greatest(w, 1)))), ds), i), range(60)) AS bins, arrayAvg(ds)
      FROM (SELECT person_id, dateDiff('second', min(if(event = '$pageview', timestamp, NULL)), max(timestamp)) AS d, any(level) AS level
        FROM events INNER JOIN (${perActor}) AS f USING person_id WHERE ${range} GROUP BY person_id) WHERE level = 4`,
    // Conversion trends: per day of the first step, the actors entering and the ones reaching the last step.
    trends: `SELECT day, count(), countIf(level >= 4) FROM (
        SELECT person_id, toStartOfDay(min(if(event = '$pageview', timestamp, NULL)), 'UTC') AS day,
          windowFunnel(14 * 86400)(toDateTime(timestamp, 'UTC'), ${conditions}) AS level
        FROM events WHERE ${range} GROUP BY person_id HAVING level >= 1) GROUP BY day ORDER BY day`,
  }

  console.log(`\n${Number(n).toLocaleString()} events; median of ${RUNS} runs each, alternated; the kind's whole run (plan, SQL, shape)`)
  console.log('viz type'.padEnd(18), 'FunnelsQuery'.padStart(14), 'hand-written'.padStart(14), 'ratio'.padStart(8))
  for (const viz of ['steps', 'time_to_convert', 'trends']) {
    const kindTimes: number[] = []
    const handTimes: number[] = []
    const runKind = async () => {
      const t = performance.now()
      const answer = await funnelsKind.run(
        deps,
        { project, now: new Date(NOW.replace(' ', 'T') + 'Z'), signal: new AbortController().signal },
        query(viz),
      )
      kindTimes.push(performance.now() - t)
      return answer.results
    }
    const runHand = async () => {
      const t = performance.now()
      const answer = await queryTypedRows(ch, hand[viz])
      handTimes.push(performance.now() - t)
      return answer.rows
    }
    const [ours, theirs] = [await runKind(), await runHand()]
    kindTimes.length = 0
    handTimes.length = 0
    for (let i = 0; i < RUNS; i++) {
      await runKind()
      await runHand()
    }
    let agree = ''
    if (viz === 'steps') {
      const counts = (ours as Array<{ count: number }>).map((s) => s.count)
      const handCounts = (theirs[0] as unknown[]).map(Number)
      agree = JSON.stringify(counts) === JSON.stringify(handCounts) ? '  counts agree' : `  counts: ${counts} vs windowFunnel ${handCounts}`
    }
    const best = `${ms(Math.min(...kindTimes))} / ${ms(Math.min(...handTimes))} = ${x(Math.min(...kindTimes) / Math.min(...handTimes))}`
    console.log(
      viz.padEnd(18),
      ms(median(kindTimes)).padStart(14),
      ms(median(handTimes)).padStart(14),
      x(median(kindTimes) / median(handTimes)).padStart(8),
      `  fastest: ${best}${agree}`,
    )
  }
  console.log(`load average ${loadAverage()}`)
} finally {
  await ch.close()
  if (!keep) await rm(dataDir, { recursive: true, force: true })
}
