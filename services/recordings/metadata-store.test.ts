// The recordings list's metadata store on real chDB: what it shows of a session stored over several log batches
// is what one accumulator over all of the session's batches gives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { migrate, openEmbeddedClickHouse, type ClickHouseClient } from '../platform/clickhouse'
import type { SnapshotItem } from '../platform/log/contract'
import { eventsOf, toBlocks } from './blocks'
import { ClickHouseMetadataStore } from './metadata-store'
import { RecordingMetadata } from './metadata'
import { EventType, IncrementalSource, MouseInteraction } from './rrweb'

const T0 = Date.now() - 3_600_000

const meta = (t: number, href: string) => ({ type: EventType.Meta, timestamp: T0 + t, data: { href, width: 1280, height: 800 } })
const move = (t: number) => ({
  type: EventType.IncrementalSnapshot,
  timestamp: T0 + t,
  data: { source: IncrementalSource.MouseMove, positions: [] },
})
const click = (t: number) => ({
  type: EventType.IncrementalSnapshot,
  timestamp: T0 + t,
  data: { source: IncrementalSource.MouseInteraction, type: MouseInteraction.Click, id: 1, x: 1, y: 1 },
})
const mutation = (t: number) => ({
  type: EventType.IncrementalSnapshot,
  timestamp: T0 + t,
  data: { source: IncrementalSource.Mutation, adds: [] },
})
const consoleError = (t: number) => ({
  type: EventType.Plugin,
  timestamp: T0 + t,
  data: { plugin: 'rrweb/console@1', payload: { level: 'error', payload: ['boom'] } },
})

const message = (windowId: string, library: string, events: unknown[]): { item: SnapshotItem } & ReturnType<typeof eventsOf> => ({
  item: {
    teamId: 1,
    sessionId: 'spread',
    windowId,
    distinctId: 'user-1',
    uuid: '00000000-0000-4000-8000-000000000001',
    snapshotSource: 'web',
    snapshotLibrary: library,
    timestamp: new Date(T0).toISOString(),
    now: new Date(T0 + 60_000).toISOString(),
    events: JSON.stringify(events),
  },
  ...eventsOf(JSON.stringify(events)),
})

describe('recording metadata store', () => {
  let dir: string
  let client: ClickHouseClient
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wren-metadata-store-'))
    client = await openEmbeddedClickHouse(dir)
    await migrate(client)
  })
  afterAll(async () => {
    await client?.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('shows a session stored over several batches as its states merged in log order show it', async () => {
    const store = new ClickHouseMetadataStore(client)
    // An activity cluster that runs across batches, two windows, a start url tied at the same instant in a later
    // batch (the earlier batch's wins), idle time between, a library only from the second batch on, console lines.
    const batches = [
      [message('w1', '', [meta(1_000, 'https://a.example/first'), move(2_000), mutation(2_500), move(3_000)])],
      [message('w1', 'web', [move(6_000), meta(1_000, 'https://a.example/0-tie'), click(7_000)]), message('w2', 'web', [mutation(30_000)])],
      [message('w2', 'posthog-js', [consoleError(40_000), click(41_000), mutation(44_000)])],
    ]
    const blocks = batches.map((messages) => toBlocks(messages))
    for (const [i, part] of blocks.entries())
      await store.write({ topic: 'wren_snapshots', partition: 0, firstOffset: i * 10, lastOffset: i * 10 + 1 }, part)

    const merged = RecordingMetadata.of(
      blocks
        .flat()
        .map((b) => ({ windowId: b.windowId, events: b.events, snapshotSource: b.snapshotSource, snapshotLibrary: b.snapshotLibrary })),
    ).summary()
    expect(merged).toMatchObject({ start_url: 'https://a.example/first', snapshot_library: 'web', console_error_count: 1, click_count: 2 })
    expect(merged.active_seconds).toBe(8)

    const [listed] = await store.list(1, { limit: 10, offset: 0 })
    expect(listed.summary).toEqual(merged)
    expect(await store.get(1, 'spread')).toEqual(listed)
    // The same once ClickHouse has merged the session's rows.
    await client.command({ query: 'OPTIMIZE TABLE session_recording_sessions FINAL' })
    expect((await store.get(1, 'spread'))?.summary).toEqual(merged)
  })
})
