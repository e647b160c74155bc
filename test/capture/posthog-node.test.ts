// The real posthog-node SDK against a running Wren: what a user switching from PostHog does first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PostHog } from 'posthog-node'
import { api, drained, startWren, type TestWren } from '../support/wren'

describe('posthog-node against Wren', () => {
  let t: TestWren
  beforeAll(async () => {
    t = await startWren()
  })
  afterAll(async () => {
    await t?.close()
  })

  it('captures, identifies, aliases, sets and unsets, and the persons API shows exactly that', async () => {
    const client = new PostHog(t.projectKey, { host: t.url, flushAt: 100, flushInterval: 0 })
    client.capture({
      distinctId: 'anon-1',
      event: '$pageview',
      properties: { $current_url: 'https://shop.example/pricing', $set: { plan: 'free' } },
    })
    client.identify({
      distinctId: 'user-1',
      properties: { email: 'ada@example.com', $anon_distinct_id: 'anon-1', $set_once: { signup_plan: 'free' } },
    })
    client.setPersonProperties({ distinctId: 'user-1', properties: { plan: 'pro' }, propertiesOnce: { signup_plan: 'pro' } })
    client.alias({ distinctId: 'user-1', alias: 'crm-42' })
    client.capture({ distinctId: 'user-2', event: 'signed_up', properties: { $set: { plan: 'team', coupon: 'SPRING' } } })
    client.unsetPersonProperties({ distinctId: 'user-2', properties: ['coupon'] })
    await client.shutdown()
    await drained(t.wren)

    const call = api(t)
    const list = await call('GET', `/api/environments/${t.projectId}/persons/`)
    expect(list.status).toBe(200)
    expect(list.body.count).toBe(2)
    const byName = Object.fromEntries(list.body.results.map((p: any) => [p.name, p]))

    const ada = byName['ada@example.com']
    expect(ada.distinct_ids.sort()).toEqual(['anon-1', 'crm-42', 'user-1'])
    expect(ada.properties).toMatchObject({
      email: 'ada@example.com',
      plan: 'pro',
      signup_plan: 'free',
      $initial_current_url: 'https://shop.example/pricing',
    })
    expect(ada.is_identified).toBe(true)

    const other = byName['user-2']
    expect(other.distinct_ids).toEqual(['user-2'])
    expect(other.properties.plan).toBe('team')
    expect(other.properties).not.toHaveProperty('coupon')

    // Every distinct id finds its person.
    for (const id of ['anon-1', 'crm-42', 'user-1']) {
      const found = await call('GET', `/api/environments/${t.projectId}/persons/?distinct_id=${id}`)
      expect(found.body.results.map((p: any) => p.uuid)).toEqual([ada.uuid])
    }
    // And the events carry the person they belonged to.
    const events = await call('GET', `/api/projects/${t.projectId}/events/?distinct_id=user-2`)
    expect(events.body.results.map((e: any) => e.event).sort()).toEqual(['$set', 'signed_up'])
    expect(new Set(events.body.results.map((e: any) => e.person_id))).toEqual(new Set([other.uuid]))
  })
})
