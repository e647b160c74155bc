// Where headless Chromium is, why it cannot run here, and how it is launched: shared by the browser tests
// (through ./browser) and bench/pages.ts, so it imports nothing from vitest.
//
// Debian's `chromium-headless-shell` when it is installed (.ci/run installs it), else Debian's `chromium`: the
// same Chromium build and Blink, without the full browser's window machinery, as Playwright runs headless
// by default. On this suite's two cores it drew the web-app and keys pages for 0.6x the CPU of `chromium
// --headless` (54 → 33 s of CPU, 54 → 29 s of wall time), and the browser files are a quarter of the suite.
import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

const INSTALLED = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium']

export const CHROMIUM = process.env.CHROMIUM_PATH ?? INSTALLED.find((file) => existsSync(file)) ?? INSTALLED[1]

/** Why Chromium cannot run here, or null (pass it to skipReason). */
export function chromiumMissing(): string | null {
  return existsSync(CHROMIUM)
    ? null
    : `no Chromium at ${CHROMIUM} (install Debian's chromium-headless-shell or chromium, or set CHROMIUM_PATH)`
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
}
