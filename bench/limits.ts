// Hostile loads against a Wren started as a user starts it (`wren start`, a child process), for the bounds
// issue 30 asks of it. Each probe prints what a caller saw next to what the server did meanwhile:
//   1. an hourly breakdown over 30 days on a property with ~1 M distinct values, and the slowest /_health
//      answer while it ran (another process asks /_health every 50 ms);
//   2. a HogQL filter of seven nested replaceAll: the answer, and how much the server's resident memory grew;
//   3. 20 concurrent ?refresh=true of a 30-tile dashboard: how many answered, and when;
//   4. offset paging through a 25,000-event project: every event read once?
//   5. 630 KB of one person's properties, then 10,000 of its events in one request (the issue's case), then
//      another project's event: how long until that event is stored;
//   6. the same after a request whose 10,000 events each set one more property on one person (~630 KB at the end).
// The 1 M events are bulk-loaded into the data directory first (in this process), then Wren is started on it.
//   node --import tsx bench/limits.ts          BENCH_EVENTS=200000 for a quicker run, PROBES=1,3 for some probes
// Prints; asserts nothing.
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pino from 'pino'
import { buildWren } from '../services/app'
import { loadConfig } from '../services/platform/config'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../services/projects/store'
import { loadTrendEvents } from './trend-events'
import { loadAverage, median, sleep, startWrenServer } from './support'

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000)
const NOW = '2026-03-15T12:00:00Z'
const projectKey = generateKey(PROJECT_KEY_PREFIX)
const personalKey = generateKey(PERSONAL_KEY_PREFIX)
const dataDir = await mkdtemp(path.join(tmpdir(), 'wren-bench-limits-'))
const keys = { WREN_PROJECT_API_KEY: projectKey, WREN_PERSONAL_API_KEY: personalKey, WREN_NOW: NOW }

console.log(`limits probe — ${new Date().toISOString()}, ${EVENTS.toLocaleString()} events, load average ${loadAverage()}`)
{
  const loading = await buildWren(loadConfig({ WREN_DATA_DIR: dataDir, ...keys }), pino({ level: 'warn' }))
  const team = loading.projects.list()[0].id
  const t0 = performance.now()
  await loadTrendEvents(loading.clickhouse, { team, events: EVENTS, now: '2026-03-15 12:00:00' })
  console.log(`loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  await loading.close()
}

let wren = await startWrenServer(projectKey, { WREN_PERSONAL_API_KEY: personalKey, WREN_NOW: NOW, LOG_LEVEL: 'error' }, dataDir)
const auth = { authorization: `Bearer ${personalKey}`, 'content-type': 'application/json' }
const api = async (method: string, url: string, body?: unknown, signal?: AbortSignal) => {
  const res = await fetch(`${wren.url}${url}`, {
    method,
    headers: auth,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  })
  const text = await res.text()
  let json: unknown = null
  try {
    json = JSON.parse(text)
  } catch {
    json = text
  }
  return { status: res.status, body: json as Record<string, unknown> }
}
const rss = () => {
  const status = readFileSync(`/proc/${wren.child.pid}/status`, 'utf8')
  const kb = (name: string) => Number(/\d+/.exec(status.split('\n').find((l) => l.startsWith(name)) ?? '')?.[0] ?? NaN)
  return { rss: kb('VmRSS:') / 1024, peak: kb('VmHWM:') / 1024 }
}

/** Asks /_health every 50 ms while `work` runs; the slowest answer. */
async function healthDuring<T>(work: () => Promise<T>): Promise<{ result: T; worstMs: number; seconds: number }> {
  let done = false
  let worst = 0
  const pinger = (async () => {
    while (!done) {
      const t = performance.now()
      await fetch(`${wren.url}/_health`).catch(() => undefined)
      worst = Math.max(worst, performance.now() - t)
      await sleep(50)
    }
  })()
  const t = performance.now()
  const result = await work()
  const seconds = (performance.now() - t) / 1000
  done = true
  await pinger
  return { result, worstMs: worst, seconds }
}

const range = { date_from: '2026-02-14', date_to: '2026-03-15' }
/** Runs one probe; a probe that fails says how, and a Wren that died is started again on the same data. */
const only = process.env.PROBES?.split(',')
async function probe(name: string, run: () => Promise<void>): Promise<void> {
  if (only && !only.includes(name)) return
  try {
    await run()
  } catch (err) {
    const dead = wren.child.exitCode !== null || wren.child.signalCode !== null
    console.log(
      `${name}: failed: ${(err as Error).message}${dead ? `; Wren died (${wren.child.signalCode ?? wren.child.exitCode}): ${wren.output().slice(-400)}` : ''}`,
    )
    if (dead) wren = await startWrenServer(projectKey, { WREN_PERSONAL_API_KEY: personalKey, WREN_NOW: NOW, LOG_LEVEL: 'error' }, dataDir)
  }
}
const project = await api('POST', '/api/projects/', { name: 'paged' })
const token = project.body.api_token as string
const pid = project.body.id as number
try {
  // 1. The breakdown.
  await probe('1', async () => {
    const trend = (breakdown: string) =>
      api('POST', '/api/projects/@current/insights/trend/', {
        events: [{ id: '$pageview', math: 'total' }],
        interval: 'hour',
        breakdown,
        breakdown_type: 'event',
        refresh: true,
        ...range,
      })
    const b = await healthDuring(() => trend('$session_id'))
    const series = Array.isArray(b.result.body.result) ? b.result.body.result.length : 0
    console.log(
      `1. hourly breakdown on $session_id: ${b.result.status} in ${b.seconds.toFixed(1)} s, ${series} series` +
        `${b.result.status >= 400 ? ` (${JSON.stringify(b.result.body).slice(0, 160)})` : ''}; slowest /_health ${b.worstMs.toFixed(0)} ms`,
    )
  })

  // 2. The string bomb.
  await probe('2', async () => {
    const before = rss()
    const nest = (depth: number): string =>
      depth === 0 ? "concat(event, 'aaaaaaaaaa')" : `replaceAll(${nest(depth - 1)}, 'a', 'aaaaaaaaaa')`
    const bomb = `length(${nest(7)}) > 0`
    const s = await healthDuring(() =>
      api('POST', '/api/projects/@current/insights/trend/', {
        events: [{ id: '$pageview', math: 'total' }],
        properties: [{ type: 'hogql', key: bomb }],
        refresh: true,
        date_from: '-1h',
      }),
    )
    const after = rss()
    console.log(
      `2. seven nested replaceAll (${bomb.length} chars): ${s.result.status} ${JSON.stringify(s.result.body).slice(0, 160)} in ${s.seconds.toFixed(1)} s; ` +
        `RSS ${before.rss.toFixed(0)} → ${after.rss.toFixed(0)} MiB, peak ${before.peak.toFixed(0)} → ${after.peak.toFixed(0)} MiB (+${(after.peak - before.rss).toFixed(0)})`,
    )
  })

  // 3. 20 concurrent refreshes of a 30-tile dashboard.
  await probe('3', async () => {
    const dash = await api('POST', '/api/projects/@current/dashboards/', { name: 'thirty tiles' })
    const dashId = dash.body.id as number
    const kinds = [
      { events: [{ id: '$pageview', math: 'total' }] },
      { events: [{ id: '$pageview', math: 'dau' }] },
      { events: [{ id: 'signed_up', math: 'total' }], breakdown: '$browser' },
      { events: [{ id: '$pageview', math: 'total' }], breakdown: 'price', breakdown_type: 'event' },
      { events: [{ id: '$autocapture', math: 'weekly_active' }] },
      { events: [{ id: '$pageview', math: 'unique_session' }] },
    ]
    for (let i = 0; i < 30; i++)
      await api('POST', '/api/projects/@current/insights/', {
        name: `tile ${i}`,
        filters: { insight: 'TRENDS', ...kinds[i % kinds.length], date_from: `-${7 + i}d` },
        dashboards: [dashId],
      })
    const d = await healthDuring(async () => {
      const t = performance.now()
      return Promise.all(
        Array.from({ length: 20 }, () =>
          api('GET', `/api/projects/@current/dashboards/${dashId}/?refresh=true`, undefined, AbortSignal.timeout(300_000)).then(
            (r) => ({ status: r.status, seconds: (performance.now() - t) / 1000 }),
            (e: Error) => ({ status: 0, seconds: (performance.now() - t) / 1000, error: e.name }),
          ),
        ),
      )
    })
    const ok = d.result.filter((r) => r.status === 200)
    console.log(
      `3. 20 concurrent refreshes of 30 tiles: ${ok.length}/20 answered 200 (statuses ${[...new Set(d.result.map((r) => r.status))].join(',')}), ` +
        `median ${median(d.result.map((r) => r.seconds)).toFixed(1)} s, last ${Math.max(...d.result.map((r) => r.seconds)).toFixed(1)} s; slowest /_health ${d.worstMs.toFixed(0)} ms`,
    )
  })

  // 4. Offset paging through 25,000 events of another project.
  await probe('4', async () => {
    for (let sent = 0; sent < 25_000; sent += 1_000) {
      const batch = Array.from({ length: 1_000 }, (_, i) => ({
        event: 'paged',
        distinct_id: `p${(sent + i) % 300}`,
        properties: { n: sent + i },
        timestamp: new Date(Date.parse(NOW) - (sent + i) * 1000).toISOString(),
      }))
      const r = await fetch(`${wren.url}/batch/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: token, batch }),
      })
      if (!r.ok) throw new Error(`batch ${r.status}`)
    }
    const count = async () => {
      const r = await api('POST', `/api/projects/${pid}/insights/trend/`, {
        events: [{ id: 'paged', math: 'total' }],
        display: 'BoldNumber',
        date_from: '-90d',
        refresh: true,
      })
      const rows = r.body.result as Array<{ aggregated_value?: number }> | undefined
      return rows?.[0]?.aggregated_value ?? 0
    }
    for (const deadline = Date.now() + 300_000; (await count()) < 25_000 && Date.now() < deadline;) await sleep(500)
    const seen = new Map<number, number>()
    let pages = 0
    const pageStart = performance.now()
    for (let offset = 0; pages < 100; offset += 1000) {
      const r = await api('GET', `/api/projects/${pid}/events/?event=paged&limit=1000&offset=${offset}&after=2026-01-01`)
      const results = (r.body.results ?? []) as Array<{ properties: { n: number } }>
      pages++
      for (const e of results) seen.set(e.properties.n, (seen.get(e.properties.n) ?? 0) + 1)
      if (results.length < 1000) break
    }
    const twice = [...seen.values()].filter((n) => n > 1).length
    console.log(
      `4. offset paging (limit 1000) over 25,000 events: ${seen.size} distinct read once or more, ${twice} read twice, in ${pages} pages, ${((performance.now() - pageStart) / 1000).toFixed(1)} s`,
    )
  })

  /** Sends `batch` for the first project, then one event for the other; seconds until that event is listed. */
  const otherEventAfter = async (batch: unknown[]) => {
    const status = (
      await fetch(`${wren.url}/batch/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: projectKey, batch }),
      })
    ).status
    const event = `after ${batch.length} ${Date.now()}`
    const sentAt = performance.now()
    const other = await fetch(`${wren.url}/e/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: token, event, distinct_id: 'other', timestamp: NOW }),
    })
    for (const deadline = Date.now() + 300_000; Date.now() < deadline; await sleep(100)) {
      const r = await api('GET', `/api/projects/${pid}/events/?event=${encodeURIComponent(event)}&after=2026-01-01`)
      if (((r.body.results ?? []) as unknown[]).length > 0)
        return { status, other: other.status, seconds: (performance.now() - sentAt) / 1000 }
    }
    return { status, other: other.status, seconds: NaN }
  }

  // 5. The issue's wide person: 630 KB of properties set once, then 10,000 of its events in one request.
  await probe('5', async () => {
    const wide = Object.fromEntries(Array.from({ length: 630 }, (_, i) => [`wide_${i}`, `${i}`.padEnd(1000, 'w')]))
    await otherEventAfter([{ event: '$identify', distinct_id: 'wide-one', properties: { $set: wide } }])
    const r = await otherEventAfter(
      Array.from({ length: 10_000 }, (_, i) => ({ event: 'wide', distinct_id: 'wide-one', properties: { i } })),
    )
    console.log(
      `5. 630 KB person, then its 10,000 events (${r.status}); another project's event (${r.other}) stored after ${r.seconds.toFixed(1)} s`,
    )
  })

  // 6. A person that grows within the request: each of 10,000 events sets one more 50-character property.
  await probe('6', async () => {
    const r = await otherEventAfter(
      Array.from({ length: 10_000 }, (_, i) => ({
        event: 'growing',
        distinct_id: 'growing-one',
        properties: { $set: { [`grow_${i}`]: 'x'.repeat(50) } },
      })),
    )
    console.log(
      `6. a person growing to ~630 KB over 10,000 events (${r.status}); another project's event (${r.other}) stored after ${r.seconds.toFixed(1)} s`,
    )
  })

  console.log(`load average at the end ${loadAverage()}`)
} finally {
  await wren.stop()
  await rm(dataDir, { recursive: true, force: true })
}
