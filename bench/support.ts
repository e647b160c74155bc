// Shared pieces of the benchmarks: statistics and formatting, the hello-world reference server, starting
// Wren as a child process, autocannon runs, and posthog-node-shaped events.
//
// Run as a script (`node --import tsx bench/support.ts hello-server`) it is the hello-world server: a
// Fastify POST route that takes the body as raw bytes (as Wren's capture routes do) and answers
// {"status":"Ok"}. It runs in its own process, like Wren, so both servers share the two cores with the
// load generator the same way.

import { spawn, type ChildProcess } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { randomBytes } from 'node:crypto'
import { mkdtemp, open, rm } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

// ---- statistics and formatting -------------------------------------------------------------------

export function median(xs: number[]): number {
  if (xs.length === 0) return NaN
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2
}

/** Nearest-rank percentile of an ascending array (p in 0..100). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]
}

export const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : String(n))
export const ms = (n: number) => `${n.toFixed(2)} ms`
export const mib = (bytes: number) => `${(bytes / (1 << 20)).toFixed(0)} MiB`
export const x = (r: number) => `${r.toFixed(2)}x`

/** "median (run1, run2, run3)" so that the spread is visible next to the median. */
export function spread(values: number[], show: (n: number) => string = fmt): string {
  return `${show(median(values))}  (runs: ${values.map(show).join(', ')})`
}

export function verdict(ok: boolean): string {
  return ok ? 'within budget' : 'MISSES budget'
}

/**
 * Wren configuration (environment, no code change) under which the ingestion processor takes nothing
 * during a run: it waits for a batch of 100 M records or for 23 days. Isolates capture's own cost.
 */
export const INGESTION_DEFERRED = { WREN_INGEST_BATCH: '100000000', WREN_INGEST_WAIT_MS: '2000000000' }

/** The machine's load average over 1, 5 and 15 minutes, as `0.4 0.8 1.2` (the benches print it with their figures). */
export const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')

export const sleep = (msec: number) => new Promise<void>((r) => setTimeout(r, msec))

/**
 * CPU seconds (user + system, all threads) a process has used so far, from /proc (Linux); NaN elsewhere.
 * Noise on a shared machine changes wall-clock rates a lot and CPU per unit of work much less.
 */
export function cpuSeconds(pid: number = process.pid, thread?: 'main'): number {
  // /proc/<pid>/stat sums every thread; /proc/<pid>/task/<pid>/stat is the main thread alone (the event loop).
  return procStat(thread === 'main' ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`)?.seconds ?? NaN
}

/** A /proc stat file's name and CPU seconds (utime + stime, in clock ticks of USER_HZ = 100); null when it cannot be read. */
function procStat(file: string): { name: string; seconds: number } | null {
  try {
    const stat = readFileSync(file, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), seconds: (Number(fields[11]) + Number(fields[12])) / 100 }
  } catch {
    return null
  }
}

/** CPU seconds each thread of a process has used so far, by thread id, with the thread's name (/proc; empty elsewhere). */
export function threadCpuSeconds(pid: number = process.pid): Map<number, { name: string; seconds: number }> {
  const out = new Map<number, { name: string; seconds: number }>()
  let tids: string[] = []
  try {
    tids = readdirSync(`/proc/${pid}/task`)
  } catch {
    return out
  }
  for (const tid of tids) {
    // null: the thread ended between the listing and the read.
    const stat = procStat(`/proc/${pid}/task/${tid}/stat`)
    if (stat) out.set(Number(tid), stat)
  }
  return out
}

/**
 * Latencies (ms, ascending) of 4 KiB write + fdatasync round trips on the temp directory's disk for
 * `seconds`: the floor under any durable acknowledgement.
 */
export async function fsyncLatencies(seconds: number): Promise<number[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'wren-bench-fsync-'))
  const out: number[] = []
  try {
    const fh = await open(path.join(dir, 'probe'), 'w')
    const block = Buffer.alloc(4096, 1)
    const until = performance.now() + seconds * 1000
    try {
      for (let i = 0; performance.now() < until; i++) {
        const t = performance.now()
        await fh.write(block, 0, block.length, i * block.length)
        await fh.datasync()
        out.push(performance.now() - t)
      }
    } finally {
      await fh.close()
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
  return out.sort((a, b) => a - b)
}

// ---- processes ---------------------------------------------------------------------------------------

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

export interface ChildServer {
  url: string
  child: ChildProcess
  output(): string
  stop(): Promise<void>
}

/** Spawns `node --import tsx <script> ...args` and waits until `<url><readyPath>` answers. */
async function spawnServer(
  script: string,
  args: string[],
  env: Record<string, string>,
  port: number,
  readyPath: string,
): Promise<ChildServer> {
  let output = ''
  const child = spawn(process.execPath, ['--import', 'tsx', ...benchNodeFlags(), script, ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${path.basename(script)} exited early:\n${output}`)
    const ok = await fetch(url + readyPath).then(
      (r) => r.ok,
      () => false,
    )
    if (ok) break
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`${path.basename(script)} did not start within 60 s:\n${output}`)
    }
    await sleep(100)
  }
  return {
    url,
    child,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      const killer = setTimeout(() => child.kill('SIGKILL'), 30_000)
      await exited
      clearTimeout(killer)
    },
  }
}

/** The hello-world server; with `answerFile`, POST /answer also answers that file's bytes. */
export async function startHelloWorld(answerFile?: string): Promise<ChildServer> {
  const port = await freePort()
  const env: Record<string, string> = { PORT: String(port), ...(answerFile ? { ANSWER_FILE: answerFile } : {}) }
  return spawnServer(fileURLToPath(import.meta.url), ['hello-server'], env, port, '/_health')
}

export interface WrenServer extends ChildServer {
  projectKey: string
  dataDir: string
}

/**
 * `wren start` (production defaults) on a fresh temporary data directory, which stop() removes; or on
 * `dataDir`, which stop() leaves (a benchmark that stops and starts Wren on the same data).
 */
export async function startWrenServer(
  projectKey = `phc_bench${randomBytes(12).toString('hex')}`,
  env: Record<string, string> = {},
  existingDataDir?: string,
): Promise<WrenServer> {
  const dataDir = existingDataDir ?? (await mkdtemp(path.join(tmpdir(), 'wren-bench-')))
  const port = await freePort()
  const server = await spawnServer(
    path.join(repoRoot, 'services/main.ts'),
    ['start'],
    { PORT: String(port), HOST: '127.0.0.1', WREN_DATA_DIR: dataDir, WREN_PROJECT_API_KEY: projectKey, LOG_LEVEL: 'warn', ...env },
    port,
    '/_health',
  )
  return {
    ...server,
    projectKey,
    dataDir,
    async stop() {
      await server.stop()
      if (!existingDataDir) await rm(dataDir, { recursive: true, force: true })
    },
  }
}

/** Reads counters from Wren's /_metrics. */
export async function scrapeMetrics(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/_metrics`)).text()
  const out: Record<string, number> = {}
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+) ([0-9.e+-]+)$/.exec(line)
    if (m) out[m[1]] = Number(m[2])
  }
  return out
}

// ---- load generation -----------------------------------------------------------------------------------

export interface Load {
  url: string
  path: string
  bodies: Buffer[]
  headers: Record<string, string>
  connections: number
  seconds: number
  /** Exactly this many requests (each of `bodies` once when it is their number), however long they take: `seconds` is then ignored. */
  amount?: number
  /** autocannon's overallRate (requests per second over all connections); 0 = as fast as possible. */
  overallRate?: number
  /** Record each 2xx response time (ms, float) — autocannon's own histogram has 1 ms resolution. */
  recordLatencies?: boolean
  /** The server's process, to measure the CPU it used during the run. */
  serverPid?: number
}

export interface LoadResult {
  requestsPerSecond: number
  ok: number
  non2xx: number
  errors: number
  timeouts: number
  seconds: number
  /** Ascending, ms; only when recordLatencies. */
  latencies: number[]
  statusCodes: Record<string, number>
  /** CPU cores the server process kept busy on average during the run (NaN without serverPid). */
  serverCores: number
  /** Same for this process, the load generator. */
  loadGeneratorCores: number
}

/** One autocannon run (programmatic API), cycling through `bodies`. Counts only 2xx answers. */
export async function runLoad(load: Load): Promise<LoadResult> {
  let next = 0
  const latencies: number[] = []
  const serverCpu0 = load.serverPid ? cpuSeconds(load.serverPid) : NaN
  const selfCpu0 = cpuSeconds()
  const wall0 = performance.now()
  let instance!: autocannon.Instance
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(
      {
        url: load.url + load.path,
        connections: load.connections,
        duration: load.seconds,
        amount: load.amount,
        overallRate: load.overallRate || undefined,
        method: 'POST',
        headers: load.headers,
        body: load.bodies[0],
        requests: [{ setupRequest: (req) => ({ ...req, body: load.bodies[next++ % load.bodies.length] }) }],
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    )
  })
  if (load.recordLatencies) {
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime)
    })
  }
  const result = await done
  const wall = (performance.now() - wall0) / 1000
  const serverCores = load.serverPid ? (cpuSeconds(load.serverPid) - serverCpu0) / wall : NaN
  const loadGeneratorCores = (cpuSeconds() - selfCpu0) / wall
  latencies.sort((a, b) => a - b)
  const ok = result['2xx']
  const statusCodes: Record<string, number> = {}
  for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = count ?? 0
  return {
    requestsPerSecond: ok / result.duration,
    ok,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    seconds: result.duration,
    latencies,
    statusCodes,
    serverCores,
    loadGeneratorCores,
  }
}

/** A line that says what went wrong in a run, or '' when every request got a 2xx. */
export function failures(r: LoadResult): string {
  if (r.non2xx === 0 && r.errors === 0) return ''
  const codes = Object.entries(r.statusCodes).filter(([c]) => !c.startsWith('2'))
  return ` [!! ${r.non2xx} non-2xx ${JSON.stringify(Object.fromEntries(codes))}, ${r.errors} errors, ${r.timeouts} timeouts]`
}

// ---- posthog-node-shaped events --------------------------------------------------------------------------

/** Deterministic PRNG, so every run sends the same workload. */
export { seeded as rng } from '../test/support/random'

/** A random (v4-shaped) uuid from the PRNG. */
export function uuidFrom(rand: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(rand() * 16).toString(16))
  hex[12] = '4'
  hex[16] = ((Math.floor(rand() * 4) + 8) as number).toString(16)
  const h = hex.join('')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

const PAGES = [
  '/',
  '/pricing',
  '/docs/getting-started',
  '/dashboard',
  '/dashboard/insights/trends',
  '/settings/project',
  '/blog/product-analytics-in-one-process',
  '/signup',
]
const BROWSERS: Array<[string, number]> = [
  ['Chrome', 124],
  ['Safari', 17.4],
  ['Firefox', 125],
  ['Microsoft Edge', 124],
]
const OSES = ['Mac OS X', 'Windows', 'Linux', 'iOS', 'Android']
const EVENTS = ['$pageview', '$pageview', '$pageview', '$pageleave', 'button clicked', 'feature used', 'report exported']
const LIB_VERSION = '5.7.0'

export interface EventOptions {
  distinctId: string
  timestamp: Date
  /** Adds $set / $set_once the way posthog-node sends them inside properties. */
  set?: Record<string, unknown>
  setOnce?: Record<string, unknown>
  event?: string
  extra?: Record<string, unknown>
}

/**
 * One event as posthog-node puts it in a /batch/ body: {event, distinct_id, properties, type, library,
 * library_version, timestamp, uuid}. About 450 bytes of JSON.
 */
export function posthogNodeEvent(rand: () => number, o: EventOptions): Record<string, unknown> {
  const page = PAGES[Math.floor(rand() * PAGES.length)]
  const [browser, version] = BROWSERS[Math.floor(rand() * BROWSERS.length)]
  const properties: Record<string, unknown> = {
    $current_url: `https://app.example.com${page}`,
    $pathname: page,
    $browser: browser,
    $browser_version: version,
    $os: OSES[Math.floor(rand() * OSES.length)],
    $session_id: uuidFrom(rand),
    $lib: 'posthog-node',
    $lib_version: LIB_VERSION,
    $geoip_disable: true,
    ...o.extra,
  }
  if (o.set) properties.$set = o.set
  if (o.setOnce) properties.$set_once = o.setOnce
  return {
    event: o.event ?? EVENTS[Math.floor(rand() * EVENTS.length)],
    distinct_id: o.distinctId,
    properties,
    type: 'capture',
    library: 'posthog-node',
    library_version: LIB_VERSION,
    timestamp: o.timestamp.toISOString(),
    uuid: uuidFrom(rand),
  }
}

// ---- the hello-world server ----------------------------------------------------------------------------

async function helloServer(): Promise<void> {
  const { default: Fastify } = await import('fastify')
  const app = Fastify({ logger: false, routerOptions: { ignoreTrailingSlash: true }, bodyLimit: 20 * 1024 * 1024 })
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body))
  app.get('/_health', async () => ({ status: 'ok' }))
  const hello = async () => ({ status: 'Ok' })
  for (const url of ['/batch', '/e']) app.post(url, hello)
  // A fixed answer, as bytes encoded in advance (ANSWER_FILE): the ceiling of a route that does no work
  // beyond reading the body and writing those bytes (decide's second reference).
  if (process.env.ANSWER_FILE) {
    const answer = readFileSync(process.env.ANSWER_FILE)
    app.post('/answer', (_req, reply) => {
      reply.type('application/json; charset=utf-8').send(answer)
    })
  }
  app.post('/*', hello) // any other POST path, for benchmarks of other routes
  await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' })
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)))
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'hello-server') {
  await helloServer()
}

/** How a trial process hands its result to the parent: one stdout line with this prefix and the JSON. */
const RESULT_PREFIX = 'BENCH_RESULT '

/** Extra node flags for the processes a benchmark spawns (BENCH_NODE_FLAGS, e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`). */
function benchNodeFlags(): string[] {
  return process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? []
}

/** In a trial process: prints the result for `runTrialProcess`. */
export function reportTrialResult(result: unknown): void {
  console.log(RESULT_PREFIX + JSON.stringify(result))
}

/**
 * Runs `script` as a fresh process (`node --import tsx [nodeArgs] script trial ...args`) for one trial, so each
 * trial has its own heap and chDB engine, and returns what it reported with `reportTrialResult`.
 */
export function runTrialProcess<T>(script: string, args: string[], nodeArgs: string[] = []): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...nodeArgs, ...benchNodeFlags(), script, 'trial', ...args], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr.on('data', (d: Buffer) => (out += d.toString()))
    child.once('error', reject)
    child.once('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith(RESULT_PREFIX))
      if (code === 0 && line) resolve(JSON.parse(line.slice(RESULT_PREFIX.length)) as T)
      else reject(new Error(`${path.basename(script)} trial exited with ${code}:\n${out}`))
    })
  })
}
