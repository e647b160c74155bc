// Starting real Wren instances for tests: in this process (one at a time — chDB allows one engine per
// process, and the in-process files run one after another in processes they share, so each closes its Wren),
// or as a child process that a test can SIGKILL.
import { existsSync } from 'node:fs'
import { copyFile, mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { promisify } from 'node:util'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import pino, { type Logger } from 'pino'
import type { Wren } from '../../services/app'
import { startClickHouseFixture } from './clickhouse-http'
import { endsWithThisProcess } from './children'

export interface TestWren {
  url: string
  projectId: number
  projectKey: string
  personalKey: string
  dataDir: string
  wren: Wren
  close(): Promise<void>
}

/**
 * The app's modules, imported when a test first starts or reads a Wren in its own process: a test file that
 * only spawns Wren as a child never loads them (in a fresh test process, ~3 s of CPU to transform and load).
 */
const appModules = () =>
  Promise.all([
    import('../../services/app'),
    import('../../services/platform/config'),
    import('../../services/projects/store'),
    import('../../services/platform/clickhouse'),
  ])

/**
 * Starts Wren in this process on chDB, or with WREN_TEST_CLICKHOUSE_HTTP=1 on its own ClickHouse HTTP test
 * fixture (./clickhouse-http.ts), so that any test file can be run through the CLICKHOUSE_URL client path.
 * `logger`: Wren's log goes there (a test that reads the log), rather than to nothing (or WREN_TEST_LOG's level).
 */
export async function startWren(env: Record<string, string> = {}, opts: { logger?: Logger } = {}): Promise<TestWren> {
  const [{ buildWren }, { loadConfig }, { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX }] = await appModules()
  const dataDir = await mkdtemp(path.join(tmpdir(), 'wren-test-'))
  const projectKey = env.WREN_PROJECT_API_KEY ?? generateKey(PROJECT_KEY_PREFIX)
  const personalKey = env.WREN_PERSONAL_API_KEY ?? generateKey(PERSONAL_KEY_PREFIX)
  const fixture = process.env.WREN_TEST_CLICKHOUSE_HTTP === '1' && !env.CLICKHOUSE_URL ? await startClickHouseFixture() : null
  const overHttp: Record<string, string> = fixture ? fixture.env : {}
  // On chDB: the run's migrated chDB (./run-setup.ts) rather than 28 migrations on an empty one.
  const migrated = fixture || env.CLICKHOUSE_URL ? null : await prepared('migrated')
  if (migrated) await copyTree(path.join(migrated, 'clickhouse'), path.join(dataDir, 'clickhouse'))
  const config = loadConfig({
    WREN_DATA_DIR: dataDir,
    WREN_PROJECT_API_KEY: projectKey,
    WREN_PERSONAL_API_KEY: personalKey,
    WREN_INGEST_WAIT_MS: '20',
    WREN_CHECK_RESPONSES: '1',
    ...overHttp,
    ...env,
  })
  const wren = await buildWren(config, opts.logger ?? pino({ level: process.env.WREN_TEST_LOG ?? 'silent' }))
  await wren.app.listen({ port: 0, host: '127.0.0.1' })
  const address = wren.app.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}`,
    // On storage another Wren bootstrapped (a ClickHouse it shares, `env`'s keys), that one's project.
    projectId: wren.bootstrap?.projectId ?? wren.projects.list()[0].id,
    projectKey,
    personalKey,
    dataDir,
    wren,
    async close() {
      await wren.close()
      await fixture?.stop()
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}

/**
 * Copies a directory, its symbolic links as the same relative links (chDB's `data/` and `metadata/` point into its
 * `store/`, and must point into the copy's). fs.cp took 0.4–0.5 s of CPU for the migrated chDB's 630 entries, and
 * without `verbatimSymlinks` made each link absolute, into the original.
 */
async function copyTree(from: string, to: string, opts: { parents?: boolean } = {}): Promise<void> {
  await mkdir(to, { recursive: opts.parents })
  const entries = await readdir(from, { withFileTypes: true })
  await Promise.all(
    entries.map(async (entry) => {
      const [source, target] = [path.join(from, entry.name), path.join(to, entry.name)]
      if (entry.isDirectory()) await copyTree(source, target)
      else if (entry.isSymbolicLink()) await symlink(await readlink(source), target)
      else await copyFile(source, target)
    }),
  )
}

/** A data directory without a chDB yet (new, or with a stale wren.lock only) gets the run's migrated chDB (spawnWren, wrenCli). */
export async function seedMigrated(dataDir: string, env: Record<string, string>): Promise<void> {
  if (env.CLICKHOUSE_URL ?? process.env.CLICKHOUSE_URL) return
  if (existsSync(path.join(dataDir, 'clickhouse'))) return
  const migrated = await prepared('migrated')
  if (migrated) await copyTree(path.join(migrated, 'clickhouse'), path.join(dataDir, 'clickhouse'), { parents: true })
}

export interface WrenProcess {
  url: string
  child: ChildProcess
  output: () => string
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

const repoRoot = path.resolve(import.meta.dirname, '../..')

/** A port nothing listens on now (the kernel's pick); a process may still take it before Wren does. */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** How a Wren process is started: from source through tsx (as `npm start`), or a build's compiled entry point. */
export interface WrenEntry {
  /** node's arguments before the command. */
  args: string[]
  cwd: string
}
export const SOURCE_ENTRY: WrenEntry = { args: ['--import', 'tsx', path.join(repoRoot, 'services/main.ts')], cwd: repoRoot }

/**
 * What ./run-setup.ts made for this run under `name` (its path), once it is made; null when the run makes none
 * (a script outside vitest; the build in a run without the kafka and processes groups, the broker in a run
 * without the kafka group: those two are made only when `<name>.started` says they are coming).
 */
export async function prepared(name: 'migrated' | 'build' | 'kafka'): Promise<string | null> {
  const root = process.env.WREN_TEST_PREPARED
  if (!root || (name !== 'migrated' && !existsSync(path.join(root, `${name}.started`)))) return null
  const failed = path.join(root, `${name}.failed`)
  await waitFor(async () => existsSync(path.join(root, `${name}.done`)) || existsSync(failed), {
    timeoutMs: 120_000,
    intervalMs: 20,
    what: `the run's ${name} (test/support/run-setup.ts)`,
  })
  if (existsSync(failed)) throw new Error(await readFile(failed, 'utf8'))
  return path.join(root, name)
}

/**
 * The entry a child-process Wren (spawnWren) or a CLI command starts from by default: the run's build (as the image
 * runs Wren), else the source.
 */
export async function wrenEntry(): Promise<WrenEntry> {
  const build = await prepared('build')
  return build ? { args: [path.join(build, 'services', 'main.js')], cwd: repoRoot } : SOURCE_ENTRY
}

/**
 * Runs `wren start` (or `wren <command>`, e.g. a role) as its own process on `dataDir`, and waits until it
 * answers. By default from the run's build (`npm run build`, as the image runs it; the in-process tests run
 * the source); then a data directory without a chDB yet starts from the run's migrated chDB, as
 * startWren's do (28 migrations took 1.9 s of a child's 5.9 s of CPU to start; Wren's start still runs
 * `migrate`, which finds them applied). A Wren from another entry (`from`: a build a test made) migrates its
 * own. A port taken between the pick and Wren's listen (other test files start processes too) is picked again.
 */
export async function spawnWren(dataDir: string, env: Record<string, string>, command = 'start', from?: WrenEntry): Promise<WrenProcess> {
  const entry = from ?? (await wrenEntry())
  if (!from) await seedMigrated(dataDir, env)
  for (let attempt = 1; ; attempt++) {
    try {
      return await spawnOnce(dataDir, env, command, entry)
    } catch (err) {
      if (attempt >= 5 || !(err instanceof PortTaken)) throw err
    }
  }
}

class PortTaken extends Error {}

async function spawnOnce(dataDir: string, env: Record<string, string>, command: string, entry: WrenEntry): Promise<WrenProcess> {
  const port = await freePort()
  let output = ''
  const child = endsWithThisProcess(
    spawn(process.execPath, [...entry.args, command], {
      cwd: entry.cwd,
      env: {
        ...process.env,
        PORT: String(port),
        // Wren's own default (this machine only), as `npm start` has it: test/runtime/cli-running.test.ts checks it.
        HOST: undefined,
        WREN_DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        WREN_INGEST_WAIT_MS: '20',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  )
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const url = `http://127.0.0.1:${port}`
  await waitFor(
    async () => {
      if (child.exitCode !== null) {
        const message = `wren exited with ${child.exitCode}:\n${output}`
        throw output.includes('EADDRINUSE') ? new PortTaken(message) : new Error(message)
      }
      return (await fetch(`${url}/_health`).catch(() => null))?.ok ?? false
    },
    { timeoutMs: 60_000, what: 'wren to start' },
  ).catch(async (err: unknown) => {
    // The caller gets no handle to stop it: a process that never answered is not left running.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await exited
    if (err instanceof Error && !err.message.startsWith('wren exited')) err.message += `; its output:\n${output.slice(-4000)}`
    throw err
  })
  return {
    url,
    child,
    output: () => output,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal)
      return exited
    },
  }
}

/** Polls `check` until it returns a truthy value. */
export async function waitFor<T>(
  check: () => Promise<T | false | null | undefined>,
  opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000)
  let last: unknown
  for (;;) {
    try {
      const value = await check()
      if (value) return value
    } catch (err) {
      last = err
      if (err instanceof Error && err.message.startsWith('wren exited')) throw err
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${opts.what ?? 'condition'}${last ? `: ${String(last)}` : ''}`)
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 100))
  }
}

/** A small HTTP client for the management API. */
export function api(t: { url: string; personalKey: string }) {
  return async (
    method: string,
    route: string,
    body?: unknown,
    key: string | null = t.personalKey,
  ): Promise<{ status: number; body: any; text: string; headers: Headers }> => {
    const res = await fetch(t.url + route, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    })
    const text = await res.text()
    let parsed: unknown = null
    try {
      parsed = text ? JSON.parse(text) : null
    } catch {
      parsed = null
    }
    return { status: res.status, body: parsed, text, headers: res.headers }
  }
}

/** Sends events to /batch/ the way posthog-node does, and waits for them to be ingested. */
export async function captureBatch(t: { url: string; projectKey: string }, events: Array<Record<string, unknown>>): Promise<void> {
  const res = await fetch(`${t.url}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: t.projectKey, batch: events }),
  })
  if (res.status !== 200) throw new Error(`capture failed: ${res.status} ${await res.text()}`)
}

/** Waits until the ingestion processor has committed everything appended so far, and copied its wide persons' events. */
export async function drained(wren: Wren): Promise<void> {
  const [, , , { queryRows }] = await appModules()
  await waitFor(
    async () => {
      const stats = await wren.log.stats('wren_ingest')
      if ((stats.committed.ingestion ?? 0) < stats.endOffset) return false
      const [wide] = await queryRows<{ n: number }>(wren.clickhouse, 'SELECT count() AS n FROM wide_events')
      return Number(wide.n) === 0
    },
    { what: 'ingestion to catch up', intervalMs: 25, timeoutMs: 50_000 },
  )
}

/**
 * `wren <args>` (projects, keys, dead-letters) on a data directory, as an operator runs it, from the run's build and
 * on a new data directory from the run's migrated chDB, as spawnWren's processes: the JSON lines it prints. A command
 * that exits with an error rejects (with its stderr).
 */
export async function wrenCli(dataDir: string, ...args: string[]): Promise<any[]> {
  return wrenCliWithInput(dataDir, '', ...args)
}

/** `wren <args>` with `input` on its standard input (a password), its JSON lines parsed. */
export async function wrenCliWithInput(dataDir: string, input: string, ...args: string[]): Promise<any[]> {
  const entry = await wrenEntry()
  await seedMigrated(dataDir, {})
  const running = promisify(execFile)(process.execPath, [...entry.args, ...args], {
    cwd: entry.cwd,
    env: { ...process.env, WREN_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
  })
  running.child.stdin?.end(input)
  const { stdout } = await running
  return stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
}
