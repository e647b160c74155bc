// Session recordings in tests: snapshots posted to /s/ as posthog-js posts them, and a wait until the
// recordings processor has stored them.
import { expect } from 'vitest'
import type { Wren } from '../../services/app'
import { waitFor } from './wren'

/** One `$snapshot` message of `events` (rrweb events) for one session and window `w1`; capture must take it. */
export async function sendSnapshots(
  to: { url: string; projectKey: string },
  snapshot: { sessionId: string; distinctId: string; events: unknown[]; properties?: Record<string, unknown> },
): Promise<void> {
  const res = await fetch(`${to.url}/s/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify([
      {
        event: '$snapshot',
        distinct_id: snapshot.distinctId,
        properties: {
          token: to.projectKey,
          $session_id: snapshot.sessionId,
          $window_id: 'w1',
          $snapshot_data: snapshot.events,
          ...snapshot.properties,
        },
      },
    ]),
  })
  expect(res.status).toBe(200)
}

/** Until the recordings processor has committed every snapshot appended so far. */
export async function recordingsProcessed(wren: Wren): Promise<void> {
  const { endOffset } = await wren.log.stats('wren_snapshots')
  await waitFor(async () => ((await wren.log.stats('wren_snapshots', ['recordings'])).committed.recordings ?? 0) >= endOffset, {
    what: 'the recordings processor to commit every snapshot',
  })
}
