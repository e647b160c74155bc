// Version claims of the configuration log in cluster mode, on the real embedded log and chDB: one owner
// grants a version once however many writers race for it, knows the tables' versions, records what it
// granted so that the next owner does not grant it again, and lets a grant whose row never landed expire.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pino } from 'pino'
import { insertRows, migrate, openEmbeddedClickHouse, type ClickHouseClient } from '../clickhouse'
import { openEmbeddedLog, type EmbeddedLog } from './embedded/embedded-log'
import { ClusterConfigLog, LocalConfigLog } from './config-log'

describe('version claims', () => {
  let dir: string
  let client: ClickHouseClient
  let log: EmbeddedLog
  const logger = pino({ level: 'silent' })
  const project = (id: number, version: number) => ({
    id,
    name: 'p',
    api_token: `phc_${id}`,
    timezone: 'UTC',
    settings: '{}',
    created_at: '2026-01-01T00:00:00.000Z',
    is_deleted: 0,
    version,
  })

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wren-config-log-'))
    client = await openEmbeddedClickHouse(dir)
    await migrate(client)
    log = await openEmbeddedLog({ dir: path.join(dir, 'log') })
  })
  afterAll(async () => {
    await log?.close()
    await client?.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('the owner grants a version to one writer of many, across processes, and knows the stored version', async () => {
    const owner = new ClusterConfigLog(log, client, logger, { allocate: true })
    const other = new ClusterConfigLog(log, client, logger, { allocate: false })
    try {
      await insertRows(client, 'projects', [project(7, 3)])
      const object = { kind: 'project' as const, id: 7 }
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? owner : other).claimVersion(object, 3)))
      expect(answers.filter(Boolean)).toHaveLength(1)
      // Behind the stored version, or behind the version just granted: denied.
      expect(await other.claimVersion(object, 2)).toBe(false)
      expect(await other.claimVersion(object, 3)).toBe(false)
      expect(await other.claimVersion(object, 4)).toBe(true)
      // Other objects are apart: a sharing configuration never saved is at version 0.
      expect(await other.claimVersion({ kind: 'sharing', teamId: 7, sessionId: 's' }, 0)).toBe(true)
      expect(await owner.claimVersion({ kind: 'sharing', teamId: 7, sessionId: 's' }, 0)).toBe(false)
    } finally {
      await other.stop()
      await owner.stop()
    }
  })

  it('a new owner does not grant again a version granted before, even one whose row is not written', async () => {
    // The first test's owner granted version 5 of project 7; the table still holds 3.
    const owner = new ClusterConfigLog(log, client, logger, { allocate: true })
    try {
      expect(await owner.claimVersion({ kind: 'project', id: 7 }, 4)).toBe(false)
      expect(await owner.claimVersion({ kind: 'project', id: 7 }, 3)).toBe(false)
      expect(await owner.claimVersion({ kind: 'project', id: 7 }, 5)).toBe(true)
    } finally {
      await owner.stop()
    }
  })

  it('a granted version whose row never lands stops blocking once expired', async () => {
    const local = new LocalConfigLog(client, logger, { claimExpiryMs: 200 })
    await insertRows(client, 'projects', [project(8, 1)])
    const object = { kind: 'project' as const, id: 8 }
    expect(await local.claimVersion(object, 1)).toBe(true)
    // The writer that was granted 2 never writes it.
    expect(await local.claimVersion(object, 1)).toBe(false)
    await new Promise((resolve) => setTimeout(resolve, 250))
    expect(await local.claimVersion(object, 1)).toBe(true)
    // Once written, the version is the table's: a stale writer stays denied however long it waited.
    await insertRows(client, 'projects', [project(8, 2)])
    await new Promise((resolve) => setTimeout(resolve, 250))
    expect(await local.claimVersion(object, 1)).toBe(false)
    expect(await local.claimVersion(object, 2)).toBe(true)
  })
})
