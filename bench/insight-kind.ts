// What the insight kinds' benchmarks share: the trend benchmarks' events (bench/trend-events.ts) in an
// embedded ClickHouse (kept in BENCH_DATA_DIR when set), and a kind's whole run (plan, SQL, shape) timed against
// a hand-written SQL of the same question, alternated, medians printed. Prints figures; asserts nothing.
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { migrate, openEmbeddedClickHouse, queryRows, queryTypedRows, type ClickHouseClient } from '../services/platform/clickhouse'
import type { Project } from '../services/platform/tenancy'
import type { QueryRun } from '../services/query/kind'
import { loadTrendEvents } from './trend-events'
import { loadAverage, median, ms, x } from './support'

export const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000)
const RUNS = Number(process.env.BENCH_RUNS ?? 7)
export const TEAM = 1
export const NOW = '2026-03-15 12:00:00'
/** The last 30 days of the bench's events (they span 35 days before NOW), as the kinds resolve `-30d`. */
export const RANGE = `team_id = ${TEAM} AND timestamp >= toDateTime64('2026-02-13 00:00:00', 6, 'UTC') AND timestamp <= toDateTime64('2026-03-15 23:59:59.999999', 6, 'UTC')`

export interface Case {
  name: string
  /** The kind's run: its results. */
  kind(deps: { clickhouse: ClickHouseClient }, run: QueryRun): Promise<unknown>
  /** The hand-written SQL of the same question. */
  hand: string
  /** Whether the two answers agree ('' when not compared). */
  agree(kind: unknown, hand: unknown[][]): string
}

/** `load`: the bench's own events, instead of the trend benchmarks'. */
export async function benchKinds(title: string, cases: Case[], load?: (ch: ClickHouseClient) => Promise<void>): Promise<void> {
  console.log(`${title} bench — ${new Date().toISOString()}, load average ${loadAverage()}`)
  const keep = process.env.BENCH_DATA_DIR
  const dataDir = keep ?? (await mkdtemp(path.join(tmpdir(), 'wren-bench-insight-')))
  await mkdir(dataDir, { recursive: true })
  const reuse = !!keep && existsSync(path.join(dataDir, 'clickhouse'))
  const ch = await openEmbeddedClickHouse(dataDir)
  try {
    await migrate(ch)
    if (!reuse) {
      const start = performance.now()
      await (load ? load(ch) : loadTrendEvents(ch, { team: TEAM, events: EVENTS, now: NOW }))
      console.log(`\nloaded ${EVENTS.toLocaleString()} events in ${((performance.now() - start) / 1000).toFixed(1)} s`)
    }
    const [{ n }] = await queryRows<{ n: number }>(ch, 'SELECT count() AS n FROM events')
    const project = { id: TEAM, name: 'bench', apiToken: 'x', timezone: 'UTC', settings: {}, createdAt: '' } as Project
    const deps = { clickhouse: ch, actions: { list: async () => [] }, cohorts: { list: async () => [] } }
    const run = (): QueryRun => ({ project, now: new Date(NOW.replace(' ', 'T') + 'Z'), signal: new AbortController().signal })
    console.log(`\n${Number(n).toLocaleString()} events; median of ${RUNS} runs each, alternated; the kind's whole run (plan, SQL, shape)`)
    console.log('case'.padEnd(28), title.padStart(16), 'hand-written'.padStart(14), 'ratio'.padStart(8))
    for (const c of cases) {
      const kindTimes: number[] = []
      const handTimes: number[] = []
      const runKind = async () => {
        const t = performance.now()
        const answer = await c.kind(deps, run())
        kindTimes.push(performance.now() - t)
        return answer
      }
      const runHand = async () => {
        const t = performance.now()
        const answer = await queryTypedRows(ch, c.hand)
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
      console.log(
        c.name.padEnd(28),
        ms(median(kindTimes)).padStart(16),
        ms(median(handTimes)).padStart(14),
        x(median(kindTimes) / median(handTimes)).padStart(8),
        `  fastest: ${ms(Math.min(...kindTimes))} / ${ms(Math.min(...handTimes))} = ${x(Math.min(...kindTimes) / Math.min(...handTimes))}`,
        ` ${c.agree(ours, theirs)}`,
      )
    }
    console.log(`load average ${loadAverage()}`)
  } finally {
    await ch.close()
    if (!keep) await rm(dataDir, { recursive: true, force: true })
  }
}
