// Session recording end to end in headless Chromium: a page on another origin loads posthog-js through
// PostHog's own HTML snippet from Wren's /static/, posthog-js starts recording (the project opted in), a
// visitor clicks, types and logs console errors, and posthog-js sends the snapshots to /s/. The recordings
// API then shows the session with PostHog's counts and start url, and Wren's player page plays it back:
// the replayed page shows in the player (a screenshot of the replay area that is not blank), loaded from
// Wren alone.
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, BrowserContext, Page, Request as PlaywrightRequest } from 'playwright-core'
import { api, startWren, waitFor, type TestWren } from '../support/wren'
import { recordingsProcessed } from '../support/recordings'
import { skipReason } from '../support/skip'
import { serveSite, snippetScript, type Site } from '../support/posthog-snippet'
import { ARTIFACTS, chromiumMissing, colourCounts, launchChromium } from '../support/browser'

const unavailable = skipReason('recordings-browser', chromiumMissing())
const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36'

const CLICKS = 4
const TYPED = 'hello wren'
const ERRORS = 3
/** The recorded page's background (#ffd400): the replay must show it. */
const PAGE_COLOUR = 0xffd400
const lastError = `wren-e2e-error-${ERRORS}`

/** The page a user of Wren records: PostHog's snippet pointed at Wren, with recording settings from Wren. */
const recordedPage = (wrenUrl: string, token: string) => `<!doctype html>
<html><head><meta charset="utf-8"><title>wren recorded page</title>
<style>
  body { margin: 0; background: #ffd400; font: 24px sans-serif; }
  main { padding: 40px; }
  button { font-size: 24px; padding: 12px 24px; background: #1d4ed8; color: #fff; border: 0; }
  input { font-size: 24px; margin-top: 24px; display: block; }
</style>
${snippetScript(
  token,
  wrenUrl,
  `    bootstrap: { distinctID: 'recorded-visitor' },
    autocapture: false,
    capture_pageview: false,`,
)}</head>
<body><main>
  <h1>A recorded page</h1>
  <button id="go" type="button">Clicked <span id="count">0</span> times</button>
  <input id="name" type="text" placeholder="Your name">
</main>
<script>
  let clicks = 0
  document.getElementById('go').addEventListener('click', () => (document.getElementById('count').textContent = String(++clicks)))
</script></body></html>`

interface PosthogGlobal {
  posthog: {
    sessionRecordingStarted(): boolean
    get_session_id(): string
    get_session_replay_url(options: { withTimestamp: boolean; timestampLookBack: number }): string
  }
}
interface PlayerGlobal {
  document: { body: { dataset: Record<string, string | undefined> }; getElementById(id: string): { textContent: string | null } | null }
  localStorage: { setItem(key: string, value: string): void; getItem(key: string): string | null }
}

/** posthog-js's request body: JSON, gzipped when the remote config allows it. */
const bodyText = (raw: Buffer | null): string => {
  if (!raw || raw.length === 0) return ''
  return (raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw).toString('utf8')
}

describe('the recordings player', () => {
  let t: TestWren
  let call: ReturnType<typeof api>

  beforeAll(async () => {
    t = await startWren({ WREN_RECORDINGS_WAIT_MS: '20' })
    call = api(t)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('serves its script and styles from Wren, with an ETag, and the authenticated page as HTML', async () => {
    for (const [file, type] of [
      ['player.js', /^application\/javascript/],
      ['player.css', /^text\/css/],
    ] as const) {
      const res = await fetch(`${t.url}/static/wren/${file}`)
      expect(res.status, file).toBe(200)
      expect(res.headers.get('content-type'), file).toMatch(type)
      const body = await res.text()
      expect(body.length, file).toBeGreaterThan(1000)
      const etag = res.headers.get('etag')!
      expect(etag, file).toMatch(/^"/)
      expect((await fetch(`${t.url}/static/wren/${file}`, { headers: { 'if-none-match': etag } })).status, file).toBe(304)
    }
    const css = await (await fetch(`${t.url}/static/wren/player.css`)).text()
    expect(css).toContain('.rr-player') // rrweb-player's own styles, bundled in
    expect(css).not.toMatch(/@import|url\(\s*['"]?(https?:)?\/\//)

    const page = await fetch(`${t.url}/project/${t.projectId}/replay/some-session`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    // The page takes a key: Wren's own scripts only, talking to Wren alone, never framed.
    const policy = page.headers.get('content-security-policy') ?? ''
    for (const directive of ["default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"])
      expect(policy).toContain(directive)
    expect(await page.text()).toContain('"sessionId":"some-session"')
    const bad = await call('GET', '/project/not-a-token/replay/some-session')
    expect(bad.status).toBe(404)
    expect(bad.body).toMatchObject({ code: 'not_found', attr: 'project_id' })
    const late = await call('GET', `/project/${t.projectId}/replay/some-session?t=-5`)
    expect(late.status).toBe(400)
    expect(late.body).toMatchObject({ type: 'validation_error', attr: expect.stringContaining('t') })
  })

  describe.skipIf(unavailable !== null)(
    `session recording from posthog-js in headless Chromium${unavailable ? ` (skipped: ${unavailable})` : ''}`,
    () => {
      let site: Site | undefined
      let pageUrl: string
      let browser: Browser
      let sessionId: string
      /** The replay link posthog-js builds for the session (`/project/<token>/replay/<id>?t=…`). */
      let replayUrl: string

      beforeAll(async () => {
        const optIn = await call('PATCH', `/api/projects/${t.projectId}/`, {
          session_recording_opt_in: true,
          capture_console_log_opt_in: true,
        })
        expect(optIn.status, optIn.text).toBe(200)
        site = await serveSite({ '/': recordedPage(t.url, t.projectKey) })
        pageUrl = `${site.origin}/`
        browser = await launchChromium()
      })
      afterAll(async () => {
        await browser?.close()
        await site?.close()
      })

      const processed = () => recordingsProcessed(t.wren)

      it('records clicks, typing and console errors, and the recordings API shows them', async () => {
        const context = await browser.newContext({ userAgent: USER_AGENT, viewport: { width: 1000, height: 700 } })
        try {
          const page = await context.newPage()
          // Each /s/ request posthog-js sends: its body, and the answer's status once it has one (0: failed).
          const snapshots = new Map<PlaywrightRequest, { status: number | null; body: string }>()
          page.on('request', (req) => {
            if (req.url().startsWith(`${t.url}/s/`)) snapshots.set(req, { status: null, body: bodyText(req.postDataBuffer()) })
          })
          page.on('requestfinished', async (req) => {
            const sent = snapshots.get(req)
            if (sent) sent.status = (await req.response())?.status() ?? 0
          })
          page.on('requestfailed', (req) => {
            const sent = snapshots.get(req)
            if (sent) sent.status = 0
          })
          await page.goto(pageUrl)
          await page.waitForFunction(
            () => (globalThis as unknown as PosthogGlobal).posthog.sessionRecordingStarted?.() === true,
            undefined,
            {
              timeout: 20_000,
            },
          )
          sessionId = await page.evaluate(() => (globalThis as unknown as PosthogGlobal).posthog.get_session_id())

          for (let i = 0; i < CLICKS; i++) await page.click('#go')
          await page.focus('#name')
          await page.keyboard.type(TYPED)
          for (let i = 1; i <= ERRORS; i++) await page.evaluate((n) => console.error(`wren-e2e-error-${n}`), i)
          expect(await page.textContent('#count')).toBe(String(CLICKS))
          replayUrl = await page.evaluate(() =>
            (globalThis as unknown as PosthogGlobal).posthog.get_session_replay_url({ withTimestamp: true, timestampLookBack: 0 }),
          )

          // posthog-js flushes its snapshot buffer on a timer: wait for the request holding the last console error,
          // and for every /s/ request before it to be answered.
          const sent = () => [...snapshots.values()]
          await waitFor(async () => sent().some((s) => s.body.includes(lastError)) && sent().every((s) => s.status !== null), {
            what: 'posthog-js to send the last console error to /s/',
          })
          expect(sent().map((s) => s.status)).toEqual(sent().map(() => 200))
          await processed()
        } finally {
          await context.close()
        }

        const list = await call('GET', `/api/projects/${t.projectId}/session_recordings/`)
        expect(list.status, list.text).toBe(200)
        const recording = list.body.results.find((r: { id: string }) => r.id === sessionId)
        expect(recording, `session ${sessionId} in ${list.text}`).toBeDefined()
        expect(recording).toMatchObject({
          distinct_id: 'recorded-visitor',
          click_count: CLICKS,
          keypress_count: TYPED.length,
          console_error_count: ERRORS,
          start_url: pageUrl,
          snapshot_source: 'web',
        })
      })

      /**
       * Opens a player page and checks that it plays: no error on the page, the recorded page rebuilt in the
       * replay frame, a screenshot of the replay area that is not one colour and shows the recorded page's
       * background, and no request anywhere but Wren. The screenshot is kept under test-artifacts/.
       */
      const expectPlayerPlays = async (page: Page, url: string, artifact = 'recordings-player.png') => {
        const elsewhere: string[] = []
        page.on('request', (req) => {
          if (!req.url().startsWith(`${t.url}/`) && !req.url().startsWith('about:') && !req.url().startsWith('data:'))
            elsewhere.push(req.url())
        })
        // The replay iframe inherits the page's CSP: anything it refuses shows as a console error.
        page.on('console', (message) => {
          if (/Content Security Policy/i.test(message.text())) elsewhere.push(message.text())
        })
        await page.goto(url)
        await page.waitForFunction(() =>
          ['playing', 'error'].includes((globalThis as unknown as PlayerGlobal).document.body.dataset.state ?? ''),
        )
        const state = await page.evaluate(() => (globalThis as unknown as PlayerGlobal).document.body.dataset.state)
        expect(state, (await page.textContent('#wren-status')) ?? '').toBe('playing')
        expect(await page.isVisible('#wren-key-form'), 'no key form while playing').toBe(false)
        const frame = await (await page.waitForSelector('.replayer-wrapper iframe', { state: 'attached' })).contentFrame()
        expect(frame, 'the replay iframe').not.toBeNull()
        await frame!.waitForSelector('#go', { state: 'attached' })
        // Until the replayer has painted the recorded page: its background over a fifth of the replay area.
        let shot = { width: 0, height: 0, counts: new Map<number, number>() }
        await expect
          .poll(
            async () => {
              shot = colourCounts(await page.locator('.rr-player__frame').screenshot({ path: path.join(ARTIFACTS, artifact) }))
              return (shot.counts.get(PAGE_COLOUR) ?? 0) / (shot.width * shot.height)
            },
            { message: 'share of the replay area showing the recorded page’s background', timeout: 10_000 },
          )
          .toBeGreaterThan(0.2)
        await page.screenshot({ path: path.join(ARTIFACTS, artifact.replace(/\.png$/, '-page.png')), fullPage: true }) // the whole page, for a person to look at
        expect(shot.width * shot.height).toBeGreaterThan(10_000)
        expect(shot.counts.size, 'colours in the replay area').toBeGreaterThan(1)
        expect(elsewhere).toEqual([])
      }

      const playerPage = () => `${t.url}/project/${t.projectId}/replay/${encodeURIComponent(sessionId)}`

      it('the authenticated player page asks for a key, opens a session with it (never keeping the key), and plays the recording', async () => {
        expect(sessionId, 'the recording test ran first').toBeDefined()
        const context: BrowserContext = await browser.newContext({ viewport: { width: 1200, height: 900 } })
        try {
          const page = await context.newPage()
          await page.goto(playerPage())
          await page.waitForFunction(() => (globalThis as unknown as PlayerGlobal).document.body.dataset.state === 'needs-key')
          expect(await page.isVisible('#wren-key-form')).toBe(true)
          await page.fill('#wren-key', t.personalKey)
          await page.click('#wren-key-form button[type=submit]')
          await page.waitForFunction(() => (globalThis as unknown as PlayerGlobal).document.body.dataset.state === 'playing')
          expect(page.url()).toBe(playerPage())
          expect(await page.textContent('#wren-facts')).toContain(`Clicks: ${CLICKS}`)

          // Loaded again, the page plays with the session this browser kept; the key itself is nowhere in the page's reach.
          await expectPlayerPlays(page, playerPage(), 'recordings-player.png')
          const reachable = await page.evaluate(() => {
            const g = globalThis as unknown as PlayerGlobal & { document: { cookie: string } }
            return JSON.stringify([g.localStorage.getItem('wren.personalApiKey'), g.document.cookie])
          })
          expect(reachable).not.toContain(t.personalKey)

          // The link posthog-js builds names the project by its token: it lands on the player at `t`.
          const link = new URL(replayUrl)
          expect(link.pathname).toBe(`/project/${t.projectKey}/replay/${sessionId}`)
          link.searchParams.set('t', '1')
          await page.goto(link.toString())
          await page.waitForFunction(() => (globalThis as unknown as PlayerGlobal).document.body.dataset.state === 'playing')
          expect(page.url()).toBe(`${playerPage()}?t=1`)
          expect(await page.textContent('#wren-status')).toContain('Playing from 0:01.')
        } finally {
          await context.close()
        }
      })

      it('the shared page plays the recording with only its sharing token, and stops once sharing is off', async () => {
        expect(sessionId, 'the recording test ran first').toBeDefined()
        const sharing = `/api/projects/${t.projectId}/session_recordings/${encodeURIComponent(sessionId)}/sharing/`
        const enabled = await call('PATCH', sharing, { enabled: true })
        expect(enabled.status).toBe(200)
        const token = enabled.body.access_token as string
        // A fresh browser: no key in its storage, only the token in the link.
        const context = await browser.newContext({ viewport: { width: 1200, height: 900 } })
        try {
          const page = await context.newPage()
          await expectPlayerPlays(page, `${t.url}/shared/${token}`, 'recordings-shared-player.png')
          expect(await page.evaluate(() => (globalThis as unknown as PlayerGlobal).localStorage.getItem('wren.personalApiKey'))).toBeNull()
          expect((await call('PATCH', sharing, { enabled: false })).status).toBe(200)
          const gone = await page.goto(`${t.url}/shared/${token}`)
          expect(gone?.status()).toBe(404)
        } finally {
          await context.close()
        }
      })

      it('the player page shows the API’s error detail for a refused key or an unknown recording', async () => {
        const context = await browser.newContext()
        try {
          const page = await context.newPage()
          const state = () => page.evaluate(() => (globalThis as unknown as PlayerGlobal).document.body.dataset.state)
          const settled = () =>
            page.waitForFunction(() =>
              ['playing', 'error'].includes((globalThis as unknown as PlayerGlobal).document.body.dataset.state ?? ''),
            )
          expect((await context.request.post(`${t.url}/api/login`, { data: { personal_api_key: t.personalKey } })).status()).toBe(200)
          await page.goto(`${t.url}/project/${t.projectId}/replay/no-such-session`)
          await settled()
          const missing = await call('GET', `/api/projects/${t.projectId}/session_recordings/no-such-session/`)
          expect(missing.status).toBe(404)
          expect(await state()).toBe('error')
          expect(await page.textContent('#wren-status')).toBe(missing.body.detail)

          // A key that cannot read recordings: the session opens, the recording is refused with the API's reason.
          const blind = await call('POST', '/api/personal_api_keys/', { label: 'no recordings', scopes: ['insight:read'] })
          expect((await context.request.post(`${t.url}/api/login`, { data: { personal_api_key: blind.body.value } })).status()).toBe(200)
          await page.goto(playerPage())
          await settled()
          const refused = await call('GET', `/api/projects/${t.projectId}/session_recordings/${sessionId}/`, undefined, blind.body.value)
          expect(refused.status).toBe(403)
          expect(await state()).toBe('error')
          expect(await page.textContent('#wren-status')).toBe(refused.body.detail)
          expect(await page.isVisible('#wren-key-form'), 'the page offers to paste another key').toBe(true)
          // A pasted key Wren does not take: the page says why.
          await page.fill('#wren-key', 'phx_not_a_key')
          await page.click('#wren-key-form button[type=submit]')
          await page.waitForFunction(() =>
            /invalid/.test((globalThis as unknown as PlayerGlobal).document.getElementById('wren-status')?.textContent ?? ''),
          )
        } finally {
          await context.close()
        }
      })
    },
  )
})
