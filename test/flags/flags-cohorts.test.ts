// Flags conditioned on cohorts, with cohorts made through the cohorts API: decide uses each cohort's
// current members (dynamic: person properties; static: a list of distinct ids).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, waitFor, type TestWren } from '../support/wren'

describe('cohort conditions in flags', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  beforeAll(async () => {
    t = await startWren()
    call = api(t)
  })
  afterAll(async () => {
    await t?.close()
  })

  const decide = async (distinctId: string) => {
    const res = await fetch(`${t.url}/decide/?v=3`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: t.projectKey, distinct_id: distinctId }),
    })
    return (await res.json()) as { featureFlags: Record<string, unknown>; errorsWhileComputingFlags: boolean }
  }

  it('enables a flag for members of a dynamic and of a static cohort, and follows membership changes', async () => {
    await captureBatch(t, [
      { event: '$identify', distinct_id: 'ann', properties: { $set: { plan: 'pro' } } },
      { event: '$identify', distinct_id: 'bob', properties: { $set: { plan: 'free' } } },
      { event: '$identify', distinct_id: 'cyd', properties: { $set: { plan: 'free' } } },
    ])
    await drained(t.wren)
    const pro = await call('POST', `/api/projects/${t.projectId}/cohorts/`, {
      name: 'Pro',
      filters: {
        properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person', operator: 'exact' }] }] },
      },
    })
    const beta = await call('POST', `/api/projects/${t.projectId}/cohorts/`, {
      name: 'Beta testers',
      is_static: true,
      distinct_ids: ['cyd'],
    })
    expect([pro.status, beta.status]).toEqual([201, 201])
    const flags = `/api/projects/${t.projectId}/feature_flags/`
    expect(
      (
        await call('POST', flags, {
          key: 'pro-feature',
          filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: pro.body.id }], rollout_percentage: 100 }] },
        })
      ).status,
    ).toBe(201)
    expect(
      (
        await call('POST', flags, {
          key: 'beta-feature',
          filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: beta.body.id }], rollout_percentage: 100 }] },
        })
      ).status,
    ).toBe(201)

    const ann = await decide('ann')
    expect(ann.errorsWhileComputingFlags).toBe(false)
    expect(ann.featureFlags).toEqual({ 'pro-feature': true, 'beta-feature': false })
    expect((await decide('bob')).featureFlags).toEqual({ 'pro-feature': false, 'beta-feature': false })
    expect((await decide('cyd')).featureFlags).toEqual({ 'pro-feature': false, 'beta-feature': true })

    // bob upgrades: the dynamic cohort follows his properties.
    await captureBatch(t, [{ event: '$set', distinct_id: 'bob', properties: { $set: { plan: 'pro' } } }])
    await drained(t.wren)
    await waitFor(async () => (await decide('bob')).featureFlags['pro-feature'] === true, { what: 'bob to join the pro cohort' })
  })

  it('takes person properties that share a name with an event column ($browser) in cohorts', async () => {
    // $browser reaches the person through the automatic $set of web properties.
    await captureBatch(t, [
      { event: '$pageview', distinct_id: 'fox-fan', properties: { $browser: 'Firefox' } },
      { event: '$pageview', distinct_id: 'chrome-fan', properties: { $browser: 'Chrome' } },
    ])
    await drained(t.wren)
    const firefox = await call('POST', `/api/projects/${t.projectId}/cohorts/`, {
      name: 'Firefox users',
      filters: { properties: { type: 'AND', values: [{ key: '$browser', value: 'Firefox', type: 'person', operator: 'exact' }] } },
    })
    expect(firefox.status).toBe(201)
    expect(firefox.body.count).toBe(1)
    const flags = `/api/projects/${t.projectId}/feature_flags/`
    expect(
      (
        await call('POST', flags, {
          key: 'firefox-only',
          filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: firefox.body.id }], rollout_percentage: 100 }] },
        })
      ).status,
    ).toBe(201)
    expect((await decide('fox-fan')).featureFlags['firefox-only']).toBe(true)
    expect((await decide('chrome-fan')).featureFlags['firefox-only']).toBe(false)
  })
})
