// Decide keeps whole answers for requests it has seen (services/decide/answers.ts). Each case asks the
// same bytes twice (the second answer is the kept one), changes what the answer depends on — a $set, a
// merge, the flag, a cohort, a group — and asks the same bytes again: the answer must follow the change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, waitFor, type TestWren } from '../support/wren'

interface FlagsAnswer {
  flags: Record<string, { enabled: boolean; variant: string | null }>
  requestId: string
  errorsWhileComputingFlags: boolean
}

describe('decide answers kept between requests', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  beforeAll(async () => {
    t = await startWren()
    call = api(t)
  })
  afterAll(async () => {
    await t?.close()
  })

  const flags = async (body: Record<string, unknown>): Promise<FlagsAnswer> => {
    const res = await fetch(`${t.url}/flags/?v=2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: t.projectKey, ...body }),
    })
    expect(res.status).toBe(200)
    return (await res.json()) as FlagsAnswer
  }
  /** The same request twice: the answers agree, each with its own request id. */
  const twice = async (body: Record<string, unknown>): Promise<FlagsAnswer> => {
    const first = await flags(body)
    const second = await flags(body)
    expect(second.flags).toEqual(first.flags)
    expect(second.requestId).not.toBe(first.requestId)
    return second
  }
  const createFlag = async (flag: Record<string, unknown>): Promise<number> => {
    const res = await call('POST', `/api/projects/${t.projectId}/feature_flags/`, flag)
    expect(res.status).toBe(201)
    return res.body.id as number
  }

  it('a $set to the person is seen by the next request', async () => {
    await createFlag({ key: 'cache-pro', filters: { groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }] }] } })
    await captureBatch(t, [{ event: '$identify', distinct_id: 'cache-set', properties: { $set: { plan: 'free' } } }])
    await drained(t.wren)
    expect((await twice({ distinct_id: 'cache-set' })).flags['cache-pro'].enabled).toBe(false)
    await captureBatch(t, [{ event: '$set', distinct_id: 'cache-set', properties: { $set: { plan: 'pro' } } }])
    await drained(t.wren)
    expect((await flags({ distinct_id: 'cache-set' })).flags['cache-pro'].enabled).toBe(true)
  })

  it('a merge that moves the distinct id to another person is seen by the next request', async () => {
    await createFlag({ key: 'cache-merge', filters: { groups: [{ properties: [{ key: 'plan', value: 'team', type: 'person' }] }] } })
    await captureBatch(t, [
      { event: '$pageview', distinct_id: 'cache-anon', properties: { $set: { plan: 'free' } } },
      { event: '$identify', distinct_id: 'cache-user', properties: { $set: { plan: 'team' } } },
    ])
    await drained(t.wren)
    expect((await twice({ distinct_id: 'cache-anon' })).flags['cache-merge'].enabled).toBe(false)
    await captureBatch(t, [{ event: '$identify', distinct_id: 'cache-user', properties: { $anon_distinct_id: 'cache-anon' } }])
    await drained(t.wren)
    expect((await flags({ distinct_id: 'cache-anon' })).flags['cache-merge'].enabled).toBe(true)
  })

  it('a flag change is seen by the next request', async () => {
    const id = await createFlag({ key: 'cache-rollout', filters: { groups: [{ properties: [], rollout_percentage: 0 }] } })
    expect((await twice({ distinct_id: 'cache-flag' })).flags['cache-rollout'].enabled).toBe(false)
    const patched = await call('PATCH', `/api/projects/${t.projectId}/feature_flags/${id}/`, {
      filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
    })
    expect(patched.status).toBe(200)
    expect((await flags({ distinct_id: 'cache-flag' })).flags['cache-rollout'].enabled).toBe(true)
  })

  it('a cohort change is seen once decide has reloaded the cohort', async () => {
    await captureBatch(t, [{ event: '$identify', distinct_id: 'cache-cohort', properties: { $set: { tier: 'gold' } } }])
    await drained(t.wren)
    const cohort = await call('POST', `/api/projects/${t.projectId}/cohorts/`, {
      name: 'Silver',
      filters: { properties: { type: 'AND', values: [{ key: 'tier', value: 'silver', type: 'person', operator: 'exact' }] } },
    })
    expect(cohort.status).toBe(201)
    await createFlag({
      key: 'cache-cohort-flag',
      filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: cohort.body.id }], rollout_percentage: 100 }] },
    })
    await waitFor(async () => (await flags({ distinct_id: 'cache-cohort' })).errorsWhileComputingFlags === false, {
      what: 'decide to load the cohort',
    })
    expect((await twice({ distinct_id: 'cache-cohort' })).flags['cache-cohort-flag'].enabled).toBe(false)
    const patched = await call('PATCH', `/api/projects/${t.projectId}/cohorts/${cohort.body.id}/`, {
      filters: { properties: { type: 'AND', values: [{ key: 'tier', value: 'gold', type: 'person', operator: 'exact' }] } },
    })
    expect(patched.status).toBe(200)
    // The cohort is reloaded when the change is heard (not within the PATCH); a kept answer must not outlive it.
    await waitFor(async () => (await flags({ distinct_id: 'cache-cohort' })).flags['cache-cohort-flag'].enabled, {
      what: 'the cohort change in the answer',
    })
  })

  it('a change to a group’s properties is seen by the next request', async () => {
    const groupIdentify = (industry: string) => ({
      event: '$groupidentify',
      distinct_id: 'cache-admin',
      properties: { $group_type: 'company', $group_key: 'acme', $group_set: { industry } },
    })
    await captureBatch(t, [groupIdentify('retail')])
    await drained(t.wren)
    await createFlag({
      key: 'cache-group',
      filters: {
        aggregation_group_type_index: 0,
        groups: [{ properties: [{ key: 'industry', value: 'finance', type: 'group', group_type_index: 0 }], rollout_percentage: 100 }],
      },
    })
    const body = { distinct_id: 'cache-member', groups: { company: 'acme' } }
    expect((await twice(body)).flags['cache-group'].enabled).toBe(false)
    await captureBatch(t, [groupIdentify('finance')])
    await drained(t.wren)
    expect((await flags(body)).flags['cache-group'].enabled).toBe(true)
  })
})
