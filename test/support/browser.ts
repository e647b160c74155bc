// Headless Chromium for the tests: where it is and how it is launched (./chromium, which bench/pages.ts
// imports without vitest), and the check every page screenshot goes through (kept under
// test-artifacts/web/, not blank, nothing wider than the window).
import path from 'node:path'
import { expect } from 'vitest'
import type { Page } from 'playwright-core'
import { PNG } from 'pngjs'

export { CHROMIUM, chromiumMissing, launchChromium } from './chromium'

/** Screenshots for a person to look at (CI keeps the folder). */
export const ARTIFACTS = path.resolve(import.meta.dirname, '../..', 'test-artifacts')
export const WEB_ARTIFACTS = path.join(ARTIFACTS, 'web')

/** A PNG's size and its pixels counted per colour, the colour as 0xRRGGBB. */
export function colourCounts(png: Buffer): { width: number; height: number; counts: Map<number, number> } {
  const image = PNG.sync.read(png)
  const counts = new Map<number, number>()
  for (let i = 0; i < image.data.length; i += 4) {
    const key = (image.data[i] << 16) | (image.data[i + 1] << 8) | image.data[i + 2]
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  return { width: image.width, height: image.height, counts }
}

/** The page's width as drawn (wider than the window when something does not fit). */
/** Signs in to the web app at `url` with `key` (the sign-in form), waiting for the menu a signed-in page shows. */
export async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(url + '/')
  await page.fill('#key', key)
  await page.click('button[type=submit]')
  await page.waitForSelector('nav.menu')
}

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
