// Starts the ClickHouse HTTP test fixture (./clickhouse-http-server.ts: ClickHouse's HTTP interface as
// @clickhouse/client uses it, served from one chDB engine) as a child process, so that several Wren
// processes share one storage through `CLICKHOUSE_URL`. A test fixture only: no ClickHouse server can be
// installed on the machines these tests run on, and Wren never offers this to users.
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { endsWithThisProcess } from './children'

export interface ClickHouseFixture {
  /** The URL to give Wren as CLICKHOUSE_URL. */
  url: string
  user: string
  password: string
  /** CLICKHOUSE_URL, CLICKHOUSE_USER and CLICKHOUSE_PASSWORD: what points a Wren process at the fixture. */
  env: { CLICKHOUSE_URL: string; CLICKHOUSE_USER: string; CLICKHOUSE_PASSWORD: string }
  /** What the fixture printed (its chDB's messages, a crash). */
  output: () => string
  stop(): Promise<void>
}

const server = path.join(import.meta.dirname, 'clickhouse-http-server.ts')

export async function startClickHouseFixture(opts: { user?: string; password?: string } = {}): Promise<ClickHouseFixture> {
  const user = opts.user ?? 'default'
  const password = opts.password ?? ''
  const dataDir = await mkdtemp(path.join(tmpdir(), 'wren-clickhouse-fixture-'))
  let output = ''
  const child = endsWithThisProcess(
    spawn(process.execPath, ['--import', 'tsx', server, dataDir, '0', user, password], { stdio: ['ignore', 'pipe', 'pipe'] }),
  )
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the ClickHouse fixture did not start within 30 s:\n${output}`)), 30_000)
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString()
      const match = /listening on (http:\/\/\S+)/.exec(output)
      if (match) (clearTimeout(timer), resolve(match[1]))
    })
    child.stderr.on('data', (d: Buffer) => (output += d.toString()))
    child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`the ClickHouse fixture exited with ${code}:\n${output}`))))
  })
  return {
    url,
    user,
    password,
    env: { CLICKHOUSE_URL: url, CLICKHOUSE_USER: user, CLICKHOUSE_PASSWORD: password },
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(timer)
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}
