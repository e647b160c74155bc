// Processes started together on empty storage (`docker compose up`): one that loads while another bootstraps,
// and finds the project made, must accept the bootstrap key at once. A change reaches it through the log only
// later (in cluster mode, once its consumer has joined), so until then what it read at its load is all it knows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pino } from 'pino'
import { migrate, openEmbeddedClickHouse, type ClickHouseClient } from '../platform/clickhouse'
import { LocalConfigLog } from '../platform/log/config-log'
import { systemClock } from '../platform/clock'
import { bootstrapIfEmpty } from './bootstrap'
import { ProjectStore } from './store'

const KEY = 'phx_' + 'b'.repeat(40)

describe('bootstrapIfEmpty', () => {
  let dir: string
  let client: ClickHouseClient
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wren-bootstrap-'))
    client = await openEmbeddedClickHouse(dir)
    await migrate(client)
  })
  afterAll(async () => {
    await client?.close()
    await rm(dir, { recursive: true, force: true })
  })

  // Each store has a config log of its own: the other process's changes never reach it.
  const load = () => ProjectStore.load(client, systemClock, new LocalConfigLog(client, pino({ level: 'silent' })))

  it('leaves a process that finds the project at its load knowing the bootstrap key', async () => {
    const first = await load()
    const seen: Array<{ empty: boolean; key: string | undefined }> = []
    // Right after the project is stored, before the bootstrap answers: another process starting now.
    first.onCreated(async () => {
      const other = await load()
      seen.push({ empty: other.isEmpty(), key: other.keyByValue(KEY)?.label })
    })
    const made = await bootstrapIfEmpty(first, { projectApiKey: null, personalApiKey: KEY })
    expect(made).toMatchObject({ projectId: 1, personalApiKey: KEY })
    expect(seen).toEqual([{ empty: false, key: 'bootstrap' }])

    // A process started after it all makes nothing again, and knows the key and the project.
    const later = await load()
    expect(await bootstrapIfEmpty(later, { projectApiKey: null, personalApiKey: KEY })).toBeNull()
    expect(later.keyByValue(KEY)?.scopes).toEqual(['*'])
    expect(later.byToken(made!.projectApiKey)?.id).toBe(1)
  })
})
