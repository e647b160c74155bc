// posthog-js (the npm package's browser bundle) in headless Chromium against Wren: the page loads the
// bundle, calls posthog.init(projectKey, {api_host: wren}), and reads isFeatureEnabled / getFeatureFlag /
// getFeatureFlagPayload after onFeatureFlags. posthog-js fetches /array/<token>/config and /flags?v=2 as
// it really does; the values must equal Wren's own decide answers for the same distinct id and the person
// properties the browser sent — for a rollout flag, a multivariate flag with payloads, and a
// person-property flag after identify.
import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { createRequire } from 'node:module'
import { gunzipSync } from 'node:zlib'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { api, drained, startWren, waitFor, type TestWren } from '../support/wren'
import { chromiumMissing, launchChromium } from '../support/chromium'
import { skipReason } from '../support/skip'

const unavailable = skipReason('flags-sdk-browser', chromiumMissing())

const require = createRequire(import.meta.url)
const bundlePath = path.join(path.dirname(require.resolve('posthog-js/package.json')), 'dist', 'array.full.js')

type FlagValue = boolean | string
interface BrowserFlags {
  distinctId: string
  enabled: Record<string, boolean | undefined>
  values: Record<string, FlagValue | undefined>
  payloads: Record<string, unknown>
}
/** What the page defines on window (globalThis in the browser); the test has no DOM typings. */
interface PageGlobals {
  __loads: BrowserFlags[]
  __start(distinctId: string): void
  posthog: { identify(distinctId: string, set: Record<string, unknown>): void }
}
interface FlagsCall {
  url: string
  body: Record<string, unknown>
}

/** posthog-js's request body: JSON, gzipped when the remote config allows it. */
const requestBody = (raw: Buffer | null): Record<string, unknown> => {
  if (!raw || raw.length === 0) return {}
  const bytes = raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw
  return JSON.parse(bytes.toString('utf8')) as Record<string, unknown>
}

const KEYS = ['rollout-50', 'multivariate', 'with-payload', 'pro-plan']
const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36'

const page = (wrenUrl: string, token: string) => `<!doctype html>
<html><head><meta charset="utf-8"><title>wren flags</title><script src="/posthog.js"></script></head>
<body><script>
  window.__loads = []
  window.__read = () => {
    const keys = ${JSON.stringify(KEYS)}
    const enabled = {}, values = {}, payloads = {}
    for (const k of keys) {
      enabled[k] = posthog.isFeatureEnabled(k, { send_event: false })
      values[k] = posthog.getFeatureFlag(k, { send_event: false })
      payloads[k] = posthog.getFeatureFlagPayload(k)
    }
    return { distinctId: posthog.get_distinct_id(), enabled, values, payloads }
  }
  window.__start = (distinctId) => {
    posthog.init(${JSON.stringify(token)}, {
      api_host: ${JSON.stringify(wrenUrl)},
      bootstrap: { distinctID: distinctId },
      persistence: 'memory',
      autocapture: false,
      capture_pageview: false,
      disable_session_recording: true,
      disable_surveys: true,
      request_batching: false,
      // Chromium under automation reports navigator.webdriver, which posthog-js treats as a bot.
      opt_out_useragent_filter: true,
    })
    posthog.onFeatureFlags(() => window.__loads.push(window.__read()))
  }
</script></body></html>`

describe.skipIf(unavailable !== null)(
  `posthog-js in headless Chromium with Wren flags${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    let t: TestWren
    let server: Server
    let pageUrl: string
    let browser: Browser

    beforeAll(async () => {
      t = await startWren()
      const call = api(t)
      const base = `/api/projects/${t.projectId}/feature_flags/`
      const created = await Promise.all([
        call('POST', base, { key: 'rollout-50', filters: { groups: [{ properties: [], rollout_percentage: 50 }] } }),
        call('POST', base, {
          key: 'multivariate',
          filters: {
            groups: [{ properties: [], rollout_percentage: 90 }],
            multivariate: {
              variants: [
                { key: 'control', rollout_percentage: 34 },
                { key: 'test-a', rollout_percentage: 33 },
                { key: 'test-b', rollout_percentage: 33 },
              ],
            },
            payloads: { control: '{"color":"blue"}', 'test-a': '{"color":"red","sizes":[1,2]}' },
          },
        }),
        call('POST', base, {
          key: 'with-payload',
          filters: { groups: [{ properties: [], rollout_percentage: 70 }], payloads: { true: '{"limit":10}' } },
        }),
        call('POST', base, {
          key: 'pro-plan',
          filters: {
            groups: [{ properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'person' }], rollout_percentage: 100 }],
            payloads: { true: '"welcome, pro"' },
          },
        }),
      ])
      for (const r of created) expect(r.status, r.text).toBe(201)

      const bundle = readFileSync(bundlePath)
      const html = page(t.url, t.projectKey)
      server = createServer((req, res) => {
        if (req.url === '/posthog.js') res.writeHead(200, { 'content-type': 'application/javascript' }).end(bundle)
        else if (req.url === '/' || req.url?.startsWith('/?')) res.writeHead(200, { 'content-type': 'text/html' }).end(html)
        else if (req.url === '/favicon.ico') res.writeHead(204).end()
        else res.writeHead(404).end()
      })
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      const address = server.address()
      pageUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`
      browser = await launchChromium()
    })
    afterAll(async () => {
      await browser?.close()
      await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)))
      await t?.close()
    })

    /** Opens the page in a fresh context, recording posthog-js's calls to Wren. */
    const open = async () => {
      const context = await browser.newContext({ userAgent: USER_AGENT })
      const p = await context.newPage()
      const flagsCalls: FlagsCall[] = []
      const configCalls: string[] = []
      const failures: string[] = []
      p.on('request', (req) => {
        const url = new URL(req.url())
        if (!req.url().startsWith(t.url)) return
        if (/^\/(flags|decide)\/?$/.test(url.pathname) && req.method() === 'POST')
          flagsCalls.push({ url: req.url(), body: requestBody(req.postDataBuffer()) })
        if (url.pathname.startsWith(`/array/${t.projectKey}/config`)) configCalls.push(url.pathname)
      })
      p.on('response', (res) => {
        if (res.url().startsWith(t.url) && res.status() >= 400 && !new URL(res.url()).pathname.startsWith('/static/'))
          failures.push(`${res.status()} ${res.request().method()} ${res.url()}`)
      })
      p.on('pageerror', (err) => failures.push(`page error: ${err.message}`))
      await p.goto(pageUrl)
      return { page: p, context, flagsCalls, configCalls, failures }
    }

    const loadsOf = (p: Page) => p.evaluate(() => (globalThis as unknown as PageGlobals).__loads)

    /** Wren's own decide v3 answer for what the browser asked. */
    const decide = async (call: FlagsCall) => {
      const res = await fetch(`${t.url}/decide/?v=3`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          api_key: t.projectKey,
          distinct_id: call.body.distinct_id,
          person_properties: call.body.person_properties ?? {},
          groups: call.body.groups ?? {},
        }),
      })
      expect(res.status).toBe(200)
      return (await res.json()) as { featureFlags: Record<string, FlagValue>; featureFlagPayloads: Record<string, string> }
    }

    const expectMatches = (
      got: BrowserFlags,
      expected: { featureFlags: Record<string, FlagValue>; featureFlagPayloads: Record<string, string> },
    ) => {
      for (const key of KEYS) {
        const value = expected.featureFlags[key]
        expect(value, `${got.distinctId} ${key} evaluated by Wren`).toBeDefined()
        expect(got.values[key], `${got.distinctId} ${key}`).toEqual(value)
        expect(got.enabled[key], `${got.distinctId} ${key} enabled`).toBe(value !== false)
        const payload = expected.featureFlagPayloads[key]
        expect(got.payloads[key] ?? null, `${got.distinctId} ${key} payload`).toEqual(payload === undefined ? null : JSON.parse(payload))
      }
    }

    it('anonymous visitors get decide’s rollout, variant and payload values', async () => {
      const seen = new Set<string>()
      for (let i = 0; i < 16; i++) {
        const distinctId = `browser-visitor-${i}`
        const { page: p, context, flagsCalls, configCalls, failures } = await open()
        try {
          await p.evaluate((id) => (globalThis as unknown as PageGlobals).__start(id), distinctId)
          await p.waitForFunction(() => (globalThis as unknown as PageGlobals).__loads.length > 0, undefined, { timeout: 15_000 })
          const [got] = await loadsOf(p)
          expect(failures).toEqual([])
          expect(got.distinctId).toBe(distinctId)
          expect(flagsCalls.length, 'posthog-js asked Wren for flags').toBeGreaterThan(0)
          expect(flagsCalls[0].body.distinct_id).toBe(distinctId)
          expect(configCalls.length, 'posthog-js loaded the remote config').toBeGreaterThan(0)
          const expected = await decide(flagsCalls[0])
          expectMatches(got, expected)
          for (const key of KEYS) seen.add(`${key}=${String(expected.featureFlags[key])}`)
        } finally {
          await context.close()
        }
      }
      for (const v of [
        'rollout-50=true',
        'rollout-50=false',
        'multivariate=control',
        'multivariate=test-a',
        'multivariate=test-b',
        'with-payload=true',
        'with-payload=false',
        'pro-plan=false',
      ])
        expect(seen, v).toContain(v)
    })

    it('after identify with person properties, a person-property flag turns on as decide says', async () => {
      const { page: p, context, flagsCalls, failures } = await open()
      try {
        await p.evaluate(() => (globalThis as unknown as PageGlobals).__start('browser-anon-1'))
        await p.waitForFunction(() => (globalThis as unknown as PageGlobals).__loads.length > 0, undefined, { timeout: 15_000 })
        const [before] = await loadsOf(p)
        expect(before.values['pro-plan']).toBe(false)

        await p.evaluate(() =>
          (globalThis as unknown as PageGlobals).posthog.identify('browser-known-1', { plan: 'pro', email: 'known@example.com' }),
        )
        await p.waitForFunction(
          () =>
            (globalThis as unknown as PageGlobals).__loads.some((l) => l.distinctId === 'browser-known-1' && l.values['pro-plan'] === true),
          undefined,
          { timeout: 15_000 },
        )
        const after = (await loadsOf(p)).filter((l) => l.distinctId === 'browser-known-1').at(-1)!
        const call = flagsCalls.filter((c) => c.body.distinct_id === 'browser-known-1').at(-1)!
        expect(call.body.$anon_distinct_id).toBe('browser-anon-1')
        expect(call.body.person_properties).toMatchObject({ plan: 'pro' })
        expect(failures).toEqual([])
        const expected = await decide(call)
        expect(expected.featureFlags['pro-plan']).toBe(true)
        expectMatches(after, expected)
        expect(after.payloads['pro-plan']).toBe('welcome, pro')

        // The $identify event reaches Wren too: once ingested, decide alone (no properties sent) agrees.
        await waitFor(
          async () => {
            await drained(t.wren)
            const res = await decide({ url: '', body: { distinct_id: 'browser-known-1' } })
            return res.featureFlags['pro-plan'] === true
          },
          { what: 'the identified person to reach decide' },
        )
        expectMatches(after, await decide({ url: '', body: { distinct_id: 'browser-known-1' } }))
      } finally {
        await context.close()
      }
    })
  },
)
