// Headless Chromium for the tests: where it is and how it is launched (./chromium, which bench/pages.ts
// imports without vitest), and the check every page screenshot goes through (kept under
// test-artifacts/web/, not blank, nothing wider than the window).
import path from 'node:path'
import { expect } from 'vitest'
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core'
import { PNG } from 'pngjs'

export { CHROMIUM, chromiumMissing, launchChromium } from './chromium'

/** Screenshots for a person to look at (CI keeps the folder). */
export const ARTIFACTS = path.resolve(import.meta.dirname, '../..', 'test-artifacts')
export const WEB_ARTIFACTS = path.join(ARTIFACTS, 'web')

/**
 * A PNG's size and its pixels counted per colour, the colour as 0xRRGGBB. A page's screenshot is mostly runs of one
 * colour (its background, a bar, a line of text's gaps): each run is counted at once, so a tall page's few million
 * pixels cost a few hundred thousand map updates rather than one each.
 */
export function colourCounts(png: Buffer): { width: number; height: number; counts: Map<number, number> } {
  const image = PNG.sync.read(png)
  const data = image.data.byteOffset % 4 === 0 ? image.data : Buffer.from(image.data)
  // Each pixel as one number, its bytes R, G, B, A read little-endian (0xAABBGGRR).
  const pixels = new Uint32Array(data.buffer, data.byteOffset, data.length / 4)
  const runs = new Map<number, number>()
  for (let i = 0; i < pixels.length;) {
    const pixel = pixels[i]
    let end = i + 1
    while (end < pixels.length && pixels[end] === pixel) end++
    runs.set(pixel, (runs.get(pixel) ?? 0) + end - i)
    i = end
  }
  const counts = new Map<number, number>()
  for (const [pixel, n] of runs) {
    const key = ((pixel & 0xff) << 16) | (pixel & 0xff00) | ((pixel >>> 16) & 0xff)
    counts.set(key, (counts.get(key) ?? 0) + n)
  }
  return { width: image.width, height: image.height, counts }
}

/** Fills the sign-in form's "personal API key" part with `key` and submits it (the app is on its sign-in form). */
export async function submitKey(page: Page, key: string): Promise<void> {
  if (!(await page.isVisible('#key'))) await page.click('summary:has-text("personal API key")')
  await page.fill('#key', key)
  await page.click('#key-submit')
}

/** Signs in to the web app at `url` with `key` (the sign-in form's key part), waiting for the menu a signed-in page shows. */
export async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(url + '/')
  await submitKey(page, key)
  await page.waitForSelector('nav.menu')
}

/** Signs in to the web app at `url` with an email and a password, waiting for the menu. */
export async function signInWithPassword(page: Page, url: string, email: string, password: string): Promise<void> {
  await page.goto(url + '/')
  await page.fill('#email', email)
  await page.fill('#password', password)
  await page.click('form[aria-label="Sign in"] button[type=submit]')
  await page.waitForSelector('nav.menu')
}

/**
 * A browser (a context made with `options`: its viewport, …) signed in once (its session cookie is kept in the context, as a browser keeps it): a test
 * opens a tab of it (newPage) and closes the tab when done, rather than starting a browser and signing in again.
 */
export async function signedInContext(browser: Browser, url: string, key: string, options: BrowserContextOptions): Promise<BrowserContext> {
  const context = await browser.newContext(options)
  const page = await context.newPage()
  await signIn(page, url, key)
  await page.close()
  return context
}

/** The page's width as drawn (wider than the window when something does not fit). */
export function pageWidth(page: Page): Promise<number> {
  return page.evaluate(
    () => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth,
  )
}

export interface DrawnChecks {
  /** Distinct colours the screenshot must have more of (20). */
  minColours?: number
  /** When given, the commonest colour must cover less than this share of the screenshot. */
  maxShare?: number
}

/**
 * Saves a full-page screenshot as test-artifacts/web/<name>.png and checks it is not blank (more than
 * `minColours` colours; with `maxShare`, no colour covering that share) and the page is no wider than `width`.
 */
export async function expectDrawn(page: Page, name: string, width: number, { minColours = 20, maxShare }: DrawnChecks = {}): Promise<void> {
  const file = `${name}.png`
  const { width: w, height: h, counts } = colourCounts(await page.screenshot({ path: path.join(WEB_ARTIFACTS, file), fullPage: true }))
  expect(counts.size, `${file}: colours`).toBeGreaterThan(minColours)
  if (maxShare !== undefined)
    expect(Math.max(...counts.values()) / (w * h), `${file}: share of the commonest colour`).toBeLessThan(maxShare)
  expect(await pageWidth(page), `${file}: page width`).toBeLessThanOrEqual(width)
}

/**
 * Clicks the point of a line chart (web/src/chart.tsx, whose data-values the chart writes) where it is drawn: x over
 * the buckets from the plot's left to its right edge, y from 0 (or the lowest value) to 1.1 × the highest, as the
 * chart sets its scales. `chart`: the chart's element (`[data-testid=trend-chart]`), when the page has more than one.
 */
export async function clickChartPoint(page: Page, series: number, bucket: number, chart = '[data-testid=trend-chart]'): Promise<void> {
  const raw = await page.locator(chart).first().getAttribute('data-values', { timeout: 15_000 })
  const drawn = JSON.parse(raw ?? '{}') as { labels: string[]; series: Array<{ values: Array<number | null> }> }
  const over = page.locator(`${chart} .u-over`).first()
  const box = (await over.boundingBox())!
  const values = drawn.series.flatMap((s) => s.values.filter((v): v is number => v !== null))
  const [low, high] = [Math.min(0, ...values), Math.max(...values) > 0 ? Math.max(...values) * 1.1 : 1]
  const value = drawn.series[series].values[bucket] ?? 0
  const x = drawn.labels.length > 1 ? (box.width * bucket) / (drawn.labels.length - 1) : box.width / 2
  const y = box.height * (1 - (value - low) / (high - low))
  // The first and last buckets sit on the plot's edges, a value of 0 on its bottom: a pixel inside.
  const inside = (v: number, size: number) => Math.min(Math.max(v, 1), size - 1)
  await over.click({ position: { x: inside(x, box.width), y: inside(y, box.height) } })
}
