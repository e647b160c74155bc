// Home, dashboards and saved insights in headless Chromium, on a Wren with data sent through posthog-node:
// after sign-in the app opens on the project's Home dashboard, whose tiles show the API's numbers (charts,
// tables, the recordings text tile); two insights built in the trends editor are saved, put on a dashboard
// (Home, then one made in the page), and after a reload each tile still shows the API's numbers; a saved
// insight reopens in the editor with its query; Refresh recomputes every tile (or one), and the dashboard's date
// range overrides the tiles' (a view's until saved); a dashboard is edited, duplicated and deleted; an empty
// project's Home says to install the snippet. Screenshots at 1280 and 390 px
// (test-artifacts/web/home-desktop.png, home-phone.png), checked not blank and not wider than the window.
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core'
import { PostHog } from 'posthog-node'
import { api, drained, startWren, type TestWren } from '../support/wren'
import { skipReason } from '../support/skip'
import { chromiumMissing, expectDrawn, launchChromium, signedInContext, signIn, WEB_ARTIFACTS } from '../support/browser'

const unavailable = skipReason('dashboards', chromiumMissing())
const DAY = 86_400_000

interface ResultSeries {
  label: string
  data: number[]
  count: number
  aggregated_value?: number
}
interface ApiInsight {
  id: number
  name: string | null
  query: { source: { trendsFilter?: { display?: string } } } | null
  result: ResultSeries[] | null
  last_refresh: string | null
  dashboards: number[]
  favorited: boolean
}

/** Visits over the last two weeks: who, from which browser, to which page. */
const VISITORS: Array<{ id: string; browser: string; page: string; perDay: number }> = [
  { id: 'ada', browser: 'Chrome', page: '/pricing', perDay: 3 },
  { id: 'bob', browser: 'Firefox', page: '/', perDay: 2 },
  { id: 'cy', browser: 'Safari', page: '/docs', perDay: 1 },
  { id: 'dee', browser: 'Chrome', page: '/', perDay: 1 },
]

/** A number as the page shows it (web/src/chart-data.ts formatValue). */
const shown = (value: number) => value.toLocaleString('en-US', { maximumFractionDigits: 2 })

describe.skipIf(unavailable !== null)(`Home and dashboards in headless Chromium${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  let browser: Browser
  let homeId: number

  const send = async (build: (client: PostHog) => void) => {
    const client = new PostHog(t.projectKey, { host: t.url, flushAt: 1000, flushInterval: 0 })
    build(client)
    await client.shutdown()
    await drained(t.wren)
  }

  beforeAll(async () => {
    t = await startWren()
    call = api(t)
    await send((client) => {
      for (let daysAgo = 0; daysAgo < 14; daysAgo++)
        for (const v of VISITORS)
          for (let i = 0; i < v.perDay + (daysAgo % 3 === 0 ? 1 : 0); i++)
            client.capture({
              distinctId: v.id,
              event: '$pageview',
              properties: { $browser: v.browser, $current_url: `https://shop.example${v.page}` },
              timestamp: new Date(Date.now() - daysAgo * DAY - i * 60_000),
            })
      for (const [distinctId, flag] of [
        ['ada', 'new-checkout'],
        ['bob', 'new-checkout'],
        ['cy', 'dark-mode'],
      ])
        client.capture({ distinctId, event: '$feature_flag_called', properties: { $feature_flag: flag, $feature_flag_response: true } })
      for (const [distinctId, browser] of [
        ['ada', 'Chrome'],
        ['bob', 'Firefox'],
        ['dee', 'Chrome'],
      ]) {
        client.capture({ distinctId, event: 'signed_up', properties: { $browser: browser } })
        client.capture({ distinctId, event: 'purchase', properties: { $browser: browser, price: 20 } })
      }
    })
    const project = await call('GET', `/api/projects/${t.projectId}/`)
    expect(project.body.primary_dashboard, project.text).toEqual(expect.any(Number))
    homeId = project.body.primary_dashboard
    browser = await launchChromium()
  })
  afterAll(async () => {
    for (const context of signedIn.values()) await (await context).close()
    await browser?.close()
    await t?.close()
  })

  /** A new browser at `width` signed in through the sign-in form (it lands on Home). */
  const open = async (width: number): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width, height: 900 } })
    const page = await context.newPage()
    await signIn(page, t.url, t.personalKey)
    return page
  }
  /** One browser per width signed in once, made when first needed. */
  const signedIn = new Map<number, Promise<BrowserContext>>()
  /** A new tab of the signed-in browser at `width`, on Home. */
  const home = async (width: number): Promise<Page> => {
    if (!signedIn.has(width)) signedIn.set(width, signedInContext(browser, t.url, t.personalKey, { viewport: { width, height: 900 } }))
    const page = await (await signedIn.get(width)!).newPage()
    await page.goto(`${t.url}/project/${t.projectId}/home`)
    return page
  }

  /** The dashboard as the API answers it (with a view's filters_override): its insight tiles with their (cached) results. */
  const dashboard = async (
    id: number,
    override?: Record<string, unknown>,
  ): Promise<{
    filters: Record<string, unknown>
    persisted_filters: Record<string, unknown> | null
    tiles: Array<{ insight: ApiInsight | null }>
  }> => {
    const query = override ? `?filters_override=${encodeURIComponent(JSON.stringify(override))}` : ''
    const res = await call('GET', `/api/projects/${t.projectId}/dashboards/${id}/${query}`)
    expect(res.status, res.text).toBe(200)
    return res.body
  }
  const tileOf = (page: Page, insight: { id: number }): Locator => page.locator(`.tile[data-insight="${insight.id}"]`)

  /** What a tile shows: a chart's values per series, a table's or a number's cells. */
  const tileShows = async (tile: Locator): Promise<unknown> => {
    if (await tile.locator('[data-testid=trend-chart]').count()) {
      const raw = await tile.locator('[data-testid=trend-chart]').getAttribute('data-values')
      return JSON.parse(raw ?? '{}').series.map((s: { values: unknown[] }) => s.values)
    }
    if (await tile.locator('.numbers .value').count()) return tile.locator('.numbers .value').allTextContents()
    if (await tile.locator('td.num').count()) return tile.locator('td.num').allTextContents()
    return tile.locator('.tile-note').allTextContents()
  }
  /** What the tile should show for the API's insight: its display's numbers. */
  const expected = (insight: ApiInsight): unknown => {
    const display = insight.query?.source.trendsFilter?.display ?? 'ActionsLineGraph'
    const result = insight.result ?? []
    if (['ActionsTable', 'ActionsPie', 'BoldNumber'].includes(display)) return result.map((s) => shown(s.aggregated_value ?? s.count))
    return result.map((s) => s.data)
  }
  /** Every insight tile of dashboard `id` shows the API's numbers; answers the API's insights. */
  const expectTiles = async (page: Page, id: number, override?: Record<string, unknown>): Promise<ApiInsight[]> => {
    const insights = (await dashboard(id, override)).tiles.flatMap((tile) => (tile.insight ? [tile.insight] : []))
    for (const insight of insights) {
      expect(insight.result, insight.name ?? '').not.toBeNull()
      await expect.poll(() => tileShows(tileOf(page, insight)), { timeout: 10_000 }).toEqual(expected(insight))
    }
    return insights
  }

  it('opens on Home after sign-in, and every tile shows the API’s numbers', async () => {
    // A note of the project's, yesterday: the Pageviews tile marks that day, and lists it without offering to add one.
    const yesterday = new Date(Date.now() - 86_400_000).toISOString()
    expect(
      (await call('POST', `/api/projects/${t.projectId}/annotations/`, { content: 'Sale started', date_marker: yesterday })).status,
    ).toBe(201)
    // And one of Home's own, two days ago: it shows on Home's tiles, and not on the insight's own page.
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString()
    const homeNote = await call('POST', `/api/projects/${t.projectId}/annotations/`, {
      content: 'Home redesign',
      date_marker: twoDaysAgo,
      dashboard_id: homeId,
    })
    expect(homeNote.body.scope).toBe('dashboard')
    const page = await open(1280)
    await page.waitForURL(`${t.url}/project/${t.projectId}/home`)
    expect(await page.locator('nav.menu a').first().textContent()).toBe('Home')
    expect(await page.getAttribute('a.brand', 'href')).toBe(`/project/${t.projectId}/home`)
    await page.waitForSelector('.tile')
    const insights = await expectTiles(page, homeId)
    expect(insights.map((i) => i.name)).toEqual(['Pageviews', 'Unique users', 'Top pages', 'Browsers', 'Flag usage'])
    const pageviews = tileOf(page, insights[0])
    const days = (insights[0].result![0] as unknown as { days: string[] }).days
    const marked = (where: Locator) =>
      where.locator('.annotation-cell.marked').evaluateAll((cells) => cells.map((c) => Number(c.getAttribute('data-bucket'))))
    await expect.poll(() => marked(pageviews)).toEqual([days.indexOf(twoDaysAgo.slice(0, 10)), days.indexOf(yesterday.slice(0, 10))])
    await pageviews.locator(`.annotation-cell.marked[data-bucket="${days.indexOf(yesterday.slice(0, 10))}"]`).click()
    expect(await pageviews.locator('.annotation-popover li').allTextContents()).toEqual([expect.stringContaining('Sale started')])
    expect(await pageviews.locator('.annotation-popover form').count()).toBe(0)
    expect(await pageviews.locator('.annotation-cell:not(.marked)').count()).toBe(0)
    await expectDrawn(page, 'home-tile-annotation-1280', 1280)
    // Both line tiles over the same 30 days mark the notes from one request between them.
    const asked: string[] = []
    page.on('request', (r) => void (r.url().includes('/annotations/') && asked.push(r.url())))
    await page.reload()
    const uniques = tileOf(page, insights[1])
    await expect.poll(() => marked(uniques)).toEqual([days.indexOf(twoDaysAgo.slice(0, 10)), days.indexOf(yesterday.slice(0, 10))])
    await expect.poll(() => marked(tileOf(page, insights[0]))).toEqual(await marked(uniques))
    expect(asked).toHaveLength(1)
    // The numbers are the data's: pageviews per browser, flags by name.
    const browsers = insights.find((i) => i.name === 'Browsers')!.result!
    expect(browsers.find((s) => s.label === 'Safari')!.aggregated_value).toBeGreaterThanOrEqual(14)
    const flags = insights.find((i) => i.name === 'Flag usage')!
    expect(await tileOf(page, flags).locator('td.label').allTextContents()).toEqual([' new-checkout', ' dark-mode'])
    // The recordings text tile: its heading and a link to the recordings page.
    const text = page.locator('.text-tile')
    expect(await text.locator('h3').textContent()).toBe('Recent recordings')
    expect(await text.locator('a:has-text("Recordings")').getAttribute('href')).toBe(`/project/${t.projectId}/recordings`)
    // A tile's name opens its insight in the trends editor, loaded with its query.
    await tileOf(page, flags).locator('h3 a').click()
    await page.waitForURL(new RegExp(`/project/${t.projectId}/insights/${flags.id}`))
    expect(await page.inputValue('.series[data-series="A"] input[aria-label="Event name"]')).toBe('$feature_flag_called')
    expect(await page.inputValue('input[aria-label="Breakdown property"]')).toBe('$feature_flag')
    expect(await page.textContent('.page-header h1')).toBe('Flag usage')
    // The insight's own page shows the project's note and not Home's.
    await page.goto(`${t.url}/project/${t.projectId}/insights/${insights[0].id}`)
    await expect.poll(() => marked(page.locator('[data-testid=annotations]'))).toEqual([days.indexOf(yesterday.slice(0, 10))])
    // The brand goes home.
    await page.click('a.brand')
    await page.waitForURL(`${t.url}/project/${t.projectId}/home`)
    await page.context().close()
  })

  it('saves two insights built in the editor, puts them on dashboards, and after a reload each tile shows the API’s numbers', async () => {
    const page = await home(1280)
    // The first: signups as a number, saved with a name, then put on Home.
    await page.goto(`${t.url}/project/${t.projectId}/trends`)
    await page.fill('.series[data-series="A"] input[aria-label="Event name"]', 'signed_up')
    await page.click('.display-picker button:has-text("Number")')
    await page.fill('input[aria-label="Insight name"]', 'Signups')
    await page.click('.save-insight button[type=submit]')
    await page.waitForURL(new RegExp(`/project/${t.projectId}/insights/\\d+`))
    const signupsId = Number(/insights\/(\d+)/.exec(page.url())![1])
    const saved = await call('GET', `/api/projects/${t.projectId}/insights/${signupsId}/`)
    expect(saved.body).toMatchObject({ name: 'Signups', saved: true, dashboards: [] })
    expect(saved.body.query.source).toMatchObject({ series: [{ event: 'signed_up' }], trendsFilter: { display: 'BoldNumber' } })
    await page.selectOption('select[aria-label="Dashboard"]', String(homeId))
    await page.click('button:has-text("Add to dashboard")')
    await page.waitForSelector('text=Added to Home.')
    expect((await call('GET', `/api/projects/${t.projectId}/insights/${signupsId}/`)).body.dashboards).toEqual([homeId])
    await page.goto(`${t.url}/project/${t.projectId}/home`)
    await page.reload()
    await page.waitForSelector(`.tile[data-insight="${signupsId}"]`)
    await expectTiles(page, homeId)
    expect(await tileOf(page, { id: signupsId }).locator('.numbers .value').textContent()).toBe('3')

    // The second: purchases by browser as bars, on a dashboard made in the page.
    await page.click('nav.menu a:has-text("Dashboards")')
    await page.fill('input[aria-label="New dashboard name"]', 'Launch')
    await page.click('button:has-text("New dashboard")')
    await page.waitForURL(new RegExp(`/project/${t.projectId}/dashboards/\\d+`))
    const launchId = Number(/dashboards\/(\d+)/.exec(page.url())![1])
    await page.waitForSelector('text=This dashboard has no tiles yet.')
    await page.click('nav.menu a:has-text("Trends")')
    await page.fill('.series[data-series="A"] input[aria-label="Event name"]', 'purchase')
    await page.fill('input[aria-label="Breakdown property"]', '$browser')
    await page.click('.display-picker button:has-text("Stacked bars")')
    await page.waitForSelector('.chart-legend li:nth-child(2)')
    await page.fill('input[aria-label="Insight name"]', 'Purchases by browser')
    await page.click('.save-insight button[type=submit]')
    await page.waitForURL(new RegExp(`/project/${t.projectId}/insights/\\d+`))
    const purchasesId = Number(/insights\/(\d+)/.exec(page.url())![1])

    // The saved insights list: both, with the dashboards they are on; one opened reloads its query in the editor.
    await page.click('nav.menu a:has-text("Saved insights")')
    const row = (id: number) => page.locator(`tr[data-insight="${id}"]`)
    await row(signupsId).waitFor()
    // The dashboards' names come with their own list, after the insights': until then the cell names none.
    await expect.poll(() => row(signupsId).locator('td').nth(2).textContent()).toBe('Home')
    expect(await row(purchasesId).locator('td').nth(2).textContent()).toBe('–')
    await row(purchasesId).locator('button[aria-label="Favorite"]').click()
    await expect.poll(async () => (await call('GET', `/api/projects/${t.projectId}/insights/${purchasesId}/`)).body.favorited).toBe(true)
    await row(purchasesId).locator('a:has-text("Purchases by browser")').click()
    await page.waitForURL(new RegExp(`/insights/${purchasesId}`))
    expect(await page.inputValue('.series[data-series="A"] input[aria-label="Event name"]')).toBe('purchase')
    expect(await page.inputValue('input[aria-label="Breakdown property"]')).toBe('$browser')
    expect(await page.getAttribute('.display-picker button:has-text("Stacked bars")', 'aria-pressed')).toBe('true')
    await page.selectOption('select[aria-label="Dashboard"]', String(launchId))
    await page.click('button:has-text("Add to dashboard")')
    await page.waitForSelector('text=Added to Launch.')
    await page.goto(`${t.url}/project/${t.projectId}/dashboards/${launchId}`)
    await page.reload()
    await page.waitForSelector(`.tile[data-insight="${purchasesId}"]`)
    const [purchases] = await expectTiles(page, launchId)
    expect(purchases.result!.map((s) => [s.label, s.count]).sort()).toEqual([
      ['Chrome', 2],
      ['Firefox', 1],
    ])
    // A click on a tile's bar lists the persons behind it, as the Query API answers them; a second bar, the other browser's.
    for (const browserName of ['Chrome', 'Firefox']) {
      const i = purchases.result!.findIndex((s) => s.label === browserName)
      const series = purchases.result![i] as unknown as { data: number[]; days: string[]; breakdown_value: string }
      const bucket = series.data.findLastIndex((v) => v > 0)
      await tileOf(page, { id: purchasesId }).locator(`rect.bar[data-series="${i}"][data-bucket="${bucket}"]`).click()
      const panel = page.locator('.point-persons')
      await expect.poll(() => panel.getAttribute('data-day')).toBe(series.days[bucket])
      const actors = await call('POST', `/api/projects/${t.projectId}/query/`, {
        query: {
          kind: 'ActorsQuery',
          select: ['person'],
          source: {
            kind: 'InsightActorsQuery',
            source: purchases.query!.source,
            day: series.days[bucket],
            series: 0,
            breakdown: browserName,
          },
        },
      })
      expect(actors.status, actors.text).toBe(200)
      expect(actors.body.results.length).toBeGreaterThan(0)
      await expect.poll(() => panel.locator('.persons-list li').count(), { timeout: 15_000 }).toBe(actors.body.results.length)
      expect(await panel.textContent()).toContain(browserName)
    }
    await expectDrawn(page, 'dashboard-tile-persons-desktop', 1280)
    // Home still has the first, and its other tiles.
    await page.goto(`${t.url}/project/${t.projectId}/home`)
    await page.waitForSelector(`.tile[data-insight="${signupsId}"]`)
    expect(await expectTiles(page, homeId)).toHaveLength(6)
    await page.close()
  })

  it('recomputes every tile on Refresh, and the dashboard’s date range overrides the tiles’', async () => {
    const page = await home(1280)
    await page.waitForSelector('.tile[data-insight]')
    const before = await expectTiles(page, homeId)
    const pageviews = before.find((i) => i.name === 'Pageviews')!
    const tile = tileOf(page, pageviews)
    const computedAt = await tile.getAttribute('data-last-refresh')
    await send((client) => {
      for (let i = 0; i < 5; i++) client.capture({ distinctId: 'eve', event: '$pageview', properties: { $browser: 'Edge' } })
    })
    await page.click('.page-header button:has-text("Refresh")')
    await expect.poll(() => tile.getAttribute('data-last-refresh'), { timeout: 15_000 }).not.toBe(computedAt)
    await page.waitForSelector('.tile[aria-busy=true]', { state: 'detached' })
    const after = await expectTiles(page, homeId)
    const today = (i: ApiInsight) => i.result![0].data.at(-1)!
    expect(today(after.find((i) => i.name === 'Pageviews')!)).toBe(today(pageviews) + 5)
    expect(after.find((i) => i.name === 'Browsers')!.result!.map((s) => s.label)).toContain('Edge')

    // One tile recomputed alone, twice: its numbers move, another tile's computation stays as it was.
    const browsers = tileOf(
      page,
      after.find((i) => i.name === 'Browsers')!,
    )
    for (let round = 0; round < 2; round++) {
      const [own, other] = [await tile.getAttribute('data-last-refresh'), await browsers.getAttribute('data-last-refresh')]
      await send((client) => client.capture({ distinctId: 'eve', event: '$pageview', properties: { $browser: 'Edge' } }))
      await tile.locator('button[aria-label="Refresh Pageviews"]').click()
      await expect.poll(() => tile.getAttribute('data-last-refresh'), { timeout: 15_000 }).not.toBe(own)
      await page.waitForSelector('.tile[aria-busy=true]', { state: 'detached' })
      expect(await browsers.getAttribute('data-last-refresh')).toBe(other)
      const now = (await call('GET', `/api/projects/${t.projectId}/insights/${pageviews.id}/`)).body as ApiInsight
      expect(today(now)).toBe(today(pageviews) + 6 + round)
      expect(await tileShows(tile)).toEqual(expected(now))
    }

    // The last 7 days, for this view: every trend tile is over 8 days (its own range is 30), as the API answers the
    // same override; the dashboard's saved filters stay as they were, for everyone else, until Save range.
    const week7 = { date_from: '-7d', date_to: null }
    await page.selectOption('select[aria-label="Dashboard date range"]', '-7d')
    await page.waitForURL(/date_from=-7d/)
    const week = await expectTiles(page, homeId, week7)
    expect(week.find((i) => i.name === 'Pageviews')!.result![0].data).toHaveLength(8)
    expect(await tile.locator('.tile-footer').textContent()).toContain('Last 7 days')
    expect((await dashboard(homeId)).persisted_filters?.date_from ?? null).toBeNull()
    await page.reload()
    expect(await page.inputValue('select[aria-label="Dashboard date range"]')).toBe('-7d')
    await expectTiles(page, homeId, week7)
    // Saved: the dashboard's own now; the URL drops the view's.
    await page.click('button:has-text("Save range")')
    await expect.poll(async () => (await dashboard(homeId)).persisted_filters?.date_from ?? null).toBe('-7d')
    await page.waitForURL((url) => !url.search.includes('date_from'))
    expect(await page.locator('button:has-text("Save range")').count()).toBe(0)
    await expectTiles(page, homeId)
    // Each tile's own range again: a view first (the saved range stays), then saved.
    await page.selectOption('select[aria-label="Dashboard date range"]', '')
    await page.waitForURL(/date_from=(&|$)/)
    const own = { date_from: null, date_to: null }
    expect((await expectTiles(page, homeId, own)).find((i) => i.name === 'Pageviews')!.result![0].data).toHaveLength(31)
    expect((await dashboard(homeId)).persisted_filters?.date_from).toBe('-7d')
    await page.click('button:has-text("Save range")')
    await expect.poll(async () => (await dashboard(homeId)).persisted_filters?.date_from ?? null).toBeNull()
    expect((await expectTiles(page, homeId)).find((i) => i.name === 'Pageviews')!.result![0].data).toHaveLength(31)
    await page.close()
  })

  it('edits a dashboard: tiles moved, resized and removed, renamed twice, and deleted', async () => {
    const base = `/api/projects/${t.projectId}`
    const board = await call('POST', `${base}/dashboards/`, { name: 'Board', tiles: [{ text: { body: 'Notes' } }] })
    expect(board.status, board.text).toBe(201)
    for (const name of ['Views', 'Buys']) {
      const made = await call('POST', `${base}/insights/`, {
        name,
        dashboards: [board.body.id],
        query: {
          kind: 'InsightVizNode',
          source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: name === 'Views' ? '$pageview' : 'purchase' }] },
        },
      })
      expect(made.status, made.text).toBe(201)
    }
    const page = await home(1280)
    page.on('dialog', (d) => void d.accept())
    await page.goto(`${t.url}/project/${t.projectId}/dashboards/${board.body.id}`)
    /** A tile's buttons name it: an insight by its name, a text tile as "the text". */
    const called = (name: string) => (name === 'text' ? 'the text' : name)
    /** The tiles as the page shows them, top to bottom: the insight's name (or "text") and the tile's width. */
    const shown = () =>
      page
        .locator('.tile')
        .evaluateAll((tiles) =>
          tiles.map((el) => [
            el.querySelector('.tile-header a')?.textContent ?? 'text',
            (el as unknown as { style: { getPropertyValue(p: string): string } }).style.getPropertyValue('--span'),
          ]),
        )
    /** The same from the API: its tiles in their layouts' order. */
    const stored = async () => {
      const d = await call('GET', `${base}/dashboards/${board.body.id}/`)
      expect(d.status, d.text).toBe(200)
      const sm = (tile: { layouts: { sm?: { y?: number; x?: number; w?: number } } }) => tile.layouts.sm ?? {}
      return [...d.body.tiles]
        .sort((a, b) => (sm(a).y ?? 1e6) * 100 + (sm(a).x ?? 0) - ((sm(b).y ?? 1e6) * 100 + (sm(b).x ?? 0)))
        .map((tile: { insight: { name: string } | null; layouts: { sm?: { w?: number } } }) => [
          tile.insight?.name ?? 'text',
          String(Math.min(12, Math.max(3, sm(tile).w ?? 6))),
        ])
    }
    await expect.poll(shown, { timeout: 15_000 }).toHaveLength(3)
    const start = await shown()
    expect(start).toEqual(await stored())

    // Moved: the last tile up, twice; then the first down.
    const last = start[2][0]
    await page.click(`button[aria-label="Move ${called(last)} up"]`)
    await expect.poll(shown).toEqual([start[0], start[2], start[1]])
    await page.click(`button[aria-label="Move ${called(last)} up"]`)
    await expect.poll(shown).toEqual([start[2], start[0], start[1]])
    expect(await stored()).toEqual(await shown())
    await page.click(`button[aria-label="Move ${called(last)} down"]`)
    await expect.poll(shown).toEqual([start[0], start[2], start[1]])
    // Resized: wider twice (6 → 9 → 12), then narrower; another tile narrower (6 → 3).
    const wide = start[0][0]
    await page.click(`button[aria-label="Make ${called(wide)} wider"]`)
    await expect.poll(async () => (await shown())[0][1]).toBe('9')
    await page.click(`button[aria-label="Make ${called(wide)} wider"]`)
    await expect.poll(async () => (await shown())[0][1]).toBe('12')
    expect(await page.isDisabled(`button[aria-label="Make ${called(wide)} wider"]`)).toBe(true)
    await page.click(`button[aria-label="Make ${called(wide)} narrower"]`)
    await page.click(`button[aria-label="Make ${called(start[1][0])} narrower"]`)
    await expect.poll(async () => (await shown()).map(([, w]) => w)).toEqual(['9', '6', '3'])
    await page.reload()
    await expect.poll(shown, { timeout: 15_000 }).toEqual(await stored())
    // Removed: one tile, then another; the insights stay saved.
    for (const [k, name] of [start[1][0], start[2][0]].entries()) {
      await page.click(`button[aria-label="Remove ${called(name)} from the dashboard"]`)
      await expect.poll(async () => (await shown()).length).toBe(2 - k)
      expect((await stored()).map(([n]) => n)).not.toContain(name)
    }
    // Renamed, twice, with a description.
    for (const [name, description] of [
      ['Board two', 'For the launch'],
      ['Board three', ''],
    ]) {
      await page.click('button:has-text("Edit")')
      await page.fill('input[aria-label="Dashboard name"]', name)
      await page.fill('input[aria-label="Dashboard description"]', description)
      await page.click('.dashboard-editor button[type=submit]')
      await expect.poll(() => page.locator('h1').textContent()).toBe(name)
      const d = await call('GET', `${base}/dashboards/${board.body.id}/`)
      expect([d.body.name, d.body.description]).toEqual([name, description])
    }
    await expectDrawn(page, 'dashboard-edited-desktop', 1280)
    // Only the text tile left: nothing is said of a computation that never was.
    expect(await page.locator('.dashboard-meta').textContent()).not.toContain('not computed')
    // Duplicated: a copy with its tile, which is deleted; then the original is.
    await page.click('.page-header button:has-text("Duplicate")')
    await page.waitForURL((url) => /\/dashboards\/\d+$/.test(url.pathname) && !url.pathname.endsWith(`/${board.body.id}`))
    const copyId = Number(/dashboards\/(\d+)/.exec(page.url())![1])
    await expect.poll(() => page.locator('h1').textContent()).toBe('Board three (copy)')
    await expect.poll(shown).toEqual([['text', '9']])
    await page.click('.page-header button:has-text("Delete")')
    await page.waitForURL(new RegExp(`/project/${t.projectId}/dashboards$`))
    await expect.poll(async () => (await call('GET', `${base}/dashboards/${copyId}/`)).status).toBe(404)
    await page.goto(`${t.url}/project/${t.projectId}/dashboards/${board.body.id}`)
    await expect.poll(shown, { timeout: 15_000 }).toEqual([['text', '9']])
    // Deleted: back on the list, without it; Home has no Delete.
    await page.click('.page-header button:has-text("Delete")')
    await page.waitForURL(new RegExp(`/project/${t.projectId}/dashboards$`))
    await expect.poll(async () => (await call('GET', `${base}/dashboards/${board.body.id}/`)).status).toBe(404)
    await page.waitForSelector(`table a[href$="/home"]`)
    expect(await page.locator('table a:has-text("Board three")').count()).toBe(0)
    await page.goto(`${t.url}/project/${t.projectId}/home`)
    await page.waitForSelector('.tile')
    expect(await page.locator('.page-header button:has-text("Delete")').count()).toBe(0)
    await page.close()
  })

  it('says what to do on an empty project’s Home: install the snippet', async () => {
    const created = await call('POST', '/api/projects/', { name: 'Empty shop' })
    expect(created.status, created.text).toBe(201)
    const page = await home(1280)
    await page.goto(`${t.url}/project/${created.body.id}/home`)
    const banner = page.locator('[data-testid=no-events]')
    await banner.waitFor()
    expect(await banner.locator('h3').textContent()).toBe('No events yet — install the snippet')
    expect(await banner.locator('a.button').getAttribute('href')).toBe(`/project/${created.body.id}/settings`)
    expect(await page.locator('.tile .tile-note').first().textContent()).toContain('Waiting for the first events')
    // The snippet is there too, for this project's key.
    await banner.locator('summary').click()
    expect(await banner.locator('[data-testid=snippet]').textContent()).toContain(created.body.api_token)
    await page.screenshot({ path: path.join(WEB_ARTIFACTS, 'home-empty-desktop.png'), fullPage: true })
    await banner.locator('a.button').click()
    await page.waitForSelector('[data-testid=snippet]')
    expect(await page.textContent('[data-testid=snippet]')).toContain(created.body.api_token)
    await page.close()
  })

  it('draws Home, the dashboards and the saved insights at 1280 and 390 px wide: not blank, nothing wider than the window', async () => {
    for (const [name, width] of [
      ['desktop', 1280],
      ['phone', 390],
    ] as const) {
      const page = await home(width)
      await page.waitForURL(`${t.url}/project/${t.projectId}/home`)
      await page.waitForSelector('.tile [data-testid=trend-chart] canvas')
      await expectTiles(page, homeId)
      await expectDrawn(page, `home-${name}`, width, { minColours: 50 })
      // The lists fit too.
      for (const [section, selector] of [
        ['dashboards', 'table.list'],
        ['insights', 'table.list'],
      ]) {
        // A phone's menu is folded behind its button.
        if (name === 'phone') await page.click('nav.menu .menu-toggle')
        await page.click(`nav.menu a[href$="/${section}"]`)
        await page.waitForSelector(selector)
        await expectDrawn(page, `${section}-${name}`, width, { minColours: 10 })
      }
      await page.close()
    }
  })
})
