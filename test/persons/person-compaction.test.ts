// Person compaction (ingestion/persons/compaction.ts): every batch that changes a person adds a row to
// the person tables; compaction folds the rows of committed batches into one per person, distinct id and group.
// What the API shows (persons list, a person by distinct id, flags matching on person properties) is the
// same before and after, ingestion goes on from the compacted state, and a second run changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'
import { queryRows } from '../../services/platform/clickhouse'

const USERS = 8
const COMPANIES = ['acme', 'globex']
const KEYS: Record<string, string> = { person: 'uuid', person_distinct_id: 'distinct_id', groups: 'group_type_index, group_key' }

describe('person compaction', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  const capture = async (events: Array<Record<string, unknown>>) => {
    await captureBatch(t, events)
    await drained(t.wren)
  }
  const flags = async (distinctId: string) => {
    const res = await fetch(`${t.url}/flags/?v=2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: t.projectKey, distinct_id: distinctId }),
    })
    const body = (await res.json()) as { flags: Record<string, { enabled: boolean }> }
    return body.flags.pro?.enabled
  }
  /** The group flag (industry is tech) for a company, which decide reads from the stored group on a first ask. */
  const groupFlag = async (company: string) => {
    const res = await fetch(`${t.url}/flags/?v=2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: t.projectKey, distinct_id: `member-${company}`, groups: { company } }),
    })
    const body = (await res.json()) as { flags: Record<string, { enabled: boolean }> }
    return body.flags.tech?.enabled
  }
  /** The persons API's view: every person with its properties and distinct ids, in a stable order. */
  const persons = async () => {
    const res = await call('GET', `/api/projects/${t.projectId}/persons/?limit=1000`)
    expect(res.status).toBe(200)
    return (res.body.results as Array<{ uuid: string; properties: object; distinct_ids: string[] }>)
      .map((p) => ({ uuid: p.uuid, properties: p.properties, distinct_ids: [...p.distinct_ids].sort() }))
      .sort((a, b) => a.uuid.localeCompare(b.uuid))
  }
  const personOf = async (distinctId: string) => {
    const res = await call('GET', `/api/projects/${t.projectId}/persons/?distinct_id=${encodeURIComponent(distinctId)}`)
    expect(res.body.results).toHaveLength(1)
    return { uuid: res.body.results[0].uuid as string, properties: res.body.results[0].properties as Record<string, unknown> }
  }
  const rows = async (table: string) =>
    (
      await queryRows<{ rows: number; keys: number }>(
        t.wren.clickhouse,
        `SELECT count() AS rows, uniqExact(team_id, ${KEYS[table]}) AS keys FROM ${table}`,
      )
    )[0]

  beforeAll(async () => {
    // Compaction only when the test runs it.
    t = await startWren({ WREN_PERSON_COMPACTION_MS: '0' })
    call = api(t)
    await call('POST', `/api/projects/${t.projectId}/feature_flags/`, {
      key: 'pro',
      filters: { groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }] }] },
    })
    await call('POST', `/api/projects/${t.projectId}/feature_flags/`, {
      key: 'tech',
      filters: {
        aggregation_group_type_index: 0,
        groups: [{ properties: [{ key: 'industry', value: 'tech', type: 'group', group_type_index: 0 }], rollout_percentage: 100 }],
      },
    })
    // Anonymous visits, then $identify (a merge), then a $set per batch: one row per person per batch.
    await capture(
      Array.from({ length: USERS }, (_, i) => ({ event: '$pageview', distinct_id: `anon-${i}`, properties: { $set_once: { first: i } } })),
    )
    await capture(
      Array.from({ length: USERS }, (_, i) => ({
        event: '$identify',
        distinct_id: `user-${i}`,
        properties: { $anon_distinct_id: `anon-${i}`, $set: { email: `u${i}@example.com` } },
      })),
    )
    // A $set per user and a $groupidentify per company in each batch; acme ends in tech, globex in retail.
    for (let round = 1; round <= 5; round++)
      await capture([
        ...Array.from({ length: USERS }, (_, i) => ({
          event: '$set',
          distinct_id: `user-${i}`,
          properties: { $set: { round, plan: (i + round) % 2 === 0 ? 'pro' : 'free' } },
        })),
        ...COMPANIES.map((company, c) => ({
          event: '$groupidentify',
          distinct_id: 'user-0',
          properties: {
            $group_type: 'company',
            $group_key: company,
            $group_set: { round, industry: (c + round) % 2 === 1 ? 'tech' : 'retail' },
          },
        })),
      ])
  }, 120_000)
  afterAll(async () => {
    await t?.close()
  })

  it('folds every person to one row, and the API shows what it showed before', async () => {
    const before = await persons()
    expect(before).toHaveLength(USERS)
    const byAnon = await personOf('anon-3')
    expect(byAnon.properties).toMatchObject({ first: 3, email: 'u3@example.com', round: 5 })
    const person = await rows('person')
    expect(person.rows).toBeGreaterThan(person.keys * 5)

    const result = await t.wren.personCompaction.run()
    expect(result.tables.find((x) => x.table === 'person')?.folded).toBe(person.rows)
    expect(await rows('person')).toEqual({ rows: USERS, keys: USERS })
    const ids = await rows('person_distinct_id')
    expect(ids.rows).toBe(ids.keys)
    expect(result.tables.find((x) => x.table === 'groups')?.folded).toBe(COMPANIES.length * 5)
    expect(await rows('groups')).toEqual({ rows: COMPANIES.length, keys: COMPANIES.length })

    expect(await persons()).toEqual(before)
    expect(await personOf('anon-3')).toEqual(byAnon)
    expect(await personOf('user-3')).toEqual(byAnon)
    // Flags asked for the first time now (decide loads these ids from ClickHouse): plan is pro for odd i.
    for (let i = 0; i < USERS; i++) expect(await flags(`anon-${i}`)).toBe(i % 2 === 1)
    // Likewise the groups: decide reads each company's compacted row.
    expect(await groupFlag('acme')).toBe(true)
    expect(await groupFlag('globex')).toBe(false)
  })

  it('a second run is a no-op', async () => {
    const parts = `SELECT table, name, rows FROM system.parts WHERE active AND database = currentDatabase() AND table IN ('person', 'person_distinct_id', 'groups') ORDER BY table, name`
    const before = await queryRows(t.wren.clickhouse, parts)
    const result = await t.wren.personCompaction.run()
    expect(result.tables.map((x) => x.folded)).toEqual([0, 0, 0])
    expect(await queryRows(t.wren.clickhouse, parts)).toEqual(before)
  })

  it('ingestion goes on from the compacted state', async () => {
    const before = await personOf('anon-0')
    await capture([{ event: '$set', distinct_id: 'anon-0', properties: { $set: { plan: 'pro', after: true } } }])
    const after = await personOf('user-0')
    expect(after.uuid).toBe(before.uuid)
    expect(after.properties).toEqual({ ...before.properties, plan: 'pro', after: true })
    expect(await flags('user-0')).toBe(true)
    expect(await persons()).toHaveLength(USERS)
    // The new batch's rows are committed too: the next run folds them into a new compacted row, which the
    // table's merges fold with the earlier one (same sorting key, the higher version stays).
    await t.wren.personCompaction.run()
    expect(await rows('person')).toEqual({ rows: USERS + 1, keys: USERS })
    expect((await personOf('anon-0')).properties).toEqual(after.properties)
    await t.wren.clickhouse.command({ query: 'OPTIMIZE TABLE person FINAL' })
    expect(await rows('person')).toEqual({ rows: USERS, keys: USERS })
    expect((await personOf('anon-0')).properties).toEqual(after.properties)
  })
})
