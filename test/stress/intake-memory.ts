// Large SDK bodies at once: node --import tsx test/stress/intake-memory.ts [senders=12] [seconds=30] [repo=.]
// Starts `wren start` (embedded, default settings) from `repo` as its own process, and has `senders` clients
// post 19 MB /s/ bodies for `seconds`, each waiting Retry-After on a 503 as posthog-js does. Prints the
// answers, the process's peak RSS (VmHWM) and heap (sampled from /_metrics), and whether it survived; exits 1
// if it did not.
import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'
import { waitFor } from '../support/wren'

const senders = Number(process.argv[2] ?? 12)
const seconds = Number(process.argv[3] ?? 30)
const repo = path.resolve(process.argv[4] ?? path.join(import.meta.dirname, '../..'))

const dataDir = await mkdtemp(path.join(tmpdir(), 'wren-intake-memory-'))
const projectKey = generateKey(PROJECT_KEY_PREFIX)
const personalKey = generateKey(PERSONAL_KEY_PREFIX)
const port = 20_000 + Math.floor(Math.random() * 20_000)
const url = `http://127.0.0.1:${port}`
const child = spawn(process.execPath, ['--import', 'tsx', path.join(repo, 'services/main.ts'), 'start'], {
  cwd: repo,
  env: {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    WREN_DATA_DIR: dataDir,
    WREN_PROJECT_API_KEY: projectKey,
    WREN_PERSONAL_API_KEY: personalKey,
    LOG_LEVEL: 'warn',
  },
  stdio: ['ignore', 'inherit', 'inherit'],
})
let exit: string | null = null
child.once('exit', (code, signal) => (exit = `exit code ${code}, signal ${signal}`))
await waitFor(async () => (await fetch(`${url}/_health`).catch(() => null))?.ok ?? false, { timeoutMs: 60_000, what: 'wren to start' })
const auth = { authorization: `Bearer ${personalKey}`, 'content-type': 'application/json' }
const projects = (await (await fetch(`${url}/api/projects/`, { headers: auth })).json()) as { results: Array<{ id: number }> }
await fetch(`${url}/api/projects/${projects.results[0].id}/`, {
  method: 'PATCH',
  headers: auth,
  body: JSON.stringify({ session_recording_opt_in: true }),
})

/** ~19 MB of rrweb mutations for one session. */
function snapshotBody(sessionId: string): Buffer {
  const events = Array.from({ length: 84_000 }, (_, i) => ({
    type: 3,
    timestamp: Date.now() + i,
    data: {
      source: 0,
      adds: [
        {
          parentId: i,
          node: { type: 2, tagName: 'div', attributes: { class: `row item-${i}` }, childNodes: [{ type: 3, textContent: `hello ${i}` }] },
        },
      ],
      removes: [],
    },
  }))
  const body = [
    {
      event: '$snapshot',
      distinct_id: 'd',
      properties: { token: projectKey, $session_id: sessionId, $window_id: 'w', $snapshot_data: events },
    },
  ]
  return Buffer.from(JSON.stringify(body))
}

const peakRss = async () => {
  const status = await readFile(`/proc/${child.pid}/status`, 'utf8').catch(() => '')
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024
}
const answers = new Map<string, number>()
const count = (what: string) => answers.set(what, (answers.get(what) ?? 0) + 1)
const body = snapshotBody('stress-session')
console.log(`${senders} senders of ${(body.length / 1e6).toFixed(1)} MB /s/ bodies for ${seconds} s`)
const until = Date.now() + seconds * 1000
let lastPeak = 0
let peakHeap = 0
const heapUsed = async () => {
  const text = await fetch(`${url}/_metrics`).then(
    (r) => r.text(),
    () => '',
  )
  return Number(/^nodejs_heap_size_used_bytes (\S+)$/m.exec(text)?.[1] ?? 0)
}
const sampler = setInterval(async () => {
  lastPeak = Math.max(lastPeak, await peakRss())
  peakHeap = Math.max(peakHeap, await heapUsed())
}, 500)
await Promise.all(
  Array.from({ length: senders }, async () => {
    while (Date.now() < until && exit === null) {
      try {
        const res = await fetch(`${url}/s/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        await res.arrayBuffer()
        count(String(res.status))
        if (res.status === 503) await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000))
      } catch (err) {
        count(`error ${(err as Error & { cause?: { code?: string } }).cause?.code ?? (err as Error).message}`)
      }
    }
  }),
)
clearInterval(sampler)
const health =
  exit === null
    ? await fetch(`${url}/_health`).then(
        (r) => r.status,
        () => 'no answer',
      )
    : 'gone'
lastPeak = Math.max(lastPeak, await peakRss())
console.log('answers:', Object.fromEntries(answers))
const survived = exit === null
console.log(
  `peak RSS ${(lastPeak / 2 ** 30).toFixed(2)} GiB, peak heap used ${(peakHeap / 2 ** 30).toFixed(2)} GiB (sampled); survived: ${survived ? `yes (/_health ${health})` : `no (${exit})`}`,
)
if (survived) {
  child.kill('SIGTERM')
  await new Promise((r) => child.once('exit', r))
}
await rm(dataDir, { recursive: true, force: true })
process.exit(survived ? 0 : 1)
