// A range's dead letters when the range is handed out again after a crash. A non-replicated table records an
// insert's deduplication token before its rows: a process killed between the two leaves the token alone, and
// the letters written again under it would be dropped (platform/clickhouse replayTokens). A replay looks first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { insertRows, migrate, openEmbeddedClickHouse, queryRows, type ClickHouseClient } from '../../services/platform/clickhouse'
import { TOPICS, type LogBatch } from '../../services/platform/log/log'
import { systemClock } from '../../services/platform/clock'
import { DeadLetterStore } from '../../services/dead-letters/store'

describe('dead letters of a replayed range', () => {
  let dir = ''
  let client: ClickHouseClient
  let store: DeadLetterStore
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wren-replayed-dead-letters-'))
    client = await openEmbeddedClickHouse(dir)
    await migrate(client)
    store = new DeadLetterStore(client, systemClock)
  })
  afterAll(async () => {
    await client?.close()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  const range = (partition: number, redelivered: boolean): LogBatch => ({
    topic: TOPICS.ingest,
    partition,
    records: [],
    firstOffset: 10,
    lastOffset: 12,
    redelivered,
  })
  const letters = [10, 12].map((offset) => ({ offset, error: 'refused', payload: Buffer.from(`message ${offset}`), teamId: 1 }))
  /** The token of the range's letters, left without them: another row stored under it, as a killed insert leaves it. */
  const orphanToken = (partition: number) =>
    insertRows(
      client,
      'dead_letters',
      [{ topic: 'elsewhere', partition, offset: 0, error: '', payload: '', at: new Date().toISOString(), consumer_group: 'x', size: 0 }],
      `dead_letters:${TOPICS.ingest}:${partition}:10-12`,
    )
  const stored = async (partition: number) =>
    (
      await queryRows<{ offset: number }>(
        client,
        `SELECT offset FROM dead_letters WHERE topic = {t:String} AND partition = {p:UInt32} ORDER BY offset`,
        { t: TOPICS.ingest, p: partition },
      )
    ).map((r) => Number(r.offset))

  it('stores the letters of a replayed range whose token was left without them, once however often it is replayed', async () => {
    await orphanToken(1)
    await store.recorder('ingestion').record(range(1, true), letters)
    expect(await stored(1)).toEqual([10, 12])
    await store.recorder('ingestion').record(range(1, true), letters)
    expect(await stored(1)).toEqual([10, 12])
  })

  it('stores only the letters the table lacks', async () => {
    await store.recorder('ingestion').record(range(2, false), letters.slice(0, 1))
    await store.recorder('ingestion').record(range(2, true), letters)
    expect(await stored(2)).toEqual([10, 12])
  })

  it('(why a replay looks first) loses them when the range comes as new under the left token', async () => {
    await orphanToken(3)
    await store.recorder('ingestion').record(range(3, false), letters)
    expect(await stored(3)).toEqual([])
  })
})
