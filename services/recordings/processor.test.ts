// The recordings processor on real chDB, handed batches directly: a batch handed out again after a crash
// (between the write and the commit) stores nothing twice, messages PostHog's parser drops never stop
// the stream, and a message whose write keeps failing becomes a dead letter while the rest is stored,
// once, through a crash in the middle of the isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pino from 'pino'
import { insertRows, migrate, openEmbeddedClickHouse, type ClickHouseClient } from '../platform/clickhouse'
import { encodeSnapshot, type SnapshotItem } from '../platform/log/contract'
import type { Log, LogBatch } from '../platform/log/log'
import { Metrics } from '../platform/metrics'
import { systemClock } from '../platform/clock'
import { DeadLetterStore } from '../dead-letters/store'
import { ClickHouseBlockStore, eventsOf, toBlocks, type SnapshotBlock } from './blocks'
import { RecordingsProcessor, type BlockListener } from './processor'

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

/** Items as the processor reads them from its messages, for toBlocks. */
const messagesOf = (items: SnapshotItem[]) => items.map((item) => ({ item, ...eventsOf(item.events) }))

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
  let deadLetters: DeadLetterStore
  const processorWith = (options: { poisonSession?: string; onBlocks?: BlockListener; partRecords?: number } = {}) =>
    new RecordingsProcessor({} as Log, store, pino({ level: 'silent' }), metrics, {
      maxBatchRecords: 100,
      partRecords: 100,
      maxWaitMs: 10,
      maxRetries: 2,
      deadLetters: deadLetters.recorder('recordings'),
      onBlocks: (_range, blocks) => async () => void heard.push(blocks),
      ...options,
    })

  /**
   * A token a crash left without its rows: a non-replicated table records an insert's token before it commits the
   * rows, and a process killed between the two leaves the token alone. Made here by storing another project's
   * block under it.
   */
  const orphan = (token: string) =>
    insertRows(
      client,
      'session_recording_blocks',
      [
        {
          team_id: 999,
          session_id: 'orphan',
          window_id: 'w',
          first_timestamp: new Date(T0).toISOString(),
          last_timestamp: new Date(T0).toISOString(),
        },
      ],
      token,
    )

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wren-recordings-'))
    client = await openEmbeddedClickHouse(dir)
    await migrate(client)
    store = new ClickHouseBlockStore(client)
    metrics = new Metrics()
    deadLetters = new DeadLetterStore(client, systemClock)
    processor = processorWith()
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

  it('stores a redelivered batch whose insert token a crash left without its rows; the same batch handed out first is lost', async () => {
    await orphan('session_recording_blocks:wren_snapshots:0:50-50')
    await orphan('session_recording_blocks:wren_snapshots:0:60-60')
    const replayed = batch(50, [item('s5', 'w1', [0])], true)
    await processor.handleBatch(replayed)
    await processor.handleBatch(replayed)
    expect((await store.blocks(1, 's5')).map((b) => b.eventCount)).toEqual([1])
    // Handed out for the first time, the part trusts its token: why a replay looks first.
    await processor.handleBatch(batch(60, [item('s6', 'w1', [0])]))
    expect(await store.blocks(1, 's6')).toEqual([])
  })

  it('stores the blocks a replay finds missing when a crash stored its part only in part', async () => {
    // Past MAX_INSERT_CHARS a part's blocks go in several inserts (chunk i under `<token>:<i>`). Made here: the
    // first chunk (the part's first session) stored under the part's token, and the second's token left alone.
    const part = [item('s7', 'w1', [0]), item('s8', 'w1', [0, 5])]
    const token = 'session_recording_blocks:wren_snapshots:0:70-71'
    await store.write({ topic: 'wren_snapshots', partition: 0, firstOffset: 70, lastOffset: 71 }, toBlocks(messagesOf(part.slice(0, 1))))
    await orphan(`${token}:1`)
    await processor.handleBatch(batch(70, part, true))
    await processor.handleBatch(batch(70, part, true))
    expect((await store.blocks(1, 's7')).map((b) => b.eventCount)).toEqual([1])
    expect((await store.blocks(1, 's8')).map((b) => b.eventCount)).toEqual([2])
  })

  it('skips messages PostHog drops (no valid events, a week away), keeps undecodable ones as dead letters, and stores the rest', async () => {
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
    expect(metrics.get('wren_recording_snapshots_dropped_total') - dropped).toBe(2)
    const letters = (await deadLetters.list({ limit: 10, offset: 0 })).results.filter((l) => l.offset === 10)
    expect(letters.map((l) => [l.id, l.group, l.teamId, l.payloadPreview])).toEqual([
      ['wren_snapshots/0/10', 'recordings', null, 'not a snapshot'],
    ])
  })

  it('retries a failing batch a bounded number of times, then stores the good messages and dead-letters the poison one, once through a crash', async () => {
    const poisoned = processorWith({ poisonSession: 'poison' })
    const items = [
      item('good-a', 'w', [0, 1]),
      item('good-b', 'w', [2]),
      item('poison', 'w', [3], { teamId: 2 }),
      item('good-a', 'w', [4]),
      item('good-c', 'w', [5, 6]),
    ]
    const failing = batch(20, items)
    // The log hands a failing batch out again each time; the first maxRetries attempts fail as a whole.
    for (let attempt = 0; attempt < 2; attempt++)
      await expect(poisoned.handleBatch({ ...failing, redelivered: attempt > 0 })).rejects.toThrow(/failpoint/)
    expect(await store.blocks(1, 'good-a')).toEqual([])
    // The third isolates it. The process dies before the commit: the next one gets the same range and,
    // seeing the letter already recorded, isolates at once and writes the same parts again.
    await poisoned.handleBatch({ ...failing, redelivered: true })
    await processorWith({ poisonSession: 'poison' }).handleBatch({ ...failing, redelivered: true })

    const eventsOf = async (session: string) => (await store.blocks(1, session)).reduce((n, b) => n + b.eventCount, 0)
    expect([await eventsOf('good-a'), await eventsOf('good-b'), await eventsOf('good-c')]).toEqual([3, 1, 2])
    expect(await store.blocks(2, 'poison')).toEqual([])
    const letters = (await deadLetters.list({ limit: 10, offset: 0 })).results.filter((l) => l.offset >= 20)
    expect(letters.map((l) => [l.id, l.group, l.teamId])).toEqual([['wren_snapshots/0/22', 'recordings', 2]])
    expect(letters[0].error).toContain('failpoint')
    expect(metrics.get('wren_recording_batch_retries_total')).toBe(2)
    expect(metrics.get('wren_dead_letters_total')).toBeGreaterThanOrEqual(1)
  })

  it('isolates a message whose metadata cannot be computed without storing anyone’s blocks twice', async () => {
    // The hook computes before any block is written: a range it cannot take leaves nothing behind, so the
    // halves isolation writes next are the only copies.
    const refuses = processorWith({
      onBlocks: (_range, blocks) => {
        if (blocks.some((b) => b.sessionId === 'bad-metadata')) throw new Error('metadata cannot read this snapshot')
        return async () => undefined
      },
    })
    const failing = batch(40, [item('meta-a', 'w', [0, 1]), item('bad-metadata', 'w', [2]), item('meta-b', 'w', [3])])
    for (let attempt = 0; attempt < 2; attempt++)
      await expect(refuses.handleBatch({ ...failing, redelivered: attempt > 0 })).rejects.toThrow(/metadata cannot read/)
    await refuses.handleBatch({ ...failing, redelivered: true })
    const eventsOf = async (session: string) => (await store.blocks(1, session)).reduce((n, b) => n + b.eventCount, 0)
    expect([await eventsOf('meta-a'), await eventsOf('meta-b'), await eventsOf('bad-metadata')]).toEqual([2, 1, 0])
    const letters = (await deadLetters.list({ limit: 10, offset: 0 })).results.filter((l) => l.offset >= 40)
    expect(letters.map((l) => l.id)).toEqual(['wren_snapshots/0/41'])
  })

  it('writes a batch in parts, and through a failing part, its isolation and a crash stores every other message once', async () => {
    const parts = processorWith({ poisonSession: 'poison-part', partRecords: 2 })
    const stored: string[] = []
    const inParts = processorWith({
      partRecords: 2,
      onBlocks: (range) => async () => void stored.push(`${range.firstOffset}-${range.lastOffset}`),
    })
    await inParts.handleBatch(
      batch(
        50,
        [1, 2, 3, 4, 5].map((t) => item('parted', 'w', [t])),
      ),
    )
    // Each part's blocks and metadata are written under the part's own range.
    expect(stored).toEqual(['50-51', '52-53', '54-54'])
    expect((await store.blocks(1, 'parted')).map((b) => b.eventCount)).toEqual([2, 2, 1])

    // The last part fails after the first two were stored; isolation's halves keep those parts whole.
    const failing = batch(60, [
      item('part-a', 'w', [0]),
      item('part-b', 'w', [1]),
      item('part-a', 'w', [2]),
      item('part-b', 'w', [3]),
      item('poison-part', 'w', [4], { teamId: 2 }),
    ])
    for (let attempt = 0; attempt < 2; attempt++)
      await expect(parts.handleBatch({ ...failing, redelivered: attempt > 0 })).rejects.toThrow(/failpoint/)
    await parts.handleBatch({ ...failing, redelivered: true })
    await processorWith({ poisonSession: 'poison-part', partRecords: 2 }).handleBatch({ ...failing, redelivered: true })
    const eventsOf = async (session: string) => (await store.blocks(1, session)).reduce((n, b) => n + b.eventCount, 0)
    expect([await eventsOf('part-a'), await eventsOf('part-b')]).toEqual([2, 2])
    const letters = (await deadLetters.list({ limit: 10, offset: 0 })).results.filter((l) => l.offset >= 60)
    expect(letters.map((l) => l.id)).toEqual(['wren_snapshots/0/64'])
  })
})
