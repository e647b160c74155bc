// Events appended to the ingestion log exactly as capture would append them (decoded from a /batch/ body of
// 100, as posthog-node batches, stamped, encoded), without HTTP: the workload of the ingestion benches.
import type { Wren } from '../services/app'
import { decodeCapture } from '../services/capture/decode'
import { newEventUuid, toIngestEvent } from '../services/capture/stamp'
import { encodeIngest } from '../services/platform/log/contract'
import { TOPICS } from '../services/platform/log/log'

export async function appendAsCapture(
  wren: Pick<Wren, 'log'>,
  to: { projectKey: string; teamId: number },
  events: Array<Record<string, unknown>>,
): Promise<void> {
  const appends: Array<Promise<void>> = []
  for (let i = 0; i < events.length; i += 100) {
    const body = Buffer.from(JSON.stringify({ api_key: to.projectKey, batch: events.slice(i, i + 100) }))
    const decoded = await decodeCapture({ path: '/batch/', query: {}, headers: { 'content-type': 'application/json' }, body })
    const now = new Date()
    const messages = decoded.events.map((e) => ({
      key: String(to.teamId),
      value: encodeIngest({
        kind: 'event',
        event: toIngestEvent(e, { teamId: to.teamId, now, sentAt: decoded.sentAt, ip: '127.0.0.1', newUuid: newEventUuid }),
      }),
    }))
    appends.push(wren.log.append(TOPICS.ingest, messages))
    if (appends.length >= 32) await Promise.all(appends.splice(0))
  }
  await Promise.all(appends)
}
