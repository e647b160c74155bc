// A deployment never runs on a key someone else can read: `wren init` writes .env with fresh secrets, and
// Wren refuses to start with a bootstrap key that is a placeholder (infra/example.env's, the docs') or short.
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { api, spawnWren, wrenEntry, type WrenProcess } from '../support/wren'

const repoRoot = path.resolve(import.meta.dirname, '../..')

/** `wren …` from the run's build, as the image runs it (1.6 s of CPU less than from source); resolves with its exit code and output. */
async function wren(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const entry = await wrenEntry()
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...entry.args, ...args],
      { cwd: entry.cwd, env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env } },
      (error, stdout, stderr) => resolve({ code: error ? ((error.code as number) ?? 1) : 0, stdout, stderr }),
    )
  })
}

const envFile = (text: string) =>
  Object.fromEntries(
    text
      .split('\n')
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  )

describe('secrets', () => {
  let dir = ''
  let running: WrenProcess | null = null
  afterAll(async () => {
    await running?.stop()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('wren init writes fresh keys and a ClickHouse password, which Wren starts with; it never overwrites them', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wren-init-'))
    const file = path.join(dir, '.env')
    const first = await wren(['init', '--file', file])
    expect(first.code, first.stderr).toBe(0)
    // What to run next is the README's command (compose.test.ts holds the README to docker-compose.yml).
    expect(first.stdout).toContain('Next: docker compose up -d --build --scale capture=2')
    const text = await readFile(file, 'utf8')
    const values = envFile(text)
    expect(Object.keys(values).sort()).toEqual(['CLICKHOUSE_PASSWORD', 'WREN_PERSONAL_API_KEY', 'WREN_PROJECT_API_KEY'])
    expect(values.WREN_PROJECT_API_KEY).toMatch(/^phc_[A-Za-z0-9]{40}$/)
    expect(values.WREN_PERSONAL_API_KEY).toMatch(/^phx_[A-Za-z0-9]{40}$/)
    expect(values.CLICKHOUSE_PASSWORD.length).toBeGreaterThanOrEqual(32)
    expect((await stat(file)).mode & 0o777).toBe(0o600)

    // Another run makes other secrets, and leaves an existing file alone unless told.
    const again = await wren(['init', '--file', file])
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('exists')
    expect(await readFile(file, 'utf8')).toBe(text)
    expect((await wren(['init', '--file', file, '--force'])).code).toBe(0)
    const replaced = envFile(await readFile(file, 'utf8'))
    expect(replaced.WREN_PROJECT_API_KEY).not.toBe(values.WREN_PROJECT_API_KEY)

    running = await spawnWren(path.join(dir, 'data'), {
      WREN_PROJECT_API_KEY: replaced.WREN_PROJECT_API_KEY,
      WREN_PERSONAL_API_KEY: replaced.WREN_PERSONAL_API_KEY,
    })
    const projects = await api({ url: running.url, personalKey: replaced.WREN_PERSONAL_API_KEY })('GET', '/api/projects/')
    expect(projects.status).toBe(200)
    expect(projects.body.results[0].api_token).toBe(replaced.WREN_PROJECT_API_KEY)
  }, 90_000)

  it("refuses to start with infra/example.env's placeholder keys, naming each variable and never printing the key", async () => {
    const example = envFile(await readFile(path.join(repoRoot, 'infra/example.env'), 'utf8'))
    expect(example.WREN_PROJECT_API_KEY).toBeTruthy()
    const { code, stdout, stderr } = await wren(['start'], {
      WREN_DATA_DIR: path.join(dir || tmpdir(), 'never'),
      WREN_PROJECT_API_KEY: example.WREN_PROJECT_API_KEY,
      WREN_PERSONAL_API_KEY: example.WREN_PERSONAL_API_KEY,
    })
    expect(code).toBe(1)
    expect(stderr).toContain('WREN_PROJECT_API_KEY must be a key of at least 32 characters that is not a placeholder')
    expect(stderr).toContain('WREN_PERSONAL_API_KEY must be')
    expect(stderr).toContain('npx wren init')
    expect(stdout + stderr).not.toContain(example.WREN_PROJECT_API_KEY)
    expect(stdout + stderr).not.toContain(example.WREN_PERSONAL_API_KEY)
  }, 60_000)

  it('refuses a short key and the docs’ phx_… placeholder, naming the variable', async () => {
    const short = await wren(['ingest'], { KAFKA_BROKERS: '127.0.0.1:1', WREN_PROJECT_API_KEY: 'phc_short1234' })
    expect(short.code).toBe(1)
    expect(short.stderr).toMatch(/WREN_PROJECT_API_KEY must be .*: this one has 13/)
    const docs = await wren(['start'], { WREN_PERSONAL_API_KEY: 'phx_…' })
    expect(docs.code).toBe(1)
    expect(docs.stderr).toMatch(/WREN_PERSONAL_API_KEY must be .*: this one is a placeholder/)
  }, 60_000)
})
