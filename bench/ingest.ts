// Ingestion benchmark: events/s from the log to ClickHouse with person processing.
//
// Each run is a child process (chDB allows one engine per process, and resident memory is then Wren's
// own) on a fresh temporary data directory:
//   1. buildWren with production defaults, then stop its ingestion processor;
//   2. append N posthog-node events to the log through capture's own code (decodeCapture,
//      toIngestEvent, encodeIngest): ~10k distinct ids, $set / $set_once, and $identify merges;
//   3. restart the processor and time it until the committed offset reaches the end of the log;
//   4. reference: read back exactly the rows the processor wrote (events, person, person_distinct_id,
//      person_activity, grouped by the part of a batch that wrote them: their _offset) and insert them
//      again with insertRows into copies of the tables, part by part as the writer does, JSON columns
//      as objects as Wren sends them: the ClickHouse work of ingestion without the person work. The
//      event inserts within it are timed apart.
// The parent (runIngest) runs this a few times and prints medians.
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  cpuSeconds,
  threadCpuSeconds,
  fmt,
  median,
  mib,
  posthogNodeEvent,
  repoRoot,
  rng,
  spread,
  uuidFrom,
  verdict,
  x,
  type EventOptions,
  reportTrialResult,
  runTrialProcess,
} from './support'

export interface IngestOptions {
  trials: number
  events: number
}

const BUDGET_EVENTS_PER_SECOND = 50_000

interface TrialResult {
  events: number
  distinctIds: number
  identifies: number
  withSet: number
  batches: number
  appendSeconds: number
  drainSeconds: number
  /** Time the processor spent awaiting ClickHouse, by kind. */
  chQuerySeconds: number
  chQueries: number
  chInsertSeconds: number
  chInserts: number
  rows: Record<string, number>
  persons: number
  mergedPersons: number
  rssAfter: number
  rssPeak: number
  heapUsedAfter: number
  refSeconds: number
  /** The event inserts within the reference. */
  refEventsOnlySeconds: number
  /** CPU seconds of the whole process (all threads, chDB's included) during the drain / the reference. */
  drainCpuSeconds: number
  refCpuSeconds: number
  /** The same CPU seconds by group of threads (threadGroups). */
  drainByThread: Record<ThreadGroup, number>
  refByThread: Record<ThreadGroup, number>
  /** The drain's start and end on the monotonic clock of V8's CPU profiles (µs): a `--cpu-prof` profile's samples of the drain lie between. */
  drainClock: number[]
  /** Event-loop delay during the drain (ms): how long ingestion held the thread capture's requests run on. */
  loopDelayP99: number
  loopDelayMax: number
}

// ---- the workload -----------------------------------------------------------------------------------

interface Workload {
  events: Array<Record<string, unknown>>
  distinctIds: number
  identifies: number
  withSet: number
}

/**
 * N events in time order for 10,000 people: 8,000 known users (`user-<k>`), 1,000 anonymous visitors
 * who later $identify as one of those existing users (a merge of two persons), and 1,000 anonymous
 * visitors who $identify as a new user id (the id is added to their person). ~11k distinct ids.
 * About 10% of events carry $set (plan, company), 2% $set_once.
 */
export function ingestWorkload(n: number, seed = 7): Workload {
  const rand = rng(seed)
  const USERS = 8_000
  const ANON_TO_EXISTING = 1_000
  const ANON_TO_NEW = 1_000
  const people = USERS + ANON_TO_EXISTING + ANON_TO_NEW
  const start = Date.now() - 2 * 86_400_000
  const step = Math.floor(86_400_000 / n) // the events span about a day
  const anon = new Map<number, { anonId: string; target: string; at: number; identified: boolean }>()
  for (let k = USERS; k < people; k++) {
    const target = k < USERS + ANON_TO_EXISTING ? `user-${(k - USERS) * 8}` : `user-new-${k}`
    anon.set(k, { anonId: uuidFrom(rand), target, at: Math.floor(n * (0.1 + 0.8 * rand())), identified: false })
  }
  const seen = new Set<string>()
  const events: Array<Record<string, unknown>> = []
  let identifies = 0
  let withSet = 0
  for (let i = 0; events.length < n; i++) {
    const k = Math.floor(rand() * people)
    const timestamp = new Date(start + events.length * step)
    const a = anon.get(k)
    let distinctId = a ? a.anonId : `user-${k}`
    if (a && events.length >= a.at) {
      if (!a.identified) {
        a.identified = true
        identifies++
        seen.add(a.target)
        events.push(
          posthogNodeEvent(rand, {
            event: '$identify',
            distinctId: a.target,
            timestamp,
            set: { email: `${a.target}@example.com`, name: `User ${k}` },
            extra: { $anon_distinct_id: a.anonId },
          }),
        )
        continue
      }
      distinctId = a.target
    }
    seen.add(distinctId)
    const o: EventOptions = { distinctId, timestamp }
    if (rand() < 0.1) {
      o.set = { plan: rand() < 0.7 ? 'free' : 'pro', company: `company-${k % 500}` }
      withSet++
    }
    if (rand() < 0.02) o.setOnce = { signup_source: rand() < 0.5 ? 'ads' : 'organic' }
    events.push(posthogNodeEvent(rand, o))
  }
  return { events, distinctIds: seen.size, identifies, withSet }
}

/** Wall time during which at least one operation was in flight, and how many operations began. */
function busyClock() {
  let inFlight = 0
  let since = 0
  let total = 0
  let count = 0
  return {
    begin(counted = true): () => void {
      if (inFlight++ === 0) since = performance.now()
      if (counted) count++
      let ended = false
      return () => {
        if (ended) return
        ended = true
        if (--inFlight === 0) total += performance.now() - since
      }
    },
    seconds: () => total / 1000,
    count: () => count,
  }
}

/** String columns that hold JSON documents, among the tables the reference writes. */
const JSON_COLUMNS = ['properties', 'person_properties', 'detail', ...[0, 1, 2, 3, 4].map((i) => `group${i}_properties`)]

// ---- one run, in a child process --------------------------------------------------------------------

async function trial(n: number): Promise<TrialResult> {
  const pino = (await import('pino')).default
  const { buildWren } = await import('../services/app')
  const { loadConfig } = await import('../services/platform/config')
  const { appendAsCapture } = await import('./append-as-capture')
  const { TOPICS } = await import('../services/platform/log/log')
  const { queryRows, insertRows } = await import('../services/platform/clickhouse')

  const dataDir = await mkdtemp(path.join(tmpdir(), 'wren-bench-ingest-'))
  const projectKey = 'phc_benchingest0000000000000000000000'
  const config = loadConfig({
    WREN_DATA_DIR: dataDir,
    WREN_PROJECT_API_KEY: projectKey,
    LOG_LEVEL: 'warn',
    WREN_INGEST_BATCH: process.env.WREN_INGEST_BATCH,
    WREN_INGEST_PART: process.env.WREN_INGEST_PART,
  })
  const nodeThreads = () => [...threadCpuSeconds()].filter(([tid, t]) => t.name === 'node' && tid !== process.pid).map(([tid]) => tid)
  const atStart = nodeThreads().sort((a, b) => a - b)
  const wren = await buildWren(config, pino({ level: 'warn' }, pino.destination(2)))
  const roles: ThreadRoles = { atStart, workers: new Set(nodeThreads().filter((tid) => !atStart.includes(tid))) }
  try {
    await wren.processor.stop()
    const teamId = wren.bootstrap!.projectId

    // Append the workload exactly as capture would: 100 events per request, as posthog-node batches them.
    const workload = ingestWorkload(n)
    const appendStart = performance.now()
    await appendAsCapture(wren, { projectKey, teamId }, workload.events)
    const appendSeconds = (performance.now() - appendStart) / 1000
    workload.events.length = 0 // let the source objects go before measuring memory

    // Time the processor spends waiting on ClickHouse (it is the only client during the drain): wall
    // time with at least one query (or insert) in flight, so parallel inserts are not counted twice.
    const client = wren.clickhouse
    const query = client.query.bind(client)
    // Inserts reach chDB's session directly (platform/clickhouse insertEncoded): they are timed there.
    const { Session } = (await import('chdb')) as unknown as {
      Session: { prototype: { insert: (...args: unknown[]) => Promise<unknown> } }
    }
    const sessionInsert = Session.prototype.insert
    const queries = busyClock()
    const inserts = busyClock()
    client.query = (async (params: Parameters<typeof query>[0]) => {
      const done = queries.begin()
      try {
        const rs = await query(params)
        // queryRows reads the rows right after: count that too.
        const json = rs.json.bind(rs)
        rs.json = (async () => {
          const readDone = queries.begin(false)
          try {
            return await json()
          } finally {
            readDone()
          }
        }) as typeof rs.json
        return rs
      } finally {
        done()
      }
    }) as typeof client.query
    Session.prototype.insert = async function (this: unknown, ...args: unknown[]) {
      const done = inserts.begin()
      try {
        return await sessionInsert.apply(this, args)
      } finally {
        done()
      }
    }

    global.gc?.()
    let rssPeak = process.memoryUsage().rss
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 50)
    const { endOffset } = await wren.log.stats(TOPICS.ingest)
    const drainCpu = cpuSeconds()
    const drainThreads = threadCpuSeconds()
    const loopDelay = monitorEventLoopDelay({ resolution: 1 })
    loopDelay.enable()
    const profile = process.env.BENCH_CPU_PROFILE ? await cpuProfile() : null
    const drainStart = performance.now()
    const drainClock = [Number(process.hrtime.bigint() / 1000n)]
    wren.processor.start()
    for (;;) {
      const stats = await wren.log.stats(TOPICS.ingest)
      if ((stats.committed.ingestion ?? 0) >= endOffset) break
      await new Promise((r) => setTimeout(r, 5))
    }
    const drainSeconds = (performance.now() - drainStart) / 1000
    drainClock.push(Number(process.hrtime.bigint() / 1000n))
    const drainCpuSeconds = cpuSeconds() - drainCpu
    const drainByThread = threadGroups(roles, drainThreads, threadCpuSeconds())
    if (profile) await writeFile(process.env.BENCH_CPU_PROFILE!, JSON.stringify(await profile.stop()))
    loopDelay.disable()
    clearInterval(sampler)
    const usage = process.memoryUsage()
    rssPeak = Math.max(rssPeak, usage.rss)
    client.query = query
    Session.prototype.insert = sessionInsert

    // What the processor wrote.
    const tables = ['events', 'person', 'person_distinct_id', 'person_activity'] as const
    const rows: Record<string, number> = {}
    for (const table of tables) rows[table] = Number((await queryRows<{ c: number }>(client, `SELECT count() AS c FROM ${table}`))[0].c)
    const [p] = await queryRows<{ live: number; merged: number }>(
      client,
      `SELECT countIf(NOT d) AS live, countIf(d) AS merged FROM (SELECT uuid, argMax(is_deleted, version) AS d FROM person GROUP BY uuid)`,
    )

    // Reference: the same rows, inserted again batch by batch, without the person work.
    const byBatch = new Map<number, Partial<Record<(typeof tables)[number], object[]>>>()
    for (const table of tables) {
      await client.command({ query: `CREATE TABLE bench_ref_${table} AS ${table}` })
      for (const row of await queryRows<Record<string, unknown> & { _offset: number }>(client, `SELECT * FROM ${table} ORDER BY _offset`)) {
        // JSON columns go in as objects, as Wren writes them (one JSON encoding, not a string escaped again).
        for (const column of JSON_COLUMNS) if (typeof row[column] === 'string') row[column] = JSON.parse(row[column] as string)
        const batch = byBatch.get(row._offset) ?? {}
        ;(batch[table] ??= []).push(row)
        byBatch.set(row._offset, batch)
      }
    }
    const offsets = [...byBatch.keys()].sort((a, b) => a - b)
    const token = (table: string, offset: number) => `ref:${table}:${offset}`
    let refEventsOnlySeconds = 0
    const refCpu = cpuSeconds()
    const refThreads = threadCpuSeconds()
    const refStart = performance.now()
    for (const offset of offsets) {
      const b = byBatch.get(offset)!
      await Promise.all(
        (['person', 'person_distinct_id', 'person_activity'] as const).map((t) =>
          insertRows(client, `bench_ref_${t}`, b[t] ?? [], token(t, offset)),
        ),
      )
      const t = performance.now()
      await insertRows(client, 'bench_ref_events', b.events ?? [], token('events', offset))
      refEventsOnlySeconds += (performance.now() - t) / 1000
    }
    const refSeconds = (performance.now() - refStart) / 1000
    const refCpuSeconds = cpuSeconds() - refCpu
    const refByThread = threadGroups(roles, refThreads, threadCpuSeconds())

    return {
      events: n,
      distinctIds: workload.distinctIds,
      identifies: workload.identifies,
      withSet: workload.withSet,
      batches: offsets.length,
      appendSeconds,
      drainSeconds,
      chQuerySeconds: queries.seconds(),
      chQueries: queries.count(),
      chInsertSeconds: inserts.seconds(),
      chInserts: inserts.count(),
      rows,
      persons: Number(p.live),
      mergedPersons: Number(p.merged),
      rssAfter: usage.rss,
      rssPeak,
      heapUsedAfter: usage.heapUsed,
      refSeconds,
      refEventsOnlySeconds,
      drainCpuSeconds,
      refCpuSeconds,
      drainByThread,
      refByThread,
      drainClock,
      loopDelayP99: loopDelay.percentile(99) / 1e6,
      loopDelayMax: loopDelay.max / 1e6,
    }
  } finally {
    await wren.close()
    await rm(dataDir, { recursive: true, force: true })
  }
}

/** Which group each thread of this process belongs to, by its id (threadGroups). */
interface ThreadRoles {
  /** Node's threads at the start of the trial: V8's four helper threads (started first), then libuv's pool. */
  atStart: number[]
  /** Node's threads that Wren's start added: its workers (the ingestion worker among them). */
  workers: Set<number>
}

const THREAD_GROUPS = [
  'main',
  'ingestion worker',
  "V8's helpers (GC)",
  "libuv's pool (chDB's calls)",
  "chDB's threads",
  "chDB's merges",
] as const
type ThreadGroup = (typeof THREAD_GROUPS)[number]

/** CPU seconds each group of threads used between two readings (threadCpuSeconds). */
function threadGroups(
  roles: ThreadRoles,
  before: ReturnType<typeof threadCpuSeconds>,
  after: ReturnType<typeof threadCpuSeconds>,
): Record<ThreadGroup, number> {
  const out = Object.fromEntries(THREAD_GROUPS.map((g) => [g, 0])) as Record<ThreadGroup, number>
  const helpers = new Set(roles.atStart.slice(0, 4))
  for (const [tid, { name, seconds }] of after) {
    const used = seconds - (before.get(tid)?.seconds ?? 0)
    const group: ThreadGroup =
      tid === process.pid
        ? 'main'
        : name !== 'node'
          ? name.startsWith('MergeMutate')
            ? "chDB's merges"
            : "chDB's threads"
          : roles.workers.has(tid)
            ? 'ingestion worker'
            : helpers.has(tid)
              ? "V8's helpers (GC)"
              : "libuv's pool (chDB's calls)"
    out[group] += used
  }
  return out
}

/** The main thread's CPU profile from now until stop() (for BENCH_CPU_PROFILE=<file.cpuprofile>: the drain alone). */
async function cpuProfile(): Promise<{ stop(): Promise<object> }> {
  const { Session } = await import('node:inspector/promises')
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.start')
  return {
    async stop() {
      const { profile } = await session.post('Profiler.stop')
      session.disconnect()
      return profile
    },
  }
}

// ---- the parent: runs and report ----------------------------------------------------------------------

export async function runIngest(opts: IngestOptions): Promise<void> {
  const results: TrialResult[] = []
  for (let t = 0; t < opts.trials; t++)
    results.push(await runTrialProcess<TrialResult>(fileURLToPath(import.meta.url), [String(opts.events)], ['--expose-gc']))
  const r0 = results[0]
  const rate = results.map((r) => r.events / r.drainSeconds)
  const ref = results.map((r) => r.events / r.refSeconds)
  const refEvents = results.map((r) => r.events / r.refEventsOnlySeconds)
  const ratio = results.map((r, i) => rate[i] / ref[i])
  const sec = (n: number) => `${n.toFixed(2)} s`

  console.log(`\n== 3. ingestion: log -> ClickHouse with person processing — budget ≥ ${fmt(BUDGET_EVENTS_PER_SECOND)} events/s`)
  console.log(
    `   ${fmt(r0.events)} posthog-node events appended to the log first (processor stopped), then drained by the processor (production defaults:` +
      ` batches of up to 10,000); ${fmt(r0.distinctIds)} distinct ids, ${fmt(r0.identifies)} $identify (half of them merge two persons), ${fmt(r0.withSet)} with $set; ${opts.trials} runs, a fresh process and data directory each`,
  )
  console.log(`   Wren processor      ${spread(rate)} events/s  -> ${verdict(median(rate) >= BUDGET_EVENTS_PER_SECOND)}`)
  console.log(
    `                       drain time ${spread(
      results.map((r) => r.drainSeconds),
      sec,
    )}`,
  )
  console.log(
    `   reference           ${spread(ref)} events/s: the same rows (${fmt(r0.rows.events)} events, ${fmt(r0.rows.person)} person, ${fmt(r0.rows.person_distinct_id)} distinct-id, ${fmt(r0.rows.person_activity)} activity) re-inserted with insertRows, per part as written (${r0.batches} parts)`,
  )
  console.log(
    `   reference, events only ${spread(refEvents)} events/s (the event inserts within it, ${fmt(r0.rows.events / r0.batches)} rows per insert)`,
  )
  console.log(`   Wren/reference      ${spread(ratio, x)}`)
  console.log(
    `   CPU (process, all threads): Wren ${median(results.map((r) => r.drainCpuSeconds / r.drainSeconds)).toFixed(2)} cores = ${fmt(median(results.map((r) => r.events / r.drainCpuSeconds)))} events per CPU-second;` +
      ` reference ${median(results.map((r) => r.refCpuSeconds / r.refSeconds)).toFixed(2)} cores = ${fmt(median(results.map((r) => r.events / r.refCpuSeconds)))} events per CPU-second`,
  )
  const perEvent = (pick: (r: TrialResult) => Record<ThreadGroup, number>) =>
    THREAD_GROUPS.map((g) => `${g} ${fmt(median(results.map((r) => (1e6 * pick(r)[g]) / r.events)))}`).join(', ')
  console.log(`   CPU per event by thread, µs (medians): Wren ${perEvent((r) => r.drainByThread)}`)
  console.log(`                                          reference ${perEvent((r) => r.refByThread)}`)
  const pct = (a: number, b: number) => `${Math.round((100 * a) / b)}%`.padStart(4)
  const mid = [...results].sort((a, b) => a.drainSeconds - b.drainSeconds)[results.length >> 1]
  const other = mid.drainSeconds - mid.chInsertSeconds - mid.chQuerySeconds
  console.log(`   where the drain time went (the median run, ${sec(mid.drainSeconds)}):`)
  console.log(
    `     waiting on ClickHouse inserts ${sec(mid.chInsertSeconds).padStart(8)} ${pct(mid.chInsertSeconds, mid.drainSeconds)}  ${mid.chInserts} inserts (rows arrive encoded from the worker)`,
  )
  console.log(
    `     waiting on ClickHouse queries ${sec(mid.chQuerySeconds).padStart(8)} ${pct(mid.chQuerySeconds, mid.drainSeconds)}  ${mid.chQueries} queries (the person lookups)`,
  )
  console.log(
    `     everything else               ${sec(other).padStart(8)} ${pct(other, mid.drainSeconds)}  person work that no insert overlaps (the first batch's lookups and first part, what working the next batch ahead did not cover), offset commits`,
  )
  console.log(
    `   event-loop delay during the drain (the thread capture's requests share): p99 ${spread(
      results.map((r) => r.loopDelayP99),
      (n) => `${n.toFixed(1)} ms`,
    )}, max ${spread(
      results.map((r) => r.loopDelayMax),
      (n) => `${n.toFixed(1)} ms`,
    )}`,
  )
  console.log(
    `   persons after: ${fmt(r0.persons)} live, ${fmt(r0.mergedPersons)} merged away; appending the workload through capture's code took ${sec(median(results.map((r) => r.appendSeconds)))}`,
  )
  console.log(
    `   resident memory after the drain ${spread(
      results.map((r) => r.rssAfter),
      mib,
    )}; peak during it ${mib(median(results.map((r) => r.rssPeak)))}; JS heap used after ${mib(median(results.map((r) => r.heapUsedAfter)))}`,
  )
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'trial') {
  const result = await trial(Number(process.argv[3]))
  reportTrialResult(result)
  process.exit(0)
}
