// Capture benchmarks: Wren (`wren start`, production defaults, a fresh temporary data directory per run)
// and the hello-world Fastify route, each in its own process, loaded from this process (autocannon; the open loop for latency).
//   1. /batch/ throughput: posthog-node bodies of 100 events, plain JSON and gzip; events/s acknowledged
//      (Wren answers 200 only once the append to the log is fsync'd).
//   2. /e/ latency at a constant offered rate (open-loop, bench/open-loop.ts), and as autocannon's
//      overallRate offers it (bursts: each connection's quota at the start of every second).
// Runs alternate Wren / hello-world so that noise on the shared machine hits both; ratios are per pair.
// Each run also measures a second Wren whose ingestion processor is held back by configuration: in
// embedded mode the processor shares the process (and the two cores) with capture, and this shows
// what capture costs on its own.
import { gzipSync } from 'node:zlib'
import { randomBytes } from 'node:crypto'
import {
  failures,
  fmt,
  fsyncLatencies,
  INGESTION_DEFERRED,
  median,
  ms,
  percentile,
  posthogNodeEvent,
  rng,
  runLoad,
  scrapeMetrics,
  spread,
  startHelloWorld,
  startWrenServer,
  verdict,
  x,
  type ChildServer,
  type Load,
  type LoadResult,
} from './support'
import { OPEN_LOOP_CONNECTIONS, runAtRate, type RateLoad, type RateResult } from './open-loop'

export interface CaptureOptions {
  trials: number
  /** Seconds per measured autocannon run. */
  seconds: number
  /** Which parts: 'batch' (1), 'single' (2). */
  parts: Set<'batch' | 'single'>
}

const BATCH_SIZE = 100
const BATCH_CONNECTIONS = 16
const SINGLE_RATE = 2_000
const SINGLE_CONNECTIONS = 10
const BODY_POOL = 200
const BUDGET_EVENTS_PER_SECOND = 50_000
const BUDGET_P99_MS = 5

interface Bodies {
  plain: Buffer[]
  gzip: Buffer[]
  single: Buffer[]
  eventBytes: number
}

/** A pool of posthog-node /batch/ bodies (different uuids, ids, pages; 10% with $set), and single events. */
function makeBodies(projectKey: string): Bodies {
  const rand = rng(42)
  const start = Date.now() - 60_000
  const plain: Buffer[] = []
  const single: Buffer[] = []
  let eventBytes = 0
  let events = 0
  for (let b = 0; b < BODY_POOL; b++) {
    const batch = Array.from({ length: BATCH_SIZE }, (_, i) => {
      const withSet = rand() < 0.1
      const e = posthogNodeEvent(rand, {
        distinctId: `user-${Math.floor(rand() * 10_000)}`,
        timestamp: new Date(start + b * 100 + i),
        set: withSet ? { plan: rand() < 0.5 ? 'free' : 'pro', email: `user${b}.${i}@example.com` } : undefined,
      })
      eventBytes += Buffer.byteLength(JSON.stringify(e))
      events++
      return e
    })
    plain.push(Buffer.from(JSON.stringify({ api_key: projectKey, batch, sent_at: new Date(start + b * 100 + 99).toISOString() })))
    single.push(Buffer.from(JSON.stringify({ ...batch[0], api_key: projectKey })))
  }
  return { plain, gzip: plain.map((b) => gzipSync(b)), single, eventBytes: eventBytes / events }
}

const avg = (bufs: Buffer[]) => bufs.reduce((s, b) => s + b.length, 0) / bufs.length
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`
const cores = (rs: LoadResult[]) => `${median(rs.map((r) => r.serverCores)).toFixed(2)} cores`
/** The server's CPU (all threads) per answered request. */
const cpuPerRequest = (rs: LoadResult[]) => `${fmt(median(rs.map((r) => (r.serverCores * 1e6) / r.requestsPerSecond)))} µs/request`
const eventsPerCpu = (rs: LoadResult[]) => fmt(median(rs.map((r) => (r.requestsPerSecond * BATCH_SIZE) / r.serverCores)))
const pct = (rs: LoadResult[], p: number) => rs.map((r) => percentile(r.latencies, p))

export async function runCapture(opts: CaptureOptions): Promise<void> {
  const projectKey = `phc_bench${randomBytes(12).toString('hex')}`
  const bodies = makeBodies(projectKey)
  const json = { 'content-type': 'application/json' }
  const gz = { 'content-type': 'application/json', 'content-encoding': 'gzip' }
  const batchLoad = (s: ChildServer, encoding: 'plain' | 'gzip', seconds: number): Load => ({
    url: s.url,
    serverPid: s.child.pid,
    path: '/batch/',
    bodies: bodies[encoding],
    headers: encoding === 'gzip' ? gz : json,
    connections: BATCH_CONNECTIONS,
    seconds,
  })
  const singleAtRate = (s: ChildServer, seconds: number): RateLoad => ({
    url: s.url,
    serverPid: s.child.pid,
    path: '/e/',
    bodies: bodies.single,
    headers: json,
    rate: SINGLE_RATE,
    seconds,
  })
  const singleBurst = (s: ChildServer, seconds: number): Load => ({
    url: s.url,
    serverPid: s.child.pid,
    path: '/e/',
    bodies: bodies.single,
    headers: json,
    connections: SINGLE_CONNECTIONS,
    seconds,
    overallRate: SINGLE_RATE,
    recordLatencies: true,
  })

  const r = {
    plain: { wren: [] as LoadResult[], hello: [] as LoadResult[], alone: [] as LoadResult[] },
    gzip: { wren: [] as LoadResult[], hello: [] as LoadResult[] },
    single: { wren: [] as RateResult[], hello: [] as RateResult[], alone: [] as RateResult[] },
    burst: { wren: [] as LoadResult[], hello: [] as LoadResult[], alone: [] as LoadResult[] },
  }
  const backlog: string[] = []
  const fsyncs: number[][] = []

  const hello = await startHelloWorld()
  try {
    for (let t = 0; t < opts.trials; t++) {
      // Wren as shipped: capture and the ingestion processor in one process.
      const wren = await startWrenServer(projectKey)
      try {
        const servers = [
          ['wren', wren],
          ['hello', hello],
        ] as const
        if (opts.parts.has('single')) {
          // Latency first, while this Wren's processor has no backlog. The disk's own fsync latency now.
          fsyncs.push(await fsyncLatencies(1))
          for (const [, s] of servers) await runAtRate(singleAtRate(s, 1))
          for (const [name, s] of servers) r.single[name].push(await runAtRate(singleAtRate(s, opts.seconds)))
          for (const [name, s] of servers) r.burst[name].push(await runLoad(singleBurst(s, opts.seconds)))
        }
        if (opts.parts.has('batch')) {
          for (const [, s] of servers) await runLoad(batchLoad(s, 'plain', 1))
          // Alternate which encoding goes first, so neither always meets the processor's larger backlog.
          for (const encoding of t % 2 === 0 ? (['plain', 'gzip'] as const) : (['gzip', 'plain'] as const)) {
            for (const [name, s] of servers) r[encoding][name].push(await runLoad(batchLoad(s, encoding, opts.seconds)))
          }
          const m = await scrapeMetrics(wren.url)
          const captured = m.wren_capture_events_total ?? 0
          const ingested = m.wren_ingested_events_total ?? 0
          backlog.push(`${Math.round((100 * ingested) / Math.max(1, captured))}% of ${fmt(captured)}`)
        }
      } catch (err) {
        console.error(wren.output())
        throw err
      } finally {
        await wren.stop()
      }

      // Capture alone: the processor held back by configuration (no code change).
      const alone = await startWrenServer(projectKey, INGESTION_DEFERRED)
      try {
        if (opts.parts.has('single')) {
          await runAtRate(singleAtRate(alone, 1))
          r.single.alone.push(await runAtRate(singleAtRate(alone, opts.seconds)))
          r.burst.alone.push(await runLoad(singleBurst(alone, opts.seconds)))
        }
        if (opts.parts.has('batch')) {
          await runLoad(batchLoad(alone, 'plain', 1))
          r.plain.alone.push(await runLoad(batchLoad(alone, 'plain', opts.seconds)))
        }
      } catch (err) {
        console.error(alone.output())
        throw err
      } finally {
        await alone.stop()
      }
    }
  } finally {
    await hello.stop()
  }

  const deferred = Object.entries(INGESTION_DEFERRED)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ')

  if (opts.parts.has('batch')) {
    console.log(`\n== 1. capture through /batch/ — budget ≥ ${fmt(BUDGET_EVENTS_PER_SECOND)} events/s acknowledged durably`)
    console.log(
      `   posthog-node bodies: ${BATCH_SIZE} events of ~${Math.round(bodies.eventBytes)} B, ${kb(avg(bodies.plain))} plain / ${kb(avg(bodies.gzip))} gzip;` +
        ` autocannon, ${BATCH_CONNECTIONS} connections, ${opts.seconds} s per run; median (per-run values)`,
    )
    console.log(
      `   reference: hello-world Fastify POST /batch/ (body read as raw bytes, answers {"status":"Ok"}), same bodies and load, same run`,
    )
    for (const encoding of ['plain', 'gzip'] as const) {
      const { wren, hello: ref } = r[encoding]
      const wrenRps = wren.map((x) => x.requestsPerSecond)
      const refRps = ref.map((x) => x.requestsPerSecond)
      const events = wrenRps.map((v) => v * BATCH_SIZE)
      console.log(`   ${encoding === 'plain' ? 'plain JSON' : 'gzip'}`)
      console.log(
        `     Wren          ${spread(events)} events/s  -> ${verdict(median(events) >= BUDGET_EVENTS_PER_SECOND)}${wren.map(failures).join('')}`,
      )
      console.log(`     Wren          ${spread(wrenRps)} req/s`)
      console.log(`     hello-world   ${spread(refRps)} req/s${ref.map(failures).join('')}`)
      console.log(
        `     Wren/hello    ${spread(
          wrenRps.map((v, i) => v / refRps[i]),
          x,
        )}`,
      )
      console.log(
        `     CPU           Wren ${cores(wren)} = ${eventsPerCpu(wren)} events per CPU-second; hello-world ${cores(ref)}; autocannon ${median(ref.map((x) => x.loadGeneratorCores)).toFixed(2)} cores while loading hello-world`,
      )
    }
    console.log(`   the processor (same process) had ingested, by the end of each run's /batch/ load: ${backlog.join('; ')}`)
    const alone = r.plain.alone
    const aloneEvents = alone.map((v) => v.requestsPerSecond * BATCH_SIZE)
    console.log(`   capture alone, plain JSON (ingestion held back: ${deferred})`)
    console.log(`     Wren          ${spread(aloneEvents)} events/s${alone.map(failures).join('')}`)
    console.log(
      `     Wren/hello    ${spread(
        alone.map((v, i) => v.requestsPerSecond / r.plain.hello[i].requestsPerSecond),
        x,
      )}`,
    )
    console.log(`     CPU           Wren ${cores(alone)} = ${eventsPerCpu(alone)} events per CPU-second`)
  }

  if (opts.parts.has('single')) {
    console.log(`\n== 2. single-event /e/ latency at ${fmt(SINGLE_RATE)} req/s offered — budget p99 ≤ ${BUDGET_P99_MS} ms`)
    console.log(
      `   open loop (bench/open-loop.ts): ${fmt(SINGLE_RATE)} requests/s evenly spaced over ${OPEN_LOOP_CONNECTIONS} keep-alive connections, ${opts.seconds} s per run;` +
        ` one ~${Math.round(avg(bodies.single))} B JSON event per request; latency from each request's due time to its answer (a stall counts for every request it delays)`,
    )
    const line = (label: string, rs: LoadResult[], extra = '') =>
      console.log(
        `     ${label} p50 ${ms(median(pct(rs, 50)))}  p90 ${ms(median(pct(rs, 90)))}  p99 ${ms(median(pct(rs, 99)))}  max ${ms(median(pct(rs, 100)))}` +
          `  (${fmt(median(rs.map((v) => v.requestsPerSecond)))} req/s answered, server ${cores(rs)}, ${cpuPerRequest(rs)}${extra})${rs.map(failures).join('')}`,
      )
    const generator = (rs: RateResult[]) =>
      `; generator ${median(rs.map((v) => v.loadGeneratorCores)).toFixed(2)} cores, its timer late by p99 ${ms(median(rs.map((v) => v.timerLagP99)))},` +
      ` at most ${Math.max(...rs.map((v) => v.peakInFlight))} requests in flight`
    line('Wren         ', r.single.wren, generator(r.single.wren))
    line('hello-world  ', r.single.hello, generator(r.single.hello))
    line('Wren, alone  ', r.single.alone, generator(r.single.alone))
    const fsyncPct = (p: number) => median(fsyncs.map((f) => percentile(f, p)))
    console.log(
      `     disk floor    one 4 KiB write + fdatasync, 1 s of them per run: p50 ${ms(fsyncPct(50))}  p90 ${ms(fsyncPct(90))}  p99 ${ms(fsyncPct(99))}  max ${ms(fsyncPct(100))}`,
    )
    const wrenP99 = pct(r.single.wren, 99)
    const helloP99 = pct(r.single.hello, 99)
    console.log(`     Wren p99      ${spread(wrenP99, ms)}  -> ${verdict(median(wrenP99) <= BUDGET_P99_MS)}`)
    console.log(
      `     Wren/hello    p50 ${spread(
        pct(r.single.wren, 50).map((w, i) => w / pct(r.single.hello, 50)[i]),
        x,
      )}; p99 ${spread(
        wrenP99.map((w, i) => w / helloP99[i]),
        x,
      )}`,
    )
    console.log(`     "alone" = a Wren with ingestion held back (${deferred}): p99 ${spread(pct(r.single.alone, 99), ms)}`)
    console.log(
      `   as a burst (the figure before the open loop): autocannon overallRate ${fmt(SINGLE_RATE)}, ${SINGLE_CONNECTIONS} connections, which sends` +
        ` each connection's quota back to back at the start of every second: a saturated burst's queueing, not latency at a rate`,
    )
    line('Wren         ', r.burst.wren)
    line('hello-world  ', r.burst.hello)
    line('Wren, alone  ', r.burst.alone)
  }
}
