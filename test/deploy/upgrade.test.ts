// Upgrades (issue 23 item 5): Wren started on storage an older version left applies the migrations that
// storage lacks, once, and reads the older version's data through the API; a second start applies nothing.
// The older storage is built here without git history: the migrations an older version had (through the
// runner, `upTo`), and rows written with plain INSERTs in that version's columns. Its history is two versions:
// Wren of 2026-11-22 (migrations up to 039: no LowCardinality property columns, no received_at on recordings),
// then of 2026-11-24 23:08 (up to 044, and insights, dashboards and definitions under the names they had then,
// 050_insights_dashboards.sql and 050_definitions.sql, since renumbered 045 and 046). Both the embedded path
// (chDB in the data directory) and the CLICKHOUSE_URL path (the ClickHouse-HTTP test fixture, what cluster
// mode uses) run the same runner; on the latter, processes that start at once each migrate safely.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import pino from 'pino'
import { buildWren, type Wren } from '../../services/app'
import { loadConfig } from '../../services/platform/config'
import {
  insertRows,
  migrate,
  openEmbeddedClickHouse,
  openServerClickHouse,
  queryRows,
  splitStatements,
  type ClickHouseClient,
} from '../../services/platform/clickhouse'
import { generateKey, hashKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'
import { RecordingMetadata } from '../../services/recordings/metadata'
import { startClickHouseFixture, type ClickHouseFixture } from '../support/clickhouse-http'
import { api, captureBatch, drained } from '../support/wren'

const schemas = new URL('../../schemas/clickhouse/', import.meta.url)
const currentMigrations = async () => (await readdir(schemas)).filter((f) => f.endsWith('.sql')).sort()
/** The migrations the older storage lacks: every one numbered after `last` (045 and 046 under their new names). */
const migrationsSince = async (last: string) => (await currentMigrations()).filter((f) => f.slice(0, 3) > last)
/** The names the 2026-11-24 version recorded for migrations since renumbered. */
const RENAMED = { '045_insights_dashboards.sql': '050_insights_dashboards.sql', '046_definitions.sql': '050_definitions.sql' }

const projectKey = generateKey(PROJECT_KEY_PREFIX)
const personalKey = generateKey(PERSONAL_KEY_PREFIX)
const hourAgo = Date.now() - 3_600_000
const at = (ms: number) => new Date(hourAgo + ms).toISOString()
const personUuid = randomUUID()
const sessionId = `upgrade-session-${randomUUID()}`
const eventUuids = [randomUUID(), randomUUID(), randomUUID()]

/** buildOlderStorage on the client `opening` gives, closed after (the older version's process ends). */
async function buildOlderStorageOn(opening: Promise<ClickHouseClient>): Promise<void> {
  const older = await opening
  try {
    await buildOlderStorage(older)
  } finally {
    await older.close()
  }
}

/** Storage as the two older versions left it, with a project, a key, events, a person, a flag and a recording. */
async function buildOlderStorage(client: ClickHouseClient): Promise<void> {
  // Wren of 2026-11-22.
  expect(await migrate(client, { upTo: '039' })).toEqual((await currentMigrations()).filter((f) => f < '040'))
  await insertRows(client, 'projects', [
    { id: 1, name: 'Older project', api_token: projectKey, timezone: 'UTC', settings: '{}', created_at: at(0), is_deleted: 0, version: 1 },
  ])
  await insertRows(client, 'personal_api_keys', [
    {
      id: 'a1b2c3d4e5f60718',
      label: 'bootstrap',
      secure_value: hashKey(personalKey),
      mask_value: `${personalKey.slice(0, 4)}...${personalKey.slice(-4)}`,
      scopes: ['*'],
      scoped_teams: [],
      created_at: at(0),
      is_deleted: 0,
      version: 1,
    },
  ])
  await insertRows(client, 'person', [
    {
      team_id: 1,
      uuid: personUuid,
      id: 1,
      properties: JSON.stringify({ email: 'older@example.com', plan: 'pro' }),
      is_identified: 1,
      is_deleted: 0,
      version: 0,
      created_at: at(0),
      _partition: 0,
      _offset: 0,
    },
  ])
  await insertRows(client, 'person_distinct_id', [
    { team_id: 1, distinct_id: 'older-user', person_uuid: personUuid, is_deleted: 0, version: 0, _partition: 0, _offset: 0 },
  ])
  await insertRows(
    client,
    'events',
    eventUuids.map((uuid, i) => ({
      uuid,
      event: i === 0 ? '$pageview' : 'older_event',
      properties: JSON.stringify({
        $browser: 'Firefox',
        $os: 'Linux',
        $current_url: 'https://example.com/old',
        $session_id: sessionId,
        n: i,
      }),
      timestamp: at(1_000 + i),
      team_id: 1,
      distinct_id: 'older-user',
      elements_chain: '',
      created_at: at(1_000 + i),
      person_id: personUuid,
      person_created_at: at(0),
      person_properties: JSON.stringify({ email: 'older@example.com', plan: 'pro' }),
      person_mode: 'full',
      group0_properties: '',
      group1_properties: '',
      group2_properties: '',
      group3_properties: '',
      group4_properties: '',
      _partition: 0,
      _offset: i,
    })),
  )
  const flag = {
    id: 1,
    teamId: 1,
    key: 'older-flag',
    name: 'A flag from before',
    filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
    active: true,
    deleted: false,
    ensureExperienceContinuity: false,
    version: 1,
    evaluationRuntime: 'all',
    evaluationTags: [],
    bucketingIdentifier: null,
    tags: [],
    createdAt: at(0),
    createdBy: null,
    updatedAt: at(0),
    lastModifiedBy: null,
  }
  await insertRows(client, 'feature_flags', [
    { team_id: 1, id: 1, key: flag.key, definition: JSON.stringify(flag), deleted: 0, version: 1, updated_at: at(0) },
  ])
  const rrweb = [
    { type: 4, timestamp: hourAgo + 1_000, data: { href: 'https://example.com/old', width: 800, height: 600 } },
    { type: 2, timestamp: hourAgo + 1_001, data: { node: { type: 0, childNodes: [], id: 1 }, initialOffset: { left: 0, top: 0 } } },
    { type: 3, timestamp: hourAgo + 6_000, data: { source: 2, type: 2, id: 1, x: 10, y: 10 } },
  ]
  const lines = rrweb.map((e) => `${JSON.stringify(['window-1', e])}\n`).join('')
  await insertRows(client, 'session_recording_blocks', [
    {
      team_id: 1,
      session_id: sessionId,
      window_id: 'window-1',
      first_timestamp: at(1_000),
      last_timestamp: at(6_000),
      distinct_id: 'older-user',
      events: lines,
      event_count: rrweb.length,
      size: Buffer.byteLength(lines),
      message_count: 1,
      snapshot_source: 'web',
      snapshot_library: 'web',
      retention_days: 30,
      _partition: 0,
      _offset: 0,
    },
  ])
  const state = RecordingMetadata.empty()
    .add({ windowId: 'window-1', events: rrweb, snapshotSource: 'web', snapshotLibrary: 'web' })
    .toState()
  await insertRows(client, 'session_recording_metadata', [
    {
      team_id: 1,
      session_id: sessionId,
      distinct_id: 'older-user',
      start_time: at(1_000),
      end_time: at(6_000),
      click_count: state.clickCount,
      keypress_count: state.keypressCount,
      mouse_activity_count: state.mouseActivityCount,
      console_log_count: 0,
      console_warn_count: 0,
      console_error_count: 0,
      event_count: state.eventCount,
      size: state.size,
      state: JSON.stringify(state),
      active_milliseconds: 5_000,
      urls: state.urls,
      snapshot_source: 'web',
      retention_days: 30,
      _partition: 0,
      _offset: 0,
    },
  ])

  // Wren of 2026-11-24 23:08: 043 and 044, then insights, dashboards and definitions under their names of then.
  expect(await migrate(client, { upTo: '044' })).toEqual(['043_materialized_properties_low_cardinality.sql', '044_config_versions.sql'])
  for (const [file, recordedAs] of Object.entries(RENAMED)) {
    for (const query of splitStatements(await readFile(new URL(file, schemas), 'utf8'))) await client.command({ query })
    await insertRows(client, 'schema_migrations', [{ name: recordedAs }])
  }
}

/** Wren (every role, as `wren start`) on `env`'s storage; `migrations` collects what its log says it applied. */
async function startOn(env: Record<string, string>, migrations: string[][]): Promise<{ wren: Wren; url: string }> {
  const logger = pino(
    { level: 'info' },
    {
      write(line: string) {
        const entry = JSON.parse(line) as { msg?: string; migrations?: string[] }
        if (entry.msg === 'applied ClickHouse migrations') migrations.push(entry.migrations ?? [])
      },
    },
  )
  const config = loadConfig({ WREN_PROJECT_API_KEY: projectKey, WREN_PERSONAL_API_KEY: personalKey, WREN_INGEST_WAIT_MS: '20', ...env })
  const wren = await buildWren(config, logger)
  await wren.app.listen({ port: 0, host: '127.0.0.1' })
  const address = wren.app.server.address()
  return { wren, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` }
}

/** What the API shows of the older version's data, and that the upgraded storage takes new events. */
async function expectOlderDataThroughApi(url: string, wren: Wren, newEvent: string): Promise<void> {
  const call = api({ url, personalKey })
  const events = await call('GET', '/api/projects/1/events/?limit=100')
  expect(events.status).toBe(200)
  const older = (events.body.results as any[]).filter((e) => eventUuids.includes(e.id))
  expect(older.map((e) => [e.event, e.distinct_id, e.properties.n, e.properties.$browser]).sort()).toEqual([
    ['$pageview', 'older-user', 0, 'Firefox'],
    ['older_event', 'older-user', 1, 'Firefox'],
    ['older_event', 'older-user', 2, 'Firefox'],
  ])
  // A breakdown on a property column 043 made LowCardinality, over parts written before it.
  const trend = await call('POST', '/api/projects/1/insights/trend/', {
    events: [{ id: 'older_event' }],
    breakdown: '$browser',
    date_from: '-1d',
  })
  expect(trend.status, trend.text).toBe(200)
  expect((trend.body.result as any[]).map((s) => [s.breakdown_value, s.count])).toEqual([['Firefox', 2]])

  const persons = await call('GET', '/api/projects/1/persons/?distinct_id=older-user')
  expect(persons.status).toBe(200)
  expect(persons.body.results).toEqual([
    expect.objectContaining({
      uuid: personUuid,
      distinct_ids: ['older-user'],
      properties: expect.objectContaining({ email: 'older@example.com', plan: 'pro' }),
    }),
  ])

  const flags = await call('GET', '/api/projects/1/feature_flags/')
  expect(flags.status).toBe(200)
  expect(flags.body.results).toEqual([expect.objectContaining({ id: 1, key: 'older-flag', name: 'A flag from before', active: true })])
  const decided = await fetch(`${url}/flags/?v=2`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: projectKey, distinct_id: 'older-user' }),
  })
  expect(((await decided.json()) as { flags: Record<string, { enabled: boolean }> }).flags['older-flag']).toMatchObject({ enabled: true })

  const recordings = await call('GET', '/api/projects/1/session_recordings/')
  expect(recordings.status).toBe(200)
  // received_at (047) reads the end time for rows stored before it: an hour ago, so not ongoing.
  expect(recordings.body.results).toEqual([
    expect.objectContaining({ id: sessionId, distinct_id: 'older-user', start_url: 'https://example.com/old', ongoing: false }),
  ])
  const snapshots = await call(
    'GET',
    `/api/projects/1/session_recordings/${sessionId}/snapshots?source=blob_v2&start_blob_key=0&end_blob_key=0`,
  )
  expect(snapshots.status).toBe(200)
  expect(snapshots.text.trim().split('\n')).toHaveLength(3)

  // New writes on the upgraded tables: an event in every column the current version writes.
  await captureBatch({ url, projectKey }, [{ event: newEvent, distinct_id: 'older-user', properties: { $browser: 'Chrome' } }])
  await drained(wren)
  const listed = await call('GET', `/api/projects/1/events/?event=${newEvent}`)
  expect(listed.body.results.map((e: any) => [e.event, e.distinct_id])).toEqual([[newEvent, 'older-user']])
}

/** Each current migration recorded once (raw rows: a migration applied twice leaves two until a merge). */
async function recordedMigrations(client: ClickHouseClient): Promise<Record<string, number>> {
  const rows = await queryRows<{ name: string; n: number }>(
    client,
    'SELECT name, count() AS n FROM schema_migrations GROUP BY name ORDER BY name',
  )
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.n)]))
}

async function expectEachRecordedOnce(client: ClickHouseClient): Promise<void> {
  const expected = Object.fromEntries((await currentMigrations()).map((f) => [f, 1]))
  for (const old of Object.values(RENAMED)) expected[old] = 1
  expect(await recordedMigrations(client)).toEqual(expected)
}

describe('upgrading storage an older version left', () => {
  describe('embedded mode (chDB in the data directory)', () => {
    let dataDir = ''
    let running: { wren: Wren; url: string } | null = null

    beforeAll(async () => {
      dataDir = await mkdtemp(path.join(tmpdir(), 'wren-upgrade-'))
      await buildOlderStorageOn(openEmbeddedClickHouse(dataDir))
    }, 60_000)
    afterAll(async () => {
      await running?.wren.close()
      if (dataDir) await rm(dataDir, { recursive: true, force: true })
    })

    it('applies the missing migrations once and shows the older data through the API', async () => {
      const applied: string[][] = []
      running = await startOn({ WREN_DATA_DIR: dataDir }, applied)
      // 047 onwards are new; 045 and 046 run again under their new names (their tables already exist: a no-op).
      expect(applied).toEqual([await migrationsSince('044')])
      expect(running.wren.bootstrap).toBeNull()
      await expectEachRecordedOnce(running.wren.clickhouse)
      await expectOlderDataThroughApi(running.url, running.wren, 'after_upgrade')
    }, 60_000)

    it('applies nothing when started again on the upgraded data directory', async () => {
      await running!.wren.close()
      running = null
      const applied: string[][] = []
      running = await startOn({ WREN_DATA_DIR: dataDir }, applied)
      expect(applied).toEqual([])
      await expectEachRecordedOnce(running.wren.clickhouse)
      await expectOlderDataThroughApi(running.url, running.wren, 'after_restart')
    }, 60_000)
  })

  describe('CLICKHOUSE_URL (the ClickHouse-HTTP test fixture, as cluster mode reaches ClickHouse)', () => {
    let fixture: ClickHouseFixture
    let dataDir = ''
    let running: { wren: Wren; url: string } | null = null
    const server = (database: string) => ({ url: fixture.url, username: fixture.user, password: fixture.password, database, cluster: null })
    const env = () => ({
      WREN_DATA_DIR: dataDir,
      ...fixture.env,
      CLICKHOUSE_DATABASE: 'upgraded',
    })

    beforeAll(async () => {
      fixture = await startClickHouseFixture({ user: 'wren', password: 'fixture secret' })
      dataDir = await mkdtemp(path.join(tmpdir(), 'wren-upgrade-http-'))
      await buildOlderStorageOn(openServerClickHouse(server('upgraded')))
    }, 60_000)
    afterAll(async () => {
      await running?.wren.close()
      await fixture?.stop()
      if (dataDir) await rm(dataDir, { recursive: true, force: true })
    })

    it('applies the missing migrations once, shows the older data, and applies nothing the second time', async () => {
      const applied: string[][] = []
      running = await startOn(env(), applied)
      expect(applied).toEqual([await migrationsSince('044')])
      await expectEachRecordedOnce(running.wren.clickhouse)
      await expectOlderDataThroughApi(running.url, running.wren, 'after_upgrade')
      await running.wren.close()
      running = null

      running = await startOn(env(), applied)
      expect(applied).toHaveLength(1)
      await expectEachRecordedOnce(running.wren.clickhouse)
      await expectOlderDataThroughApi(running.url, running.wren, 'after_restart')
    }, 60_000)

    it('migrates safely when several processes start at once on older storage', async () => {
      const clients = await Promise.all([1, 2, 3].map(() => openServerClickHouse(server('raced'))))
      try {
        await migrate(clients[0], { upTo: '039' })
        // Each may apply a migration another is applying: every statement can run again, so all succeed.
        const ran = await Promise.all(clients.map((c) => migrate(c)))
        const missing = (await currentMigrations()).filter((f) => f > '040')
        for (const names of ran) for (const name of names) expect(missing).toContain(name)
        expect(new Set(ran.flat())).toEqual(new Set(missing))
        const columns = await queryRows<{ name: string; type: string }>(
          clients[1],
          "SELECT name, type FROM system.columns WHERE database = 'raced' AND table = 'events' AND name = 'mat_$browser'",
        )
        expect(columns).toEqual([{ name: 'mat_$browser', type: 'LowCardinality(String)' }])
        expect(await Promise.all(clients.map((c) => migrate(c)))).toEqual([[], [], []])
      } finally {
        await Promise.all(clients.map((c) => c.close()))
      }
    }, 60_000)
    it('runs every migration again over itself (a start that died halfway through one runs it whole next time)', async () => {
      const client = await openServerClickHouse(server('twice'))
      try {
        await migrate(client)
        for (const file of await currentMigrations()) {
          for (const query of splitStatements(await readFile(new URL(file, schemas), 'utf8'))) {
            await expect(client.command({ query }).then(() => file)).resolves.toBe(file)
          }
        }
      } finally {
        await client.close()
      }
    }, 60_000)
  })
})
