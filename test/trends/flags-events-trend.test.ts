// The spec's flag event conventions: $feature/<key> on events and $feature_flag_called are ingested like
// any event, so a trend can break down by the variant and filter on the flag (posthog-node sends both).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PostHog } from 'posthog-node'
import { api, drained, startWren, type TestWren } from '../support/wren'
import { bothDoors } from '../support/trend-doors'

describe('flag events in trends', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  beforeAll(async () => {
    // The real clock: the SDK stamps sent_at with it, and capture corrects skew against Wren's now.
    t = await startWren()
    call = bothDoors(api(t))
  })
  afterAll(async () => {
    await t?.close()
  })

  it('breaks a trend down by $feature/<key> and filters $feature_flag_called on $feature_flag', async () => {
    const flag = await call('POST', `/api/projects/${t.projectId}/feature_flags/`, {
      key: 'new-checkout',
      filters: {
        groups: [{ rollout_percentage: 100 }],
        multivariate: {
          variants: [
            { key: 'control', rollout_percentage: 50 },
            { key: 'test', rollout_percentage: 50 },
          ],
        },
      },
    })
    expect(flag.status).toBe(201)
    // The SDK asks Wren for each user's variant and reports it the way the spec describes.
    const client = new PostHog(t.projectKey, { host: t.url, flushAt: 1000, flushInterval: 0 })
    const variants: Record<string, number> = { control: 0, test: 0 }
    for (let i = 0; i < 20; i++) {
      const distinctId = `shopper-${i}`
      const variant = await client.getFeatureFlag('new-checkout', distinctId) // also sends $feature_flag_called
      expect(['control', 'test']).toContain(variant)
      variants[variant as string]++
      client.capture({ distinctId, event: 'checkout_completed', properties: { [`$feature/new-checkout`]: variant } })
    }
    await client.shutdown()
    await drained(t.wren)

    const byVariant = await call('POST', `/api/environments/${t.projectId}/insights/trend/`, {
      events: [{ id: 'checkout_completed' }],
      date_from: '-1d',
      breakdown: '$feature/new-checkout',
      breakdown_type: 'event',
    })
    expect(byVariant.status).toBe(200)
    const counts = Object.fromEntries(byVariant.body.result.map((s: any) => [s.breakdown_value, s.count]))
    expect(counts).toEqual(Object.fromEntries(Object.entries(variants).filter(([, n]) => n > 0)))

    const called = await call('POST', `/api/environments/${t.projectId}/insights/trend/`, {
      events: [
        { id: '$feature_flag_called', properties: [{ key: '$feature_flag', value: 'new-checkout', operator: 'exact', type: 'event' }] },
      ],
      date_from: 'all',
      display: 'BoldNumber',
      breakdown: '$feature_flag_response',
    })
    expect(called.status).toBe(200)
    const responses = Object.fromEntries(called.body.result.map((s: any) => [s.breakdown_value, s.aggregated_value]))
    expect(responses).toEqual(Object.fromEntries(Object.entries(variants).filter(([, n]) => n > 0)))
  })
})
