import { describe, expect, it } from 'vitest'
import type { SnapshotItem } from '../shared/log/contract'
import { toBlocks, type RrwebEvent } from './blocks'

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
const events = (from: number, count: number, size: number): RrwebEvent[] =>
  Array.from({ length: count }, (_, i) => ({ type: 3, timestamp: from + i, data: { text: 'x'.repeat(size) } }))

describe('snapshot blocks', () => {
  it('keeps a session window’s messages in one block, its text the JSONL the snapshots API serves', () => {
    const [block, ...rest] = toBlocks([
      { item: item('s1'), events: events(1000, 2, 10) },
      { item: item('s1'), events: events(2000, 1, 10) },
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
    const messages = [1, 2, 3, 4].map((n) => ({ item: item('s1'), events: events(n * 1000, 3, 300) }))
    const one = JSON.stringify(['w1', messages[0].events[0]]).length + 1
    const blocks = toBlocks([...messages, { item: item('s2'), events: events(9000, 1, 10) }], one * 3 * 2)
    expect(blocks.map((b) => [b.sessionId, b.messageCount, b.firstTimestamp])).toEqual([
      ['s1', 2, 1000],
      ['s1', 2, 3000],
      ['s2', 1, 9000],
    ])
    for (const b of blocks) expect(b.lines.length).toBeLessThanOrEqual(one * 3 * 2)
    const big = toBlocks([{ item: item('s3'), events: events(1, 5, 300) }], 10)
    expect(big).toHaveLength(1)
    expect(big[0].events).toHaveLength(5)
  })
})
