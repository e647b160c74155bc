// Concurrent updates of one configuration object over HTTP on real chDB: PATCHes of different fields sent
// at the same moment all stay (projects, flags, actions, cohorts, insights, dashboards), never one silently lost.
// In one process the two writes' order is settled by the event loop and chDB's one query at a time: over 20
// rounds on main, every round of a kind ran in the same order, so a few rounds of each kind stand for many.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, startWren, type TestWren } from '../support/wren'

describe('concurrent updates', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  const base = () => `/api/projects/${t.projectId}`

  beforeAll(async () => {
    t = await startWren()
    call = api(t)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('keeps both of two project PATCHes of different settings, 10 times over', async () => {
    for (let i = 0; i < 10; i++) {
      const on = i % 2 === 0
      const [a, b] = await Promise.all([
        call('PATCH', `${base()}/`, { autocapture_opt_out: on }),
        call('PATCH', `${base()}/`, { session_recording_opt_in: on }),
      ])
      expect([a.status, b.status]).toEqual([200, 200])
      const read = await call('GET', `${base()}/`)
      expect({ round: i, a: read.body.autocapture_opt_out, b: read.body.session_recording_opt_in }).toEqual({ round: i, a: on, b: on })
    }
  })

  it('keeps both of two flag PATCHes of different fields', async () => {
    for (let i = 0; i < 5; i++) {
      const created = await call('POST', `${base()}/feature_flags/`, { key: `race-${i}`, rollout_percentage: 10 })
      expect(created.status).toBe(201)
      const url = `${base()}/feature_flags/${created.body.id}/`
      const [a, b] = await Promise.all([call('PATCH', url, { name: `Race ${i}` }), call('PATCH', url, { active: false })])
      expect([a.status, b.status]).toEqual([200, 200])
      const read = await call('GET', url)
      expect({ name: read.body.name, active: read.body.active, version: read.body.version }).toEqual({
        name: `Race ${i}`,
        active: false,
        version: 3,
      })
    }
  })

  it('keeps both of two action PATCHes of different fields', async () => {
    for (let i = 0; i < 5; i++) {
      const created = await call('POST', `${base()}/actions/`, { name: `race ${i}`, steps: [{ event: 'signup' }] })
      expect(created.status).toBe(201)
      const url = `${base()}/actions/${created.body.id}/`
      const [a, b] = await Promise.all([call('PATCH', url, { description: 'described' }), call('PATCH', url, { tags: ['raced'] })])
      expect([a.status, b.status]).toEqual([200, 200])
      const read = await call('GET', url)
      expect({ description: read.body.description, tags: read.body.tags }).toEqual({ description: 'described', tags: ['raced'] })
    }
  })

  it('keeps both of two cohort PATCHes of different fields', async () => {
    for (let i = 0; i < 5; i++) {
      const created = await call('POST', `${base()}/cohorts/`, {
        name: `race ${i}`,
        filters: { properties: { type: 'AND', values: [{ type: 'person', key: 'plan', operator: 'exact', value: 'pro' }] } },
      })
      expect(created.status).toBe(201)
      const url = `${base()}/cohorts/${created.body.id}/`
      const [a, b] = await Promise.all([call('PATCH', url, { name: `renamed ${i}` }), call('PATCH', url, { description: 'described' })])
      expect([a.status, b.status]).toEqual([200, 200])
      const read = await call('GET', url)
      expect({ name: read.body.name, description: read.body.description }).toEqual({ name: `renamed ${i}`, description: 'described' })
    }
  })

  it('keeps both of two insight PATCHes and two dashboard PATCHes of different fields', async () => {
    for (let i = 0; i < 3; i++) {
      const insight = await call('POST', `${base()}/insights/`, { name: `race ${i}`, filters: { events: [{ id: '$pageview' }] } })
      expect(insight.status).toBe(201)
      const url = `${base()}/insights/${insight.body.id}/`
      const [a, b] = await Promise.all([call('PATCH', url, { description: 'described' }), call('PATCH', url, { favorited: true })])
      expect([a.status, b.status]).toEqual([200, 200])
      const read = await call('GET', url)
      expect({ description: read.body.description, favorited: read.body.favorited }).toEqual({ description: 'described', favorited: true })

      const dashboard = await call('POST', `${base()}/dashboards/`, { name: `race ${i}` })
      expect(dashboard.status).toBe(201)
      const board = `${base()}/dashboards/${dashboard.body.id}/`
      const [c, d] = await Promise.all([call('PATCH', board, { description: 'described' }), call('PATCH', board, { pinned: true })])
      expect([c.status, d.status]).toEqual([200, 200])
      const boardRead = await call('GET', board)
      expect({ description: boardRead.body.description, pinned: boardRead.body.pinned }).toEqual({ description: 'described', pinned: true })
    }
  })

  it('a PATCH racing a DELETE does not bring the action back', async () => {
    const created = await call('POST', `${base()}/actions/`, { name: 'deleted in a race', steps: [{ event: 'signup' }] })
    const url = `${base()}/actions/${created.body.id}/`
    const [del, patch] = await Promise.all([call('DELETE', url), call('PATCH', url, { description: 'late' })])
    expect(del.status).toBe(204)
    expect([200, 404]).toContain(patch.status)
    expect((await call('GET', url)).status).toBe(404)
  })
})
