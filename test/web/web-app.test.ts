// Wren's web app (web/, served by services/web/routes.ts): its page, script and styles from Wren alone, the
// app's paths that do not shadow the API or the player, and, in headless Chromium on a Wren with data sent
// through posthog-node, what a user sees: signing in (and a wrong key's error), a trend broken down by
// browser whose legend holds the browsers and whose hover value is the API's number (and whose CSV export is
// the API's), the project switcher (an empty project shows its snippet), a person's property
// edited and still there after a reload, a person deleted once confirmed, a flag created in the page that /flags then answers, the menu
// limited to the key's scopes, a recording listed with its metadata and shared, and every page at 1280 and 390 px wide, one test each (screenshots under test-artifacts/web/,
// checked not blank and not wider than the window).
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import pino from 'pino'
import { PostHog } from 'posthog-node'
import { api, drained, startWren, type TestWren } from '../support/wren'
import { recordingsProcessed, sendSnapshots } from '../support/recordings'
import { skipReason } from '../support/skip'
import {
  chromiumMissing,
  expectDrawn,
  launchChromium,
  pageWidth,
  signedInContext,
  signIn,
  submitKey,
  WEB_ARTIFACTS,
} from '../support/browser'

const unavailable = skipReason('web-app', chromiumMissing())
const WIDTHS = { desktop: { width: 1280, height: 860 }, phone: { width: 390, height: 844 } }

/** What the test reads inside the page (the test is type-checked without the DOM's types). */
interface PageGlobal {
  localStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void }
  document: { querySelector(selector: string): { textContent: string | null } | null }
}

/** Pageviews per browser, from distinct users: the breakdown's values and totals. */
const VISITS: Record<string, Array<[string, number]>> = {
  Chrome: [
    ['ada', 2],
    ['cy', 1],
    ['dee', 1],
  ],
  Firefox: [
    ['bob', 2],
    ['eve', 1],
  ],
  Safari: [['fay', 1]],
}

const SESSION = 'web-app-session-1'

/** Wren's own errors (its log at level error): a page's "Error (500)" names what failed in Wren. */
const serverErrors: string[] = []

describe('the web app', () => {
  let t: TestWren
  let call: ReturnType<typeof api>

  beforeAll(async () => {
    t = await startWren(
      { WREN_RECORDINGS_WAIT_MS: '20' },
      { logger: pino({ level: 'error' }, { write: (line: string) => void serverErrors.push(line.slice(0, 3000)) }) },
    )
    call = api(t)
    const client = new PostHog(t.projectKey, { host: t.url, flushAt: 1000, flushInterval: 0 })
    for (const [browser, visitors] of Object.entries(VISITS))
      for (const [distinctId, times] of visitors)
        for (let i = 0; i < times; i++)
          client.capture({
            distinctId,
            event: '$pageview',
            properties: { $browser: browser, $current_url: `https://shop.example/${browser.toLowerCase()}` },
          })
    // Earlier days, so the chart has a history (today's bucket holds only VISITS).
    for (let daysAgo = 1; daysAgo <= 6; daysAgo++)
      for (const [browser, times] of [
        ['Chrome', 3 + (daysAgo % 3)],
        ['Firefox', 2 + (daysAgo % 2)],
        ['Safari', 1],
      ] as const)
        for (let i = 0; i < times; i++)
          client.capture({
            distinctId: `earlier-${browser.toLowerCase()}-${i}`,
            event: '$pageview',
            properties: { $browser: browser },
            timestamp: new Date(Date.now() - daysAgo * 86_400_000),
          })
    client.identify({ distinctId: 'ada', properties: { email: 'ada@example.com', plan: 'free' } })
    client.identify({ distinctId: 'bob', properties: { email: 'bob@test.org', plan: 'free' } })
    client.capture({ distinctId: 'ada', event: 'signed_up', properties: { $browser: 'Chrome' } })
    await client.shutdown()
    await drained(t.wren)

    // One recorded session of ada's (the project records), as posthog-js sends it to /s/: a page, three clicks, a console error.
    expect((await call('PATCH', `/api/projects/${t.projectId}/`, { session_recording_opt_in: true })).status).toBe(200)
    const start = Date.now() - 60_000
    const snapshots = [
      { type: 4, timestamp: start, data: { href: 'https://shop.example/checkout', width: 800, height: 600 } },
      ...[1, 2, 3].map((i) => ({ type: 3, timestamp: start + i * 1000, data: { source: 2, type: 2, id: 1, x: 10, y: 10 } })),
      { type: 6, timestamp: start + 5000, data: { plugin: 'rrweb/console@1', payload: { level: 'error', payload: ['boom'], trace: [] } } },
    ]
    await sendSnapshots(t, { sessionId: SESSION, distinctId: 'ada', events: snapshots, properties: { $lib: 'web' } })
    await recordingsProcessed(t.wren)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('serves its page, script and styles from Wren, with ETags, and needs nothing from elsewhere', async () => {
    for (const url of ['/', `/project/${t.projectId}`, `/project/${t.projectId}/trends`, `/project/${t.projectId}/persons/some-uuid`]) {
      const res = await fetch(t.url + url)
      expect(res.status, url).toBe(200)
      expect(res.headers.get('content-type'), url).toMatch(/^text\/html/)
      const html = await res.text()
      expect(html, url).toContain('<script src="/static/wren/app.js">')
      // Only Wren's own script runs, it talks to Wren alone, and the page (it takes a key) is never framed.
      const policy = res.headers.get('content-security-policy') ?? ''
      for (const directive of ["default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"])
        expect(policy, url).toContain(directive)
      expect(html, url).not.toMatch(/(src|href)="(https?:)?\/\//)
    }
    for (const [file, type] of [
      ['app.js', /^application\/javascript/],
      ['app.css', /^text\/css/],
    ] as const) {
      const res = await fetch(`${t.url}/static/wren/${file}`)
      expect(res.status, file).toBe(200)
      expect(res.headers.get('content-type'), file).toMatch(type)
      const body = await res.text()
      expect(body.length, file).toBeGreaterThan(1000)
      if (file === 'app.css') {
        expect(body).toContain('.u-legend') // uPlot's own styles, bundled in
        expect(body).not.toMatch(/@import|url\(\s*['"]?(https?:)?\/\//)
      }
      const etag = res.headers.get('etag')!
      expect((await fetch(`${t.url}/static/wren/${file}`, { headers: { 'if-none-match': etag } })).status, file).toBe(304)
    }
  })

  it('leaves the API, the SDK routes and the player page their own', async () => {
    const projects = await call('GET', '/api/projects/', undefined, null)
    expect(projects.status).toBe(401)
    expect(projects.body).toMatchObject({ type: 'authentication_error' })
    const player = await fetch(`${t.url}/project/${t.projectId}/replay/some-session`)
    expect(await player.text()).toContain('"sessionId":"some-session"')
    expect((await fetch(`${t.url}/static/array.js`)).headers.get('content-type')).toMatch(/javascript/)
    const unknown = await call('GET', `/project/${t.projectId}/not-a-page`)
    expect(unknown.status).toBe(400)
    expect(unknown.body).toMatchObject({ type: 'validation_error', attr: expect.stringContaining('section') })
    expect((await call('GET', '/no-such-path')).status).toBe(404)
  })

  describe.skipIf(unavailable !== null)(`in headless Chromium${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
    let browser: Browser
    /** What a test opened (browsers, tabs): closed when it ends, so no page it left (the events list reloads itself) runs on. */
    const opened: Array<BrowserContext | Page> = []
    /** One browser per width signed in with the personal key, made when a test first needs it: tests open tabs of it. */
    const signedIn = new Map<string, Promise<BrowserContext>>()

    beforeAll(async () => {
      browser = await launchChromium()
    })
    afterEach(async () => {
      for (const each of opened.splice(0)) await each.close()
    })
    afterAll(async () => {
      for (const context of signedIn.values()) await (await context).close()
      await browser?.close()
    })

    /** Fails on any request of `page` to anywhere but Wren, or anything its CSP refuses: the list it answers. */
    const watch = (page: Page): string[] => {
      const elsewhere: string[] = []
      page.on('request', (req) => {
        if (!req.url().startsWith(`${t.url}/`) && !/^(data|blob|about):/.test(req.url())) elsewhere.push(req.url())
      })
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) elsewhere.push(message.text())
      })
      return elsewhere
    }
    /** A fresh browser at `size`, with no key stored. */
    const open = async (size: { width: number; height: number }): Promise<{ page: Page; elsewhere: string[] }> => {
      const context = await browser.newContext({ viewport: size })
      opened.push(context)
      const page = await context.newPage()
      return { page, elsewhere: watch(page) }
    }
    /** A new tab of the browser at `size` signed in with the personal key. */
    const tab = async (size: { width: number; height: number }): Promise<{ page: Page; elsewhere: string[] }> => {
      const key = `${size.width}x${size.height}`
      if (!signedIn.has(key)) signedIn.set(key, signedInContext(browser, t.url, t.personalKey, { viewport: size }))
      const page = await (await signedIn.get(key)!).newPage()
      opened.push(page)
      return { page, elsewhere: watch(page) }
    }

    it('shows the API’s error for a wrong key instead of a blank page, and keeps no key in the browser', async () => {
      const { page } = await open(WIDTHS.desktop)
      const refused = await call('GET', '/api/projects/', undefined, 'phx_not_a_key_of_this_wren')
      expect(refused.status).toBe(401)
      await page.goto(t.url + '/')
      await submitKey(page, 'phx_not_a_key_of_this_wren')
      const error = await page.waitForSelector('.error')
      expect(await error.textContent()).toContain(refused.body.detail.replace('Authorization header', 'body'))
      // A session cookie Wren no longer takes (ended, or never its own): the app opens on the sign-in form.
      const context = page.context()
      await context.addCookies([{ name: 'wren_session', value: 'not-a-session', url: t.url }])
      await page.goto(`${t.url}/project/${t.projectId}/trends`)
      await page.waitForSelector('#email')
      expect(await page.isVisible('nav.menu')).toBe(false)
    })

    it('signs in, keeps the key out of the URL and the page’s storage, switches project (an empty one shows the snippet to install), and signs out', async () => {
      const { page, elsewhere } = await open(WIDTHS.desktop)
      await signIn(page, t.url, t.personalKey)
      expect(page.url()).toBe(`${t.url}/project/${t.projectId}/home`)
      expect(page.url()).not.toContain(t.personalKey)
      // A project's own address, typed as PostHog's, opens on its home dashboard.
      await page.goto(`${t.url}/project/${t.projectId}`)
      await page.waitForURL(`${t.url}/project/${t.projectId}/home`)
      // The browser holds a session, never the key: not in storage, not in a cookie the page's script can read.
      const stored = await page.evaluate(() => {
        const g = globalThis as unknown as PageGlobal & { document: { cookie: string } }
        return JSON.stringify([Object.entries(g.localStorage), g.document.cookie])
      })
      expect(stored).not.toContain(t.personalKey)
      expect(stored).not.toContain('wren_session')
      const cookies = await page.context().cookies(t.url)
      expect(cookies.find((c) => c.name === 'wren_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' })
      expect(await page.textContent('nav.menu')).toContain('Feature flags')
      // The page's boot line is gone once the app draws (it used to stay above the app until a reload).
      expect(await page.locator('text=Loading Wren…').count()).toBe(0)

      // The project switcher: an empty project opens on Home with the snippet to install, with that project's key.
      const second = await call('POST', '/api/projects/', { name: 'Second shop' })
      expect(second.status, second.text).toBe(201)
      await page.reload()
      await page.selectOption('select[aria-label=Project]', String(second.body.id))
      await page.waitForURL(`${t.url}/project/${second.body.id}/home`)
      await page.waitForSelector('text=No events yet — install the snippet')
      expect(await page.textContent('[data-testid=snippet]')).toContain(second.body.api_token)
      expect(await page.textContent('[data-testid=snippet]')).toContain(`api_host: ${JSON.stringify(t.url)}`)
      // Signing out ends the session on the server: the old cookie, replayed, opens nothing.
      const before = (await page.context().cookies(t.url)).find((c) => c.name === 'wren_session')!.value
      await page.click('button.signout')
      await page.waitForSelector('#email')
      const replayed = await fetch(`${t.url}/api/users/@me/`, { headers: { cookie: `wren_session=${before}` } })
      expect(replayed.status).toBe(401)
      expect(elsewhere).toEqual([])
    })

    it('shows only the pages a key’s scopes allow', async () => {
      const created = await call('POST', '/api/personal_api_keys/', { label: 'trends only', scopes: ['insight:read', 'project:read'] })
      expect(created.status, created.text).toBe(201)
      const { page } = await open(WIDTHS.desktop)
      await signIn(page, t.url, created.body.value)
      expect((await page.locator('nav.menu a').allTextContents()).sort()).toEqual(['Saved insights', 'Settings', 'Trends'])
      await page.goto(`${t.url}/project/${t.projectId}/persons`)
      expect(await (await page.waitForSelector('.error')).textContent()).toContain('person:read')
    })

    it('opens a key that cannot read the project on the first page it can read, never on a Home it cannot find', async () => {
      // Which dashboard is Home is the project's to say (its primary_dashboard): a key without project:read cannot know.
      const created = await call('POST', '/api/personal_api_keys/', {
        label: 'dashboards without the project',
        scopes: ['dashboard:read', 'insight:read'],
      })
      expect(created.status, created.text).toBe(201)
      const home = (await call('GET', `/api/projects/${t.projectId}/`)).body.primary_dashboard
      const board = (await call('GET', `/api/projects/${t.projectId}/dashboards/${home}/`)).body
      const { page } = await open(WIDTHS.phone)
      await signIn(page, t.url, created.body.value)
      await page.waitForURL(`${t.url}/project/${t.projectId}/dashboards`)
      await page.waitForSelector(`table.list a:has-text("${board.name}")`)
      expect(await page.locator('nav.menu a').allTextContents()).toEqual(['Dashboards', 'Trends', 'Saved insights'])
      expect(await page.textContent('main.content')).not.toContain('no home dashboard')
      await expectDrawn(page, 'key-without-project-phone', WIDTHS.phone.width, { maxShare: 0.97 })

      // The project's home dashboard opens from the list, the menu moves on, and the logo leads back to where the app opened.
      await page.click(`table.list a:has-text("${board.name}")`)
      await page.waitForURL(`${t.url}/project/${t.projectId}/dashboards/${home}`)
      await page.waitForSelector(`.page-header h1:has-text("${board.name}")`)
      await page.click('nav.menu .menu-toggle')
      await page.click('nav.menu a:has-text("Saved insights")')
      await page.waitForURL(`${t.url}/project/${t.projectId}/insights`)
      await page.click('a.brand')
      await page.waitForURL(`${t.url}/project/${t.projectId}/dashboards`)
      // Home's own address names the scope the key lacks, rather than a Home with nothing on it.
      await page.goto(`${t.url}/project/${t.projectId}/home`)
      expect(await (await page.waitForSelector('.error')).textContent()).toContain('project:read')
      expect(await page.textContent('main.content')).not.toContain('no home dashboard')
    })

    it('reaches every page from the menu at 390 px: a button naming the page opens the list, a link goes there and folds it', async () => {
      const { page } = await tab(WIDTHS.phone)
      await page.goto(`${t.url}/project/${t.projectId}/home`)
      const toggle = page.locator('nav.menu button.menu-toggle')
      const links = page.locator('nav.menu a')
      await page.waitForSelector('nav.menu a.active', { state: 'attached' })
      expect(await toggle.isVisible(), 'the menu’s button').toBe(true)
      expect(await toggle.textContent()).toContain('Home')
      expect(await links.first().isVisible()).toBe(false)
      const pages = await links.evaluateAll((as) => as.map((a) => [a.textContent ?? '', a.getAttribute('href') ?? '']))
      expect(pages.map(([title]) => title)).toEqual([
        'Home',
        'Dashboards',
        'Trends',
        'Saved insights',
        'Events',
        'SQL',
        'Persons',
        'Feature flags',
        'Experiments',
        'Surveys',
        'Cohorts',
        'Actions',
        'Recordings',
        'Settings',
        'Members',
        'Account',
        'API keys',
      ])
      // Each page in turn, from the last (Home is where it opened): open the menu, go, and the menu folds, naming the page.
      for (const [title, href] of pages.reverse()) {
        await toggle.click()
        const link = page.locator('nav.menu a', { hasText: new RegExp(`^${title}$`) })
        expect(await link.isVisible(), title).toBe(true)
        const box = (await link.boundingBox())!
        expect(box.x >= 0 && box.x + box.width <= WIDTHS.phone.width && box.y + box.height <= WIDTHS.phone.height, title).toBe(true)
        if (title === 'Persons') await expectDrawn(page, 'menu-open-phone', WIDTHS.phone.width, { maxShare: 0.97 })
        await link.click()
        await page.waitForURL((url) => url.pathname === href)
        expect(await toggle.textContent(), title).toContain(title)
        expect(await link.getAttribute('aria-current'), title).toBe('page')
        expect(await link.isVisible(), `${title}: the menu folds`).toBe(false)
        expect(await pageWidth(page), title).toBeLessThanOrEqual(WIDTHS.phone.width)
      }

      // A wide window shows the links themselves, every one in sight, and no button.
      const { page: wide } = await tab(WIDTHS.desktop)
      await wide.goto(`${t.url}/project/${t.projectId}/events`)
      await wide.waitForSelector('nav.menu a.active')
      expect(await wide.locator('nav.menu button.menu-toggle').isVisible()).toBe(false)
      for (const link of await wide.locator('nav.menu a').all()) {
        const box = (await link.boundingBox())!
        expect(box.x + box.width).toBeLessThanOrEqual(WIDTHS.desktop.width)
      }
    })

    it('keeps every column of the lists at 390 px: each scrolls into sight inside its card, the page no wider than the window', async () => {
      const base = `/api/projects/${t.projectId}`
      const made = await Promise.all([
        call('POST', `${base}/cohorts/`, { name: 'Free plan', groups: [{ properties: [{ key: 'plan', value: 'free', type: 'person' }] }] }),
        call('POST', `${base}/feature_flags/`, {
          key: 'narrow-rollout',
          name: 'Half of everyone',
          filters: { groups: [{ properties: [], rollout_percentage: 50 }] },
        }),
        call('POST', `${base}/dashboards/`, { name: 'Browsers', description: 'Which browsers our visitors use, week by week' }),
      ])
      for (const res of made) expect(res.status, res.text).toBe(201)
      const insight = await call('POST', `${base}/insights/`, {
        name: 'Pageviews by browser',
        dashboards: [made[2].body.id],
        query: { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }] } },
      })
      expect(insight.status, insight.text).toBe(201)

      for (const section of ['events', 'persons', 'feature_flags', 'cohorts', 'insights', 'dashboards']) {
        const headers: string[][] = []
        for (const [name, size] of Object.entries(WIDTHS)) {
          const { page } = await tab(size)
          await page.goto(`${t.url}/project/${t.projectId}/${section}`)
          const table = page.locator('.card.scroll table').first()
          await table.locator('tbody tr').first().waitFor()
          const ths = table.locator('thead th')
          headers.push(await ths.allTextContents())
          if (name === 'desktop') continue
          for (const [i, th] of (await ths.all()).entries()) {
            const what = `${section}: column ${i + 1} (${headers[0][i]})`
            expect(await th.isVisible(), what).toBe(true)
            await th.scrollIntoViewIfNeeded()
            const box = (await th.boundingBox())!
            expect(box.x >= 0 && box.x + box.width <= size.width + 0.5, `${what} within the window`).toBe(true)
          }
          // Scrolled, not cut: the card scrolls sideways when the table is wider than it.
          const overflow = await table.evaluate(
            (el) =>
              (globalThis as unknown as { getComputedStyle(e: unknown): { overflowX: string } }).getComputedStyle(
                el.closest('.card.scroll'),
              ).overflowX,
          )
          expect(overflow).toBe('auto')
          await table.evaluate((el) => el.closest('.card.scroll')!.scrollTo({ left: 0 }))
          await expectDrawn(page, `list-${section}-${name}`, size.width, { maxShare: 0.97 })
        }
        expect(headers[1], section).toEqual(headers[0])
      }
    })

    it('lists the events through the Query API as an EventsQuery: the same events as the events list, newest first', async () => {
      const { page } = await tab(WIDTHS.desktop)
      const asked = page.waitForRequest((r) => r.method() === 'POST' && r.url() === `${t.url}/api/projects/${t.projectId}/query/`)
      await page.goto(`${t.url}/project/${t.projectId}/events`)
      expect((await asked).postDataJSON().query).toMatchObject({
        kind: 'EventsQuery',
        select: ['*', 'person_id'],
        orderBy: ['timestamp DESC'],
      })
      const rows = page.locator('table.events tbody tr.clickable')
      await rows.first().waitFor()
      const shown = await rows.evaluateAll((trs) => trs.map((tr) => [tr.children[0].textContent, tr.children[1].textContent].join(' ')))
      const listed = (await call('GET', `/api/projects/${t.projectId}/events/?limit=100`)).body.results
      expect(shown.sort()).toEqual(listed.map((e: { event: string; distinct_id: string }) => `${e.event} ${e.distinct_id}`).sort())
    })

    it('draws a trend broken down by browser: the legend holds the browsers and the hover value is the API’s number', async () => {
      const { page, elsewhere } = await tab(WIDTHS.desktop)
      const search = new URLSearchParams({ breakdown: '$browser', breakdown_type: 'event' })
      await page.goto(`${t.url}/project/${t.projectId}/trends?${search}`)
      await page.waitForSelector('.u-legend .u-series:nth-child(4)')
      const legend = await page.locator('.u-legend .u-series .u-label').allTextContents()
      expect(legend.slice(1).sort()).toEqual(Object.keys(VISITS).sort())

      // What the page asks for (web/src/query.ts's trendBody of this URL's query).
      const trendQuery = {
        events: [{ id: '$pageview', type: 'events', order: 1, math: 'total' }],
        actions: [],
        date_from: '-7d',
        interval: 'day',
        display: 'ActionsLineGraph',
        breakdown_type: 'event',
        breakdown: '$browser',
      }
      const trend = await call('POST', `/api/projects/${t.projectId}/insights/trend/`, trendQuery)
      expect(trend.status, trend.text).toBe(200)
      const chrome = trend.body.result.find((s: { breakdown_value: string }) => s.breakdown_value === 'Chrome')
      const today = chrome.data.length - 1
      expect(chrome.data[today]).toBe(4)

      // Hover the bucket of today: the legend shows that bucket's label and each series' value there.
      const over = (await page.locator('.u-over').boundingBox())!
      await page.mouse.move(over.x + over.width * (today / (chrome.data.length - 1)) - 1, over.y + over.height / 2)
      const row = (label: string) =>
        page.locator('.u-legend .u-series', { has: page.locator('.u-label', { hasText: label }) }).locator('.u-value')
      await page.waitForFunction(
        () => (globalThis as unknown as PageGlobal).document.querySelector('.u-legend .u-series .u-value')?.textContent !== '',
      )
      expect(await page.locator('.u-legend .u-series').first().locator('.u-value').textContent()).toBe(chrome.labels[today])
      expect(await row('Chrome').textContent()).toBe(String(chrome.data[today]))
      const firefox = trend.body.result.find((s: { breakdown_value: string }) => s.breakdown_value === 'Firefox')
      expect(await row('Firefox').textContent()).toBe(String(firefox.data[today]))

      // Export CSV saves what the API's ?format=csv answers for the same query.
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('button:has-text("Export CSV")')])
      const saved = await readFile((await download.path())!, 'utf8')
      const csv = await fetch(`${t.url}/api/projects/${t.projectId}/insights/trend/?format=csv`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.personalKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(trendQuery),
      })
      expect(saved).toBe(await csv.text())
      expect(saved).toContain('Chrome')

      // The query is in the URL: a reload draws the same chart.
      await page.reload()
      await page.waitForSelector('.u-legend .u-series:nth-child(4)')
      expect(await page.inputValue('input[aria-label="Breakdown property"]')).toBe('$browser')
      await page.screenshot({ path: path.join(WEB_ARTIFACTS, 'trends-breakdown-desktop.png'), fullPage: true })
      expect(elsewhere).toEqual([])
    })

    it('edits a person’s property, and the new value is there after a reload', async () => {
      const { page } = await tab(WIDTHS.desktop)
      await page.goto(`${t.url}/project/${t.projectId}/persons?search=ada%40example.com`)
      await page.click('table.list a:has-text("ada@example.com")')
      const plan = page.locator('tr[data-key="plan"]')
      await expect.poll(() => plan.locator('.value').textContent()).toBe('free')
      await plan.locator('button[aria-label="Edit plan"]').click()
      await plan.locator('input').fill('enterprise')
      await plan.locator('button[type=submit]').click()
      await page.waitForSelector('tr[data-key="plan"] .value')
      await page.reload()
      await expect.poll(() => page.locator('tr[data-key="plan"] .value').textContent(), { timeout: 10_000 }).toBe('enterprise')
      const persons = await call('GET', `/api/projects/${t.projectId}/persons/?distinct_id=ada`)
      expect(persons.body.results[0].properties.plan).toBe('enterprise')
    })

    it('deletes a person only once the deletion is confirmed', async () => {
      const { page } = await tab(WIDTHS.desktop)
      const fay = (await call('GET', `/api/projects/${t.projectId}/persons/?distinct_id=fay`)).body.results[0]
      await page.goto(`${t.url}/project/${t.projectId}/persons/${fay.uuid}`)
      await page.click('.page-header button:has-text("Delete person")')
      await page.click('[aria-label="Confirm delete"] button:has-text("Cancel")')
      expect((await call('GET', `/api/projects/${t.projectId}/persons/${fay.uuid}/`)).status).toBe(200)
      await page.click('.page-header button:has-text("Delete person")')
      await page.click('[aria-label="Confirm delete"] button:has-text("Delete person")')
      await page.waitForURL(`${t.url}/project/${t.projectId}/persons`)
      expect((await call('GET', `/api/projects/${t.projectId}/persons/${fay.uuid}/`)).status).toBe(404)
    })

    it('creates a cohort in the page and saves an edit of it, as the API then shows', async () => {
      const { page } = await tab(WIDTHS.desktop)
      await page.goto(`${t.url}/project/${t.projectId}/cohorts/new`)
      await page.fill('input[name=name]', 'Example people')
      await page.click('button:has-text("Add filter")')
      await page.fill('input[aria-label="Property key"]', 'email')
      await page.selectOption('select[aria-label="Operator"]', 'icontains')
      await page.fill('input[aria-label="Value"]', 'example.com')
      await page.click('button:has-text("Create cohort")')
      await page.waitForSelector('table.list a:has-text("Example people")')
      const cohorts = async () =>
        (await call('GET', `/api/projects/${t.projectId}/cohorts/`)).body.results as Array<{
          id: number
          name: string
          description: string
        }>
      const created = (await cohorts()).find((c) => c.name === 'Example people')!
      expect(JSON.stringify(created)).toContain('example.com')

      await page.click('table.list a:has-text("Example people")')
      await page.fill('input[name=description]', 'people with an example.com address')
      await page.click('button:has-text("Save")')
      await page.waitForSelector('table.list a:has-text("Example people")')
      expect((await cohorts()).find((c) => c.id === created.id)).toMatchObject({ description: 'people with an example.com address' })
    })

    it('creates a flag in the page that /flags then returns for a matching distinct id', async () => {
      const { page } = await tab(WIDTHS.desktop)
      await page.goto(`${t.url}/project/${t.projectId}/feature_flags/new`)
      await page.fill('input[name=key]', 'example-staff')
      await page.fill('input[name=name]', 'Only example.com people')
      await page.click('.condition button:has-text("Add filter")')
      await page.fill('.condition input[aria-label="Property key"]', 'email')
      await page.selectOption('.condition select[aria-label="Operator"]', 'icontains')
      await page.fill('.condition input[aria-label="Value"]', 'example.com')
      await page.fill('textarea[name=payload]', '{"banner": true}')
      await page.click('button:has-text("Create flag")')
      await page.waitForSelector('table.list a:has-text("example-staff")')

      const flags = async (distinctId: string) => {
        const res = await fetch(`${t.url}/flags?v=2`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ token: t.projectKey, distinct_id: distinctId }),
        })
        return ((await res.json()) as { flags: Record<string, { enabled: boolean; metadata?: { payload?: unknown } }> }).flags
      }
      expect((await flags('ada'))['example-staff']).toMatchObject({ enabled: true, metadata: { payload: '{"banner": true}' } })
      expect((await flags('bob'))['example-staff']).toMatchObject({ enabled: false })

      // The page's own box asks /flags the same question.
      await page.fill('#test-distinct-id', 'ada')
      await page.click('.test-flags button[type=submit]')
      expect(await (await page.waitForSelector('tr[data-flag="example-staff"] td.on')).textContent()).toBe('enabled')
    })

    it('lists a recording with its metadata, links it to the player, and shares it', async () => {
      const { page } = await tab(WIDTHS.desktop)
      await page.goto(`${t.url}/project/${t.projectId}/recordings`)
      const row = page.locator('table.recordings tbody tr', { has: page.locator(`a[href$="/replay/${SESSION}"]`) })
      await row.waitFor()
      const cells = await row.locator('td').allTextContents()
      expect(cells.slice(0, 6)).toEqual(['ada@example.com', '5s', expect.any(String), '3', '1', 'https://shop.example/checkout'])
      expect(await row.locator('a').first().getAttribute('href')).toBe(`/project/${t.projectId}/replay/${SESSION}`)
      await row.locator('button:has-text("Share")').click()
      const link = await row.locator('input[aria-label="Sharing link"]').inputValue()
      expect(link).toMatch(new RegExp(`^${t.url}/shared/[\\w-]+$`))
      const shared = await fetch(link)
      expect(shared.status).toBe(200)
      expect(shared.headers.get('content-type')).toMatch(/^text\/html/)
    })

    // One test per page and width, so a slow page on a busy machine has its own time and a failure names it.
    const PAGES: Array<[string, (adaUuid: string) => string]> = [
      ['trends', () => `trends?breakdown=%24browser&breakdown_type=event`],
      ['events', () => 'events'],
      ['sql', () => `sql?q=${encodeURIComponent('select event, count() as c\nfrom events\ngroup by event\norder by c desc')}`],
      ['persons', () => 'persons'],
      ['person', (adaUuid) => `persons/${adaUuid}`],
      ['feature-flags', () => 'feature_flags'],
      ['feature-flag-new', () => 'feature_flags/new'],
      ['cohorts', () => 'cohorts'],
      ['actions', () => 'actions'],
      ['recordings', () => 'recordings'],
      ['settings', () => 'settings'],
    ]
    describe.each(Object.entries(WIDTHS))('at %s width: not blank, no error, nothing wider than the window', (name, size) => {
      it('draws the sign-in page', async () => {
        const { page, elsewhere } = await open(size)
        await page.goto(t.url + '/')
        await page.waitForSelector('#email')
        await expectDrawn(page, `sign-in-${name}`, size.width, { maxShare: 0.97 })
        expect(elsewhere).toEqual([])
      })

      // One browser signed in once (per width): each page opens in a new tab of it.
      let adaUuid: string
      beforeAll(async () => {
        adaUuid = (await call('GET', `/api/projects/${t.projectId}/persons/?distinct_id=ada`)).body.results[0].uuid
      })

      it.each(PAGES)('draws the %s page', async (title, url) => {
        const { page, elsewhere } = await tab(size)
        await page.goto(`${t.url}/project/${t.projectId}/${url(adaUuid)}`)
        await page.waitForSelector('.page-header h1')
        await page.waitForFunction(() => !(globalThis as unknown as PageGlobal).document.querySelector('.loading'))
        const shown = `${title}: ${await page.locator('.error').allTextContents()}; Wren's errors: ${serverErrors.join('\n')}`
        expect(await page.locator('.error').count(), shown).toBe(0)
        await expectDrawn(page, `${title}-${name}`, size.width, { maxShare: 0.97 })
        expect(elsewhere).toEqual([])
      })
    })

    // The editors (issue 34): the cohort editor picks cohorts by name and shows its persons a page at a time; the
    // actions editor matches autocaptured clicks by text, selector and href, and pages by URL; the recordings list
    // filters through the property filter component. Each control is driven twice.
    describe('the editors', () => {
      const BLUE = 30
      const BUY = 'https://shop.example/cart'
      const HOME = 'https://shop.example/home'
      /** An autocaptured click as posthog-js sends it: the element chain, innermost first. */
      const click = (chain: string, url: string) => ({ event: '$autocapture', properties: { $elements_chain: chain, $current_url: url } })
      const CLICKS: Array<[string, ReturnType<typeof click>, number]> = [
        ['buyer', click('button.buy:nth-child="1"nth-of-type="1"text="Buy now";div.shop:nth-child="1"', BUY), 3],
        ['later', click('button.buy:nth-child="2"nth-of-type="2"text="Buy later";div.shop:nth-child="1"', BUY), 1],
        ['promo', click('a.promo:attr__href="/sale/summer"href="/sale/summer"nth-child="1"text="Summer sale"', HOME), 2],
        ['about', click('a.other:attr__href="/about"href="/about"nth-child="2"text="About"', HOME), 1],
        // The same text as the buy button, on another page: the step's URL regex leaves it out.
        ['elsewhere', click('button.buy:nth-child="1"text="Buy now"', HOME), 1],
      ]
      const BOB_SESSION = 'web-app-session-2'

      beforeAll(async () => {
        const client = new PostHog(t.projectKey, { host: t.url, flushAt: 1000, flushInterval: 0 })
        // Persons for the cohorts: a blue team of BLUE, three of them (and one red) early birds.
        for (let i = 0; i < BLUE; i++)
          client.identify({ distinctId: `blue-${i}`, properties: { team: 'blue', ...(i < 3 ? { plan: 'early' } : {}) } })
        client.identify({ distinctId: 'red-0', properties: { team: 'red', plan: 'early' } })
        for (const [who, event, times] of CLICKS) for (let i = 0; i < times; i++) client.capture({ distinctId: `${who}-${i}`, ...event })
        // Events in the two recorded sessions: ada checks out (Chrome), bob views a page in Firefox.
        client.capture({ distinctId: 'ada', event: 'checkout_started', properties: { $session_id: SESSION, $browser: 'Chrome' } })
        client.capture({ distinctId: 'bob', event: '$pageview', properties: { $session_id: BOB_SESSION, $browser: 'Firefox' } })
        await client.shutdown()
        await drained(t.wren)
        // bob's recording: 40 s, one click, a console warning and no error (ada's: 5 s, three clicks, an error).
        const start = Date.now() - 120_000
        const snapshots = [
          { type: 4, timestamp: start, data: { href: 'https://shop.example/firefox', width: 800, height: 600 } },
          { type: 3, timestamp: start + 1000, data: { source: 2, type: 2, id: 1, x: 10, y: 10 } },
          {
            type: 6,
            timestamp: start + 40_000,
            data: { plugin: 'rrweb/console@1', payload: { level: 'warn', payload: ['slow'], trace: [] } },
          },
        ]
        await sendSnapshots(t, { sessionId: BOB_SESSION, distinctId: 'bob', events: snapshots, properties: { $lib: 'web' } })
        await recordingsProcessed(t.wren)
      })

      it('filters the events list by an element and a HogQL filter, each added, changed and removed', async () => {
        const { page } = await tab(WIDTHS.desktop)
        await page.goto(`${t.url}/project/${t.projectId}/events?event=%24autocapture`)
        const rows = page.locator('fieldset.filters .filter-row')
        const people = () => page.locator('table.events tbody tr td:nth-child(2)').allTextContents()
        const shows = async (expected: string[]) => {
          if (expected.length === 0) await page.waitForSelector('text=No events match.')
          else await expect.poll(async () => (await people()).sort()).toEqual(expected)
        }
        // The element's text: the buy button's clicks, on either page.
        await page.click('button:has-text("Add filter")')
        await rows.nth(0).locator('select[aria-label="Property type"]').selectOption('element')
        expect(await rows.nth(0).locator('select[aria-label="Property key"]').inputValue()).toBe('text')
        await rows.nth(0).locator('input[aria-label="Value"]').fill('Buy now')
        await shows(['buyer-0', 'buyer-1', 'buyer-2', 'elsewhere-0'])
        // A second filter, in HogQL: only the cart page's.
        await page.click('button:has-text("Add filter")')
        await rows.nth(1).locator('select[aria-label="Property type"]').selectOption('hogql')
        await rows.nth(1).locator('input[aria-label="HogQL expression"]').fill(`properties.$current_url = '${BUY}'`)
        await shows(['buyer-0', 'buyer-1', 'buyer-2'])
        // The element filter changed to a selector (= only): the promo link's clicks, none of them on the cart page.
        await rows.nth(0).locator('select[aria-label="Property key"]').selectOption('selector')
        expect(await rows.nth(0).locator('select[aria-label="Operator"] option').allTextContents()).toEqual(['=', '≠'])
        await rows.nth(0).locator('input[aria-label="Value"]').fill('a.promo')
        await shows([])
        await rows.nth(1).locator('button[aria-label="Remove filter"]').click()
        await shows(['promo-0', 'promo-1'])
        await expectDrawn(page, 'events-element-filter-desktop', WIDTHS.desktop.width)
      })

      it('picks a cohort’s cohorts by name, keeps their ids, and shows its persons a page at a time', async () => {
        const cohort = async (name: string, filter: object) => {
          const res = await call('POST', `/api/projects/${t.projectId}/cohorts/`, {
            name,
            filters: { properties: { type: 'AND', values: [{ type: 'person', operator: 'exact', ...filter }] } },
          })
          expect(res.status, res.text).toBe(201)
          return res.body.id as number
        }
        const blue = await cohort('Blue team', { key: 'team', value: 'blue' })
        const early = await cohort('Early birds', { key: 'plan', value: 'early' })

        const { page } = await tab(WIDTHS.desktop)
        await page.goto(`${t.url}/project/${t.projectId}/cohorts/new`)
        await page.fill('input[name=name]', 'Early blue')
        const rows = page.locator('.filter-row')
        for (const [i, name] of ['Blue team', 'Early birds'].entries()) {
          await page.click('button:has-text("Add filter")')
          await rows.nth(i).locator('select[aria-label="Property type"]').selectOption('cohort')
          await rows.nth(i).locator('select[aria-label="Cohort"]').selectOption({ label: name })
        }
        await page.click('button:has-text("Create cohort")')
        await page.waitForSelector('table.list a:has-text("Early blue")')
        const created = (
          (await call('GET', `/api/projects/${t.projectId}/cohorts/`)).body.results as Array<{ id: number; name: string }>
        ).find((c) => c.name === 'Early blue')!
        const saved = (await call('GET', `/api/projects/${t.projectId}/cohorts/${created.id}/`)).body
        expect(saved.filters.properties.values[0].values).toMatchObject([
          { key: 'id', value: blue, type: 'cohort' },
          { key: 'id', value: early, type: 'cohort' },
        ])
        const members = (
          await call(
            'GET',
            `/api/projects/${t.projectId}/persons/?properties=${encodeURIComponent(JSON.stringify([{ key: 'id', value: created.id, type: 'cohort' }]))}`,
          )
        ).body
        expect(members.results.map((p: { distinct_ids: string[] }) => p.distinct_ids[0]).sort()).toEqual(['blue-0', 'blue-1', 'blue-2'])

        // Reopened: the cohorts by name, and its persons (the API's).
        await page.click('table.list a:has-text("Early blue")')
        const persons = page.locator('.cohort-persons table.list tbody tr td:first-child')
        await expect.poll(() => persons.allTextContents().then((names) => names.sort())).toEqual(['blue-0', 'blue-1', 'blue-2'])
        const picked = await page.$$eval('select[aria-label="Cohort"]', (selects) =>
          selects.map((s) => (s as unknown as { selectedOptions: Array<{ textContent: string }> }).selectedOptions[0].textContent),
        )
        expect(picked).toEqual(['Blue team', 'Early birds'])
        await expectDrawn(page, 'cohort-editor-desktop', WIDTHS.desktop.width)

        // A cohort of BLUE persons: 25 a page, the next page the rest, and back.
        const narrow = (await tab(WIDTHS.phone)).page
        await narrow.goto(`${t.url}/project/${t.projectId}/cohorts/${blue}`)
        const shown = narrow.locator('.cohort-persons table.list tbody tr')
        const pager = narrow.locator('.cohort-persons .pager')
        await expect.poll(() => pager.locator('span').textContent()).toBe(`1–25 of ${BLUE}`)
        expect(await shown.count()).toBe(25)
        await pager.locator('button:has-text("Next")').click()
        await expect.poll(() => pager.locator('span').textContent()).toBe(`26–${BLUE} of ${BLUE}`)
        expect(await shown.count()).toBe(BLUE - 25)
        expect(await pager.locator('button:has-text("Next")').isDisabled()).toBe(true)
        await expectDrawn(narrow, 'cohort-persons-phone', WIDTHS.phone.width)
        await pager.locator('button:has-text("Previous")').click()
        await expect.poll(() => pager.locator('span').textContent()).toBe(`1–25 of ${BLUE}`)
      })

      it('filters the persons list by a person property and a cohort picked by name, each added, changed and removed', async () => {
        const { page } = await tab(WIDTHS.desktop)
        await page.goto(`${t.url}/project/${t.projectId}/persons`)
        const rows = page.locator('fieldset.filters .filter-row')
        const shown = () => page.locator('table tbody tr td:nth-child(2)').allTextContents()
        const shows = async (expected: string[]) => {
          if (expected.length === 0) await page.waitForSelector('text=No persons match.')
          else await expect.poll(async () => (await shown()).sort()).toEqual(expected)
        }
        await page.click('button:has-text("Add filter")')
        await rows.nth(0).locator('input[aria-label="Property key"]').fill('team')
        await rows.nth(0).locator('input[aria-label="Value"]').fill('red')
        await shows(['red-0'])
        // A second filter: the early birds cohort (made by the cohorts test), by its name.
        await page.click('button:has-text("Add filter")')
        await rows.nth(1).locator('select[aria-label="Property type"]').selectOption('cohort')
        await rows.nth(1).locator('select[aria-label="Cohort"]').selectOption({ label: 'Early birds' })
        await shows(['red-0'])
        await rows.nth(0).locator('input[aria-label="Value"]').fill('blue')
        await shows(['blue-0', 'blue-1', 'blue-2'])
        await rows.nth(0).locator('button[aria-label="Remove filter"]').click()
        await shows(['blue-0', 'blue-1', 'blue-2', 'red-0'])
        // The filters are in the address: a reload keeps the list and the cohort's row.
        await page.reload()
        await shows(['blue-0', 'blue-1', 'blue-2', 'red-0'])
        expect(await rows.count()).toBe(1)
        await expectDrawn(page, 'persons-filters-desktop', WIDTHS.desktop.width)
      })

      it('matches autocaptured clicks by element text, selector, href and URL, kept on save and reopen', async () => {
        /** The events the action matches now, as the Query API counts them. */
        const matched = async (id: number) => {
          const res = await call('POST', `/api/projects/${t.projectId}/query/`, {
            query: { kind: 'EventsQuery', select: ['count()'], actionId: id },
          })
          expect(res.status, res.text).toBe(200)
          return res.body.results[0][0] as number
        }
        const { page } = await tab(WIDTHS.desktop)
        await page.goto(`${t.url}/project/${t.projectId}/actions/new`)
        await page.fill('input[name=name]', 'Bought or on sale')
        // Step 1: the "Buy now" button on the cart page.
        await page.fill('input[aria-label="Step 1 event"]', '$autocapture')
        await page.selectOption('select[aria-label="Step 1 text matching"]', 'exact')
        await page.fill('input[aria-label="Step 1 text"]', 'Buy now')
        await page.selectOption('select[aria-label="Step 1 URL matching"]', 'regex')
        await page.fill('input[aria-label="Step 1 URL"]', '/cart$')
        // Step 2: a promo link to a sale, on the shop's pages.
        await page.click('button:has-text("Add a step")')
        await page.fill('input[aria-label="Step 2 event"]', '$autocapture')
        await page.fill('input[aria-label="Step 2 selector"]', 'a.promo')
        await page.selectOption('select[aria-label="Step 2 href matching"]', 'contains')
        await page.fill('input[aria-label="Step 2 href"]', '/sale')
        await page.fill('input[aria-label="Step 2 URL"]', 'shop.example')
        await page.click('button:has-text("Create action")')
        await page.waitForSelector('table.list a:has-text("Bought or on sale")')

        const actions = (await call('GET', `/api/projects/${t.projectId}/actions/`)).body.results as Array<{ id: number; name: string }>
        const id = actions.find((a) => a.name === 'Bought or on sale')!.id
        expect((await call('GET', `/api/projects/${t.projectId}/actions/${id}/`)).body.steps).toMatchObject([
          { event: '$autocapture', text: 'Buy now', text_matching: 'exact', url: '/cart$', url_matching: 'regex' },
          {
            event: '$autocapture',
            selector: 'a.promo',
            href: '/sale',
            href_matching: 'contains',
            url: 'shop.example',
            url_matching: 'contains',
          },
        ])
        // 3 "Buy now" clicks on the cart and 2 promo clicks; not "Buy later", the about link, nor "Buy now" elsewhere.
        expect(await matched(id)).toBe(3 + 2)

        // Reopened, the steps are as saved; widen step 1's text to "contains Buy": the "Buy later" click counts too.
        await page.click('table.list a:has-text("Bought or on sale")')
        expect(await page.inputValue('input[aria-label="Step 1 text"]')).toBe('Buy now')
        expect(await page.inputValue('select[aria-label="Step 1 URL matching"]')).toBe('regex')
        expect(await page.inputValue('input[aria-label="Step 2 selector"]')).toBe('a.promo')
        expect(await page.inputValue('select[aria-label="Step 2 href matching"]')).toBe('contains')
        expect(await page.inputValue('input[aria-label="Step 2 href"]')).toBe('/sale')
        await page.selectOption('select[aria-label="Step 1 text matching"]', 'contains')
        await page.fill('input[aria-label="Step 1 text"]', 'Buy')
        await expectDrawn(page, 'action-editor-desktop', WIDTHS.desktop.width)
        await page.click('button:has-text("Save")')
        await page.waitForSelector('table.list a:has-text("Bought or on sale")')
        expect(await matched(id)).toBe(3 + 1 + 2)

        const narrow = (await tab(WIDTHS.phone)).page
        await narrow.goto(`${t.url}/project/${t.projectId}/actions/${id}`)
        await narrow.waitForSelector('input[aria-label="Step 2 selector"]')
        await expectDrawn(narrow, 'action-editor-phone', WIDTHS.phone.width)
      })

      it('filters the recordings by events performed, person, event, recording and console filters, all or any', async () => {
        const { page } = await tab(WIDTHS.desktop)
        await page.goto(`${t.url}/project/${t.projectId}/recordings`)
        /** The recordings listed (their persons), once the list has answered for the filters just set. */
        const listed = () =>
          page.evaluate(() => {
            const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): Array<{ textContent: string | null }> } })
              .document
            return [...doc.querySelectorAll('table.recordings tbody tr td:first-child')].map((td) => td.textContent).sort()
          })
        /** Makes `change`, waits for the list's answer to a request whose parameters hold `asked`, and checks the rows. */
        const after = async (change: () => Promise<unknown>, asked: string, expected: string[]) => {
          const answered = page.waitForResponse(
            (r) => r.url().includes('/session_recordings/?') && [...new URL(r.url()).searchParams.values()].join(' ').includes(asked),
          )
          await change()
          expect((await answered).status()).toBe(200)
          await expect.poll(listed).toEqual(expected)
          if (expected.length === 0) await page.waitForSelector('text=No recordings here.')
          expect(await page.locator('.error').count()).toBe(0)
        }
        const both = ['ada@example.com', 'bob@test.org']
        await expect.poll(listed).toEqual(both)

        // Events performed: checkout_started (ada's), then $pageview too: both in one session (none), or either.
        const perform = (i: number, name: string) =>
          page
            .fill(`input[aria-label="Performed event ${i}"]`, name)
            .then(() => page.press(`input[aria-label="Performed event ${i}"]`, 'Enter'))
        await page.click('button:has-text("Add event")')
        await after(() => perform(1, 'checkout_started'), 'checkout_started', ['ada@example.com'])
        await page.click('button:has-text("Add event")')
        await after(() => perform(2, '$pageview'), '$pageview', [])
        await after(() => page.selectOption('select[aria-label="Match"]', 'OR'), 'OR', both)
        await after(() => page.click('button[aria-label="Remove event"] >> nth=0'), '$pageview', ['bob@test.org'])
        await after(() => page.click('button[aria-label="Remove event"]'), '', both)

        // A person property (bob's email), then a console level (ada's error): any of them (still OR), then all.
        const rows = page.locator('fieldset.filters .filter-row')
        await page.click('button:has-text("Add filter")')
        await rows.nth(0).locator('select[aria-label="Property type"]').selectOption('person')
        await rows.nth(0).locator('input[aria-label="Property key"]').fill('email')
        await rows.nth(0).locator('select[aria-label="Operator"]').selectOption('icontains')
        await after(() => rows.nth(0).locator('input[aria-label="Value"]').fill('test.org'), 'test.org', ['bob@test.org'])
        await page.click('button:has-text("Add filter")')
        await rows.nth(1).locator('select[aria-label="Property type"]').selectOption('log_entry')
        expect(await rows.nth(1).locator('select[aria-label="Property key"]').inputValue()).toBe('level')
        const levels = await rows
          .nth(1)
          .locator('datalist option')
          .evaluateAll((options) => options.map((o) => (o as unknown as { value: string }).value))
        expect(levels).toEqual(['log', 'info', 'warn', 'error'])
        await after(() => rows.nth(1).locator('input[aria-label="Value"]').fill('error'), '"error"', both)
        await after(() => page.selectOption('select[aria-label="Match"]', 'AND'), '"error"', [])

        // An event property (a Firefox event: bob's), a recording's duration (over 20 s: bob's; over 2 s: both)
        // and its activity (3 clicks or more: ada's), all of them.
        await rows.nth(1).locator('select[aria-label="Property type"]').selectOption('event')
        await rows.nth(1).locator('input[aria-label="Property key"]').fill('$browser')
        await after(() => rows.nth(1).locator('input[aria-label="Value"]').fill('Firefox'), 'Firefox', ['bob@test.org'])
        await rows.nth(0).locator('select[aria-label="Property type"]').selectOption('recording')
        expect(await rows.nth(0).locator('select[aria-label="Property key"]').inputValue()).toBe('duration')
        await rows.nth(0).locator('select[aria-label="Operator"]').selectOption('gt')
        await after(() => rows.nth(0).locator('input[aria-label="Value"]').fill('20'), '"20"', ['bob@test.org'])
        await rows.nth(1).locator('select[aria-label="Property type"]').selectOption('recording')
        await rows.nth(1).locator('select[aria-label="Property key"]').selectOption('click_count')
        await rows.nth(1).locator('select[aria-label="Operator"]').selectOption('gte')
        await after(() => rows.nth(1).locator('input[aria-label="Value"]').fill('3'), '"3"', [])
        await after(() => rows.nth(0).locator('input[aria-label="Value"]').fill('2'), '"2"', ['ada@example.com'])
        await expectDrawn(page, 'recordings-filters-desktop', WIDTHS.desktop.width)

        // The filters are in the address: a reload (and a narrow window) shows the same list.
        const narrow = (await tab(WIDTHS.phone)).page
        await narrow.goto(page.url())
        await expect.poll(() => narrow.locator('table.recordings tbody tr td:first-child').allTextContents()).toEqual(['ada@example.com'])
        expect(await narrow.locator('select[aria-label="Property key"]').nth(1).inputValue()).toBe('click_count')
        await expectDrawn(narrow, 'recordings-filters-phone', WIDTHS.phone.width)
      })
    })
  })
})
