// The posthog-js bundles Wren serves under /static/: what PostHog's HTML snippet (`/static/array.js`) and
// posthog-js's lazy loaders (`/static/<kind>.js?v=<version>`, or `/static/<version>/<kind>.js` with
// strict_script_versioning) fetch from the API host. Each is the posthog-js package's own file, byte for
// byte; any other name is a 404 JSON error. Then a page that uses PostHog's own snippet, pointed at Wren,
// loads posthog-js from Wren and captures an event Wren stores.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, drained, startWren, waitFor, type TestWren } from '../support/wren'
import { chromiumMissing, launchChromium } from '../support/chromium'
import { skipReason } from '../support/skip'
import { serveSite, snippetScript, type Site } from '../support/posthog-snippet'

const require = createRequire(import.meta.url)
const packageDir = path.dirname(require.resolve('posthog-js/package.json'))
const VERSION = (require('posthog-js/package.json') as { version: string }).version
const packageFile = (name: string) => readFileSync(path.join(packageDir, 'dist', name))

/** What the snippet and posthog-js's loaders ask for (lazy loaders by the names posthog-js gives them). */
const LOADED = [
  'array.js',
  'array.full.js',
  'recorder.js',
  'lazy-recorder.js',
  'posthog-recorder.js',
  'surveys.js',
  'exception-autocapture.js',
  'web-vitals.js',
  'web-vitals-with-attribution.js',
  'dead-clicks-autocapture.js',
  'tracing-headers.js',
  'product-tours.js',
  'conversations.js',
  'logs.js',
  'intercom-integration.js',
  'crisp-chat-integration.js',
]

const noBrowser = skipReason('static-assets browser check', chromiumMissing())
const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36'

/** PostHog's HTML snippet, pointed at Wren. */
const snippetPage = (wrenUrl: string, token: string) => `<!doctype html>
<html><head><meta charset="utf-8"><title>wren snippet</title>
${snippetScript(
  token,
  wrenUrl,
  `      person_profiles: 'identified_only',
      bootstrap: { distinctID: 'snippet-visitor' },
      autocapture: false,
      capture_pageview: false,
      loaded: (ph) => {
        window.__loaded = ph.version
        ph.capture('snippet loaded', { via: 'wren static' })
      },
`,
)}</head>
<body><p>hello</p></body></html>`

describe('posthog-js bundles under /static/', () => {
  let t: TestWren

  beforeAll(async () => {
    t = await startWren()
  })
  afterAll(async () => {
    await t?.close()
  })

  it('answers each bundle posthog-js loads with the package’s file, as JavaScript, to any origin', async () => {
    for (const name of LOADED) {
      const res = await fetch(`${t.url}/static/${name}?v=${VERSION}`, { headers: { origin: 'https://customer.example' } })
      expect(res.status, name).toBe(200)
      expect(res.headers.get('content-type'), name).toMatch(/^application\/javascript/)
      expect(res.headers.get('access-control-allow-origin'), name).toBe('https://customer.example')
      expect(res.headers.get('cache-control'), name).toMatch(/public/)
      expect(Buffer.from(await res.arrayBuffer()).equals(packageFile(name)), `${name} is the package's file`).toBe(true)
    }
  })

  it('answers HEAD, the snippet’s unversioned array.js, and the versioned paths strict_script_versioning asks for', async () => {
    const head = await fetch(`${t.url}/static/array.js`, { method: 'HEAD', headers: { 'accept-encoding': 'identity' } })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-type')).toMatch(/^application\/javascript/)
    expect(Number(head.headers.get('content-length'))).toBe(packageFile('array.js').length)

    const plain = await fetch(`${t.url}/static/array.js`)
    expect(Buffer.from(await plain.arrayBuffer()).equals(packageFile('array.js'))).toBe(true)
    // A browser revalidating its copy gets a 304 while the bundle is unchanged.
    const etag = plain.headers.get('etag')
    expect(etag).toBeTruthy()
    const again = await fetch(`${t.url}/static/array.js`, { headers: { 'if-none-match': etag! } })
    expect(again.status).toBe(304)

    for (const version of [VERSION, VERSION.split('.')[0]]) {
      const res = await fetch(`${t.url}/static/${version}/lazy-recorder.js`)
      expect(res.status, version).toBe(200)
      expect(Buffer.from(await res.arrayBuffer()).equals(packageFile('lazy-recorder.js'))).toBe(true)
    }
    // Another version of posthog-js is not what Wren has: a 404, so posthog-js's 'fallback' mode retries the unversioned path.
    const other = await fetch(`${t.url}/static/0.0.1/lazy-recorder.js`)
    expect(other.status).toBe(404)
    expect(((await other.json()) as { code: string }).code).toBe('not_found')
  })

  it('answers 404 JSON for any other name, and never a file outside the bundles', async () => {
    for (const tricky of [
      'nope.js',
      'toolbar.js',
      'array.d.ts',
      'integrity.json',
      '..%2Fpackage.json',
      '..%2F..%2Fpackage.json',
      '%2E%2E%2Fpackage.json',
      '..%5Cpackage.json',
      `${VERSION}/..%2F..%2Fpackage.json`,
      `${VERSION}/nope.js`,
      '..%2F..%2F..%2F..%2Fpackage.json',
      'constructor',
      '__proto__',
    ]) {
      const res = await fetch(`${t.url}/static/${tricky}`)
      expect(res.status, tricky).toBe(404)
      expect(res.headers.get('content-type'), tricky).toMatch(/^application\/json/)
      const body = (await res.json()) as { type: string; code: string; detail: string }
      expect(body.code, tricky).toBe('not_found')
      expect(body.detail, tricky).toBeTypeOf('string')
    }
    // fetch normalises a literal ../ away; the router sees the path as a raw HTTP client sends it.
    const raw = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL(t.url)
      const req = require('node:http').request(
        { host: url.hostname, port: url.port, path: '/static/../package.json', method: 'GET' },
        (res: import('node:http').IncomingMessage) => {
          let body = ''
          res.on('data', (c: Buffer) => (body += c.toString()))
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
        },
      )
      req.on('error', reject)
      req.end()
    })
    expect(raw.status).toBe(404)
    expect(raw.body).not.toContain('"posthog-js"')
  })

  describe.skipIf(noBrowser !== null)(`PostHog’s HTML snippet in headless Chromium${noBrowser ? ` (skipped: ${noBrowser})` : ''}`, () => {
    let site: Site | undefined
    let pageUrl: string

    beforeAll(async () => {
      site = await serveSite({ '/': snippetPage(t.url, t.projectKey) })
      pageUrl = `${site.origin}/`
    })
    afterAll(async () => {
      await site?.close()
    })

    it('loads posthog-js from Wren’s /static/array.js and captures an event Wren stores', async () => {
      const browser = await launchChromium()
      try {
        const context = await browser.newContext({ userAgent: USER_AGENT })
        const page = await context.newPage()
        const statics: string[] = []
        page.on('response', (res) => {
          const url = new URL(res.url())
          if (res.url().startsWith(t.url) && url.pathname.startsWith('/static/')) statics.push(`${res.status()} ${url.pathname}`)
        })
        await page.goto(pageUrl)
        const version = await page.waitForFunction(() => (globalThis as unknown as { __loaded?: string }).__loaded, undefined, {
          timeout: 15_000,
        })
        expect(await version.jsonValue()).toBe(VERSION)
        expect(statics).toContain('200 /static/array.js')

        // The lazy bundles come from Wren too, through posthog-js's own loader (the URL it builds for the recorder).
        const loaded = await page.evaluate(
          () =>
            new Promise<string>((resolve) => {
              const w = globalThis as unknown as {
                posthog: unknown
                __PosthogExtensions__: { loadExternalDependency(ph: unknown, kind: string, cb: (err?: unknown) => void): void }
              }
              w.__PosthogExtensions__.loadExternalDependency(w.posthog, 'lazy-recorder', (err) => resolve(err ? String(err) : 'ok'))
            }),
        )
        expect(loaded).toBe('ok')
        // (posthog-js asks by its version, /static/<version>/lazy-recorder.js: strict_script_versioning defaults to 'fallback'.)
        const recorder = new RegExp(`^200 /static/(${VERSION.replaceAll('.', '\\.')}/)?lazy-recorder\\.js$`)
        expect(
          statics.some((s) => recorder.test(s)),
          statics.join(', '),
        ).toBe(true)
        expect(statics.filter((s) => !s.startsWith('200 '))).toEqual([])

        const call = api(t)
        const stored = await waitFor(
          async () => {
            await drained(t.wren)
            const res = await call('GET', `/api/projects/${t.projectId}/events/?event=${encodeURIComponent('snippet loaded')}`)
            return res.status === 200 && res.body.results.length > 0 ? res.body.results : null
          },
          { what: 'the snippet’s event to be stored' },
        )
        expect(stored[0].distinct_id).toBe('snippet-visitor')
        expect(stored[0].properties).toMatchObject({ via: 'wren static', $lib: 'web', $lib_version: VERSION })
        await context.close()
      } finally {
        await browser.close()
      }
    })
  })
})
