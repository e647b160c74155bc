// A person hidden from a key (access level `none`) is hidden on every route that reads person-derived data:
// the recording's snapshots and its sharing answer 404 as for an unknown recording, cohort counts leave the
// person out (else they answer whether the person has a property), and a sharing token made before the
// person was hidden keeps working (a grant of its own). And every route under the person-data paths is
// declared `personData` (route.ts), or listed here with why not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKey } from '../support/management'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'
import { recordingsProcessed, sendSnapshots } from '../support/recordings'

describe('persons hidden from a key', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  let base: string
  let limited: { id: string; value: string }
  let token: string
  const start = Math.floor((Date.now() - 120_000) / 1000) * 1000
  const meta = (at: number) => ({ type: 4, timestamp: start + at, data: { href: 'https://shop.example/', width: 800, height: 600 } })
  const click = (at: number) => ({ type: 3, timestamp: start + at, data: { source: 2, type: 2, id: 1, x: 10, y: 10 } })

  beforeAll(async () => {
    t = await startWren({ WREN_RECORDINGS_WAIT_MS: '20' })
    call = api(t)
    base = `/api/projects/${t.projectId}/session_recordings/`
    expect((await call('PATCH', `/api/projects/${t.projectId}/`, { session_recording_opt_in: true })).status).toBe(200)
    await captureBatch(t, [
      { event: '$pageview', distinct_id: 'open', properties: { $session_id: 'hp-open', $set: { plan: 'pro' } } },
      { event: '$pageview', distinct_id: 'secret', properties: { $session_id: 'hp-secret', $set: { plan: 'pro', vip: 'yes' } } },
    ])
    await drained(t.wren)
    await sendSnapshots(t, { sessionId: 'hp-open', distinctId: 'open', events: [meta(0), click(500)], properties: { $lib: 'web' } })
    await sendSnapshots(t, { sessionId: 'hp-secret', distinctId: 'secret', events: [meta(0), click(700)], properties: { $lib: 'web' } })
    await recordingsProcessed(t.wren)
    // Shared before the person is hidden.
    const shared = await call('PATCH', `${base}hp-secret/sharing/`, { enabled: true })
    expect(shared.status, shared.text).toBe(200)
    token = shared.body.access_token
    limited = await createKey(t, [
      'session_recording:read',
      'sharing_configuration:read',
      'sharing_configuration:write',
      'cohort:read',
      'cohort:write',
    ])
    const person = (await call('GET', `/api/projects/${t.projectId}/persons/?distinct_id=secret`)).body.results[0]
    const rule = await call('PUT', `/api/environments/${t.projectId}/persons/${person.id}/access_controls/`, {
      access_level: 'none',
      organization_member: limited.id,
    })
    expect(rule.status, rule.text).toBe(200)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('answers 404 for the snapshots of a hidden person’s recording, sources and blocks alike', async () => {
    for (const query of ['', '?source=blob_v2&blob_key=0']) {
      const hidden = await call('GET', `${base}hp-secret/snapshots${query}`, undefined, limited.value)
      expect(hidden.status, query).toBe(404)
      expect(hidden.body).toMatchObject({ type: 'invalid_request', code: 'not_found' })
      expect((await call('GET', `${base}hp-open/snapshots${query}`, undefined, limited.value)).status, query).toBe(200)
      // Another key sees it.
      expect((await call('GET', `${base}hp-secret/snapshots${query}`)).status, query).toBe(200)
    }
  })

  it('answers 404 to reading, enabling or rotating the sharing of a hidden person’s recording', async () => {
    expect((await call('GET', `${base}hp-secret/sharing/`, undefined, limited.value)).status).toBe(404)
    expect((await call('PATCH', `${base}hp-secret/sharing/`, { enabled: true }, limited.value)).status).toBe(404)
    expect((await call('POST', `${base}hp-secret/sharing/refresh/`, {}, limited.value)).status).toBe(404)
    expect((await call('PATCH', `${base}hp-open/sharing/`, { enabled: true }, limited.value)).status).toBe(200)
    const other = await call('GET', `${base}hp-secret/sharing/`)
    expect(other.status).toBe(200)
    expect(other.body).toMatchObject({ enabled: true, access_token: token })
  })

  it('keeps a sharing token made before the person was hidden working', async () => {
    const res = await call('GET', `${base}hp-secret/snapshots?sharing_access_token=${encodeURIComponent(token)}`, undefined, null)
    expect(res.status).toBe(200)
    expect(res.body.sources).toHaveLength(1)
  })

  it('leaves hidden persons out of cohort member counts', async () => {
    const vip = await call('POST', `/api/projects/${t.projectId}/cohorts/`, {
      name: 'vip',
      filters: { properties: { type: 'AND', values: [{ type: 'person', key: 'vip', operator: 'exact', value: 'yes' }] } },
    })
    expect(vip.status, vip.text).toBe(201)
    expect(vip.body.count).toBe(1)
    const listed = await call('POST', `/api/projects/${t.projectId}/cohorts/`, {
      name: 'listed',
      is_static: true,
      distinct_ids: ['open', 'secret'],
    })
    expect(listed.body.count).toBe(2)
    const count = async (id: number, key?: string) =>
      (await call('GET', `/api/projects/${t.projectId}/cohorts/${id}/`, undefined, key)).body.count
    expect(await count(vip.body.id, limited.value)).toBe(0)
    expect(await count(listed.body.id, limited.value)).toBe(1)
    const list = await call('GET', `/api/projects/${t.projectId}/cohorts/`, undefined, limited.value)
    expect(list.body.results.map((c: { name: string; count: number }) => [c.name, c.count]).sort()).toEqual([
      ['listed', 1],
      ['vip', 0],
    ])
    // Another key counts them.
    expect(await count(vip.body.id)).toBe(1)
    expect(await count(listed.body.id)).toBe(2)
  })

  it('declares personData on every route under the person-data paths, or says why not', () => {
    // Routes under these paths that read no person-derived data, or apply the rule in their own way.
    const exempt: Record<string, string> = {
      'DELETE /cohorts/:id/': 'answers 204, nothing of the members',
      'POST /session_recordings/ai/regex/': 'turns text into a regex; reads no data',
      'POST /session_recordings/ai/filters/': 'turns text into filters; reads no data',
      // The persons routes apply it per person through AccessControls (which also gives viewer/editor).
      'GET /persons/': 'leaves out hidden persons by their access level (persons/routes.ts)',
      'GET /persons/:id/': 'per-person access level',
      'POST /persons/': 'answers 405: persons are made by events',
      'PATCH /persons/:id/': 'per-person access level',
      'PUT /persons/:id/': 'per-person access level',
      'DELETE /persons/:id/': 'per-person access level',
      'GET /persons/:id/activity/': 'per-person access level',
      'POST /persons/:id/delete_property/': 'per-person access level',
      'GET /persons/:id/properties_timeline/': 'per-person access level',
      'POST /persons/:id/split/': 'per-person access level',
      'GET /persons/:id/access_controls/': 'per-person access level',
      'PUT /persons/:id/access_controls/': 'needs every scope, which sees every person',
      'GET /insights/trend/': 'query/kinds/trends/plan.ts leaves out hidden persons’ events for its viewer',
      'POST /insights/trend/': 'query/kinds/trends/plan.ts leaves out hidden persons’ events for its viewer',
      // Saved insights (and dashboards' tiles) compute their results through the query runner, with the viewer.
      'GET /insights/': 'lists insights without their results',
      'GET /insights/:id/': 'its result is a trend run for the viewer (insights/results.ts → query/kinds/trends/plan.ts)',
      'POST /insights/': 'its result is a trend run for the viewer',
      'PATCH /insights/:id/': 'its result is a trend run for the viewer',
      'DELETE /insights/:id/': 'answers 405: insights are deleted by PATCH',
    }
    const prefix = '/api/projects/:project_id'
    const under = /^\/(persons|session_recordings|cohorts|events|sessions|insights)\//
    const routes = t.wren.routes.filter((r) => r.url.startsWith(prefix) && under.test(r.url.slice(prefix.length)))
    expect(routes.length).toBeGreaterThan(15)
    const undeclared = routes
      .map((r) => ({ route: `${r.method} ${r.url.slice(prefix.length)}`, personData: r.personData }))
      .filter((r) => !r.personData && !(r.route in exempt))
      .map((r) => r.route)
    expect(undeclared).toEqual([])
  })
})
