// The three loads of issue 20's hostile-client probe, each against a fresh `wren start` process, with that
// process's peak RSS (VmHWM) and whether it survived:
//   1. concurrent large snapshots: 12 senders posting 19 MB `/s/` bodies, each under the 20 MiB limit;
//   2. a `/s/` flood: 2 MB snapshots as fast as 4 senders can post them;
//   3. a wide person: 630 KB of person properties, then 10,000 events for that person in one request.
// Each snapshot sender is one session, and waits Retry-After on a 503 as posthog-js does. After each load,
// the stages must catch up (everything acknowledged stored).
// Run: node --import tsx test/stress/memory-loads.ts [seconds=30]   (part of `npm run stress`)
// Prints one line per load; exits 1 if a process died, answered a 5xx other than 503 + Retry-After, or did
// not catch up.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { spawnWren, waitFor, type WrenProcess } from '../support/wren'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'

const seconds = Number(process.argv[2] ?? 30)
const MB = 1024 * 1024

/** Peak and current RSS of a process, in MB, from /proc (Linux). */
async function rss(pid: number): Promise<{ peak: number; now: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '')
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0)
  return { peak: Math.round(kb('VmHWM') / 1024), now: Math.round(kb('VmRSS') / 1024) }
}

/** An rrweb full snapshot whose JSON is about `bytes` long: one page of text nodes, as a wide DOM is. */
function snapshotBody(token: string, bytes: number, sessionId: string = randomUUID()): string {
  const text = 'x'.repeat(1000)
  const childNodes = Array.from({ length: Math.ceil(bytes / 1060) }, (_, i) => ({ type: 3, id: i + 10, textContent: text }))
  const events = [
    { type: 4, timestamp: Date.now(), data: { href: 'https://example.com/', width: 1280, height: 800 } },
    { type: 2, timestamp: Date.now(), data: { node: { type: 0, id: 1, childNodes }, initialOffset: { top: 0, left: 0 } } },
  ]
  return JSON.stringify([
    {
      event: '$snapshot',
      distinct_id: `sender-${sessionId}`,
      properties: { token, $session_id: sessionId, $window_id: 'w1', $snapshot_data: events },
    },
  ])
}

interface Outcome {
  statuses: Map<number, number>
  problems: string[]
}

/** Posts `body`; on a 503 with Retry-After, waits that long (as posthog-js does) before returning. */
async function post(url: string, body: string, outcome: Outcome): Promise<void> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).catch((err: Error) => err)
  if (res instanceof Error) {
    outcome.statuses.set(0, (outcome.statuses.get(0) ?? 0) + 1)
    return
  }
  await res.arrayBuffer().catch(() => undefined)
  outcome.statuses.set(res.status, (outcome.statuses.get(res.status) ?? 0) + 1)
  const retryAfter = Number(res.headers.get('retry-after'))
  if (res.status >= 500 && !(res.status === 503 && retryAfter > 0)) outcome.problems.push(`${res.status} from ${url}`)
  if (res.status === 503 && retryAfter > 0) await new Promise((r) => setTimeout(r, retryAfter * 1000))
}

/** `senders` loops, one session each, posting `makeBody(session)` to `/s/` until `ms` have passed. */
async function snapshotSenders(
  wren: WrenProcess,
  senders: number,
  ms: number,
  makeBody: (sessionId: string) => string,
  outcome: Outcome,
): Promise<void> {
  const until = Date.now() + ms
  await Promise.all(
    Array.from({ length: senders }, async () => {
      const sessionId = randomUUID()
      while (Date.now() < until) await post(`${wren.url}/s/`, makeBody(sessionId), outcome)
    }),
  )
}

/** Until both stages have nothing left (the lag is sampled every few seconds); the seconds it took. */
async function caughtUp(wren: WrenProcess): Promise<number> {
  const started = Date.now()
  await waitFor(
    async () => {
      const health = (await (await fetch(`${wren.url}/_health`)).json()) as Record<string, { lag_messages?: number } | undefined>
      return health.ingestion?.lag_messages === 0 && health.recordings?.lag_messages === 0 && Date.now() - started > 6000
    },
    { timeoutMs: 600_000, what: 'the stages to catch up', intervalMs: 500 },
  )
  return Math.round((Date.now() - started) / 1000)
}

async function wideProperties(): Promise<Record<string, string>> {
  return Object.fromEntries(Array.from({ length: 630 }, (_, i) => [`wide_${i}`, `${i}`.padEnd(1000, 'w')]))
}

interface Load {
  name: string
  run(wren: WrenProcess, keys: { project: string; personal: string }, outcome: Outcome): Promise<string>
}

const loads: Load[] = [
  {
    name: '12 × 19 MB /s/ at once',
    async run(wren, keys, outcome) {
      const size = snapshotBody(keys.project, 19 * MB).length
      await snapshotSenders(wren, 12, seconds * 1000, (session) => snapshotBody(keys.project, 19 * MB, session), outcome)
      return `${(size / MB).toFixed(1)} MB bodies, caught up ${await caughtUp(wren)} s after`
    },
  },
  {
    name: '/s/ flood of 2 MB snapshots',
    async run(wren, keys, outcome) {
      await snapshotSenders(wren, 4, seconds * 1000, (session) => snapshotBody(keys.project, 2 * MB, session), outcome)
      return `caught up ${await caughtUp(wren)} s after`
    },
  },
  {
    name: 'wide person × 10,000 events',
    async run(wren, keys, outcome) {
      const distinctId = 'wide-person'
      const batch = (events: unknown[]) => JSON.stringify({ api_key: keys.project, batch: events })
      await post(
        `${wren.url}/batch/`,
        batch([{ event: '$identify', distinct_id: distinctId, properties: { $set: await wideProperties() } }]),
        outcome,
      )
      const started = Date.now()
      const events = Array.from({ length: 10_000 }, (_, n) => ({
        event: 'wide-tick',
        distinct_id: distinctId,
        uuid: randomUUID(),
        properties: { n },
      }))
      await post(`${wren.url}/batch/`, batch(events), outcome)
      await caughtUp(wren)
      return `ingested in ${Math.round((Date.now() - started) / 1000)} s`
    },
  },
]

let failed = false
for (const load of loads) {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'wren-memory-'))
  const keys = { project: generateKey(PROJECT_KEY_PREFIX), personal: generateKey(PERSONAL_KEY_PREFIX) }
  const wren = await spawnWren(dataDir, { WREN_PROJECT_API_KEY: keys.project, WREN_PERSONAL_API_KEY: keys.personal })
  const pid = wren.child.pid!
  let peak = 0
  const sampler = setInterval(() => void rss(pid).then((r) => (peak = Math.max(peak, r.peak))), 250)
  const outcome: Outcome = { statuses: new Map(), problems: [] }
  const started = Date.now()
  let detail = ''
  try {
    detail = await load.run(wren, keys, outcome)
  } catch (err) {
    outcome.problems.push(String(err))
  }
  clearInterval(sampler)
  peak = Math.max(peak, (await rss(pid)).peak)
  const alive = wren.child.exitCode === null && wren.child.signalCode === null
  if (!alive) outcome.problems.push(`the process died (${wren.child.exitCode ?? wren.child.signalCode})`)
  const exitCode = await wren.stop('SIGTERM')
  const statuses = Object.fromEntries([...outcome.statuses].sort((a, b) => a[0] - b[0]))
  console.log(
    `${load.name}: peak RSS ${peak} MB, ${alive ? 'alive' : 'DIED'}, ${Math.round((Date.now() - started) / 1000)} s, statuses ${JSON.stringify(statuses)}${detail ? `, ${detail}` : ''}, exit ${exitCode}`,
  )
  for (const problem of outcome.problems.slice(0, 10)) console.log('PROBLEM', problem)
  if (outcome.problems.length > 0) failed = true
  if (!alive) console.log(wren.output().slice(-2000))
  await rm(dataDir, { recursive: true, force: true })
}
process.exit(failed ? 1 : 0)
