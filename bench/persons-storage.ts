// Person storage benchmark: bytes on disk per person in the person tables (person, person_distinct_id)
// after N events, before and after person compaction (services/ingestion/persons/compaction.ts), and how
// long compaction takes. `npm run bench -- persons-storage`; BENCH_QUICK=1 (or BENCH_EVENTS=<n>) for a
// smaller N than the 1,000,000 events of the full run.
//
// One process on a fresh data directory (chDB allows one engine per process):
//   1. buildWren with production defaults (batches of up to 10,000 events, parts of 2,500) and compaction
//      off its timer; the processor stopped while the workload is appended to the log as capture would.
//   2. the processor drains it; bytes on disk (system.parts, active parts) of the person tables, then the
//      same after OPTIMIZE TABLE … FINAL (which folds nothing here: the offset is in the sorting key; it
//      tells what merging alone gives);
//   3. compaction, timed; bytes on disk again;
//   4. a second load (a fifth more events on the same people), drained and compacted: the bytes per
//      person after it show whether storage stays flat as events keep coming.
// The workload: N/50 people (50 events each); 10% of events are $identify (after every third one the
// person moves to a new device's anonymous id, whose events make an anonymous person that the next
// $identify merges), 30% carry $set (plan, page, a counter), 2% $set_once.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pino from 'pino'
import { buildWren } from '../services/app'
import { loadConfig } from '../services/platform/config'
import { TOPICS } from '../services/platform/log/log'
import { queryRows } from '../services/platform/clickhouse'
import { appendAsCapture } from './append-as-capture'
import { fmt, loadAverage, posthogNodeEvent, rng, sleep, uuidFrom, type EventOptions } from './support'

const QUICK = process.env.BENCH_QUICK === '1'
const EVENTS = Number(process.env.BENCH_EVENTS ?? (QUICK ? 100_000 : 1_000_000))
const TABLES = ['person', 'person_distinct_id'] as const

/** N events in time order for N/50 people, from `first` on (the second load continues the same people). */
function workload(n: number, people: number, state: ReturnType<typeof peopleState>, rand: () => number, start: number) {
  const events: Array<Record<string, unknown>> = []
  for (let i = 0; i < n; i++) {
    const k = Math.floor(rand() * people)
    const p = state.get(k)
    const timestamp = new Date(start + i * 50)
    if (rand() < 0.1) {
      // $identify of the anonymous id in use: the first one names the anonymous person, a later one after
      // a new device's anonymous events merges two persons, and the rest change only $set.
      p.identified = true
      events.push(
        posthogNodeEvent(rand, {
          event: '$identify',
          distinctId: `user-${k}`,
          timestamp,
          set: { email: `user-${k}@example.com`, last_login: timestamp.toISOString() },
          extra: { $anon_distinct_id: p.anon },
        }),
      )
      // Every third time, the next events come from a new device (a new anonymous id) until it identifies.
      if (rand() < 1 / 3) p.anon = uuidFrom(rand)
      continue
    }
    const o: EventOptions = { distinctId: p.identified && rand() < 0.8 ? `user-${k}` : p.anon, timestamp }
    if (rand() < 0.3) o.set = { plan: rand() < 0.7 ? 'free' : 'pro', last_page: `/page/${Math.floor(rand() * 50)}`, seen: ++p.seen }
    if (rand() < 0.02) o.setOnce = { signup_source: rand() < 0.5 ? 'ads' : 'organic' }
    events.push(posthogNodeEvent(rand, o))
  }
  return events
}

function peopleState(rand: () => number) {
  const people = new Map<number, { anon: string; identified: boolean; seen: number }>()
  return {
    get(k: number) {
      let p = people.get(k)
      if (!p) people.set(k, (p = { anon: uuidFrom(rand), identified: false, seen: 0 }))
      return p
    },
  }
}

interface Storage {
  bytes: number
  rows: number
  parts: number
  byTable: Record<string, { bytes: number; rows: number; parts: number }>
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'wren-bench-persons-'))
  const projectKey = 'phc_benchpersons000000000000000000000'
  const config = loadConfig({ WREN_DATA_DIR: dataDir, WREN_PROJECT_API_KEY: projectKey, LOG_LEVEL: 'warn', WREN_PERSON_COMPACTION_MS: '0' })
  const wren = await buildWren(config, pino({ level: 'warn' }, pino.destination(2)))
  const client = wren.clickhouse
  try {
    await wren.processor.stop()
    const teamId = wren.bootstrap!.projectId
    const rand = rng(11)
    const people = Math.max(1, Math.round(EVENTS / 50))
    const state = peopleState(rand)
    const start = Date.now() - 3 * 86_400_000

    const ingest = async (events: Array<Record<string, unknown>>) => {
      await appendAsCapture(wren, { projectKey, teamId }, events)
      const { endOffset } = await wren.log.stats(TOPICS.ingest)
      const began = performance.now()
      wren.processor.start()
      while (((await wren.log.stats(TOPICS.ingest)).committed.ingestion ?? 0) < endOffset) await sleep(20)
      await wren.processor.stop()
      return (performance.now() - began) / 1000
    }
    const storage = async (): Promise<Storage> => {
      const rows = await queryRows<{ table: string; bytes: number; rows: number; parts: number }>(
        client,
        `SELECT table, sum(bytes_on_disk) AS bytes, sum(rows) AS rows, count() AS parts FROM system.parts
         WHERE active AND database = currentDatabase() AND table IN {tables:Array(String)} GROUP BY table`,
        { tables: [...TABLES] },
      )
      const byTable = Object.fromEntries(
        rows.map((r) => [r.table, { bytes: Number(r.bytes), rows: Number(r.rows), parts: Number(r.parts) }]),
      )
      const sum = (f: 'bytes' | 'rows' | 'parts') => Object.values(byTable).reduce((n, t) => n + t[f], 0)
      return { bytes: sum('bytes'), rows: sum('rows'), parts: sum('parts'), byTable }
    }
    const counts = async () => {
      const [c] = await queryRows<{ persons: number; live: number; ids: number }>(
        client,
        `SELECT (SELECT uniqExact(uuid) FROM person) AS persons,
                (SELECT countIf(NOT d) FROM (SELECT argMax(is_deleted, version) AS d FROM person GROUP BY uuid)) AS live,
                (SELECT uniqExact(distinct_id) FROM person_distinct_id) AS ids`,
      )
      return { persons: Number(c.persons), live: Number(c.live), ids: Number(c.ids) }
    }
    const optimize = async () => {
      const began = performance.now()
      for (const table of TABLES) await client.command({ query: `OPTIMIZE TABLE ${table} FINAL` })
      return (performance.now() - began) / 1000
    }
    const line = (what: string, s: Storage, persons: number) =>
      console.log(
        `   ${what.padEnd(34)} ${fmt(s.bytes / persons).padStart(7)} bytes per live person  (${fmt(s.bytes)} bytes; ` +
          TABLES.map((t) => `${t} ${fmt(s.byTable[t]?.rows ?? 0)} rows ${fmt(s.byTable[t]?.bytes ?? 0)} B`).join(', ') +
          `; ${s.parts} parts)`,
      )

    console.log(
      `== person storage: ${fmt(EVENTS)} events for ${fmt(people)} people${QUICK ? ' (quick)' : ''} — load average ${loadAverage()}`,
    )
    const first = workload(EVENTS, people, state, rand, start)
    const identifies = first.filter((e) => e.event === '$identify').length
    const withSet = first.filter((e) => (e.properties as Record<string, unknown>).$set).length
    const drain1 = await ingest(first)
    first.length = 0
    const c1 = await counts()
    console.log(
      `   ${fmt(identifies)} $identify, ${fmt(withSet)} events with $set; drained in ${drain1.toFixed(1)} s; ` +
        `${fmt(c1.live)} live persons (${fmt(c1.persons)} stored: a person merged into another keeps one deleted row), ${fmt(c1.ids)} distinct ids`,
    )
    const before = await storage()
    line('as ingested', before, c1.live)
    const optimizeSeconds = await optimize()
    const merged = await storage()
    line(`after OPTIMIZE FINAL (${optimizeSeconds.toFixed(1)} s)`, merged, c1.live)
    const compaction = await wren.personCompaction.run()
    const compacted = await storage()
    line(`after compaction (${(compaction.ms / 1000).toFixed(1)} s)`, compacted, c1.live)
    console.log(
      `   compaction folded ${compaction.tables.map((t) => `${fmt(t.folded)} ${t.table} rows into ${fmt(t.keys)}`).join(', ')}; ` +
        `${(merged.bytes / compacted.bytes).toFixed(1)}x smaller than merged, ${(before.bytes / compacted.bytes).toFixed(1)}x than as ingested`,
    )
    const again = await wren.personCompaction.run()
    console.log(
      `   a second run: ${again.tables.map((t) => t.folded).reduce((a, b) => a + b, 0)} rows folded, ${(again.ms / 1000).toFixed(2)} s`,
    )

    // More events on the same people: storage per person should stay where compaction left it.
    const more = workload(Math.round(EVENTS / 5), people, state, rand, start + EVENTS * 50)
    const drain2 = await ingest(more)
    const c2 = await counts()
    const grown = await storage()
    line(`+${fmt(more.length)} events (${drain2.toFixed(1)} s)`, grown, c2.live)
    const compaction2 = await wren.personCompaction.run()
    const compacted2 = await storage()
    line(`after compaction (${(compaction2.ms / 1000).toFixed(1)} s)`, compacted2, c2.live)
    // A key compacted twice has two compacted rows until the table's merges fold them (same sorting key).
    await optimize()
    line('after the merges fold them', await storage(), c2.live)
    console.log(`   then ${fmt(c2.live)} live persons (${fmt(c2.persons)} stored), ${fmt(c2.ids)} distinct ids`)
    console.log(`   load average at the end ${loadAverage()}`)
  } finally {
    await wren.close()
    await rm(dataDir, { recursive: true, force: true })
  }
}

await main()
