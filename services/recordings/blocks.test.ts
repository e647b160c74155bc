import { describe, expect, it } from 'vitest'
import type { SnapshotItem } from '../platform/log/contract'
import { eventsOf, toBlocks, type RrwebEvent } from './blocks'

const item = (sessionId: string, windowId = 'w1'): SnapshotItem => ({
  teamId: 1,
  sessionId,
  windowId,
  distinctId: 'd',
  uuid: `${sessionId}-${windowId}`,
  snapshotSource: 'web',
  snapshotLibrary: 'web',
  timestamp: '2026-01-01T00:00:00.000Z',
  now: '2026-01-01T00:00:00.000Z',
  events: '[]',
})
/** A message's events as the processor reads them (eventsOf the JSON array capture wrote). */
const events = (from: number, count: number, size: number) =>
  eventsOf(
    JSON.stringify(
      Array.from({ length: count }, (_, i): RrwebEvent => ({ type: 3, timestamp: from + i, data: { text: 'x'.repeat(size) } })),
    ),
  )

describe('snapshot blocks', () => {
  it('keeps a session window’s messages in one block, its text the JSONL the snapshots API serves', () => {
    const [block, ...rest] = toBlocks([
      { item: item('s1'), ...events(1000, 2, 10) },
      { item: item('s1'), ...events(2000, 1, 10) },
    ])
    expect(rest).toEqual([])
    expect(block).toMatchObject({ sessionId: 's1', messageCount: 2, firstTimestamp: 1000, lastTimestamp: 2000 })
    expect(
      block.lines
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual(block.events.map((e) => ['w1', e]))
  })

  it('starts another block for the same window once the text would pass the bound, never splitting a message', () => {
    const messages = [1, 2, 3, 4].map((n) => ({ item: item('s1'), ...events(n * 1000, 3, 300) }))
    const one = JSON.stringify(['w1', messages[0].events[0]]).length + 1
    const blocks = toBlocks([...messages, { item: item('s2'), ...events(9000, 1, 10) }], one * 3 * 2)
    expect(blocks.map((b) => [b.sessionId, b.messageCount, b.firstTimestamp])).toEqual([
      ['s1', 2, 1000],
      ['s1', 2, 3000],
      ['s2', 1, 9000],
    ])
    for (const b of blocks) expect(b.lines.length).toBeLessThanOrEqual(one * 3 * 2)
    const big = toBlocks([{ item: item('s3'), ...events(1, 5, 300) }], 10)
    expect(big).toHaveLength(1)
    expect(big[0].events).toHaveLength(5)
  })

  it('reads the events that count with their JSON texts, as JSON.stringify writes each', () => {
    const sent = [
      { type: 3, timestamp: 1, data: { text: 'a "quoted" [bracket], {brace}, back\\slash \\"', nested: [[1, { b: [] }], {}] } },
      { type: 2, timestamp: 2.5, data: { s: 'line\nbreak\ttab \u0001 é 💡 \ud800 lone', n: [1e21, -0.5, 1e-7, null, true] } },
      'not an event',
      { type: '3', timestamp: 3 },
      { type: 3, timestamp: -1 },
      { type: 4, timestamp: 4, data: { '10': 'integer-like keys', '2': 'first', z: '', '': 'empty key' } },
      null,
      [],
    ]
    const read = eventsOf(JSON.stringify(sent))
    expect(read.events.map((e) => e.timestamp)).toEqual([1, 2.5, 4])
    expect(read.texts).toEqual(read.events.map((e) => JSON.stringify(e)))
    // Text JSON.stringify would not write (whitespace between values) gives the same texts.
    expect(eventsOf(JSON.stringify(sent, null, 2))).toEqual(read)
    expect(eventsOf('[]')).toEqual({ events: [], texts: [] })
    expect(eventsOf('{"type": 3}')).toEqual({ events: [], texts: [] })
  })
})
