// The recordings processor on real chDB, handed batches directly: a batch handed out again after a crash
// (between the write and the commit) stores nothing twice, and messages PostHog's parser drops never stop
// the stream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pino from 'pino'
import { migrate, openEmbeddedClickHouse, type ClickHouseClient } from '../shared/clickhouse'
import { encodeSnapshot, type SnapshotItem } from '../shared/log/contract'
import type { Log, LogBatch } from '../shared/log/log'
import { Metrics } from '../shared/metrics'
import { ClickHouseBlockStore, type SnapshotBlock } from './blocks'
import { RecordingsProcessor } from './processor'

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0)

function item(sessionId: string, windowId: string, times: number[], extra: Partial<SnapshotItem> = {}): SnapshotItem {
  return {
    teamId: 1,
    sessionId,
    windowId,
    distinctId: 'user-1',
    uuid: '00000000-0000-4000-8000-000000000001',
    snapshotSource: 'web',
    snapshotLibrary: 'web',
    timestamp: new Date(T0).toISOString(),
    now: new Date(T0 + 60_000).toISOString(),
    events: JSON.stringify(times.map((t) => ({ type: 3, timestamp: T0 + t, data: { source: 1, t } }))),
    ...extra,
  }
}

function batch(firstOffset: number, items: Array<SnapshotItem | Buffer>, redelivered = false): LogBatch {
  return {
    topic: 'wren_snapshots',
    partition: 0,
    firstOffset,
    lastOffset: firstOffset + items.length - 1,
    redelivered,
    records: items.map((it, i) => {
      const value = Buffer.isBuffer(it) ? it : encodeSnapshot(it)
      return { key: '1', value, partition: 0, offset: firstOffset + i }
    }),
  }
}

describe('recordings processor', () => {
  let dir: string
  let client: ClickHouseClient
  let store: ClickHouseBlockStore
  let metrics: Metrics
  const heard: SnapshotBlock[][] = []
  let processor: RecordingsProcessor

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wren-recordings-'))
    client = await openEmbeddedClickHouse(dir)
    await migrate(client)
    store = new ClickHouseBlockStore(client)
    metrics = new Metrics()
    processor = new RecordingsProcessor({} as Log, store, pino({ level: 'silent' }), metrics, {
      maxBatchRecords: 100,
      maxWaitMs: 10,
      onBlocks: async (_range, blocks) => void heard.push(blocks),
    })
  })
  afterAll(async () => {
    await client?.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('stores one block per session and window per batch, in order, and a redelivered batch once', async () => {
    const first = batch(0, [item('s1', 'w1', [0, 10]), item('s1', 'w2', [5]), item('s1', 'w1', [20, 30])])
    await processor.handleBatch(first)
    // The process died after the write, before the commit: the log hands the same range out again.
    await processor.handleBatch({ ...first, redelivered: true })
    await processor.handleBatch(batch(3, [item('s1', 'w1', [40])]))

    const blocks = await store.blocks(1, 's1')
    expect(blocks.map((b) => [b.windowId, b.eventCount, b.firstTimestamp, b.lastTimestamp])).toEqual([
      ['w1', 4, new Date(T0).toISOString(), new Date(T0 + 30).toISOString()],
      ['w2', 1, new Date(T0 + 5).toISOString(), new Date(T0 + 5).toISOString()],
      ['w1', 1, new Date(T0 + 40).toISOString(), new Date(T0 + 40).toISOString()],
    ])
    const lines = blocks.flatMap((b) =>
      b.events
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as [string, { data: { t: number } }]),
    )
    expect(lines.map(([w, e]) => `${w}:${e.data.t}`)).toEqual(['w1:0', 'w1:10', 'w1:20', 'w1:30', 'w2:5', 'w1:40'])
    expect(blocks[0].size).toBe(Buffer.byteLength(blocks[0].events))
    // The metadata hook hears every batch it must write for, the replay included.
    expect(heard.map((blocks) => blocks.length)).toEqual([2, 2, 1])
  })

  it('skips messages it cannot store (undecodable, no valid events, a week away) and stores the rest', async () => {
    const dropped = metrics.get('wren_recording_snapshots_dropped_total')
    await processor.handleBatch(
      batch(10, [
        Buffer.from('not a snapshot'),
        item('s2', 's2', [], { events: JSON.stringify([{ type: 3, timestamp: -5 }, 'junk', { timestamp: T0 }]) }),
        item('s2', 's2', [0], { now: new Date(T0 + 8 * 24 * 3_600_000).toISOString() }),
        item('s2', 's2', [7]),
      ]),
    )
    const blocks = await store.blocks(1, 's2')
    expect(blocks.map((b) => [b.windowId, b.eventCount])).toEqual([['s2', 1]])
    expect(metrics.get('wren_recording_snapshots_dropped_total') - dropped).toBe(3)
  })
})
