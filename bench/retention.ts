// Retention benchmark: PostHog's default retention (a $pageview cohort each day, 11 days, returning on
// $pageview) and a weekly first-time retention (signed_up, then $pageview) with a browser breakdown, over N
// synthetic events (default 1 M; BENCH_EVENTS=10000000 for issue 33's figure) through the RetentionQuery kind,
// next to hand-written ClickHouse SQL of the same question on the same engine and data, alternated in the same
// run (the bench checks the cohort sizes agree). Prints figures; asserts nothing.
//   npm run bench -- retention                  (BENCH_EVENTS, BENCH_RUNS=7, BENCH_DATA_DIR to keep the data)
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { migrate, openEmbeddedClickHouse, queryRows } from '../services/platform/clickhouse'
import { retentionKind } from '../services/query/kinds/retention'
import type { Project } from '../services/platform/tenancy'
import { loadTrendEvents } from './trend-events'
import { loadAverage, median, ms, x } from './support'

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000)
const RUNS = Number(process.env.BENCH_RUNS ?? 7)
const TEAM = 1
const NOW = '2026-03-15 12:00:00'

console.log(`Retention bench — ${new Date().toISOString()}, load average ${loadAverage()}`)
const keep = process.env.BENCH_DATA_DIR
const dataDir = keep ?? (await mkdtemp(path.join(tmpdir(), 'wren-bench-retention-')))
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

  const cases = {
    // Days 2026-03-05 … 2026-03-15: each day's viewers, and on which of the next 10 days they viewed again.
    'daily recurring': {
      query: { kind: 'RetentionQuery', retentionFilter: { period: 'Day', totalIntervals: 11 } },
      hand: `SELECT s, k, count() AS c FROM (
          SELECT person_id, s, arrayJoin(arrayConcat([0], arrayFilter(k -> k > 0 AND k < 11, arrayMap(d -> d - s, days)))) AS k
          FROM (SELECT person_id, groupUniqArray(dateDiff('day', toDate('2026-03-05'), toDate(timestamp, 'UTC'))) AS days
            FROM events WHERE team_id = ${TEAM} AND event = '$pageview'
              AND timestamp >= toDateTime64('2026-03-05 00:00:00', 6, 'UTC') AND timestamp < toDateTime64('2026-03-16 00:00:00', 6, 'UTC')
            GROUP BY person_id) ARRAY JOIN days AS s)
        GROUP BY s, k`,
    },
    // Weeks from 2026-02-08 (Sunday): the week of each person's first sign-up (if in the range), broken down by that
    // sign-up's browser, and the weeks after it with a pageview.
    'weekly first-time by browser': {
      query: {
        kind: 'RetentionQuery',
        dateRange: { date_from: '2026-02-08' },
        retentionFilter: {
          period: 'Week',
          totalIntervals: 6,
          retentionType: 'retention_first_time',
          targetEntity: { id: 'signed_up', type: 'events' },
          returningEntity: { id: '$pageview', type: 'events' },
        },
        breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
      },
      hand: `SELECT s, k, browser, count() AS c FROM (
          SELECT person_id, s, browser, arrayJoin(arrayConcat([0], arrayFilter(k -> k > 0 AND k < 6, arrayMap(w -> w - s, weeks)))) AS k
          FROM (SELECT person_id,
              toInt64(intDiv(dateDiff('day', toDate('2026-02-08'), toDate(minIf(timestamp, event = 'signed_up'), 'UTC')), 7)) AS s,
              argMinIf(JSONExtractString(properties, '$browser'), timestamp, event = 'signed_up') AS browser,
              groupUniqArrayIf(toInt64(intDiv(dateDiff('day', toDate('2026-02-08'), toDate(timestamp, 'UTC')), 7)),
                event = '$pageview' AND timestamp >= toDateTime64('2026-02-08 00:00:00', 6, 'UTC')) AS weeks
            FROM events WHERE team_id = ${TEAM} AND event IN ('signed_up', '$pageview') AND timestamp < toDateTime64('2026-03-22 00:00:00', 6, 'UTC')
            GROUP BY person_id HAVING countIf(event = 'signed_up') > 0 AND minIf(timestamp, event = 'signed_up') >= toDateTime64('2026-02-08 00:00:00', 6, 'UTC')))
        GROUP BY s, k, browser`,
    },
  }

  console.log(`\n${Number(n).toLocaleString()} events; median of ${RUNS} runs each, alternated; the kind's whole run (plan, SQL, shape)`)
  console.log('query'.padEnd(30), 'RetentionQuery'.padStart(15), 'hand-written'.padStart(14), 'ratio'.padStart(8))
  for (const [name, c] of Object.entries(cases)) {
    const kindTimes: number[] = []
    const handTimes: number[] = []
    const query = retentionKind.parse(c.query)
    const runKind = async () => {
      const t = performance.now()
      const answer = await retentionKind.run(
        deps,
        { project, now: new Date(NOW.replace(' ', 'T') + 'Z'), signal: new AbortController().signal },
        query,
      )
      kindTimes.push(performance.now() - t)
      return answer.results as Array<{ values: Array<{ count: number }> }>
    }
    const runHand = async () => {
      const t = performance.now()
      const rows = await queryRows<{ s: number; k: number; c: number }>(ch, c.hand)
      handTimes.push(performance.now() - t)
      return rows
    }
    const [ours, theirs] = [await runKind(), await runHand()]
    kindTimes.length = 0
    handTimes.length = 0
    for (let i = 0; i < RUNS; i++) {
      await runKind()
      await runHand()
    }
    // The kind's cells summed over breakdown values, against the hand-written cells.
    const total = (cells: number[]) => cells.reduce((a, b) => a + b, 0)
    const oursCells = total(ours.flatMap((r) => r.values.map((v) => v.count)))
    const handCells = total(theirs.filter((r) => Number(r.s) >= 0).map((r) => Number(r.c)))
    const agree = oursCells === handCells ? `  cells agree (${oursCells})` : `  cells: ${oursCells} vs hand ${handCells}`
    console.log(
      name.padEnd(30),
      ms(median(kindTimes)).padStart(15),
      ms(median(handTimes)).padStart(14),
      x(median(kindTimes) / median(handTimes)).padStart(8),
      `  fastest: ${ms(Math.min(...kindTimes))} / ${ms(Math.min(...handTimes))}${agree}`,
    )
  }
  console.log(`load average ${loadAverage()}`)
} finally {
  await ch.close()
  if (!keep) await rm(dataDir, { recursive: true, force: true })
}
