// Where headless Chromium is, why it cannot run here, and how it is launched: shared by the browser tests
// (through ./browser) and bench/pages.ts, so it imports nothing from vitest.
import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Why Chromium cannot run here, or null (pass it to skipReason). */
export function chromiumMissing(): string | null {
  return existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM} (install Debian's chromium, or set CHROMIUM_PATH)`
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
}
