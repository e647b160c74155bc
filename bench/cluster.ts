// Cluster mode beside embedded mode, in the same run on the same machine:
//   - capture throughput: events/s acknowledged through /batch/ (100 events a request, 16 in flight)
//     into the embedded log vs. into Kafka (acks from all in-sync replicas);
//   - end-to-end latency: one event captured → counted in a trend (POST insights/trend), p50/p99.
// Kafka runs from Maven Central's jars (test/support/kafka.ts). No ClickHouse server can be installed
// here, so the cluster side's ingest and api roles share one process on chDB (`wren ingest,api`) and
// capture runs as its own process on Kafka. The same cluster is then measured again through its one public
// entry point, Debian's caddy with infra/Caddyfile (when caddy is installed), as the SDKs reach it.
// Prints figures, asserts nothing.
//
//   node --import tsx bench/cluster.ts [seconds per throughput run, default 10]
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { kafkaUnavailableReason, startKafka } from '../test/support/kafka'
import { api, spawnWren, waitFor, type WrenProcess } from '../test/support/wren'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../services/projects/store'
import { caddyMissing, startCaddy, type Caddy } from '../test/deploy/caddy'

const SECONDS = Number(process.argv[2] ?? 10)
const BATCH = 100
const IN_FLIGHT = 16
const LATENCY_SAMPLES = 50

const keys = { WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX), WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX) }

async function captureThroughput(url: string): Promise<number> {
  const deadline = performance.now() + SECONDS * 1000
  let acknowledged = 0
  // Bodies are made up front so the load generator (on the same cores) costs as little as it can.
  const bodies = Array.from({ length: 64 }, () =>
    JSON.stringify({
      api_key: keys.WREN_PROJECT_API_KEY,
      batch: Array.from({ length: BATCH }, (_, i) => ({
        event: 'bench',
        distinct_id: `u${i % 500}`,
        uuid: randomUUID(),
        properties: { i },
      })),
    }),
  )
  let next = 0
  const body = () => bodies[next++ % bodies.length]
  const start = performance.now()
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (performance.now() < deadline) {
        const res = await fetch(`${url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body() })
        await res.arrayBuffer()
        if (res.status === 200) acknowledged += BATCH
      }
    }),
  )
  return acknowledged / ((performance.now() - start) / 1000)
}

async function endToEnd(captureUrl: string, apiUrl: string): Promise<{ p50: number; p99: number }> {
  const call = api({ url: apiUrl, personalKey: keys.WREN_PERSONAL_API_KEY })
  const samples: number[] = []
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    const event = `latency_${randomUUID().slice(0, 8)}`
    const start = performance.now()
    const res = await fetch(`${captureUrl}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: keys.WREN_PROJECT_API_KEY, batch: [{ event, distinct_id: `u${i}`, properties: {} }] }),
    })
    if (res.status !== 200) throw new Error(`capture failed: ${res.status}`)
    const counted = async () => {
      const trend = await call('POST', `/api/environments/1/insights/trend/`, { events: [{ id: event }], date_from: '-1d' })
      const data = (trend.body?.result?.[0]?.data ?? []) as number[]
      return data.reduce((a, b) => a + b, 0) === 1
    }
    await waitFor(counted, { intervalMs: 5, timeoutMs: 60_000, what: 'the event to be counted in a trend' })
    samples.push(performance.now() - start)
  }
  samples.sort((a, b) => a - b)
  return { p50: samples[Math.floor(samples.length * 0.5)], p99: samples[Math.min(samples.length - 1, Math.floor(samples.length * 0.99))] }
}

async function main(): Promise<void> {
  const reason = kafkaUnavailableReason()
  if (reason) {
    console.log(`bench/cluster: skipped: ${reason}`)
    return
  }
  const dirs: string[] = []
  const processes: WrenProcess[] = []
  let caddy: Caddy | null = null
  const dir = async () => {
    const d = await mkdtemp(path.join(tmpdir(), 'wren-bench-'))
    dirs.push(d)
    return d
  }
  const kafka = await startKafka()
  const env = { ...keys, LOG_LEVEL: 'warn', WREN_INGEST_WAIT_MS: '20' }
  const rows: Array<[string, string, string, string]> = []
  try {
    // Embedded: one process.
    const embedded = await spawnWren(await dir(), env, 'all')
    processes.push(embedded)
    const embeddedLatency = await endToEnd(embedded.url, embedded.url)
    const embeddedRate = await captureThroughput(embedded.url)
    await embedded.stop()

    // Cluster: capture on Kafka, ingest+api (+decide, for the proxy) on Kafka and chDB; each believes the proxy's X-Forwarded-For.
    const kenv = { ...env, KAFKA_BROKERS: kafka.brokers, KAFKA_PARTITIONS: '4', WREN_TRUSTED_PROXIES: '127.0.0.1' }
    const core = await spawnWren(await dir(), kenv, 'ingest,api,decide')
    processes.push(core)
    const capture = await spawnWren(await dir(), kenv, 'capture')
    processes.push(capture)
    const clusterLatency = await endToEnd(capture.url, core.url)
    const clusterRate = await captureThroughput(capture.url)
    const missing = caddyMissing()
    let proxied: { rate: number; latency: { p50: number; p99: number } } | null = null
    if (missing) console.log(`(no proxy row: ${missing})`)
    else {
      const at = (p: WrenProcess) => new URL(p.url).host
      caddy = await startCaddy({ capture: [at(capture)], decide: [at(core)], api: [at(core)] })
      proxied = { latency: await endToEnd(caddy.url, caddy.url), rate: await captureThroughput(caddy.url) }
    }

    const fmt = (n: number) => Math.round(n).toLocaleString('en-US')
    rows.push([
      'embedded (segment log + chDB, one process)',
      fmt(embeddedRate),
      embeddedLatency.p50.toFixed(0),
      embeddedLatency.p99.toFixed(0),
    ])
    rows.push([
      'cluster (capture → Kafka → ingest,api on chDB)',
      fmt(clusterRate),
      clusterLatency.p50.toFixed(0),
      clusterLatency.p99.toFixed(0),
    ])
    if (proxied)
      rows.push([
        'the same cluster through infra/Caddyfile',
        fmt(proxied.rate),
        proxied.latency.p50.toFixed(0),
        proxied.latency.p99.toFixed(0),
      ])
    console.log(
      `\ncapture: /batch/ of ${BATCH}, ${IN_FLIGHT} in flight, ${SECONDS} s; end to end: ${LATENCY_SAMPLES} single events, capture → counted in a trend (ingest batch wait 20 ms)\n`,
    )
    console.log(['mode'.padEnd(50), 'capture ev/s'.padStart(14), 'e2e p50 ms'.padStart(12), 'e2e p99 ms'.padStart(12)].join(''))
    for (const [mode, rate, p50, p99] of rows)
      console.log([mode.padEnd(50), rate.padStart(14), p50.padStart(12), p99.padStart(12)].join(''))
  } finally {
    await caddy?.stop()
    await Promise.all(processes.map((p) => p.stop()))
    await kafka.stop()
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })))
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err)
    process.exit(1)
  },
)
