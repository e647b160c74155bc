// The configuration-object store on real chDB, and its fake: for each of the four kinds, the same calls answer
// the same objects from both (so a unit test on the fake sees what the store would do), versions count up,
// deletes hide, projects stay apart, and a write tells other processes what their caches need.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pino } from 'pino'
import { migrate, openEmbeddedClickHouse, type ClickHouseClient } from '../../services/platform/clickhouse'
import { LocalConfigLog, type ConfigChange } from '../../services/platform/log/config-log'
import type { Clock } from '../../services/platform/clock'
import { ConfigObjectStore, type ConfigObject, type ConfigObjectKind, type ConfigObjects } from '../../services/platform/config-objects'
import { FakeConfigObjects } from '../../services/platform/testing/fake-config-objects'
import { ACTIONS } from '../../services/actions/store'
import { COHORTS } from '../../services/cohorts/store'
import { INSIGHTS } from '../../services/insights/store'
import { DASHBOARDS } from '../../services/insights/dashboard-store'

/** A clock one second further on at every look, from the same start for each store. */
function steppingClock(): Clock {
  let at = Date.UTC(2026, 0, 1)
  return { now: () => new Date((at += 1000)) }
}

type AnyKind = ConfigObjectKind<ConfigObject, Partial<ConfigObject>, unknown>

const cases: Array<{ kind: AnyKind; fields: unknown; modified: string; published: (teamId: number, id: number) => ConfigChange[] }> = [
  {
    kind: ACTIONS as unknown as AnyKind,
    fields: { name: 'Signed up', description: 'd', steps: [{ event: 'signup' }], tags: ['a'] },
    modified: 'updatedAt',
    published: (teamId, id) => [{ kind: 'action', teamId, id }],
  },
  {
    kind: COHORTS as unknown as AnyKind,
    fields: { name: 'Pro', description: '', filters: { properties: { type: 'AND', values: [] } }, isStatic: false },
    modified: 'updatedAt',
    published: (teamId) => [{ kind: 'cohort', teamId }],
  },
  {
    kind: INSIGHTS as unknown as AnyKind,
    fields: { name: 'Views', description: '', query: { kind: 'TrendsQuery' }, filters: {}, saved: true, favorited: false, tags: [] },
    modified: 'lastModifiedAt',
    published: () => [],
  },
  {
    kind: DASHBOARDS as unknown as AnyKind,
    fields: {
      name: 'Home',
      description: '',
      pinned: true,
      filters: {},
      tags: ['t'],
      tiles: [{ insightId: null, text: { body: 'hi' }, layouts: {}, color: null }],
    },
    modified: 'lastModifiedAt',
    published: () => [],
  },
]

/** The same calls on either store; short ids are random, so they are only checked for their form. */
async function exercise(store: ConfigObjects<ConfigObject, Partial<ConfigObject>, unknown>, fields: unknown) {
  const first = await store.create(1, fields)
  const second = await store.create(1, fields)
  const elsewhere = await store.create(2, fields)
  const renamed = await store.update(1, first.id, () => ({ name: 'renamed' }) as Partial<ConfigObject>)
  const deleted = await store.update(1, second.id, () => ({ deleted: true }))
  const answers = {
    first,
    renamed,
    deleted,
    missing: (await store.update(1, 999, () => ({ deleted: true }))) ?? null,
    listed: await store.list(1),
    withDeleted: await store.list(1, { includeDeleted: true }),
    byIds: await store.list(1, { ids: [second.id, elsewhere.id], includeDeleted: true }),
    noIds: await store.list(1, { ids: [] }),
    get: (await store.get(1, second.id)) ?? null,
    getDeleted: await store.get(1, second.id, { includeDeleted: true }),
    otherProject: await store.list(2),
  }
  return JSON.parse(
    JSON.stringify(answers, (k, v: unknown) => (k === 'shortId' ? (/^[A-Za-z0-9]{8}$/.test(v as string) ? 'short' : v) : v)),
  )
}

describe('configuration-object store', () => {
  let dir: string
  let client: ClickHouseClient
  let config: LocalConfigLog
  const published: ConfigChange[] = []

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wren-config-objects-'))
    client = await openEmbeddedClickHouse(dir)
    await migrate(client)
    config = new LocalConfigLog(client, pino({ level: 'silent' }))
    config.onChange((change) => published.push(change))
  })
  afterAll(async () => {
    await client?.close()
    await rm(dir, { recursive: true, force: true })
  })

  for (const { kind, fields, modified, published: expected } of cases)
    it(`${kind.table}: the store and its fake answer alike`, async () => {
      published.length = 0
      const real = await exercise(new ConfigObjectStore(client, steppingClock(), config, kind), fields)
      const fake = await exercise(new FakeConfigObjects(kind, steppingClock()), fields)
      expect(fake).toEqual(real)

      const { first, renamed, listed, withDeleted, getDeleted } = real
      expect(first).toMatchObject({ id: 1, teamId: 1, version: 1, deleted: false, createdAt: '2026-01-01T00:00:01.000Z' })
      expect(first[modified]).toBe(first.createdAt)
      expect(renamed).toMatchObject({ id: 1, name: 'renamed', version: 2, createdAt: first.createdAt })
      expect(renamed[modified] > first[modified]).toBe(true)
      expect(listed.map((o: ConfigObject) => o.id)).toEqual([1])
      expect(withDeleted.map((o: ConfigObject) => o.id)).toEqual([1, 2])
      expect(getDeleted).toMatchObject({ id: 2, deleted: true, version: 2 })
      expect(real).toMatchObject({ missing: null, noIds: [], get: null, byIds: [{ id: 2 }], otherProject: [{ id: 3, teamId: 2 }] })
      if (kind.table === 'dashboards')
        expect(first.tiles).toEqual([{ id: 1, insightId: null, text: { body: 'hi' }, layouts: {}, color: null }])

      // Every write of an action or a cohort reaches the other processes' caches.
      const writes = [
        [1, 1],
        [1, 2],
        [2, 3],
        [1, 1],
        [1, 2],
      ]
      expect(published).toEqual(writes.flatMap(([teamId, id]) => expected(teamId, id)))
    })
})
