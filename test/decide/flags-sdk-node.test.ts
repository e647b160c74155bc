// posthog-node against Wren's flags: remote evaluation (/flags) and local evaluation (definitions polled
// with a personal API key) must give the same values, for many distinct ids, as Wren's own decide.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PostHog } from 'posthog-node'
import { api, captureBatch, drained, startWren, waitFor, type TestWren } from '../support/wren'

describe('posthog-node with Wren flags', () => {
  let t: TestWren
  const ids = Array.from({ length: 150 }, (_, i) => `user-${i}`)
  beforeAll(async () => {
    t = await startWren()
    const call = api(t)
    const base = `/api/projects/${t.projectId}/feature_flags/`
    await call('POST', base, { key: 'rollout-30', filters: { groups: [{ properties: [], rollout_percentage: 30 }] } })
    await call('POST', base, {
      key: 'multivariate',
      filters: {
        groups: [{ properties: [], rollout_percentage: 80 }],
        multivariate: {
          variants: [
            { key: 'control', rollout_percentage: 34 },
            { key: 'test-a', rollout_percentage: 33 },
            { key: 'test-b', rollout_percentage: 33 },
          ],
        },
        payloads: { control: '{"color":"blue"}', 'test-a': '{"color":"red"}' },
      },
    })
    await call('POST', base, {
      key: 'plan-gated',
      filters: {
        groups: [
          { properties: [{ key: 'plan', value: ['pro', 'team'], operator: 'exact', type: 'person' }], rollout_percentage: 50 },
          { properties: [{ key: 'email', value: '@example.com', operator: 'icontains', type: 'person' }], rollout_percentage: 100 },
        ],
      },
    })
    await captureBatch(
      t,
      ids.map((id, i) => ({
        event: '$identify',
        distinct_id: id,
        properties: { $set: { plan: ['free', 'pro', 'team'][i % 3], email: i % 5 === 0 ? `${id}@example.com` : `${id}@other.org` } },
      })),
    )
    await drained(t.wren)
  })
  afterAll(async () => {
    await t?.close()
  })

  const decide = async (distinctId: string, personProperties: Record<string, unknown> = {}) => {
    const res = await fetch(`${t.url}/decide/?v=3`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: t.projectKey, distinct_id: distinctId, person_properties: personProperties }),
    })
    return (await res.json()) as { featureFlags: Record<string, boolean | string>; featureFlagPayloads: Record<string, string> }
  }

  it('remote evaluation through /flags agrees with decide, payloads included', async () => {
    const client = new PostHog(t.projectKey, { host: t.url, flushAt: 1000, flushInterval: 0 })
    try {
      for (const id of ids) {
        const expected = await decide(id)
        const flags = await client.getAllFlags(id)
        expect(flags, id).toEqual(expected.featureFlags)
        const payload = await client.getFeatureFlagPayload('multivariate', id)
        expect(payload ?? null).toEqual(
          expected.featureFlagPayloads.multivariate ? JSON.parse(expected.featureFlagPayloads.multivariate) : null,
        )
      }
      // Rollouts really split the population.
      const values = await Promise.all(ids.map((id) => client.getFeatureFlag('rollout-30', id)))
      const on = values.filter((v) => v === true).length
      expect(on).toBeGreaterThan(25)
      expect(on).toBeLessThan(70)
    } finally {
      await client.shutdown()
    }
  })

  it('local evaluation with a personal API key agrees with decide', async () => {
    const client = new PostHog(t.projectKey, {
      host: t.url,
      personalApiKey: t.personalKey,
      flushAt: 1000,
      flushInterval: 0,
      featureFlagsPollingInterval: 60_000,
    })
    try {
      await waitFor(async () => (await client.getFeatureFlag('rollout-30', 'probe', { onlyEvaluateLocally: true })) !== undefined, {
        what: 'definitions to load',
      })
      for (const [i, id] of ids.entries()) {
        const personProperties = { plan: ['free', 'pro', 'team'][i % 3], email: i % 5 === 0 ? `${id}@example.com` : `${id}@other.org` }
        const expected = await decide(id)
        const local = await client.getAllFlags(id, { personProperties, onlyEvaluateLocally: true })
        expect(local, id).toEqual(expected.featureFlags)
      }
    } finally {
      await client.shutdown()
    }
  })
})
