// Breakdown benchmark (issue 30): 1 M events with 1 M distinct `email` values, a trend broken down by email
// hourly over 30 days (720 buckets × 1 M values before ranking), answered by `wren start` in its own process
// while this one asks /_health every 20 ms: the answer's time, and the longest /_health took meanwhile.
// Then the same trend asked by N clients at once (identical requests share one query), and one asked and
// abandoned after a second (its query is stopped). Prints figures; asserts nothing.
//   npm run bench -- breakdown            BENCH_EVENTS=200000 for a quicker run; BENCH_CLIENTS (20)
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pino from 'pino'
import { buildWren } from '../services/app'
import { loadConfig } from '../services/platform/config'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../services/projects/store'
import { loadBulkEvents } from '../test/support/bulk-events'
import { loadAverage, mib, ms, percentile, startWrenServer } from './support'

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000)
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 20)
const NOW = '2026-03-15T12:00:00Z'
const TREND = { events: [{ id: '$pageview' }], breakdown: 'email', interval: 'hour', date_from: '-30d', refresh: true }

const dataDir = await mkdtemp(path.join(tmpdir(), 'wren-bench-breakdown-'))
const projectKey = generateKey(PROJECT_KEY_PREFIX)
try {
  // Load with Wren in this process (bulk SQL), then hand the data directory to `wren start`.
  const loader = await buildWren(
    loadConfig({ WREN_DATA_DIR: dataDir, WREN_PROJECT_API_KEY: projectKey, WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX) }),
    pino({ level: 'warn' }),
  )
  const team = loader.projects.list()[0].id
  const { value: personalKey } = await loader.projects.createPersonalKey({ label: 'bench', scopes: ['*'] })
  let start = performance.now()
  await loadBulkEvents(loader.clickhouse, { team, events: EVENTS, now: NOW, persons: 200_000 })
  console.log(`loaded ${EVENTS.toLocaleString()} events, each with its own email, in ${((performance.now() - start) / 1000).toFixed(1)} s`)
  await loader.close()

  const server = await startWrenServer(projectKey, { WREN_NOW: NOW }, dataDir)
  try {
    const trendUrl = `${server.url}/api/projects/${team}/insights/trend/`
    const ask = (signal?: AbortSignal) =>
      fetch(trendUrl, {
        method: 'POST',
        headers: { authorization: `Bearer ${personalKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(TREND),
        signal,
      })
    /** /_health's latencies (ms) while `work` runs, one probe at a time. */
    const probed = async <T>(work: () => Promise<T>): Promise<{ value: T; health: number[] }> => {
      const health: number[] = []
      let done = false
      const probe = (async () => {
        while (!done) {
          const t0 = performance.now()
          await fetch(`${server.url}/_health`).then((r) => r.arrayBuffer())
          health.push(performance.now() - t0)
          await new Promise((r) => setTimeout(r, 20))
        }
      })()
      const value = await work().finally(() => (done = true))
      await probe
      return { value, health: health.sort((a, b) => a - b) }
    }
    const healthLine = (h: number[]) => `/_health max ${ms(h.at(-1) ?? 0)}, p99 ${ms(percentile(h, 0.99))} over ${h.length} probes`
    const rss = async () => {
      const text = await (await fetch(`${server.url}/_metrics`)).text()
      return Number(/^process_resident_memory_bytes (\S+)/m.exec(text)?.[1] ?? 0)
    }

    console.log(`\nload average ${loadAverage()}; resident ${mib(await rss())} before`)
    start = performance.now()
    const one = await probed(async () => {
      const res = await ask()
      return { status: res.status, body: (await res.json()) as { result?: unknown[] } }
    })
    console.log(
      `1 M-value hourly breakdown: ${one.value.status} with ${one.value.body.result?.length ?? 0} series in ${((performance.now() - start) / 1000).toFixed(1)} s; ${healthLine(one.health)}; resident ${mib(await rss())} after`,
    )

    start = performance.now()
    const many = await probed(() => Promise.all(Array.from({ length: CLIENTS }, () => ask().then((r) => r.status))))
    const ok = many.value.filter((s) => s === 200).length
    console.log(
      `${CLIENTS} clients asking it at once: ${ok} answered 200 in ${((performance.now() - start) / 1000).toFixed(1)} s; ${healthLine(many.health)}`,
    )

    const controller = new AbortController()
    start = performance.now()
    const left = ask(controller.signal).catch(() => null)
    await new Promise((r) => setTimeout(r, 1000))
    controller.abort()
    await left
    const after = await probed(async () => {
      const res = await fetch(`${server.url}/api/projects/${team}/insights/trend/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${personalKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ events: [{ id: '$pageview' }], date_from: '-7d' }),
      })
      return res.status
    })
    console.log(
      `a client leaving after 1 s, then a plain 7-day trend: ${after.value} in ${((performance.now() - start) / 1000 - 1).toFixed(1)} s after it left; ${healthLine(after.health)}`,
    )
  } finally {
    await server.stop()
  }
} finally {
  await rm(dataDir, { recursive: true, force: true })
}
