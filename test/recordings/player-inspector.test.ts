// The player's inspector end to end in headless Chromium: a page on another origin loads posthog-js through
// PostHog's snippet from Wren, the project records sessions and console logs, and a visitor clicks, logs a
// console.warn and a console.error, sends an event, and moves to a second page (history.pushState, as a single-page
// app does) that logs a line. The player then lists the console lines (a level filter and a search narrow them),
// the session's events (their properties open), and the clicks and page changes on a strip under the player;
// choosing any of them moves the player's clock there. A shared page shows the console and the strip but lists no events. The person's page lists the
// recording (it opens the player) and folds the person's empty properties away. Screenshots of the player at
// 1280 and 390 px wide are kept under test-artifacts/web/.
import { gunzipSync } from 'node:zlib'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { api, drained, startWren, waitFor, type TestWren } from '../support/wren'
import { recordingsProcessed } from '../support/recordings'
import { skipReason } from '../support/skip'
import { serveSite, snippetScript, type Site } from '../support/posthog-snippet'
import { chromiumMissing, colourCounts, expectDrawn, launchChromium } from '../support/browser'

const unavailable = skipReason('player-inspector', chromiumMissing())
const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36'
const WIDTHS = { desktop: { width: 1280, height: 860 }, phone: { width: 390, height: 844 } }

const VISITOR = 'inspector-visitor'
const WARNING = 'wren-inspector-warning: the cart is nearly full'
const ERROR = 'wren-inspector-error: checkout failed'
const SECOND_PAGE_LINE = 'wren-inspector-log: second page ready'
const EVENT = 'checkout failed'
/** The recorded page's background (#ffd400), as the player paints it. */
const RECORDED_BACKGROUND = 0xffd400

/**
 * The recorded site, one page that moves to /next as a single-page app does (history.pushState): PostHog's snippet
 * pointed at Wren, the visitor identified, a pageview on load and on each change of address.
 */
const recordedPage = (wrenUrl: string, token: string) => `<!doctype html>
<html><head><meta charset="utf-8"><title>wren inspector page</title>
<style>
  body { margin: 0; background: #ffd400; font: 24px sans-serif; }
  main { padding: 40px; }
  button { font-size: 24px; padding: 12px 24px; background: #1d4ed8; color: #fff; border: 0; }
</style>
${snippetScript(
  token,
  wrenUrl,
  `    bootstrap: { distinctID: ${JSON.stringify(VISITOR)}, isIdentifiedID: true },
    autocapture: false,
    capture_pageview: 'history_change',`,
)}</head>
<body><main>
  <h1>Cart</h1>
  <button id="go" type="button">Check out</button>
  <button id="next" type="button">Next page</button>
</main>
<script>
  document.getElementById('next').addEventListener('click', () => {
    history.pushState({}, '', '/next')
    document.querySelector('h1').textContent = 'The second page'
  })
</script></body></html>`

interface PosthogGlobal {
  posthog: {
    sessionRecordingStarted(): boolean
    get_session_id(): string
    capture(event: string, properties: Record<string, unknown>): void
    setPersonProperties(properties: Record<string, unknown>): void
  }
}
interface PageGlobal {
  document: { body: { dataset: Record<string, string | undefined> }; querySelector(selector: string): { click(): void } | null }
  localStorage: { setItem(key: string, value: string): void }
}

/** posthog-js's request body: JSON, gzipped when the remote config allows it. */
const bodyText = (raw: Buffer | null): string => {
  if (!raw || raw.length === 0) return ''
  return (raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw).toString('utf8')
}

/** "0:07" or "00:07" (the player's controller) as seconds. */
const seconds = (clock: string | null): number => {
  const [m, s] = (clock ?? '').trim().split(':').map(Number)
  return m * 60 + s
}

describe.skipIf(unavailable !== null)(`the player's inspector${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  let server: Site | undefined
  let browser: Browser
  let sessionId: string
  /** A browser per width and key, holding the key as the web app keeps it: each test opens a tab of it (made when first needed). */
  const browsers = new Map<string, Promise<BrowserContext>>()
  /** The tabs (and key-less browsers) a test opened: closed when it ends, so no player it left plays on. */
  const opened: Array<BrowserContext | Page> = []

  beforeAll(async () => {
    t = await startWren({ WREN_RECORDINGS_WAIT_MS: '20' })
    call = api(t)
    const optIn = await call('PATCH', `/api/projects/${t.projectId}/`, { session_recording_opt_in: true, capture_console_log_opt_in: true })
    expect(optIn.status, optIn.text).toBe(200)
    server = await serveSite({ '/': recordedPage(t.url, t.projectKey) })
    const site = server.origin
    browser = await launchChromium()

    // The visit: posthog-js sends what it records to Wren; the test waits until Wren has answered every request.
    const context = await browser.newContext({ userAgent: USER_AGENT, viewport: { width: 1000, height: 700 } })
    try {
      const page = await context.newPage()
      const sent = new Map<object, { body: string; status: number | null }>()
      page.on('request', (req) => {
        if (req.url().startsWith(`${t.url}/`) && req.method() === 'POST')
          sent.set(req, { body: bodyText(req.postDataBuffer()), status: null })
      })
      page.on('requestfinished', async (req) => {
        const s = sent.get(req)
        if (s) s.status = (await req.response())?.status() ?? 0
      })
      page.on('requestfailed', (req) => {
        const s = sent.get(req)
        if (s) s.status = 0
      })
      const sentAll = async (what: string, ...texts: string[]) => {
        const missing = () => [
          ...texts.filter((text) => ![...sent.values()].some((s) => s.body.includes(text))),
          ...[...sent.entries()].filter(([, s]) => s.status === null).map(([req]) => `no answer to ${(req as { url(): string }).url()}`),
        ]
        await waitFor(async () => missing().length === 0, {
          what: `${what} (still missing: ${missing().join(', ')})`,
          timeoutMs: 30_000,
        }).catch((error: unknown) => {
          throw new Error(`${String(error)}; still missing: ${missing().join(', ')}`)
        })
      }
      const recording = () =>
        page.waitForFunction(() => (globalThis as unknown as PosthogGlobal).posthog.sessionRecordingStarted?.() === true, undefined, {
          timeout: 20_000,
        })

      await page.goto(`${site}/`)
      await recording()
      sessionId = await page.evaluate(() => (globalThis as unknown as PosthogGlobal).posthog.get_session_id())
      await page.evaluate(() =>
        (globalThis as unknown as PosthogGlobal).posthog.setPersonProperties({
          email: 'inspector@example.com',
          company: '',
          nickname: null,
        }),
      )
      // Each step on its own second of the recording: a step waits, on the page's clock, until a second has
      // passed since the one before it was done.
      let stepDone = await page.evaluate(() => Date.now())
      const step = async (action: () => Promise<unknown>) => {
        await page.waitForFunction((after) => Date.now() >= after, stepDone + 1000)
        await action()
        stepDone = await page.evaluate(() => Date.now())
      }
      await step(() => page.click('#go'))
      await step(() => page.evaluate((text) => console.warn(text), WARNING))
      await step(async () => {
        await page.evaluate((text) => console.error(text), ERROR)
        await page.evaluate(
          (event) => (globalThis as unknown as PosthogGlobal).posthog.capture(event, { plan: 'pro', cart_items: 3 }),
          EVENT,
        )
      })
      await sentAll('posthog-js to send the first page’s console lines and event', ERROR, EVENT)
      await step(async () => {
        await page.click('#next')
        await page.waitForURL(`${site}/next`)
      })
      await step(() => page.evaluate((text) => console.log(text), SECOND_PAGE_LINE))
      await sentAll('posthog-js to send the second page’s line and pageview', SECOND_PAGE_LINE, `"$current_url":"${site}/next"`)
    } finally {
      await context.close()
    }
    await recordingsProcessed(t.wren)
    await drained(t.wren)
  }, 120_000)
  afterEach(async () => {
    for (const each of opened.splice(0)) await each.close()
  })
  afterAll(async () => {
    for (const context of browsers.values()) await (await context).close()
    await browser?.close()
    await server?.close()
    await t?.close()
  })

  /** A browser at `size` signed in with `key` (a session acting as the key, as the app's sign-in opens). */
  const holding = async (size: { width: number; height: number }, key: string): Promise<BrowserContext> => {
    const context = await browser.newContext({ viewport: size })
    expect((await context.request.post(`${t.url}/api/login`, { data: { personal_api_key: key } })).status()).toBe(200)
    return context
  }
  /** A new tab of a browser at `size` holding `key` (null: a fresh browser with no key), with requests to Wren noted. */
  const open = async (
    size: { width: number; height: number },
    key: string | null = t.personalKey,
  ): Promise<{ page: Page; requests: string[] }> => {
    let context: BrowserContext
    if (key === null) opened.push((context = await browser.newContext({ viewport: size })))
    else {
      const id = `${size.width}x${size.height} ${key}`
      if (!browsers.has(id)) browsers.set(id, holding(size, key))
      context = await browsers.get(id)!
    }
    const page = await context.newPage()
    opened.push(page)
    const requests: string[] = []
    page.on('request', (req) => requests.push(req.url()))
    return { page, requests }
  }
  const playing = async (page: Page, url: string) => {
    await page.goto(url)
    await page.waitForFunction(() => ['playing', 'error'].includes((globalThis as unknown as PageGlobal).document.body.dataset.state ?? ''))
    expect(
      await page.evaluate(() => (globalThis as unknown as PageGlobal).document.body.dataset.state),
      (await page.textContent('#wren-status')) ?? '',
    ).toBe('playing')
    await page.waitForSelector('#wren-inspector [role=tab]')
  }
  /**
   * Pauses the player, so a jump leaves its clock where the jump put it (a playing player plays on from there). The
   * page says whether it plays (body data-player); its play/pause button is pressed only while it plays, in one step
   * of the page, so a player that has just reached its end (and paused itself) is not started again.
   */
  const paused = async (page: Page) => {
    const state = () => (globalThis as unknown as PageGlobal).document.body.dataset.player
    await page.waitForFunction(() => (globalThis as unknown as PageGlobal).document.body.dataset.player !== undefined)
    await page.evaluate(() => {
      const { document } = globalThis as unknown as PageGlobal
      if (document.body.dataset.player === 'playing') document.querySelector('.rr-controller__btns button')!.click()
    })
    await expect.poll(() => page.evaluate(state)).toBe('paused')
  }
  const clockOf = async (page: Page) => seconds(await page.locator('.rr-timeline__time').first().textContent())
  /** Chooses the item and expects the player's clock at the item's time. */
  const jumpTo = async (page: Page, item: ReturnType<Page['locator']>) => {
    const at = seconds(await item.locator('time').textContent())
    await item.click()
    await expect.poll(() => clockOf(page)).toBe(at)
    return at
  }
  const player = () => `${t.url}/project/${t.projectId}/replay/${encodeURIComponent(sessionId)}`

  it('lists the console lines, narrows them by level and by search, and moves the player to a line', async () => {
    const { page } = await open(WIDTHS.desktop)
    await playing(page, player())
    const lines = page.locator('#wren-inspector ol.console li')
    await expect
      .poll(() => lines.allTextContents())
      .toEqual([
        expect.stringContaining(`warn ${WARNING}`),
        expect.stringContaining(`error ${ERROR}`),
        expect.stringContaining(`log ${SECOND_PAGE_LINE}`),
      ])
    expect(await page.locator('#wren-inspector [role=tab]').first().textContent()).toBe('Console (3)')

    const level = page.locator('select[aria-label="Console level"]')
    // The list is drawn again after each change (on a busy machine, a moment later): until it shows the change.
    await level.selectOption('error')
    await expect.poll(() => lines.allTextContents()).toEqual([expect.stringContaining(ERROR)])
    await level.selectOption('warn')
    await expect.poll(() => lines.allTextContents()).toEqual([expect.stringContaining(WARNING)])
    await level.selectOption('')
    await page.fill('input[aria-label="Search console"]', 'CHECKOUT')
    await expect.poll(() => lines.allTextContents()).toEqual([expect.stringContaining(ERROR)])
    await page.fill('input[aria-label="Search console"]', 'nothing logs this')
    await expect.poll(() => lines.count()).toBe(0)
    expect(await page.textContent('#wren-inspector')).toContain('No console lines match.')
    await page.fill('input[aria-label="Search console"]', '')

    await paused(page)
    const error = await jumpTo(page, lines.filter({ hasText: ERROR }).locator('button'))
    const warning = await jumpTo(page, lines.filter({ hasText: WARNING }).locator('button'))
    const last = await jumpTo(page, lines.filter({ hasText: SECOND_PAGE_LINE }).locator('button'))
    expect(warning).toBeLessThan(error)
    expect(error).toBeLessThan(last)
  })

  it('lists the session’s events with their properties, and moves the player to an event', async () => {
    const { page } = await open(WIDTHS.desktop)
    await playing(page, player())
    await page.click('#wren-inspector [role=tab]:has-text("Events")')
    const events = page.locator('#wren-inspector ol.events > li')
    await expect.poll(() => events.locator('.name').allTextContents()).toEqual(expect.arrayContaining(['$pageview', EVENT]))
    const names = await events.locator('.name').allTextContents()
    // Oldest first: the first page's view, the event, the second page's view.
    expect(names.filter((name) => name === '$pageview' || name === EVENT)).toEqual(['$pageview', EVENT, '$pageview'])
    expect(await page.locator('#wren-inspector [role=tab]:has-text("Events")').textContent()).toBe(`Events (${names.length})`)

    const checkout = events.filter({ has: page.locator('.name', { hasText: EVENT }) })
    expect(await checkout.locator('table').isVisible()).toBe(false)
    await checkout.locator('summary').click()
    expect(await checkout.locator('tr:has(th:text-is("plan")) td').textContent()).toBe('pro')
    expect(await checkout.locator('tr:has(th:text-is("cart_items")) td').textContent()).toBe('3')
    expect(await checkout.locator('tr:has(th:text-is("$session_id")) td').textContent()).toBe(sessionId)

    await paused(page)
    const atEvent = await jumpTo(page, checkout.locator('button.jump'))
    const atSecondPage = await jumpTo(
      page,
      events
        .filter({ has: page.locator('.name', { hasText: '$pageview' }) })
        .last()
        .locator('button.jump'),
    )
    expect(atEvent).toBeGreaterThanOrEqual(2)
    expect(atSecondPage).toBeGreaterThan(atEvent)
  })

  it('marks the clicks and page changes under the player, and moves the player to a mark', async () => {
    const { page } = await open(WIDTHS.desktop)
    await playing(page, player())
    const clicks = page.locator('#wren-timeline button.mark.click')
    const pages = page.locator('#wren-timeline button.mark.page')
    // The button (and the link to the second page, when posthog-js sent it before the page went).
    await expect.poll(() => clicks.count()).toBeGreaterThanOrEqual(1)
    const pageLabels = await pages.evaluateAll((marks) => marks.map((mark) => mark.getAttribute('aria-label') ?? ''))
    expect(pageLabels).toEqual([
      expect.stringMatching(/^Page http:\/\/127\.0\.0\.1:\d+\/ at 0:0\d$/),
      expect.stringMatching(/\/next at 0:\d\d$/),
    ])
    await paused(page)
    for (const mark of [clicks.first(), pages.last()]) {
      const at = seconds(/at (\d+:\d\d)$/.exec((await mark.getAttribute('aria-label')) ?? '')![1])
      await mark.click()
      await expect.poll(() => clockOf(page)).toBe(at)
    }
  })

  it('keeps posthog-js’s replay link’s ?t= starting point', async () => {
    const { page } = await open(WIDTHS.desktop)
    await playing(page, `${player()}?t=2`)
    expect(await page.textContent('#wren-status')).toContain('Playing from 0:02.')
  })

  it('a key that may play recordings but not read events still gets the console, and the events tab says why', async () => {
    const created = await call('POST', '/api/personal_api_keys/', { label: 'recordings only', scopes: ['session_recording:read'] })
    expect(created.status, created.text).toBe(201)
    const { page } = await open(WIDTHS.desktop, created.body.value as string)
    await playing(page, player())
    expect(await page.locator('#wren-inspector ol.console li').count()).toBe(3)
    await page.click('#wren-inspector [role=tab]:has-text("Events")')
    await expect.poll(() => page.textContent('[role=tabpanel][aria-label=Events]')).toContain('need a key with query:read')
  })

  it('a shared page shows the console and the marks but no events, and asks Wren for none', async () => {
    const sharing = await call('PATCH', `/api/projects/${t.projectId}/session_recordings/${encodeURIComponent(sessionId)}/sharing/`, {
      enabled: true,
    })
    expect(sharing.status).toBe(200)
    const { page, requests } = await open(WIDTHS.desktop, null)
    await playing(page, `${t.url}/shared/${sharing.body.access_token}`)
    expect(await page.locator('#wren-inspector [role=tab]').allTextContents()).toEqual(['Console (3)'])
    expect(await page.locator('#wren-inspector ol.console li').count()).toBe(3)
    await page.locator('select[aria-label="Console level"]').selectOption('error')
    expect(await page.locator('#wren-inspector ol.console li').allTextContents()).toEqual([expect.stringContaining(ERROR)])
    expect(await page.locator('#wren-timeline button.mark.click').count()).toBeGreaterThanOrEqual(1)
    expect(await page.locator('#wren-timeline button.mark.page').count()).toBe(2)
    expect(requests.filter((url) => url.includes('/events'))).toEqual([])
    // The token reads the recording alone: the events API refuses it.
    const refused = await call(
      'GET',
      `/api/projects/${t.projectId}/events/?sharing_access_token=${sharing.body.access_token}`,
      undefined,
      null,
    )
    expect(refused.status).toBe(401)
  })

  /** Saves a full-page screenshot under test-artifacts/web/, checks it is not blank and the page and inspector fit the width. */
  const shoot = async (page: Page, name: string, width: number) => {
    await expectDrawn(page, name, width, { maxShare: 0.9 })
    const file = `${name}.png`
    expect(await page.locator('#wren-inspector').isVisible(), `${file}: the inspector`).toBe(true)
    const inspector = (await page.locator('#wren-inspector').boundingBox())!
    expect(inspector.x + inspector.width, `${file}: the inspector within the window`).toBeLessThanOrEqual(width)
  }

  it('fits the player and its inspector into a wide and a narrow window (screenshots)', async () => {
    for (const size of Object.values(WIDTHS)) {
      const { page } = await open(size)
      await playing(page, player())
      // Until the replayer has painted the recorded page (its yellow background) into the player.
      await expect
        .poll(async () => colourCounts(await page.locator('.rr-player__frame').screenshot()).counts.get(RECORDED_BACKGROUND) ?? 0, {
          timeout: 10_000,
        })
        .toBeGreaterThan(0)
      await shoot(page, `player-inspector-${size.width}`, size.width)
      await page.click('#wren-inspector [role=tab]:has-text("Events")')
      const checkout = page.locator('#wren-inspector ol.events > li').filter({ has: page.locator('.name', { hasText: EVENT }) })
      await checkout.locator('summary').click()
      await shoot(page, `player-inspector-events-${size.width}`, size.width)
    }
  })

  it('keeps the player within the window when the window narrows, and widens it again (twice over)', async () => {
    const { page } = await open(WIDTHS.desktop)
    await playing(page, player())
    const playerWidth = async () => (await page.locator('.rr-player').boundingBox())!.width
    const wide = await playerWidth()
    expect(wide).toBeGreaterThan(WIDTHS.phone.width)
    for (const round of [1, 2]) {
      await page.setViewportSize(WIDTHS.phone)
      // The page's margins (16 px a side) and no more.
      await expect.poll(playerWidth).toBeLessThanOrEqual(WIDTHS.phone.width - 32)
      const frame = (await page.locator('.rr-player__frame').boundingBox())!
      expect(frame.x + frame.width).toBeLessThanOrEqual(WIDTHS.phone.width)
      await shoot(page, `player-narrowed-${round}-${WIDTHS.phone.width}`, WIDTHS.phone.width)
      await page.setViewportSize(WIDTHS.desktop)
      await expect.poll(playerWidth).toBe(wide)
    }
  })

  it('the person’s page lists their recording, opening the player, and folds their empty properties away', async () => {
    const persons = await call('GET', `/api/projects/${t.projectId}/persons/?distinct_id=${VISITOR}`)
    const person = persons.body.results[0]
    expect(person.properties).toMatchObject({ email: 'inspector@example.com', company: '', nickname: null })
    const { page } = await open(WIDTHS.desktop)
    await page.goto(`${t.url}/project/${t.projectId}/persons/${person.uuid}`)
    const row = (key: string) => page.locator(`tr[data-key="${key}"]`)
    await row('email').waitFor()
    expect(await row('company').count()).toBe(0)
    expect(await row('nickname').count()).toBe(0)
    const empties = Object.values(person.properties as Record<string, unknown>).filter((v) => v === null || v === '').length
    await page.click(`button:has-text("Show ${empties} empty properties")`)
    expect(await row('company').isVisible()).toBe(true)
    expect(await row('nickname').locator('.value').textContent()).toBe('null')
    await page.click(`button:has-text("Hide ${empties} empty properties")`)
    expect(await row('company').count()).toBe(0)

    await page.click('[role=tab]:has-text("Recordings")')
    const link = page.locator('table.recordings a').first()
    await link.waitFor()
    expect(await page.locator('table.recordings tbody tr').count()).toBe(1)
    expect(await link.getAttribute('href')).toBe(`/project/${t.projectId}/replay/${encodeURIComponent(sessionId)}`)
    await link.click()
    await page.waitForURL(player())
    await page.waitForFunction(() => (globalThis as unknown as PageGlobal).document.body.dataset.state === 'playing')
  })
})
