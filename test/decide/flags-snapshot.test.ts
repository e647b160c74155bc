// Decide's materialized snapshot: a warm distinct id costs no ClickHouse query, person updates from
// ingestion and flag changes from the API are visible to the next request, and experience-continuity
// hash keys survive identification.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'

describe('decide snapshot', () => {
  let t: TestWren
  let queries = 0
  beforeAll(async () => {
    t = await startWren()
    const client = t.wren.clickhouse
    const original = client.query.bind(client)
    client.query = ((params: Parameters<typeof original>[0]) => {
      queries++
      return original(params)
    }) as typeof client.query
  })
  afterAll(async () => {
    await t?.close()
  })
  const flags = async (body: Record<string, unknown>) => {
    const res = await fetch(`${t.url}/flags/?v=2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: t.projectKey, ...body }),
    })
    return (await res.json()) as { flags: Record<string, { enabled: boolean; variant: string | null }> }
  }

  it('serves warm ids from memory and follows person and flag changes', async () => {
    const call = api(t)
    const created = await call('POST', `/api/projects/${t.projectId}/feature_flags/`, {
      key: 'pro',
      filters: { groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }] }] },
    })
    await captureBatch(t, [{ event: '$identify', distinct_id: 'warm-user', properties: { $set: { plan: 'free' } } }])
    await drained(t.wren)
    expect((await flags({ distinct_id: 'warm-user' })).flags.pro.enabled).toBe(false)
    const before = queries
    expect((await flags({ distinct_id: 'warm-user' })).flags.pro.enabled).toBe(false)
    expect(queries).toBe(before)

    await captureBatch(t, [{ event: '$set', distinct_id: 'warm-user', properties: { $set: { plan: 'pro' } } }])
    await drained(t.wren)
    const afterIngest = queries
    expect((await flags({ distinct_id: 'warm-user' })).flags.pro.enabled).toBe(true)
    expect(queries).toBe(afterIngest)

    await call('PATCH', `/api/projects/${t.projectId}/feature_flags/${created.body.id}/`, { active: false })
    expect((await flags({ distinct_id: 'warm-user' })).flags.pro).toBeUndefined()
  })

  it('a person created after a miss is picked up from ingestion', async () => {
    expect((await flags({ distinct_id: 'late-user' })).flags.pro).toBeUndefined()
    await api(t)('POST', `/api/projects/${t.projectId}/feature_flags/`, {
      key: 'late',
      filters: { groups: [{ properties: [{ key: 'plan', value: 'team', type: 'person' }] }] },
    })
    expect((await flags({ distinct_id: 'late-user' })).flags.late.enabled).toBe(false)
    await captureBatch(t, [{ event: '$identify', distinct_id: 'late-user', properties: { $set: { plan: 'team' } } }])
    await drained(t.wren)
    const n = queries
    expect((await flags({ distinct_id: 'late-user' })).flags.late.enabled).toBe(true)
    expect(queries).toBe(n)
  })

  it('keeps the anonymous bucket after identify when experience continuity is on', async () => {
    const call = api(t)
    await call('POST', `/api/projects/${t.projectId}/feature_flags/`, {
      key: 'continuity',
      ensure_experience_continuity: true,
      filters: {
        groups: [{ rollout_percentage: 100 }],
        multivariate: { variants: Array.from({ length: 10 }, (_, i) => ({ key: `v${i}`, rollout_percentage: 10 })) },
      },
    })
    const anon = (await flags({ distinct_id: 'anon-xyz' })).flags.continuity.variant
    await captureBatch(t, [{ event: '$identify', distinct_id: 'known-xyz', properties: { $anon_distinct_id: 'anon-xyz' } }])
    await drained(t.wren)
    expect((await flags({ distinct_id: 'known-xyz', $anon_distinct_id: 'anon-xyz' })).flags.continuity.variant).toBe(anon)
    // Stored: later requests without the anonymous id still get it.
    expect((await flags({ distinct_id: 'known-xyz' })).flags.continuity.variant).toBe(anon)
  })
})
