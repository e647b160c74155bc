// Tests that need a real outside part (a Kafka broker, Chromium, posthog-python) skip with their reason
// on a machine that lacks it. CI sets WREN_REQUIRE_REAL_PARTS=1 and installs every part: there a missing
// part fails the run instead of quietly skipping.
export function skipReason(what: string, reason: string | null): string | null {
  if (reason && process.env.WREN_REQUIRE_REAL_PARTS === '1')
    throw new Error(`${what} must run here (WREN_REQUIRE_REAL_PARTS=1) but cannot: ${reason}`)
  if (reason) console.warn(`${what}: skipped — ${reason}`)
  return reason
}
