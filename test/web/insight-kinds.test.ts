// The lifecycle, stickiness, retention and paths editors in headless Chromium, on a Wren with page views and
// purchases sent through posthog-node, and a visitor's page views sent by posthog-js through PostHog's snippet: each reached from the insight type switch, driven through its controls (a
// second event, a second series, a breakdown's second value, a second start point, the legend's toggles, the
// interval, a property filter), its chart drawing what the Query API answers for the same query; "see persons" on
// a retention cell and on a paths node lists as many persons as the cell or node counts; each saved, reopened from
// the saved insights with the same chart, and drawn on a dashboard tile. Screenshots at 1280 and 390 px
// (test-artifacts/web/kinds-*.png), checked not blank and not wider than the window.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { PostHog } from 'posthog-node'
import { api, drained, startWren, waitFor, type TestWren } from '../support/wren'
import { serveSite, snippetScript, type Site } from '../support/posthog-snippet'
import { skipReason } from '../support/skip'
import { chromiumMissing, expectDrawn, launchChromium, signedInContext } from '../support/browser'

const unavailable = skipReason('insight-kinds', chromiumMissing())
const DAY = 86_400_000
const MINUTE = 60_000

/** A page of a site that loads posthog-js through PostHog's snippet, pointed at Wren, and sends its page view. */
const sitePage = (wrenUrl: string, token: string, title: string) => `<!doctype html>
<html><head><meta charset="utf-8"><title>${title}</title>
${snippetScript(token, wrenUrl, "person_profiles: 'always', bootstrap: { distinctID: 'js-visitor' }, autocapture: false, disable_session_recording: true")}
</head><body><h1>${title}</h1></body></html>`

/** Who visits which pages (one session a day, a minute a page) on which days ago, and buys on which. */
const PEOPLE: Array<{ id: string; browser: string; days: number[]; pages: string[]; purchases: number[] }> = [
  { id: 'ada', browser: 'Chrome', days: [6, 5, 4, 3, 2, 1, 0], pages: ['/', '/pricing', '/signup'], purchases: [5, 3] },
  { id: 'bob', browser: 'Chrome', days: [6, 4, 2], pages: ['/', '/blog'], purchases: [] },
  { id: 'cy', browser: 'Firefox', days: [5, 4, 1, 0], pages: ['/', '/pricing'], purchases: [1] },
  { id: 'dee', browser: 'Firefox', days: [3], pages: ['/docs'], purchases: [] },
  { id: 'eve', browser: 'Chrome', days: [1, 0], pages: ['/', '/pricing', '/docs'], purchases: [0] },
]
/** Walkers: one session each through eight of ten pages in their own order, so a paths chart has over 50 edges. */
const WALKERS = Array.from({ length: 8 }, (_, w) => ({
  id: `walker-${w}`,
  pages: Array.from({ length: 8 }, (_, k) => `/w/${(w * 3 + k * 7) % 10}`),
}))

type Json = Record<string, unknown>
/** What the test reads of an SVG path in the page (the tests are typed without the DOM's types). */
type PathGeometry = {
  getTotalLength(): number
  getPointAtLength(n: number): { matrixTransform(m: unknown): { x: number; y: number } }
  getScreenCTM(): unknown
}

describe.skipIf(unavailable !== null)(
  `the lifecycle, stickiness, retention and paths editors${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    let t: TestWren
    let call: ReturnType<typeof api>
    let browser: Browser
    /** The browsers at 1280 and 390 px, each signed in once. */
    let desktop: BrowserContext
    let phone: BrowserContext
    let page: Page
    let home: number
    /** The posthog-js visitor's site, and its two pages' URLs (the items of their page views). */
    let site: Site | undefined
    let landing = ''
    let docs = ''

    beforeAll(async () => {
      t = await startWren()
      call = api(t)
      const client = new PostHog(t.projectKey, { host: t.url, flushAt: 1000, flushInterval: 0 })
      const today = new Date()
      // Early today (UTC), so every day's session is inside its day.
      const early = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate(), 0, 30)
      for (const [n, p] of PEOPLE.entries()) {
        for (const d of p.days)
          p.pages.forEach((url, k) =>
            client.capture({
              distinctId: p.id,
              event: '$pageview',
              properties: { $current_url: url, $browser: p.browser },
              timestamp: new Date(early - d * DAY + n * 3 * MINUTE + k * MINUTE),
            }),
          )
        for (const d of p.purchases)
          client.capture({
            distinctId: p.id,
            event: 'purchase',
            properties: { $browser: p.browser },
            timestamp: new Date(early - d * DAY + 20 * MINUTE),
          })
      }
      for (const [n, w] of WALKERS.entries())
        w.pages.forEach((url, k) =>
          client.capture({
            distinctId: w.id,
            event: '$pageview',
            properties: { $current_url: url, $browser: 'Safari' },
            timestamp: new Date(early - 2 * DAY + n * 10 * MINUTE + k * MINUTE),
          }),
        )
      await client.shutdown()
      await drained(t.wren)
      home = (await call('GET', `/api/projects/${t.projectId}/`)).body.primary_dashboard as number
      browser = await launchChromium()
      ;[desktop, phone] = await Promise.all([
        signedInContext(browser, t.url, t.personalKey, { viewport: { width: 1280, height: 900 } }),
        signedInContext(browser, t.url, t.personalKey, { viewport: { width: 390, height: 900 } }),
      ])
      page = await open(desktop)

      // A visitor of a site using PostHog's snippet views two of its pages: posthog-js sends each page view.
      site = await serveSite({
        '/js/landing': sitePage(t.url, t.projectKey, 'Landing'),
        '/js/docs': sitePage(t.url, t.projectKey, 'Docs'),
      })
      ;[landing, docs] = [`${site.origin}/js/landing`, `${site.origin}/js/docs`]
      const visitor = await browser.newContext()
      const tab = await visitor.newPage()
      const stored = async () =>
        (await call('GET', `/api/projects/${t.projectId}/events/?event=$pageview&distinct_id=js-visitor`)).body.results.map(
          (e: { properties: { $current_url: string } }) => e.properties.$current_url,
        )
      for (const [n, url] of [landing, docs].entries()) {
        await tab.goto(url)
        await waitFor(async () => (await stored()).length === n + 1, { timeoutMs: 20_000, what: `posthog-js's page view of ${url}` })
      }
      expect((await stored()).sort()).toEqual([docs, landing].sort())
      await visitor.close()
    })
    afterAll(async () => {
      await site?.close()
      await desktop?.close()
      await phone?.close()
      await browser?.close()
      await t?.close()
    })

    /** A new tab of the signed-in `context` on the app's `section`. */
    async function open(context: BrowserContext, section = 'trends') {
      const p = await context.newPage()
      await p.goto(`${t.url}/project/${t.projectId}/${section}`)
      return p
    }

    /** The Query API's `results` for `query`. */
    const answer = async (query: Json) => {
      const res = await call('POST', `/api/projects/${t.projectId}/query/`, { query })
      expect(res.status, res.text).toBe(200)
      return res.body.results
    }
    /** What a chart (by its data-testid) says it draws. */
    const drawn = async (p: Page, testId: string) =>
      JSON.parse((await p.locator(`[data-testid=${testId}]`).first().getAttribute('data-values', { timeout: 15_000 })) ?? 'null')
    /** The chart's values equal `shape` of the API's answer to `query`. */
    async function expectChart(p: Page, testId: string, query: Json, shape: (results: any) => unknown) {
      const expected = JSON.stringify(shape(await answer(query)))
      await expect.poll(async () => JSON.stringify(await drawn(p, testId).catch(() => null)), { timeout: 20_000 }).toBe(expected)
    }

    const range = { date_from: '-7d', date_to: null }
    const lifecycle = (event: string, interval = 'day', properties: Json[] = []): Json => ({
      kind: 'LifecycleQuery',
      series: [{ kind: 'EventsNode', event, name: event }],
      interval,
      dateRange: range,
      properties,
      filterTestAccounts: false,
    })
    const lifecycleShape = (results: Array<{ status: string; data: number[]; labels: string[] }>) => ({
      labels: results[0]?.labels ?? [],
      series: ['new', 'returning', 'resurrecting', 'dormant'].map((status) => ({
        key: status,
        label: status[0].toUpperCase() + status.slice(1),
        values: results.find((s) => s.status === status)?.data ?? [],
      })),
    })

    /** Saves the editor's insight as `name`, checks the saved query's kind, reloads and reopens it from the list, and puts it on Home. */
    async function saveAndReopen(p: Page, name: string, kind: string, check: () => Promise<void>): Promise<number> {
      await p.fill('input[aria-label="Insight name"]', name)
      await p.click('.save-insight button[type=submit]')
      await p.waitForURL(new RegExp(`/project/${t.projectId}/insights/\\d+`))
      const id = Number(/insights\/(\d+)/.exec(p.url())![1])
      const saved = await call('GET', `/api/projects/${t.projectId}/insights/${id}/`)
      expect(saved.status, saved.text).toBe(200)
      expect(saved.body.query.source.kind).toBe(kind)
      await p.reload()
      await check()
      await p.goto(`${t.url}/project/${t.projectId}/insights`)
      await p.click(`tr[data-insight="${id}"] a:has-text("${name}")`)
      await p.waitForURL(new RegExp(`/insights/${id}`))
      await check()
      await p.selectOption('select[aria-label="Dashboard"]', String(home))
      await p.click('button:has-text("Add to dashboard")')
      await p.waitForSelector('text=Added to Home.')
      return id
    }

    it('lifecycle: stacked bars of the four statuses, a legend that toggles them, a second event, interval and filter', async () => {
      await page.click('.insight-tabs a:has-text("Lifecycle")')
      await page.waitForURL(/\/lifecycle/)
      await expectChart(page, 'lifecycle-chart', lifecycle('$pageview'), lifecycleShape)
      // Someone was new in the range, and someone went dormant (drawn below zero).
      const pageviews = await answer(lifecycle('$pageview'))
      expect(pageviews.find((s: Json) => s.status === 'new').count).toBeGreaterThan(0)
      expect(pageviews.find((s: Json) => s.status === 'dormant').count).toBeLessThan(0)
      await expectDrawn(page, 'kinds-lifecycle-desktop', 1280)

      // A second event, then back: each time the chart is that event's.
      for (const event of ['purchase', '$pageview']) {
        await page.fill('input[aria-label="Series A event"]', event)
        await expectChart(page, 'lifecycle-chart', lifecycle(event), lifecycleShape)
      }
      // The legend hides and shows a status (twice: dormant, then new); the hidden one's bars are gone.
      for (const status of ['dormant', 'new']) {
        const bars = () => page.locator(`[data-testid=lifecycle-chart] rect[data-series="${status}"]`).count()
        const before = await bars()
        expect(before, status).toBeGreaterThan(0)
        await page.click(`.chart-legend li[data-series="${status}"] button`)
        await expect.poll(bars).toBe(0)
        expect(await page.getAttribute(`.chart-legend li[data-series="${status}"] button`, 'aria-pressed')).toBe('false')
        await page.click(`.chart-legend li[data-series="${status}"] button`)
        await expect.poll(bars).toBe(before)
      }
      // Hovering a bucket shows its four counts.
      // The bars lie over the bucket's hover area: the pointer goes to its middle whichever is there.
      await page.hover('[data-testid=lifecycle-chart] rect[data-hover-bucket="7"]', { force: true })
      const last = lifecycleShape(pageviews).series.map((s) => `${s.label}: ${s.values[7]}`)
      // The tooltip at the cursor: a row per status, its name and its count.
      const tooltip = () =>
        page
          .locator('[data-testid=chart-tooltip] tr')
          .evaluateAll((rows) => rows.map((r) => `${r.children[0].textContent!.trim()}: ${r.children[1].textContent}`))
      await expect.poll(tooltip).toEqual(last)
      // A click on a bar lists the persons behind it, as many as it counts (twice: the first new bar, then the first
      // dormant one, which replaces it).
      for (const status of ['new', 'dormant']) {
        const series = pageviews.find((s: Json) => s.status === status) as { data: number[]; days: string[] }
        const i = series.data.findIndex((v) => v !== 0)
        await page.click(`[data-testid=lifecycle-chart] rect[data-series="${status}"][data-bucket="${i}"]`)
        const panel = page.locator(`.lifecycle-persons[data-status="${status}"][data-day="${series.days[i]}"]`)
        // The list of the bar before may still show while this one's loads: wait for this bar's count.
        await expect
          .poll(() => panel.locator('.persons-list li').count(), { message: `${status} on ${series.days[i]}`, timeout: 15_000 })
          .toBe(Math.abs(series.data[i]))
        expect(await panel.locator('.error').count()).toBe(0)
        expect(await page.locator('.lifecycle-persons').count()).toBe(1)
      }
      await page.locator('.lifecycle-persons button:has-text("Close")').click()
      await expect.poll(() => page.locator('.lifecycle-persons').count()).toBe(0)
      // Week buckets, then a property filter (Chrome only), then back.
      await page.selectOption('select[aria-label="Interval"]', 'week')
      await expectChart(page, 'lifecycle-chart', lifecycle('$pageview', 'week'), lifecycleShape)
      await page.selectOption('select[aria-label="Interval"]', 'day')
      await page.click('button:has-text("+ Add filter")')
      await page.fill('input[aria-label="Property key"]', '$browser')
      await page.fill('input[aria-label="Value"]', 'Chrome')
      await expectChart(
        page,
        'lifecycle-chart',
        lifecycle('$pageview', 'day', [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }]),
        lifecycleShape,
      )
      await page.click('button[aria-label="Remove filter"]')
      await expectChart(page, 'lifecycle-chart', lifecycle('$pageview'), lifecycleShape)

      // Saved with dormant hidden: reopened, dormant stays hidden; its tile draws the chart.
      await page.click(`.chart-legend li[data-series="dormant"] button`)
      const check = async () => {
        await expectChart(page, 'lifecycle-chart', lifecycle('$pageview'), lifecycleShape)
        await expect.poll(() => page.locator('[data-testid=lifecycle-chart] rect[data-series="dormant"]').count()).toBe(0)
      }
      const id = await saveAndReopen(page, 'Pageview lifecycle', 'LifecycleQuery', check)
      await page.goto(`${t.url}/project/${t.projectId}/home`)
      await expect
        .poll(() => page.locator(`.tile[data-insight="${id}"] [data-testid=lifecycle-chart] rect[data-series="new"]`).count(), {
          timeout: 15_000,
        })
        .toBeGreaterThan(0)
      const small = await open(phone, `insights/${id}`)
      await small.locator('[data-testid=lifecycle-chart] svg').waitFor({ timeout: 15_000 })
      await expectDrawn(small, 'kinds-lifecycle-phone', 390)
      await small.close()
    })

    const stickiness = (events: string[], compare = false): Json => ({
      kind: 'StickinessQuery',
      series: events.map((event) => ({ kind: 'EventsNode', event, name: event })),
      interval: 'day',
      dateRange: range,
      properties: [],
      filterTestAccounts: false,
      stickinessFilter: { computedAs: 'non_cumulative' },
      compareFilter: { compare },
    })
    const stickinessShape = (results: Array<{ label: string; data: number[]; labels: string[]; compare_label?: string }>) => ({
      labels: results.find((s) => s.compare_label !== 'previous')?.labels ?? [],
      series: results.map((s, i) => ({
        key: String(i),
        label: s.compare_label === 'previous' ? `${s.label} (previous period)` : s.label,
        values: s.data,
      })),
    })

    it('stickiness: bars by active days, a second series, compare to the previous period', async () => {
      await page.goto(`${t.url}/project/${t.projectId}/trends`)
      await page.click('.insight-tabs a:has-text("Stickiness")')
      await page.waitForURL(/\/stickiness/)
      await expectChart(page, 'stickiness-chart', stickiness(['$pageview']), stickinessShape)
      // ada viewed pages on all seven days of the range: she is counted at 7 days.
      const pageviews = (await answer(stickiness(['$pageview'])))[0] as { data: number[]; labels: string[] }
      expect(pageviews.data[6]).toBeGreaterThanOrEqual(1)
      expect(pageviews.labels[0]).toMatch(/^1 day/)
      // A click on a bar lists the persons active on that many days (twice: seven days, then the fewest with anyone).
      const fewest = pageviews.data.findIndex((v) => v > 0)
      expect(fewest).toBeLessThan(6)
      for (const i of [6, fewest]) {
        await page.click(`[data-testid=stickiness-chart] rect[data-series="0"][data-bucket="${i}"]`)
        const panel = page.locator(`.stickiness-persons[data-series="0"][data-day="${i + 1}"]`)
        await expect
          .poll(() => panel.locator('.persons-list li').count(), { message: `${i + 1} days`, timeout: 15_000 })
          .toBe(pageviews.data[i])
        expect(await panel.locator('.error').count()).toBe(0)
      }
      await page.locator('.stickiness-persons button:has-text("Close")').click()
      await page.click('button:has-text("+ Add series")')
      await page.fill('input[aria-label="Series B event"]', 'purchase')
      await expectChart(page, 'stickiness-chart', stickiness(['$pageview', 'purchase']), stickinessShape)
      await page.check('input[aria-label="Compare to previous period"]')
      await expectChart(page, 'stickiness-chart', stickiness(['$pageview', 'purchase'], true), stickinessShape)
      await expectDrawn(page, 'kinds-stickiness-desktop', 1280)
      await page.uncheck('input[aria-label="Compare to previous period"]')
      await page.click('button[aria-label="Remove series B"]')
      await expectChart(page, 'stickiness-chart', stickiness(['$pageview']), stickinessShape)
      await page.click('button:has-text("+ Add series")')
      await page.fill('input[aria-label="Series B event"]', 'purchase')
      const check = () => expectChart(page, 'stickiness-chart', stickiness(['$pageview', 'purchase']), stickinessShape)
      await check()
      const id = await saveAndReopen(page, 'Stickiness of views and purchases', 'StickinessQuery', check)
      await page.goto(`${t.url}/project/${t.projectId}/home`)
      await expect
        .poll(() => page.locator(`.tile[data-insight="${id}"] [data-testid=stickiness-chart] rect[data-bucket]`).count(), {
          timeout: 15_000,
        })
        .toBeGreaterThan(0)
      const small = await open(phone, `insights/${id}`)
      await small.locator('[data-testid=stickiness-chart] svg').waitFor({ timeout: 15_000 })
      await expectDrawn(small, 'kinds-stickiness-phone', 390)
      await small.close()
    })

    const retention = (breakdown?: string): Json => ({
      kind: 'RetentionQuery',
      dateRange: range,
      properties: [],
      filterTestAccounts: false,
      retentionFilter: {
        targetEntity: { id: '$pageview', name: '$pageview', type: 'events' },
        returningEntity: { id: '$pageview', name: '$pageview', type: 'events' },
        retentionType: 'retention_first_time',
        period: 'Day',
        totalIntervals: 8,
        cumulative: false,
      },
      ...(breakdown ? { breakdownFilter: { breakdown_type: 'event', breakdown } } : {}),
    })
    /** The cohort table's counts, row by row (the size first, then each interval the cohort has reached), as drawn. */
    const tableCounts = (p: Page) =>
      p
        .locator('[data-testid=retention-table] tbody tr')
        .evaluateAll((rows) =>
          rows.map((r) => [
            Number(r.querySelector('[data-testid=cohort-size]')?.textContent),
            ...[...r.querySelectorAll('td.retention-cell:not(.empty)')].map((c) => Number(c.getAttribute('data-count'))),
          ]),
        )
    /** The API's counts as the table draws them: cohort r of n shows its first n - r intervals (PostHog's triangle). */
    const countsOf = (rows: Array<{ values: Array<{ count: number }>; breakdown_value?: unknown }>, value?: unknown) => {
      const shown = rows.filter((r) => value === undefined || r.breakdown_value === value)
      return shown.map((r, i) => [r.values[0].count, ...r.values.slice(0, shown.length - i).map((v) => v.count)])
    }

    it('retention: the cohort table and curve, a breakdown’s second value, and the persons of a cell', async () => {
      await page.goto(`${t.url}/project/${t.projectId}/trends`)
      await page.click('.insight-tabs a:has-text("Retention")')
      await page.waitForURL(/\/retention/)
      const rows = await answer(retention())
      await expect.poll(() => tableCounts(page), { timeout: 20_000 }).toEqual(countsOf(rows))
      await page.locator('.retention [data-testid=trend-chart]').waitFor()
      await expectDrawn(page, 'kinds-retention-desktop', 1280)

      // The persons of a cell: as many as it counts (twice: two cells of the first cohort with anyone in them).
      const first = rows.findIndex((r: { values: Array<{ count: number }> }) => r.values[0].count > 0)
      const cells = (rows[first].values as Array<{ count: number }>).flatMap((v, i) => (v.count > 0 ? [i] : [])).slice(0, 2)
      expect(cells.length).toBe(2)
      for (const i of cells) {
        await page.click(`tr[data-cohort="${first}"] td.retention-cell:nth-of-type(${i + 3}) button`)
        const panel = page.locator(`.retention-persons[data-cohort="${first}"][data-interval="${i}"]`)
        await panel.locator('.persons-list, .error, p.nobody').first().waitFor({ timeout: 15_000 })
        expect(await panel.locator('.error').count(), (await panel.locator('.error').allTextContents()).join()).toBe(0)
        expect(await panel.locator('.persons-list li').count(), `cell ${i}`).toBe(rows[first].values[i].count)
        await panel.locator('button:has-text("Close")').click()
      }

      // By browser: each value's cohorts, the second value chosen, then the first.
      await page.selectOption('select[aria-label="Breakdown type"]', 'event')
      await page.fill('input[aria-label="Breakdown property"]', '$browser')
      await page.locator('select[aria-label="Breakdown value"]').waitFor({ timeout: 20_000 })
      const broken = await answer(retention('$browser'))
      const values = [...new Set(broken.map((r: { breakdown_value: unknown }) => r.breakdown_value))]
      expect(values.length).toBeGreaterThanOrEqual(2)
      for (const index of [1, 0]) {
        await page.selectOption('select[aria-label="Breakdown value"]', String(index))
        await expect.poll(() => tableCounts(page), { timeout: 20_000 }).toEqual(countsOf(broken, values[index]))
        expect(await page.getAttribute('[data-testid=retention-table]', 'data-breakdown')).toBe(String(values[index]))
      }
      await expectDrawn(page, 'kinds-retention-breakdown-desktop', 1280)
      await page.fill('input[aria-label="Breakdown property"]', '')
      await expect.poll(() => tableCounts(page), { timeout: 20_000 }).toEqual(countsOf(rows))

      const check = async () => {
        await expect.poll(() => tableCounts(page), { timeout: 20_000 }).toEqual(countsOf(rows))
      }
      const id = await saveAndReopen(page, 'Pageview retention', 'RetentionQuery', check)
      await page.goto(`${t.url}/project/${t.projectId}/home`)
      await expect
        .poll(() => page.locator(`.tile[data-insight="${id}"] [data-testid=retention-table] tbody tr`).count(), { timeout: 15_000 })
        .toBe(rows.length)
      const small = await open(phone, `insights/${id}`)
      await small.locator('[data-testid=retention-table]').waitFor({ timeout: 15_000 })
      await expectDrawn(small, 'kinds-retention-phone', 390)
      await small.close()
    })

    const paths = (startPoint?: string, stepLimit = 5, more: Json = {}): Json => ({
      kind: 'PathsQuery',
      dateRange: range,
      properties: [],
      filterTestAccounts: false,
      pathsFilter: {
        includeEventTypes: ['$pageview'],
        stepLimit,
        edgeLimit: 50,
        excludeEvents: [],
        ...(startPoint ? { startPoint } : {}),
        ...more,
      },
    })
    const pathsShape = (links: Array<{ source: string; target: string; value: number }>) => links.map((l) => [l.source, l.target, l.value])
    const drawnLinks = async (p: Page) => JSON.stringify((await drawn(p, 'paths-chart').catch(() => null))?.links ?? null)
    async function expectPaths(p: Page, query: Json) {
      const expected = JSON.stringify(pathsShape(await answer(query)))
      await expect.poll(() => drawnLinks(p), { timeout: 20_000 }).toBe(expected)
    }

    it('paths: the Sankey diagram of 50 edges, two start points, hover counts, the persons of a node, weights and groupings', async () => {
      await page.goto(`${t.url}/project/${t.projectId}/trends`)
      await page.click('.insight-tabs a:has-text("Paths")')
      await page.waitForURL(/\/paths/)
      await page.fill('input[aria-label="Steps"]', '8')
      await expectPaths(page, paths(undefined, 8))
      expect((await answer(paths(undefined, 8))).length).toBe(50)
      await expectDrawn(page, 'kinds-paths-50-edges-desktop', 1280)
      await page.fill('input[aria-label="Steps"]', '5')

      // From the home page, then from pricing: each its own edges.
      for (const start of ['/', '/pricing']) {
        await page.fill('input[aria-label="Start point"]', start)
        await expectPaths(page, paths(start))
      }
      // From the posthog-js visitor's landing page: their one step to the docs.
      await page.fill('input[aria-label="Start point"]', landing)
      expect((await answer(paths(landing))).map((l: { source: string; target: string }) => [l.source, l.target])).toEqual([
        [`1_${landing}`, `2_${docs}`],
      ])
      await expectPaths(page, paths(landing))
      await page.fill('input[aria-label="Start point"]', '/')
      const fromHome = await answer(paths('/'))
      await expectPaths(page, paths('/'))
      await expectDrawn(page, 'kinds-paths-desktop', 1280)
      // Hovering an edge shows its count.
      const edge = fromHome[0] as { source: string; target: string; value: number }
      // The pointer to the middle of the edge's line (an edge is a stroke, whose box Playwright would aim at the centre
      // of, off the stroke once the band curves or overflows the window).
      const selector = `path[data-edge="${edge.source}→${edge.target}"]`
      const middle = await page.locator(selector).evaluate((element) => {
        const path = element as unknown as PathGeometry
        const p = path.getPointAtLength(path.getTotalLength() / 2).matrixTransform(path.getScreenCTM()!)
        return { x: p.x, y: p.y }
      })
      await page.mouse.move(0, 0)
      await page.mouse.move(middle.x, middle.y, { steps: 4 })
      await expect.poll(() => page.locator('[data-testid=hovered]').textContent()).toContain(`: ${edge.value}`)
      // A node's persons: as many as reached it (twice: two nodes of step 2).
      const step2 = [...new Set(fromHome.map((l: { target: string }) => l.target).filter((k: string) => k.startsWith('2_')))].slice(
        0,
        2,
      ) as string[]
      expect(step2.length).toBe(2)
      for (const key of step2) {
        const reached = fromHome
          .filter((l: { target: string }) => l.target === key)
          .reduce((n: number, l: { value: number }) => n + l.value, 0)
        await page.click(`g[data-node="${key}"] .node-persons`)
        const panel = page.locator(`.paths-persons[data-node="${key}"]`)
        await panel.locator('.persons-list, .error, p.nobody').first().waitFor({ timeout: 15_000 })
        expect(await panel.locator('.error').count(), (await panel.locator('.error').allTextContents()).join()).toBe(0)
        const names = (await panel.locator('.persons-list li').allTextContents()).sort()
        const expected = PEOPLE.filter((p) => p.pages[0] === '/' && p.pages[1] === key.slice(2)).map((p) => p.id)
        expect(names, key).toEqual(expected)
        expect(reached).toBeGreaterThanOrEqual(names.length)
        await panel.locator('button:has-text("Close")').click()
      }

      // The edges' weights: a lower bound, then both bounds; each time the API's edges within them, fewer than all.
      const values = [...new Set((fromHome as Array<{ value: number }>).map((l) => l.value))].sort((x, y) => x - y)
      expect(values.length, 'edges of at least two weights').toBeGreaterThanOrEqual(2)
      const bounds: Array<[number, number | null]> = [
        [values[1], null],
        // Exactly the weight of the first edge from home: edges left without a way from the start are dropped too.
        [edge.value, edge.value],
      ]
      for (const [min, max] of bounds) {
        await page.fill('input[aria-label="Min edge weight"]', String(min))
        await page.fill('input[aria-label="Max edge weight"]', max === null ? '' : String(max))
        const bounded = paths('/', 5, { minEdgeWeight: min, ...(max === null ? {} : { maxEdgeWeight: max }) })
        const links = (await answer(bounded)) as Array<{ value: number }>
        expect(links.length).toBeGreaterThan(0)
        expect(links.length).toBeLessThan(fromHome.length)
        expect(links.every((l) => l.value >= min && (max === null || l.value <= max))).toBe(true)
        await expectPaths(page, bounded)
      }
      await page.fill('input[aria-label="Min edge weight"]', '')
      await page.fill('input[aria-label="Max edge weight"]', '')
      await expectPaths(page, paths('/'))
      // Groupings: the pages under a pattern are one node named by it (one pattern, then two).
      for (const groupings of [['/p*'], ['/p*', '/s*']]) {
        await page.fill('input[aria-label="Path groupings"]', groupings.join(','))
        const grouped = paths('/', 5, { pathGroupings: groupings })
        const targets = ((await answer(grouped)) as Array<{ target: string }>).map((l) => l.target)
        for (const g of groupings)
          expect(
            targets.some((k) => k.endsWith(`_${g}`)),
            g,
          ).toBe(true)
        expect(targets).not.toContain('2_/pricing')
        await expectPaths(page, grouped)
      }
      await page.fill('input[aria-label="Path groupings"]', '')
      // A HogQL expression as each event's item (two expressions), from any start: every event is an item of it.
      await page.fill('input[aria-label="Start point"]', '')
      await page.uncheck('input[aria-label="Page views"]')
      await page.check('input[aria-label="HogQL expression"]')
      const expressions: Array<[string, string]> = [
        ['properties.$current_url', '2_/pricing'],
        ["concat(event, ' ', properties.$browser)", '2_purchase Chrome'],
      ]
      for (const [expression, target] of expressions) {
        await page.fill('input[aria-label="HogQL path expression"]', expression)
        const query = {
          ...paths(),
          pathsFilter: { ...(paths().pathsFilter as Json), includeEventTypes: ['hogql'], pathsHogQLExpression: expression },
        }
        const targets = ((await answer(query)) as Array<{ target: string }>).map((l) => l.target)
        expect(targets, expression).toContain(target)
        await expectPaths(page, query)
      }
      await page.uncheck('input[aria-label="HogQL expression"]')
      await page.check('input[aria-label="Page views"]')
      await page.fill('input[aria-label="Start point"]', '/')

      const check = () => expectPaths(page, paths('/'))
      const id = await saveAndReopen(page, 'Paths from home', 'PathsQuery', check)
      await page.goto(`${t.url}/project/${t.projectId}/home`)
      await expect
        .poll(() => page.locator(`.tile[data-insight="${id}"] [data-testid=paths-chart] g[data-node]`).count(), { timeout: 15_000 })
        .toBeGreaterThan(2)
      await expectDrawn(page, 'kinds-tiles-desktop', 1280)
      const small = await open(phone, `paths?stepLimit=8`)
      await small.locator('[data-testid=paths-chart] svg').waitFor({ timeout: 15_000 })
      await expectDrawn(small, 'kinds-paths-50-edges-phone', 390)
      await small.goto(`${t.url}/project/${t.projectId}/home`)
      await small.locator(`.tile[data-insight="${id}"] [data-testid=paths-chart] svg`).waitFor({ timeout: 15_000 })
      await expectDrawn(small, 'kinds-tiles-phone', 390)
      await small.close()
    })
  },
)
