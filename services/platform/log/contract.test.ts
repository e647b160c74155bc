// The log's messages as bytes: what encodeIngest and encodeSnapshot write decodes to what was encoded, each
// message in bytes of its own (the encoder reuses its scratch space), a snapshot past that space included.
import { describe, expect, it } from 'vitest'
import { decodeIngest, decodeSnapshot, encodeIngest, encodeSnapshot, type IngestEvent, type SnapshotItem } from './contract'

const event = (n: number): IngestEvent => ({
  teamId: 7,
  uuid: `0190f6a8-0000-7000-8000-${String(n).padStart(12, '0')}`,
  event: '$pageview',
  distinctId: `user-${n}`,
  properties: { $current_url: `https://example.com/${n}`, n },
  timestamp: '2026-11-28T10:00:00.000Z',
  now: '2026-11-28T10:00:01.000Z',
  elementsChain: '',
})

describe('the log contract', () => {
  it('decodes each ingest message to its event, whatever was encoded after it', () => {
    const first = encodeIngest({ kind: 'event', event: event(1) })
    const copy = Buffer.from(first)
    const second = encodeIngest({ kind: 'event', event: event(2) })
    expect(first.equals(copy)).toBe(true)
    expect(decodeIngest(first)).toEqual({ kind: 'event', event: event(1) })
    expect(decodeIngest(second)).toEqual({ kind: 'event', event: event(2) })
  })

  it('encodes a snapshot larger than the scratch space whole', () => {
    const events = JSON.stringify(Array.from({ length: 3_000 }, (_, i) => ({ type: 3, timestamp: i, data: { source: 1, x: i, y: i } })))
    expect(events.length).toBeGreaterThan(100_000)
    const item: SnapshotItem = {
      teamId: 7,
      sessionId: 's1',
      windowId: 'w1',
      distinctId: 'user-1',
      uuid: '0190f6a8-0000-7000-8000-000000000001',
      snapshotSource: 'web',
      snapshotLibrary: 'posthog-js',
      timestamp: '2026-11-28T10:00:00.000Z',
      now: '2026-11-28T10:00:01.000Z',
      events,
    }
    const big = encodeSnapshot(item)
    const small = encodeSnapshot({ ...item, events: '[]' })
    expect(decodeSnapshot(big)).toEqual(item)
    expect(decodeSnapshot(small)).toEqual({ ...item, events: '[]' })
  })
})
