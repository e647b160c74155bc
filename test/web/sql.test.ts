// The SQL page in headless Chromium, on a Wren with a few events: a query typed in the editor runs (the Run
// button, then Ctrl+Enter) and its rows and column types are the Query API's; a second query replaces them,
// and a reload runs the query the URL holds; an error is drawn under the line it points at (two of them), and
// a fixed query runs; the editor completes tables, fields and property names; two queries saved as insights
// and put on a dashboard are table tiles there with the API's rows, and a tile opens its query on the SQL page.
// Screenshots of the result, the error and the dashboard go to test-artifacts/web/sql-*.png (paths printed).
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'
import { skipReason } from '../support/skip'
import { chromiumMissing, expectDrawn, launchChromium, signIn, WEB_ARTIFACTS } from '../support/browser'

const unavailable = skipReason('sql page', chromiumMissing())

const BY_EVENT = 'select event, count() as c\nfrom events\ngroup by event\norder by c desc, event'
const BY_BROWSER =
  "select properties.$browser as browser, uniq(distinct_id) as people, max(timestamp) as last_seen\nfrom events\nwhere event = '$pageview'\ngroup by browser\norder by browser"

/** A value as a result cell shows it. */
const cell = (value: unknown) => (value === null ? 'null' : typeof value === 'string' ? value : JSON.stringify(value))

describe.skipIf(unavailable !== null)(`the SQL page in headless Chromium${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  let browser: Browser

  beforeAll(async () => {
    t = await startWren()
    call = api(t)
    const events = [
      ...['Chrome', 'Chrome', 'Chrome'].map(($browser) => ({ distinct_id: 'ada', event: '$pageview', properties: { $browser } })),
      ...['Firefox', 'Firefox'].map(($browser) => ({ distinct_id: 'bob', event: '$pageview', properties: { $browser } })),
      { distinct_id: 'cy', event: '$pageview', properties: { $browser: 'Chrome' } },
      { distinct_id: 'ada', event: 'signed_up', properties: { plan: 'pro' } },
      { distinct_id: 'bob', event: 'signed_up', properties: { plan: 'free' } },
      { distinct_id: 'ada', event: 'purchase', properties: { price: 20 } },
    ]
    await captureBatch(t, events)
    await drained(t.wren)
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    await t?.close()
  })

  const open = async (): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    const page = await context.newPage()
    await signIn(page, t.url, t.personalKey)
    return page
  }
  const sqlPage = async (page: Page) => {
    await page.click('nav.menu a:has-text("SQL")')
    await page.waitForURL(new RegExp(`/project/${t.projectId}/sql`))
    await page.waitForSelector('.cm-content')
  }
  /** Replaces the editor's text, as a paste does. */
  const setQuery = async (page: Page, sql: string) => {
    await page.click('.cm-content')
    await page.keyboard.press('Control+A')
    await page.keyboard.insertText(sql)
  }
  const editorText = async (page: Page) => (await page.locator('.cm-content .cm-line').allTextContents()).join('\n')

  /** The Query API's answer to `sql`, as the page should show it: column names, types, and cells. */
  const answerOf = async (sql: string) => {
    const res = await call('POST', `/api/projects/${t.projectId}/query/`, { query: { kind: 'HogQLQuery', query: sql } })
    expect(res.status, res.text).toBe(200)
    return {
      columns: res.body.columns as string[],
      types: (res.body.types as Array<[string, string]>).map(([, type]) => type),
      rows: (res.body.results as unknown[][]).map((row) => row.map(cell)),
    }
  }
  /** What a result table in `scope` shows. */
  const shown = async (page: Page, scope: string) => {
    const table = page.locator(`${scope} table.sql-table`)
    const rows = await table.locator('tbody tr').all()
    return {
      columns: await table.locator('th .column-name').allTextContents(),
      types: await table.locator('th .column-type').allTextContents(),
      rows: await Promise.all(rows.map((row) => row.locator('td').allTextContents())),
    }
  }
  const screenshot = async (page: Page, name: string) => {
    await expectDrawn(page, name, 1280)
    console.log(`screenshot: ${path.join(WEB_ARTIFACTS, `${name}.png`)}`)
  }

  it('runs a query and shows the API’s rows with their types; a second query replaces them; a reload runs the URL’s', async () => {
    const page = await open()
    // The editor is a bundle of its own: the other pages do not load it, the SQL page loads it once.
    const scripts: string[] = []
    page.on('request', (request) => {
      if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname)
    })
    const editorLoaded = () => page.evaluate(() => 'wrenSqlEditor' in globalThis)
    expect(await editorLoaded()).toBe(false)
    await sqlPage(page)
    await page.click('nav.menu a:has-text("Events")')
    await page.waitForURL(new RegExp(`/project/${t.projectId}/events`))
    await sqlPage(page)
    expect(scripts).toEqual(['/static/wren/sql-editor.js'])
    await setQuery(page, BY_EVENT)
    await page.click('button.run')
    const byEvent = await answerOf(BY_EVENT)
    expect(byEvent.types).toEqual(['String', 'UInt64'])
    await expect.poll(() => shown(page, '.sql-answer')).toEqual(byEvent)
    expect(byEvent.rows[0]).toEqual(['$pageview', '6'])

    // The second, with Ctrl+Enter: other columns, other types.
    await setQuery(page, BY_BROWSER)
    await page.keyboard.press('Control+Enter')
    const byBrowser = await answerOf(BY_BROWSER)
    expect(byBrowser.columns).toEqual(['browser', 'people', 'last_seen'])
    expect(byBrowser.rows.map((r) => r.slice(0, 2))).toEqual([
      ['Chrome', '2'],
      ['Firefox', '1'],
    ])
    await expect.poll(() => shown(page, '.sql-answer')).toEqual(byBrowser)
    expect(await page.textContent('[data-testid=result-count]')).toBe('2 rows')
    await screenshot(page, 'sql-result')

    // The URL holds the query: a reload (or the link, shared) shows it and its answer.
    await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe(BY_BROWSER)
    await page.reload()
    await page.waitForSelector('.sql-answer table.sql-table')
    expect(await editorText(page)).toBe(BY_BROWSER)
    expect(await shown(page, '.sql-answer')).toEqual(byBrowser)
    await page.context().close()
  })

  it('draws an error under the line it points at, for each error, and runs the query once it is fixed', async () => {
    const page = await open()
    await sqlPage(page)
    const broken = ["select event\nfrom events\nwhere event = = '$pageview'", 'select nofunc(event)\nfrom events']
    for (const [i, sql] of broken.entries()) {
      const refused = await call('POST', `/api/projects/${t.projectId}/query/`, { query: { kind: 'HogQLQuery', query: sql } })
      expect(refused.status, refused.text).toBe(400)
      const [, line, column] = /line (\d+), column (\d+)/.exec(refused.body.detail)!.map(Number)
      await setQuery(page, sql)
      if (i === 0) await page.click('button.run')
      else await page.keyboard.press('Control+Enter')
      const error = page.locator('.cm-sql-error')
      await expect.poll(() => error.getAttribute('data-line')).toBe(String(line))
      expect(await error.textContent()).toBe(`^${refused.body.detail}`)
      expect(await error.getAttribute('data-column')).toBe(String(column - 1))
      // Right under its line: the editor's lines, then the error, then the rest.
      const drawn = await page.locator('.cm-content > div').allTextContents()
      const lines = sql.split('\n')
      expect(drawn).toEqual([...lines.slice(0, line), `^${refused.body.detail}`, ...lines.slice(line)])
      if (i === 0) await screenshot(page, 'sql-error')
    }
    // Fixed, it runs: the error is gone and the rows show.
    await setQuery(page, BY_EVENT)
    expect(await page.locator('.cm-sql-error').count()).toBe(0)
    await page.click('button.run')
    await expect.poll(() => shown(page, '.sql-answer')).toEqual(await answerOf(BY_EVENT))
    expect(await page.locator('.error').count()).toBe(0)
    await page.context().close()
  })

  it('completes tables, fields and the project’s property names', async () => {
    const page = await open()
    await sqlPage(page)
    const options = page.locator('.cm-tooltip-autocomplete li .cm-completionLabel')
    await page.click('.cm-content')
    await page.keyboard.press('Control+A')
    await page.keyboard.type('select properties.$bro')
    await expect.poll(() => options.allTextContents()).toEqual(['$browser'])
    await options.filter({ hasText: '$browser' }).click()
    await page.keyboard.type(' from ev')
    await expect.poll(() => options.allTextContents()).toContain('events')
    await options.filter({ hasText: /^events$/ }).click()
    expect(await editorText(page)).toBe('select properties.$browser from events')
    await page.keyboard.press('Home')
    await page.keyboard.type('select person.')
    await expect.poll(() => options.allTextContents()).toEqual(expect.arrayContaining(['id', 'properties', 'created_at']))
    await page.context().close()
  })

  it('saves two queries as insights on a dashboard, which shows each as a table of the API’s rows', async () => {
    const board = await call('POST', `/api/projects/${t.projectId}/dashboards/`, { name: 'SQL board' })
    expect(board.status, board.text).toBe(201)
    const page = await open()
    const saved: number[] = []
    for (const [name, sql] of [
      ['Events by name', BY_EVENT],
      ['Browsers', BY_BROWSER],
    ]) {
      await sqlPage(page)
      await setQuery(page, sql)
      await page.fill('input[aria-label="Insight name"]', name)
      if (name === 'Events by name') {
        // Saved first, then added: the insight's page is the SQL page with its query.
        await page.click('.save-insight button[type=submit]')
        await page.waitForURL(new RegExp(`/project/${t.projectId}/insights/\\d+`))
        await page.waitForSelector('.sql-answer table.sql-table')
        expect(await page.textContent('.page-header h1')).toBe(name)
        expect(await editorText(page)).toBe(sql)
      }
      // Add to dashboard saves too (a new insight's page then opens).
      await page.selectOption('select[aria-label="Dashboard"]', String(board.body.id))
      await page.click('button:has-text("Add to dashboard")')
      if (name === 'Events by name') await page.waitForSelector('text=Added to SQL board.')
      else await page.waitForURL(new RegExp(`/project/${t.projectId}/insights/\\d+`))
      const id = Number(/insights\/(\d+)/.exec(page.url())![1])
      const insight = await call('GET', `/api/projects/${t.projectId}/insights/${id}/`)
      expect(insight.body).toMatchObject({
        name,
        saved: true,
        dashboards: [board.body.id],
        query: { kind: 'DataVisualizationNode', source: { kind: 'HogQLQuery', query: sql } },
      })
      saved.push(id)
    }

    // The dashboard: a table tile for each, with the API's columns, types and rows.
    await page.goto(`${t.url}/project/${t.projectId}/dashboards/${board.body.id}`)
    const dashboard = await call('GET', `/api/projects/${t.projectId}/dashboards/${board.body.id}/`)
    expect(dashboard.status, dashboard.text).toBe(200)
    for (const id of saved) {
      const insight = dashboard.body.tiles.find((tile: { insight: { id: number } | null }) => tile.insight?.id === id).insight
      expect(insight.result, insight.result_unavailable).not.toBeNull()
      const tile = `.tile[data-insight="${id}"]`
      await page.waitForSelector(`${tile} table.sql-table`)
      expect(await shown(page, tile)).toEqual({
        columns: insight.columns,
        types: insight.types.map(([, type]: [string, string]) => type),
        rows: insight.result.map((row: unknown[]) => row.map(cell)),
      })
    }
    expect(await shown(page, `.tile[data-insight="${saved[0]}"]`)).toEqual(await answerOf(BY_EVENT))
    await screenshot(page, 'sql-dashboard')

    // A tile's name opens its query on the SQL page.
    await page.click(`.tile[data-insight="${saved[1]}"] h3 a`)
    await page.waitForURL(new RegExp(`/insights/${saved[1]}`))
    await page.waitForSelector('.sql-answer table.sql-table')
    expect(await editorText(page)).toBe(BY_BROWSER)
    await page.context().close()
  })
})
