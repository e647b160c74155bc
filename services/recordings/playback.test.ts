// What the player page's script does with the snapshots API's answers before rrweb's player sees them: which
// block ranges it asks for, how it reads the JSONL lines (posthog-js's compressed events decompressed, unreadable
// lines left out) and the order it plays them in. The same module runs in the browser.
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { blockRanges, BLOCKS_PER_REQUEST, eventsOfJsonl, inPlayOrder, loadPlayback } from './playback'
import { EventType, IncrementalSource, type RrwebEvent } from './rrweb'
import { MAX_BLOCKS_PER_REQUEST } from './snapshot-routes'

const T0 = Date.UTC(2026, 0, 1)
const gzipToString = (value: unknown) => gzipSync(Buffer.from(JSON.stringify(value), 'utf8')).toString('latin1')
const line = (windowId: string, event: unknown) => JSON.stringify([windowId, event])

const meta = (at: number) => ({ type: EventType.Meta, timestamp: T0 + at, data: { href: 'https://example.com/', width: 800, height: 600 } })
const node = { type: 0, childNodes: [{ type: 2, tagName: 'html', attributes: {}, childNodes: [], id: 2 }], id: 1 }
const compressedFull = (at: number) => ({
  type: EventType.FullSnapshot,
  timestamp: T0 + at,
  cv: '2024-10',
  data: gzipToString({ node, initialOffset: { top: 0, left: 0 } }),
})
const compressedMutation = (at: number) => ({
  type: EventType.IncrementalSnapshot,
  timestamp: T0 + at,
  cv: '2024-10',
  data: {
    source: IncrementalSource.Mutation,
    texts: gzipToString([]),
    attributes: gzipToString([{ id: 2, attributes: { class: 'on' } }]),
    removes: gzipToString([]),
    adds: gzipToString([]),
  },
})
const click = (at: number) => ({ type: EventType.IncrementalSnapshot, timestamp: T0 + at, data: { source: 2, type: 2, id: 2, x: 1, y: 1 } })

describe('reading snapshots for playback', () => {
  it('asks for at most the route’s limit of blocks per request, in runs of consecutive keys', () => {
    expect(BLOCKS_PER_REQUEST).toBe(MAX_BLOCKS_PER_REQUEST)
    expect(blockRanges([])).toEqual([])
    expect(blockRanges([2, 0, 1])).toEqual([[0, 2]])
    expect(blockRanges(Array.from({ length: 45 }, (_, i) => i))).toEqual([
      [0, 19],
      [20, 39],
      [40, 44],
    ])
    expect(blockRanges([0, 1, 5, 6, 6])).toEqual([
      [0, 1],
      [5, 6],
    ])
  })

  it('decompresses posthog-js’s 2024-10 events and leaves out lines that hold no readable event', async () => {
    const text = [
      line('w1', meta(0)),
      line('w1', compressedFull(1)),
      '',
      'not json',
      line('w1', { type: 3 }), // no timestamp
      line('w1', { ...compressedMutation(5), data: { source: 0, adds: 'not gzip', texts: '', attributes: '', removes: '' } }),
      line('w1', compressedMutation(10)),
      line('w1', click(20)),
    ].join('\n')
    const { events, skipped } = await eventsOfJsonl(text)
    expect(skipped).toBe(3)
    expect(events).toEqual([
      meta(0),
      { type: EventType.FullSnapshot, timestamp: T0 + 1, data: { node, initialOffset: { top: 0, left: 0 } } },
      {
        type: EventType.IncrementalSnapshot,
        timestamp: T0 + 10,
        data: { source: 0, texts: [], attributes: [{ id: 2, attributes: { class: 'on' } }], removes: [], adds: [] },
      },
      click(20),
    ])
  })

  it('plays events by timestamp, keeping the recorded order within a millisecond', () => {
    const a = { ...click(5), data: { source: 2, type: 2, id: 'a' } } as RrwebEvent
    const b = { ...click(5), data: { source: 2, type: 2, id: 'b' } } as RrwebEvent
    const early = meta(1) as RrwebEvent
    expect(inPlayOrder([a, b, early])).toEqual([early, a, b])
  })

  it('loads every source’s blocks through the snapshots route and merges them in time order', async () => {
    // 25 blocks, two windows whose events interleave in time; block i holds window w1 at i*10 and w2 at i*10+5.
    const blocks = Array.from({ length: 25 }, (_, i) =>
      [line('w2', click(i * 10 + 5)), line('w1', i === 0 ? compressedFull(i * 10) : click(i * 10))].join('\n'),
    )
    const asked: Array<Record<string, string>> = []
    const snapshots = async (params: Record<string, string>) => {
      asked.push(params)
      if (!params.source)
        return JSON.stringify({
          sources: blocks.map((_, i) => ({ source: 'blob_v2', blob_key: String(i), start_timestamp: '', end_timestamp: '' })),
        })
      const [start, end] = [Number(params.start_blob_key), Number(params.end_blob_key)]
      return blocks.slice(start, end + 1).join('\n') + '\n'
    }
    const { events, skipped } = await loadPlayback(snapshots)
    expect(skipped).toBe(0)
    expect(asked).toEqual([
      {},
      { source: 'blob_v2', start_blob_key: '0', end_blob_key: '19' },
      { source: 'blob_v2', start_blob_key: '20', end_blob_key: '24' },
    ])
    expect(events).toHaveLength(50)
    expect(events.map((e) => e.timestamp - T0)).toEqual(Array.from({ length: 50 }, (_, i) => i * 5))
    expect(events[0]).toMatchObject({ type: EventType.FullSnapshot, data: { node } })
  })

  it('passes on the route’s error', async () => {
    await expect(
      loadPlayback(async () => {
        throw new Error('No recording with session id "x" in this project.')
      }),
    ).rejects.toThrow('No recording with session id')
  })
})
