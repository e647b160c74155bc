// The cluster's deployment topology without Docker: the build's compiled entry point (npm run build, as the
// image runs it: the run's build, test/support/run-setup.ts, or one of this file's own outside a run) as capture ×2, ingest ×2, decide ×2, api and recordings, separate processes on a real Kafka
// broker and the ClickHouse-HTTP test fixture, behind Debian's caddy with infra/Caddyfile, all started at once
// on empty storage (as docker compose starts them: each migrates; one project and key result). posthog-js loads
// through PostHog's snippet from the proxy in Chromium, captures, identifies, gets a flag and records;
// posthog-node and posthog-python (the real package from PyPI, in a venv) send through it; one capture and one
// ingest process are SIGKILLed mid-load and every event the proxy acknowledged is stored.
import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import type { Browser } from 'playwright-core'
import { PostHog } from 'posthog-node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'
import { startClickHouseFixture, type ClickHouseFixture } from '../support/clickhouse-http'
import { kafkaUnavailableReason, kafkaForThisFile, type FileKafka } from '../support/kafka'
import { serveSite, snippetScript, type Site } from '../support/posthog-snippet'
import { posthogPython, pythonUnavailable, runPythonJson } from '../support/python'
import { skipReason } from '../support/skip'
import { api, SOURCE_ENTRY, spawnWren, waitFor, wrenEntry, type WrenEntry, type WrenProcess } from '../support/wren'
import { chromiumMissing, launchChromium } from '../support/browser'
import { caddyMissing, startCaddy, type Caddy } from './caddy'

const repoRoot = path.resolve(import.meta.dirname, '../..')
const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36'
const unavailable = skipReason('the deployment topology test', caddyMissing() ?? kafkaUnavailableReason() ?? chromiumMissing())

const pythonMissing = unavailable ? null : skipReason('posthog-python through the proxy', pythonUnavailable())

interface PosthogGlobal {
  posthog: {
    __loaded?: boolean
    identify(id: string, set?: Record<string, unknown>): void
    capture(event: string, properties?: Record<string, unknown>): void
    getFeatureFlag(key: string): unknown
    onFeatureFlags(callback: () => void): void
    sessionRecordingStarted(): boolean
    get_session_id(): string
  }
}

describe.skipIf(unavailable)('the deployment topology behind infra/Caddyfile', () => {
  let dir = ''
  let kafka: FileKafka
  let clickhouse: ClickHouseFixture
  let caddy: Caddy | null = null
  let proxy = ''
  let page: Site | null = null
  let browser: Browser | null = null
  const processes: Record<string, WrenProcess[]> = { capture: [], ingest: [], decide: [], api: [], recordings: [] }
  const keys = { WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX), WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX) }
  const call = () => api({ url: proxy, personalKey: keys.WREN_PERSONAL_API_KEY })

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wren-topology-'))
    const built = async (): Promise<WrenEntry> => {
      const run = await wrenEntry()
      if (run !== SOURCE_ENTRY) return run
      const out = path.join(dir, 'app', 'dist')
      await promisify(execFile)('npm', ['run', '--silent', 'build', '--', out], { cwd: repoRoot })
      await symlink(path.join(repoRoot, 'node_modules'), path.join(dir, 'app', 'node_modules'))
      return { args: [path.join(out, 'services', 'main.js')], cwd: path.join(dir, 'app') }
    }
    const [broker, fixture, entry] = await Promise.all([
      kafkaForThisFile(),
      startClickHouseFixture({ user: 'wren', password: 'a fixture password' }),
      built(),
    ])
    ;[kafka, clickhouse] = [broker, fixture]
    let n = 0
    const start = async (role: string) => {
      const data = path.join(dir, `${role}-${n++}`)
      await mkdir(data)
      const p = await spawnWren(
        data,
        {
          ...keys,
          ...kafka.env,
          KAFKA_PARTITIONS: '4',
          KAFKA_SESSION_TIMEOUT_MS: '6000',
          ...clickhouse.env,
          WREN_TRUSTED_PROXIES: '127.0.0.1',
          WREN_RECORDINGS_WAIT_MS: '50',
        },
        role,
        entry,
      )
      processes[role].push(p)
      return p
    }
    // All at once on empty storage, as `docker compose up` starts them (the first time, and on an upgrade):
    // each applies the migrations it finds missing and bootstraps the one project and key.
    await Promise.all([
      start('ingest'),
      start('ingest'),
      start('capture'),
      start('capture'),
      start('decide'),
      start('decide'),
      start('api'),
      start('recordings'),
    ])

    const hosts = (role: string) => processes[role].map((p) => new URL(p.url).host)
    caddy = await startCaddy({ capture: hosts('capture'), decide: hosts('decide'), api: hosts('api') })
    proxy = caddy.url
  }, 300_000)

  afterAll(async () => {
    await browser?.close()
    await page?.close()
    await caddy?.stop()
    await Promise.all(Object.values(processes).flatMap((ps) => ps.map((p) => p.stop())))
    await Promise.all([kafka?.stop(), clickhouse?.stop()])
    if (dir) await rm(dir, { recursive: true, force: true })
  }, 120_000)

  it('started every role at once on empty storage: one project and one bootstrap key', async () => {
    const projects = await call()('GET', '/api/projects/')
    expect(projects.body.results.map((p: { id: number; name: string }) => [p.id, p.name])).toEqual([[1, 'Default project']])
    const personalKeys = await call()('GET', '/api/personal_api_keys/')
    expect(personalKeys.body.results.map((k: { label: string }) => k.label)).toEqual(['bootstrap'])
  })

  it('posthog-js loads through the snippet from the proxy, captures, identifies, gets a flag and records', async () => {
    const flag = await call()('POST', '/api/projects/@current/feature_flags/', {
      key: 'topology-flag',
      name: 'through the proxy',
      active: true,
      filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
    })
    expect(flag.status, flag.text).toBe(201)
    const optIn = await call()('PATCH', '/api/projects/@current/', { session_recording_opt_in: true })
    expect(optIn.status, optIn.text).toBe(200)
    // Both decide processes have heard of the flag and the opt-in (the config topic) before the page loads.
    await waitFor(
      async () => {
        for (let i = 0; i < 4; i++) {
          const flags = (await (
            await fetch(`${proxy}/flags/?v=2`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ token: keys.WREN_PROJECT_API_KEY, distinct_id: 'probe' }),
            })
          ).json()) as { flags?: Record<string, { enabled: boolean }> }
          const config = (await (await fetch(`${proxy}/array/${keys.WREN_PROJECT_API_KEY}/config`)).json()) as {
            sessionRecording?: unknown
          }
          if (flags.flags?.['topology-flag']?.enabled !== true || !config.sessionRecording) return false
        }
        return true
      },
      { what: 'decide to serve the flag and the recording opt-in', timeoutMs: 30_000 },
    )

    const html = `<!doctype html><html><head><meta charset="utf-8"><title>topology</title>${snippetScript(
      keys.WREN_PROJECT_API_KEY,
      proxy,
      `        autocapture: false,`,
    )}</head><body><main><h1>Through the proxy</h1><button id="go">Go</button></main></body></html>`
    page = await serveSite({ '/': html })
    const pageUrl = `${page.origin}/`
    browser = await launchChromium()
    const context = await browser.newContext({ userAgent: USER_AGENT })
    const tab = await context.newPage()
    const failed: string[] = []
    tab.on('response', (res) => {
      if (res.url().startsWith(proxy) && res.status() >= 400) failed.push(`${res.status()} ${res.url()}`)
    })
    await tab.goto(pageUrl)
    await tab.waitForFunction(() => (globalThis as unknown as PosthogGlobal).posthog.__loaded === true, undefined, { timeout: 30_000 })
    const flagValue = await tab.evaluate(
      () =>
        new Promise((resolve) =>
          (globalThis as unknown as PosthogGlobal).posthog.onFeatureFlags(() =>
            resolve((globalThis as unknown as PosthogGlobal).posthog.getFeatureFlag('topology-flag')),
          ),
        ),
    )
    expect(flagValue).toBe(true)
    await tab.evaluate(() => {
      const { posthog } = globalThis as unknown as PosthogGlobal
      posthog.identify('browser-user', { plan: 'proxy' })
      posthog.capture('clicked through the proxy', { where: 'topology' })
    })
    await tab.waitForFunction(() => (globalThis as unknown as PosthogGlobal).posthog.sessionRecordingStarted() === true, undefined, {
      timeout: 30_000,
    })
    const sessionId = await tab.evaluate(() => (globalThis as unknown as PosthogGlobal).posthog.get_session_id())
    for (let i = 0; i < 3; i++) await tab.click('#go')

    // The pageview was sent before identify, under posthog-js's anonymous id; the rest under the user's.
    await waitFor(
      async () => {
        const res = await call()('GET', '/api/projects/@current/events/?limit=100')
        const results = (res.body?.results ?? []) as Array<{ event: string; distinct_id: string }>
        const names = results.filter((e) => e.distinct_id === 'browser-user').map((e) => e.event)
        // posthog-js sends them in separate requests, through either capture process and either ingest
        // process: each arrives in its own time, so the wait is for all of them.
        const all = ['clicked through the proxy', '$identify'].every((name) => names.includes(name))
        return all && results.some((e) => e.event === '$pageview') ? names : null
      },
      { what: 'posthog-js events ($pageview, $identify, the click) through the proxy', timeoutMs: 60_000 },
    )
    const person = await waitFor(
      async () => {
        const res = await call()('GET', '/api/projects/@current/persons/?distinct_id=browser-user')
        return res.body?.results?.[0]?.properties?.plan === 'proxy' ? res.body.results[0] : null
      },
      { what: 'the identified person' },
    )
    expect(person.distinct_ids).toContain('browser-user')
    const recording = await waitFor(
      async () => {
        const res = await call()('GET', '/api/projects/@current/session_recordings/')
        return ((res.body?.results ?? []) as Array<{ id: string; distinct_id: string }>).find((r) => r.id === sessionId) ?? null
      },
      { what: 'the recording', timeoutMs: 60_000 },
    )
    expect(recording.distinct_id).toBe('browser-user')
    expect(failed).toEqual([])
    await context.close()
  }, 240_000)

  it.skipIf(pythonMissing)(
    'posthog-python sends events and person properties through the proxy',
    async () => {
      const python = await posthogPython()
      const sent = await runPythonJson<{ version: string; errors: string[] }>(
        python,
        path.join(repoRoot, 'test/fixtures/posthog_capture.py'),
        {
          host: proxy,
          api_key: keys.WREN_PROJECT_API_KEY,
          distinct_id: 'python-user',
          event: 'python through the proxy',
          count: 25,
          person_properties: { sdk: 'posthog-python' },
        },
      )
      expect(sent.errors).toEqual([])
      const events = await waitFor(
        async () => {
          const res = await call()('GET', '/api/projects/@current/events/?event=python%20through%20the%20proxy&limit=100')
          const results = (res.body?.results ?? []) as Array<{ distinct_id: string; properties: Record<string, unknown> }>
          return results.length >= 25 ? results : null
        },
        { what: 'posthog-python events through the proxy', timeoutMs: 60_000 },
      )
      expect(events.map((e) => e.properties.i).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 25 }, (_, i) => i))
      expect(new Set(events.map((e) => [e.distinct_id, e.properties.$lib].join(' ')))).toEqual(new Set(['python-user posthog-python']))
      const person = await waitFor(
        async () => {
          const res = await call()('GET', '/api/projects/@current/persons/?distinct_id=python-user')
          return res.body?.results?.[0]?.properties?.sdk === 'posthog-python' ? res.body.results[0] : null
        },
        { what: "posthog-python's person properties" },
      )
      expect(person.distinct_ids).toEqual(['python-user'])
    },
    120_000,
  )

  it('keeps every acknowledged event when a capture and an ingest process are SIGKILLed mid-load', async () => {
    const posthog = new PostHog(keys.WREN_PROJECT_API_KEY, { host: proxy, flushAt: 10, flushInterval: 0 })
    for (let i = 0; i < 30; i++) posthog.capture({ distinctId: `node-${i % 3}`, event: 'node through the proxy' })
    await posthog.shutdown()

    const acknowledged: string[] = []
    const sent = new Set<string>()
    // Each answer the proxy gave and how often: the failure message says what refused the batches.
    const answers = new Map<string, number>()
    const send = async (batch: number) => {
      const events = Array.from({ length: 20 }, (_, i) => ({
        event: 'load',
        distinct_id: `load-${i % 7}`,
        uuid: randomUUID(),
        properties: { batch },
      }))
      for (const e of events) sent.add(e.uuid)
      const res = await fetch(`${proxy}/batch/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: keys.WREN_PROJECT_API_KEY, batch: events }),
      }).catch((e: unknown) => ({ status: String(e), text: async () => '' }))
      const answer = `${res.status}${res.status === 200 ? '' : ` ${(await res.text()).slice(0, 120)}`}`
      answers.set(answer, (answers.get(answer) ?? 0) + 1)
      if (res.status === 200) acknowledged.push(...events.map((e) => e.uuid))
    }
    const BATCHES = 60
    let next = 0
    const worker = async () => {
      while (next < BATCHES) {
        const batch = next++
        if (batch === 20) {
          processes.capture[0].child.kill('SIGKILL')
          processes.ingest[0].child.kill('SIGKILL')
        }
        await send(batch)
      }
    }
    await Promise.all([worker(), worker(), worker()])
    // Most batches got through the surviving capture process (the proxy retries a refused connection).
    expect(acknowledged.length, `answers: ${JSON.stringify([...answers])}`).toBeGreaterThanOrEqual((BATCHES - 5) * 20)

    const stored = await waitFor(
      async () => {
        const res = await call()('GET', '/api/projects/@current/events/?event=load&limit=10000')
        const ids = ((res.body?.results ?? []) as Array<{ id: string }>).map((e) => e.id)
        return acknowledged.every((id) => ids.includes(id)) ? ids : null
      },
      { what: 'every acknowledged event, after the SIGKILLs', timeoutMs: 120_000, intervalMs: 1000 },
    )
    // Each stored once; a batch in flight at the kill may be stored without its answer reaching the client.
    expect(new Set(stored).size).toBe(stored.length)
    expect(stored.filter((id) => !sent.has(id))).toEqual([])
    const fromNode = await call()('GET', '/api/projects/@current/events/?event=node%20through%20the%20proxy&limit=100')
    expect(fromNode.body.results).toHaveLength(30)
  }, 240_000)
})
