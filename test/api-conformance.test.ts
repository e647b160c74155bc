// What PostHog's clients and API habits send, answered as PostHog answers it (issue 12): each case here
// failed on Wren before its fix. One Wren with a few persons and events, shared by the cases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, type TestWren } from './support/wren'

describe('API conformance with PostHog clients', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  let project: string
  beforeAll(async () => {
    t = await startWren()
    call = api(t)
    project = `/api/projects/${t.projectId}`
    const now = new Date().toISOString()
    await captureBatch(t, [
      { event: '$identify', distinct_id: 'young', timestamp: now, properties: { $set: { age: 9, plan: 'free' } } },
      { event: '$identify', distinct_id: 'adult', timestamp: now, properties: { $set: { age: 30, plan: 'pro' } } },
      { event: '$identify', distinct_id: 'senior', timestamp: now, properties: { $set: { age: 71, plan: 'pro' } } },
      { event: 'bought', distinct_id: 'young', timestamp: now, properties: { price: 5 } },
      { event: 'bought', distinct_id: 'adult', timestamp: now, properties: { price: 50 } },
      { event: 'bought', distinct_id: 'senior', timestamp: now, properties: { price: 500 } },
    ])
    await drained(t.wren)
  })
  afterAll(async () => {
    await t?.close()
  })

  const flagsFor = async (distinctId: string): Promise<Record<string, unknown>> => {
    const res = await fetch(`${t.url}/flags/?v=2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: t.projectKey, distinct_id: distinctId }),
    })
    const body = (await res.json()) as { flags: Record<string, { enabled: boolean }> }
    return Object.fromEntries(Object.entries(body.flags).map(([k, v]) => [k, v.enabled]))
  }

  describe('1. numeric filter values', () => {
    it('flags take numbers for gt/gte/lt/lte/regex and compare numerically', async () => {
      const cases: Array<[string, Record<string, unknown>]> = [
        ['over-18', { key: 'age', type: 'person', operator: 'gt', value: 18 }],
        ['at-least-30', { key: 'age', type: 'person', operator: 'gte', value: 30 }],
        ['under-10', { key: 'age', type: 'person', operator: 'lt', value: 10 }],
        ['at-most-30', { key: 'age', type: 'person', operator: 'lte', value: '30' }],
        ['seventy-something', { key: 'age', type: 'person', operator: 'regex', value: 7 }],
      ]
      for (const [key, filter] of cases) {
        const res = await call('POST', `${project}/feature_flags/`, {
          key,
          filters: { groups: [{ properties: [filter], rollout_percentage: 100 }] },
        })
        expect(res.status, `${key}: ${JSON.stringify(res.body)}`).toBe(201)
      }
      const seen = Object.fromEntries(await Promise.all(['young', 'adult', 'senior'].map(async (id) => [id, await flagsFor(id)])))
      const pick = (id: string) => Object.fromEntries(cases.map(([key]) => [key, seen[id][key]]))
      // 9 < 10 but not > 18; "9" and "71" compare as numbers, not as strings ("9" > "18" as text).
      expect(pick('young')).toEqual({
        'over-18': false,
        'at-least-30': false,
        'under-10': true,
        'at-most-30': true,
        'seventy-something': false,
      })
      expect(pick('adult')).toEqual({
        'over-18': true,
        'at-least-30': true,
        'under-10': false,
        'at-most-30': true,
        'seventy-something': false,
      })
      expect(pick('senior')).toEqual({
        'over-18': true,
        'at-least-30': true,
        'under-10': false,
        'at-most-30': false,
        'seventy-something': true,
      })
    })

    it('cohorts, actions and trend filters take the same numeric values', async () => {
      const cohort = await call('POST', `${project}/cohorts/`, {
        name: 'Over 18',
        filters: {
          properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'age', type: 'person', operator: 'gt', value: 18 }] }] },
        },
      })
      expect(cohort.status, JSON.stringify(cohort.body)).toBe(201)
      const action = await call('POST', `${project}/actions/`, {
        name: 'Big purchase',
        steps: [{ event: 'bought', properties: [{ key: 'price', type: 'event', operator: 'gte', value: 50 }] }],
      })
      expect(action.status, JSON.stringify(action.body)).toBe(201)
      const trend = async (body: Record<string, unknown>) => {
        const res = await call('POST', `${project}/insights/trend/`, { date_from: '-1d', interval: 'day', ...body })
        expect(res.status, JSON.stringify(res.body)).toBe(200)
        return (res.body.result as Array<{ count: number }>).reduce((sum, r) => sum + r.count, 0)
      }
      expect(await trend({ events: [{ id: 'bought', properties: [{ key: 'price', type: 'event', operator: 'gt', value: 10 }] }] })).toBe(2)
      expect(await trend({ events: [{ id: 'bought' }], properties: [{ key: 'id', type: 'cohort', value: cohort.body.id }] })).toBe(2)
      expect(await trend({ actions: [{ id: action.body.id }] })).toBe(2)
    })
  })
})
