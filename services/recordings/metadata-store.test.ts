// The recordings list's metadata store on real chDB: what it shows of a session stored over several log batches
// is what one accumulator over all of the session's batches gives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { insertRows, migrate, openEmbeddedClickHouse, queryRows, type ClickHouseClient } from '../platform/clickhouse'
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

const message = (
  windowId: string,
  library: string,
  events: unknown[],
  sessionId = 'spread',
): { item: SnapshotItem } & ReturnType<typeof eventsOf> => ({
  item: {
    teamId: 1,
    sessionId,
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

  it('stores a replayed batch whose tokens a crash left without their rows, once however often it is replayed', async () => {
    const store = new ClickHouseMetadataStore(client)
    const range = (first: number) => ({ topic: 'wren_snapshots', partition: 1, firstOffset: first, lastOffset: first + 1 })
    const part = (session: string, t: number) => toBlocks([message('w1', 'web', [click(t), consoleError(t + 1), move(t + 2)], session)])
    // A non-replicated table records an insert's token before its rows: a process killed between the two leaves
    // the token alone. Made here by storing another project's row under each table's token of the batch, in the
    // month the batch's rows go to (a table deduplicates within one partition).
    const orphan = (first: number, t: number) =>
      Promise.all(
        [
          ['session_recording_metadata', { team_id: 999, session_id: 'orphan', start_time: new Date(T0 + t).toISOString() }],
          ['session_recording_sessions', { team_id: 999, session_id: 'orphan', start_time: new Date(T0 + t).toISOString() }],
          ['log_entries', { team_id: 999, log_source: 'orphan', log_source_id: 'orphan', timestamp: new Date(T0 + t).toISOString() }],
        ].map(([table, row]) => insertRows(client, table as string, [row as object], `${table}:wren_snapshots:1:${first}-${first + 1}`)),
      )
    const seen = async (session: string) => {
      const [sessions] = await queryRows<{ clicks: number; events: number }>(
        client,
        'SELECT sum(click_count) AS clicks, sum(event_count) AS events FROM session_recording_sessions FINAL WHERE session_id = {s:String}',
        { s: session },
      )
      const [lines] = await queryRows<{ n: number }>(client, 'SELECT count() AS n FROM log_entries WHERE log_source_id = {s:String}', {
        s: session,
      })
      const recording = await store.get(1, session)
      return {
        clicks: Number(sessions.clicks),
        events: Number(sessions.events),
        lines: Number(lines.n),
        summary: recording?.summary.click_count,
      }
    }

    await store.write(range(100), part('replayed', 0))
    await orphan(110, 10_000)
    await store.write(range(110), part('replayed', 10_000), true)
    const whole = { clicks: 2, events: 6, lines: 2, summary: 2 }
    expect(await seen('replayed')).toEqual(whole)
    // Replayed again, before and after ClickHouse merges the session's rows: nothing twice.
    await store.write(range(110), part('replayed', 10_000), true)
    expect(await seen('replayed')).toEqual(whole)
    await client.command({ query: 'OPTIMIZE TABLE session_recording_sessions FINAL' })
    await store.write(range(110), part('replayed', 10_000), true)
    await store.write(range(100), part('replayed', 0), true)
    expect(await seen('replayed')).toEqual(whole)

    // Handed out for the first time, the batch trusts its tokens: why a replay looks first.
    await orphan(120, 0)
    await store.write(range(120), part('trusted', 0))
    expect(await seen('trusted')).toEqual({ clicks: 0, events: 0, lines: 0, summary: undefined })
  })
})
