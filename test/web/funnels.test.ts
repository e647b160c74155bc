// The funnels editor in headless Chromium, on a Wren with events sent through posthog-node: a three-step funnel
// built through the editor's controls shows each step's count, its conversion from the first and the previous
// step, its drop-off and its average time; a fourth step added and removed (twice) leaves the same three; a
// breakdown by browser draws a bar per browser per step; a conversion window, an exclusion and strict order each
// change the counts as they should; conversion over time and the time to convert draw the API's answer (a point of
// conversion over time lists who converted in its period); "persons" on a step and on a drop-off lists who reached it and who left before it; the funnel saved, reloaded and
// reopened from the saved insights shows the same numbers, and its dashboard tile draws its steps; a step's paths
// (after it, before it, from the step before) open in the paths editor and draw the API's edges for them.
// Screenshots at 1280 and 390 px (test-artifacts/web/funnel-*.png), checked not blank and not wider than the window.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { PostHog } from 'posthog-node'
import { api, drained, startWren, type TestWren } from '../support/wren'
import { skipReason } from '../support/skip'
import { chromiumMissing, clickChartPoint, expectDrawn, launchChromium, signIn } from '../support/browser'

const unavailable = skipReason('funnels', chromiumMissing())
const MINUTE = 60_000
const STEPS = ['$pageview', 'signed_up', 'purchase']

/**
 * Who went how far, from which browser, how many minutes each step after the first took, and who left the site
 * ($pageleave) between the second step and the third.
 */
const PEOPLE: Array<{ id: string; browser: string; reached: number; minutes: number[]; leaves?: boolean }> = [
  { id: 'ada', browser: 'Chrome', reached: 3, minutes: [10, 20] },
  { id: 'bob', browser: 'Chrome', reached: 3, minutes: [60, 60], leaves: true },
  { id: 'cy', browser: 'Firefox', reached: 2, minutes: [5] },
  { id: 'dee', browser: 'Firefox', reached: 2, minutes: [20] },
  { id: 'eve', browser: 'Chrome', reached: 1, minutes: [] },
  { id: 'fay', browser: 'Firefox', reached: 1, minutes: [] },
]

/** Each step's count: of the people `who` picks, those who reached it within `window` minutes of the first step. */
const reached = (who: (p: (typeof PEOPLE)[number]) => boolean = () => true, window = Infinity) =>
  STEPS.map((_, i) => PEOPLE.filter((p) => who(p) && p.reached > i && p.minutes.slice(0, i).reduce((a, b) => a + b, 0) <= window).length)
/** The average time from the step before to `step` (1-based), as the page shows a time under an hour ("23m 45s"). */
function averageTime(step: number): string {
  const minutes = PEOPLE.filter((p) => p.reached >= step).map((p) => p.minutes[step - 2])
  const seconds = Math.round((minutes.reduce((a, b) => a + b, 0) / minutes.length) * 60)
  return `${Math.floor(seconds / 60)}m${seconds % 60 ? ` ${seconds % 60}s` : ''}`
}
/** A share as the page shows it (web/src/funnel-query.ts percent). */
const pct = (part: number, whole: number) => `${(Math.round((part / whole) * 1000) / 10).toLocaleString('en-US')}%`

describe.skipIf(unavailable !== null)(`the funnels editor in headless Chromium${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  let browser: Browser
  /** The desktop page the tests go through in turn, and the funnel they save. */
  let page: Page
  let id: number

  beforeAll(async () => {
    t = await startWren()
    call = api(t)
    const client = new PostHog(t.projectKey, { host: t.url, flushAt: 1000, flushInterval: 0 })
    const start = Date.now() - 2 * 86_400_000
    for (const [n, person] of PEOPLE.entries()) {
      let at = start + n * 7 * MINUTE
      for (let step = 0; step < person.reached; step++) {
        at += step === 0 ? 0 : person.minutes[step - 1] * MINUTE
        client.capture({ distinctId: person.id, event: STEPS[step], properties: { $browser: person.browser }, timestamp: new Date(at) })
        if (step === 1 && person.leaves) client.capture({ distinctId: person.id, event: '$pageleave', timestamp: new Date(at + MINUTE) })
      }
    }
    await client.shutdown()
    await drained(t.wren)
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    await t?.close()
  })

  const open = async (width: number, section = 'funnels') => {
    const context = await browser.newContext({ viewport: { width, height: 900 } })
    const page = await context.newPage()
    await signIn(page, t.url, t.personalKey)
    await page.goto(`${t.url}/project/${t.projectId}/${section}`)
    return page
  }

  /** The figures each step shows: its count, and from the second step on its conversions and drop-off. */
  const stepFigures = (page: Page) =>
    page.locator('.funnel-step').evaluateAll((steps) =>
      steps.map((s) => {
        const text = (id: string) => s.querySelector(`[data-testid="${id}"]`)?.textContent ?? null
        return [text('step-count'), text('step-from-first'), text('step-from-previous'), text('step-dropped'), text('step-drop-rate')]
      }),
    )
  /** What a funnel of `counts` shows, step by step. */
  const expectedFigures = (counts: number[]) =>
    counts.map((c, i) =>
      i === 0
        ? [String(c), null, null, null, null]
        : [String(c), pct(c, counts[0]), pct(c, counts[i - 1]), String(counts[i - 1] - c), pct(counts[i - 1] - c, counts[i - 1])],
    )
  const expectSteps = (page: Page, counts: number[]) =>
    expect.poll(() => stepFigures(page), { timeout: 15_000 }).toEqual(expectedFigures(counts))

  /** The step editors' events, as the editor shows them. */
  const stepEvents = (page: Page) =>
    page
      .locator('.funnel-step-editor input[aria-label$="event"]')
      .evaluateAll((inputs) => inputs.map((i) => (i as unknown as { value: string }).value))

  /** The API's answer for the funnel the test builds, in `vizType`. */
  const funnel = async (vizType: string) => {
    const res = await call('POST', `/api/projects/${t.projectId}/query/`, {
      query: {
        kind: 'FunnelsQuery',
        series: STEPS.map((event) => ({ kind: 'EventsNode', event })),
        dateRange: { date_from: '-7d' },
        funnelsFilter: { funnelVizType: vizType },
      },
    })
    expect(res.status, res.text).toBe(200)
    return res.body.results
  }
  /** The chart's numbers, as it draws them. */
  const drawn = async (page: Page) =>
    JSON.parse((await page.locator('[data-testid=trend-chart]').getAttribute('data-values', { timeout: 15_000 })) ?? '{}') as {
      labels: string[]
      series: Array<{ values: Array<number | null> }>
    }

  /**
   * The persons listed after pressing `label` (a step's "persons" or "drop-offs", asking for FunnelsActorsQuery's
   * `funnelStep`); the panel's error, if any, fails.
   */
  const personsOf = async (page: Page, label: string, funnelStep: number) => {
    await page.click(`button[aria-label="${label}"]`)
    const panel = page.locator(`.funnel-persons[data-funnel-step="${funnelStep}"]`)
    await panel.locator('.persons-list, .error, p.nobody').first().waitFor({ timeout: 15_000 })
    expect(await panel.locator('.error').count(), (await panel.locator('.error').allTextContents()).join()).toBe(0)
    return (await panel.locator('.persons-list li').allTextContents()).sort()
  }

  it('builds a three-step funnel in the editor, adds and removes a fourth step twice, and breaks it down by browser', async () => {
    page = await open(1280)
    // The switch from Trends opens the editor.
    await page.goto(`${t.url}/project/${t.projectId}/trends`)
    await page.click('.insight-tabs a:has-text("Funnels")')
    await page.waitForURL(/\/funnels/)
    await page.fill('.funnel-step-editor[data-step="1"] input[aria-label="Step 1 event"]', '$pageview')
    await page.fill('.funnel-step-editor[data-step="2"] input[aria-label="Step 2 event"]', 'signed_up')
    await page.click('button:has-text("+ Add step")')
    await page.fill('input[aria-label="Step 3 event"]', 'purchase')
    const counts = reached()
    await expectSteps(page, counts)
    for (const step of [2, 3])
      expect(await page.locator(`.funnel-step[data-step="${step}"] [data-testid=average]`).textContent(), `step ${step}`).toBe(
        averageTime(step),
      )
    await expectDrawn(page, 'funnel-steps-desktop', 1280)

    // A fourth step, added and removed, twice: the funnel is its three steps again each time.
    for (let round = 0; round < 2; round++) {
      await page.click('button:has-text("+ Add step")')
      await page.fill('input[aria-label="Step 4 event"]', 'upgraded')
      await expectSteps(page, [...counts, 0])
      if (round === 0) await expectDrawn(page, 'funnel-four-steps-desktop', 1280)
      await page.click('button[aria-label="Remove step 4"]')
      await expectSteps(page, counts)
      expect(await stepEvents(page)).toEqual(STEPS)
      await page.waitForURL((url) => JSON.parse(url.searchParams.get('steps') ?? '[]').length === 3)
    }

    // A breakdown by browser: a bar per browser on every step, each with its own count.
    await page.fill('input[aria-label="Breakdown property"]', '$browser')
    await page.locator('.funnel-legend li[data-breakdown="Firefox"]').waitFor({ timeout: 15_000 })
    expect((await page.locator('.funnel-legend li').allTextContents()).map((s) => s.trim()).sort()).toEqual(['Chrome', 'Firefox'])
    for (const name of ['Chrome', 'Firefox'])
      expect(await page.locator(`.step-bar-row[data-breakdown="${name}"] [data-testid=count]`).allTextContents(), name).toEqual(
        reached((p) => p.browser === name).map(String),
      )
    await expectSteps(page, counts)
    await expectDrawn(page, 'funnel-breakdown-desktop', 1280)
    await page.fill('input[aria-label="Breakdown property"]', '')
    await expect.poll(() => page.locator('.funnel-legend').count()).toBe(0)
  })

  it('counts within a conversion window, without an excluded path, and in strict order', async () => {
    const counts = reached()
    // A 15-minute window: only who got each step done within it. Then an exclusion: who left between the second and
    // third steps is out of the funnel.
    await page.fill('input[aria-label="Conversion window"]', '15')
    await page.selectOption('select[aria-label="Conversion window unit"]', 'minute')
    await expectSteps(page, reached(undefined, 15))
    await page.fill('input[aria-label="Conversion window"]', '14')
    await page.selectOption('select[aria-label="Conversion window unit"]', 'day')
    await expectSteps(page, counts)
    await page.click('button:has-text("+ Add exclusion")')
    await page.fill('input[aria-label="Excluded event"]', '$pageleave')
    // Between step 2 and step 3 (the options' values are the 0-based funnelFromStep and funnelToStep).
    await page.selectOption('select[aria-label="Exclusion from step"]', { label: '2' })
    await page.selectOption('select[aria-label="Exclusion to step"]', { label: '3' })
    await expectSteps(
      page,
      reached((p) => !p.leaves),
    )
    await expectDrawn(page, 'funnel-exclusion-desktop', 1280)
    await page.click('button[aria-label="Remove exclusion"]')
    await expectSteps(page, counts)
    // Strict order: a step must come right after the one before, so who left between the second and third stops at the second.
    await page.selectOption('select[aria-label="Step order"]', 'strict')
    await expectSteps(
      page,
      STEPS.map((_, i) => PEOPLE.filter((p) => Math.min(p.reached, p.leaves ? 2 : 3) > i).length),
    )
    await page.selectOption('select[aria-label="Step order"]', 'ordered')
    await expectSteps(page, counts)
  })

  it('draws conversion over time and the time to convert as the API answers them', async () => {
    const counts = reached()
    // A deploy tool's note two days ago: conversion over time marks its day.
    const deployed = new Date(Date.now() - 2 * 86_400_000).toISOString()
    const note = await call('POST', `/api/projects/${t.projectId}/annotations/`, {
      content: 'Deployed v2',
      date_marker: deployed,
      creation_type: 'GIT',
    })
    expect(note.status, note.text).toBe(201)
    await page.click('.display-picker button:has-text("Historical trends")')
    const trend = (await funnel('trends')) as Array<{ data: number[]; days: string[] }>
    await expect.poll(async () => (await drawn(page)).series.map((s) => s.values), { timeout: 15_000 }).toEqual(trend.map((s) => s.data))
    const badges = () =>
      page
        .locator('[data-testid=annotations] .annotation-cell.marked')
        .evaluateAll((cells) => cells.map((c) => [Number(c.getAttribute('data-bucket')), Number(c.textContent)]))
    await expect.poll(badges).toEqual([[trend[0].days.indexOf(deployed.slice(0, 10)), 1]])
    await page.locator('[data-testid=annotations] .annotation-cell.marked').click()
    expect(await page.locator('.annotation-popover .annotation-list li').allTextContents()).toEqual([
      expect.stringMatching(/^Deployed v2a deploy tool/),
    ])
    await page.locator('.annotation-popover button[aria-label=Close]').click()
    await expectDrawn(page, 'funnel-trends-desktop', 1280)
    // A point lists who entered in its period and converted: the busiest period's, then one where nobody entered.
    const { data: rates, days } = trend[0]
    for (const bucket of [rates.indexOf(Math.max(...rates)), rates.findIndex((r) => r === 0)]) {
      expect(bucket, 'a period of each kind').toBeGreaterThanOrEqual(0)
      await clickChartPoint(page, 0, bucket)
      const panel = page.locator(`.funnel-persons[data-period="${days[bucket]}"]`)
      await panel.locator('.persons-list, .error, p.nobody').first().waitFor({ timeout: 15_000 })
      expect(await panel.locator('.error').count(), (await panel.locator('.error').allTextContents()).join()).toBe(0)
      const res = await call('POST', `/api/projects/${t.projectId}/query/`, {
        query: {
          kind: 'ActorsQuery',
          select: ['person'],
          source: {
            kind: 'FunnelsActorsQuery',
            source: {
              kind: 'FunnelsQuery',
              series: STEPS.map((event) => ({ kind: 'EventsNode', event })),
              dateRange: { date_from: '-7d' },
              funnelsFilter: { funnelVizType: 'trends' },
            },
            funnelTrendsEntrancePeriodStart: days[bucket],
            funnelTrendsDropOff: false,
          },
        },
      })
      expect(res.status, res.text).toBe(200)
      const expected = res.body.results.map((r: Array<{ distinct_ids: string[] }>) => r[0].distinct_ids[0]).sort()
      expect(expected.length > 0, `persons converted in ${days[bucket]}`).toBe(rates[bucket] > 0)
      expect((await panel.locator('.persons-list li').allTextContents()).sort()).toEqual(expected)
      await panel.locator('button:has-text("Close")').click()
    }
    await page.click('.display-picker button:has-text("Time to convert")')
    const times = (await funnel('time_to_convert')) as { bins: Array<[number, number]> }
    await expect.poll(async () => (await drawn(page)).series[0]?.values, { timeout: 15_000 }).toEqual(times.bins.map(([, n]) => n))
    expect(times.bins.reduce((n, [, c]) => n + c, 0)).toBe(counts[2])
    await expectDrawn(page, 'funnel-time-to-convert-desktop', 1280)

    await page.click('.display-picker button:has-text("Conversion steps")')
    await expectSteps(page, counts)
  })

  it('saves the funnel: reloaded, reopened from the saved insights and on a dashboard tile, it shows the same numbers', async () => {
    const counts = reached()
    await page.fill('input[aria-label="Insight name"]', 'Signup funnel')
    await page.click('.save-insight button[type=submit]')
    await page.waitForURL(new RegExp(`/project/${t.projectId}/insights/\\d+`))
    id = Number(/insights\/(\d+)/.exec(page.url())![1])
    const saved = await call('GET', `/api/projects/${t.projectId}/insights/${id}/`)
    expect(saved.status, saved.text).toBe(200)
    expect(saved.body.query.source).toMatchObject({ kind: 'FunnelsQuery', series: STEPS.map((event) => ({ event })) })
    await page.reload()
    await expectSteps(page, counts)
    await page.goto(`${t.url}/project/${t.projectId}/insights`)
    await page.click(`tr[data-insight="${id}"] a:has-text("Signup funnel")`)
    await page.waitForURL(new RegExp(`/insights/${id}`))
    await expectSteps(page, counts)
    expect(await stepEvents(page)).toEqual(STEPS)

    // On a dashboard: its tile draws the steps.
    const home = (await call('GET', `/api/projects/${t.projectId}/`)).body.primary_dashboard as number
    await page.selectOption('select[aria-label="Dashboard"]', String(home))
    await page.click('button:has-text("Add to dashboard")')
    await page.waitForSelector('text=Added to Home.')
    await page.goto(`${t.url}/project/${t.projectId}/home`)
    const tile = page.locator(`.tile[data-insight="${id}"]`)
    await expect
      .poll(() => tile.locator('.step-bar-row [data-testid=count]').allTextContents(), { timeout: 15_000 })
      .toEqual(counts.map(String))
    await expectDrawn(page, 'funnel-tile-desktop', 1280)
  })

  it('lists the persons who reached a step and who dropped off before it, at 1280 and 390 px', async () => {
    const counts = reached()
    await page.goto(`${t.url}/project/${t.projectId}/insights/${id}`)
    await expectSteps(page, counts)
    expect(await personsOf(page, 'Persons who reached step 2', 2)).toEqual(PEOPLE.filter((p) => p.reached >= 2).map((p) => p.id))
    await expectDrawn(page, 'funnel-persons-desktop', 1280)
    await page.click('.funnel-persons button:has-text("Close")')
    expect(await personsOf(page, 'Persons who dropped off before step 2', -2)).toEqual(
      PEOPLE.filter((p) => p.reached === 1).map((p) => p.id),
    )

    await page.context().close()

    // A phone's width: the saved funnel, its breakdown and its persons fit.
    const phone = await open(
      390,
      `insights/${id}?${new URLSearchParams({ steps: JSON.stringify(STEPS.map((s) => ({ kind: 'events', id: s }))), breakdown: '$browser', breakdown_type: 'event' })}`,
    )
    await phone.locator('.funnel-legend li[data-breakdown="Firefox"]').waitFor({ timeout: 15_000 })
    await expectDrawn(phone, 'funnel-breakdown-phone', 390)
    expect(await personsOf(phone, 'Persons who reached step 3 (Chrome)', 3)).toEqual(
      PEOPLE.filter((p) => p.reached === 3 && p.browser === 'Chrome').map((p) => p.id),
    )
    await expectDrawn(phone, 'funnel-persons-phone', 390)
    await phone.context().close()
  })

  it("opens the paths after, before and between a step's neighbours from the funnel, and the paths without it", async () => {
    const desktop = await open(1280, `insights/${id}`)
    await expectSteps(desktop, reached())
    /** The PathsQuery of custom events the paths page asks (the funnel as `funnel`), and the edges the API answers it. */
    const pathsQuery = (funnel: Record<string, unknown> | null) => ({
      kind: 'PathsQuery',
      dateRange: { date_from: '-7d', date_to: null },
      pathsFilter: { includeEventTypes: ['custom_event'], stepLimit: 5, edgeLimit: 50, excludeEvents: [] },
      ...(funnel
        ? {
            funnelPathsFilter: {
              ...funnel,
              funnelSource: {
                kind: 'FunnelsQuery',
                series: STEPS.map((event) => ({ kind: 'EventsNode', event })),
                dateRange: { date_from: '-7d' },
              },
            },
          }
        : {}),
    })
    const edges = async (query: Record<string, unknown>) => {
      const res = await call('POST', `/api/projects/${t.projectId}/query/`, { query })
      expect(res.status, res.text).toBe(200)
      return res.body.results.map((l: { source: string; target: string; value: number }) => [l.source, l.target, l.value])
    }
    const drawnEdges = async () => {
      const values = await desktop
        .locator('[data-testid=paths-chart]')
        .first()
        .getAttribute('data-values', { timeout: 1_000 })
        .catch(() => null)
      // The chart's edges, as it draws them: [source, target, value].
      return values ? JSON.parse(values).links : null
    }
    // The page opens with page views only; the test's events are custom events: the second box, the first unticked.
    const customEvents = async () => {
      await desktop.check('input[aria-label="Custom events"]')
      await desktop.uncheck('input[aria-label="Page views"]')
    }

    // After step 2 (signed up): each who signed up went on to purchase, or left.
    await desktop.click('button[aria-label="Paths after step 2"]')
    await desktop.waitForURL(/\/paths\?/)
    await expect
      .poll(() => desktop.locator('[data-testid=funnel-paths]').textContent(), { timeout: 15_000 })
      .toContain(`Paths after step 2 of the funnel: ${STEPS.join(' → ')}`)
    await customEvents()
    const after = await edges(pathsQuery({ funnelPathType: 'funnel_path_after_step', funnelStep: 2 }))
    expect(after.length, 'edges after step 2').toBeGreaterThan(0)
    expect(after.every(([source]: string[]) => !source.startsWith('1_') || source === '1_signed_up')).toBe(true)
    await expect.poll(drawnEdges, { timeout: 20_000 }).toEqual(after)
    await expectDrawn(desktop, 'funnel-paths-after-desktop', 1280)

    // Back on the funnel: between step 2 and step 3, then before step 3; each the API's edges for it.
    for (const [label, funnelPathType] of [
      ['Paths between the step before and step 3', 'funnel_path_between_steps'],
      ['Paths before step 3', 'funnel_path_before_step'],
    ]) {
      await desktop.goBack()
      await expectSteps(desktop, reached())
      await desktop.click(`button[aria-label="${label}"]`)
      await desktop.waitForURL(/\/paths\?/)
      await customEvents()
      const expected = await edges(pathsQuery({ funnelPathType, funnelStep: 3 }))
      expect(expected.length, label).toBeGreaterThan(0)
      await expect.poll(drawnEdges, { timeout: 20_000 }).toEqual(expected)
    }

    // Without the funnel: every person's paths.
    await desktop.click('[data-testid=funnel-paths] button:has-text("Remove the funnel")')
    await expect.poll(() => desktop.locator('[data-testid=funnel-paths]').count()).toBe(0)
    const all = await edges(pathsQuery(null))
    await expect.poll(drawnEdges, { timeout: 20_000 }).toEqual(all)
    await desktop.context().close()
  })
})
