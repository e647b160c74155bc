// `?limit` follows one rule on every list route: an integer from 1 to the route's maximum, or a 400
// naming `limit` (a limit over the maximum was clamped on some routes and refused on others); an empty
// `?limit=` is the default. The OpenAPI document states each maximum, and every list route it names
// is checked here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'

describe('?limit on every list route', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  let lists: Array<{ path: string; max: number }>

  beforeAll(async () => {
    t = await startWren()
    call = api(t)
    await captureBatch(t, [{ event: 'signed_up', distinct_id: 'limit-person', properties: { $set: { email: 'limit@example.com' } } }])
    await drained(t.wren)
    const person = (await call('GET', `/api/projects/${t.projectId}/persons/?distinct_id=limit-person`)).body.results[0]
    const flag = await call('POST', `/api/projects/${t.projectId}/feature_flags/`, {
      key: 'limit-flag',
      filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
    })
    const project = `/api/projects/${t.projectId}`
    lists = [
      { path: `${project}/events/`, max: 10_000 },
      { path: `${project}/event_definitions/`, max: 1000 },
      { path: `${project}/property_definitions/`, max: 1000 },
      { path: `${project}/persons/`, max: 1000 },
      { path: `${project}/persons/${person.id}/activity/`, max: 1000 },
      { path: `${project}/feature_flags/`, max: 1000 },
      { path: `${project}/feature_flags/activity/`, max: 1000 },
      { path: `${project}/feature_flags/${flag.body.id}/activity/`, max: 1000 },
      { path: `${project}/session_recordings/`, max: 1000 },
      { path: '/api/dead_letters/', max: 1000 },
      { path: '/api/projects/', max: 1000 },
      { path: '/api/personal_api_keys/', max: 1000 },
      { path: `${project}/insights/`, max: 1000 },
      { path: `${project}/dashboards/`, max: 1000 },
      { path: `${project}/actions/`, max: 1000 },
      { path: `${project}/cohorts/`, max: 1000 },
      { path: `${project}/annotations/`, max: 1000 },
      { path: `${project}/experiments/`, max: 1000 },
      { path: `${project}/surveys/`, max: 1000 },
      { path: '/api/organizations/', max: 1000 },
      { path: '/api/organizations/@current/projects/', max: 1000 },
      { path: '/api/organizations/@current/members/', max: 1000 },
      { path: '/api/organizations/@current/invites/', max: 1000 },
    ]
  })
  afterAll(async () => {
    await t?.close()
  })

  it('refuses a limit that is not an integer from 1 to the maximum, with 400 naming limit, on every list route', async () => {
    const failures: string[] = []
    for (const { path, max } of lists) {
      for (const limit of ['abc', '0', '-1', '2.5', String(max + 1), '5000000']) {
        const res = await call('GET', `${path}?limit=${limit}`)
        if (res.status !== 400 || res.body.attr !== 'limit' || res.body.type !== 'validation_error')
          failures.push(`${path}?limit=${limit}: ${res.status} ${res.text.slice(0, 120)}`)
      }
      for (const limit of ['1', String(max), '']) {
        const res = await call('GET', `${path}?limit=${limit}`)
        if (res.status !== 200) failures.push(`${path}?limit=${limit}: ${res.status} ${res.text.slice(0, 120)}`)
      }
    }
    expect(failures).toEqual([])
  })

  it('covers every route whose declaration takes a limit, at the maximum the document states', async () => {
    type Operation = { parameters?: Array<{ in: string; name: string; schema: { maximum?: number } }> }
    const doc = (await call('GET', '/api/schema/')).body as { paths: Record<string, Record<string, Operation>> }
    const declared = Object.entries(doc.paths).flatMap(([path, ops]) => {
      const limit = ops.get?.parameters?.find((p) => p.in === 'query' && p.name === 'limit')
      return limit && path.startsWith('/api/projects/')
        ? [`${path} ${limit.schema.maximum}`]
        : limit && !path.startsWith('/api/environments/')
          ? [`${path} ${limit.schema.maximum}`]
          : []
    })
    const tested = lists.map(
      ({ path, max }) =>
        `${path
          .replace(`/api/projects/${t.projectId}/`, '/api/projects/{project_id}/')
          .replace('/api/organizations/@current/', '/api/organizations/{organization_id}/')
          .replace(/\/\d+\/activity\/$/, '/{id}/activity/')} ${max}`,
    )
    expect(declared.sort()).toEqual(tested.sort())
  })

  it('pages insights, dashboards, actions and cohorts by limit and offset with next and previous links, and searches them', async () => {
    const project = `/api/projects/${t.projectId}`
    const made: Record<string, string[]> = { insights: [], dashboards: [], actions: [], cohorts: [] }
    for (const name of ['Checkout funnel', 'Signups by week', 'Checkout errors']) {
      const bodies: Record<string, object> = {
        insights: { name, saved: true, filters: { insight: 'TRENDS', events: [{ id: 'signed_up' }] } },
        dashboards: { name },
        actions: { name, steps: [{ event: 'signed_up' }] },
        cohorts: { name, groups: [{ properties: [{ key: 'email', value: 'limit@example.com', type: 'person' }] }] },
      }
      for (const [list, body] of Object.entries(bodies)) {
        const res = await call('POST', `${project}/${list}/`, body)
        expect(res.status, `${list}: ${res.text}`).toBe(201)
        made[list].push(name)
      }
    }
    const names = (body: { results: Array<{ name: string }> }) => body.results.map((r) => r.name)
    for (const list of Object.keys(made)) {
      const all = await call('GET', `${project}/${list}/?limit=1000`)
      const total = all.body.count as number
      expect(names(all.body)).toEqual(expect.arrayContaining(made[list]))

      // Two pages of two: the first links the second, the second links back and nowhere further when it ends.
      const first = await call('GET', `${project}/${list}/?limit=2`)
      expect(first.body.count, list).toBe(total)
      expect(names(first.body), list).toEqual(names(all.body).slice(0, 2))
      expect(first.body.previous, list).toBeNull()
      const next = new URL(first.body.next as string)
      expect([next.searchParams.get('limit'), next.searchParams.get('offset')], list).toEqual(['2', '2'])
      const second = await call('GET', `${next.pathname}${next.search}`)
      expect(names(second.body), list).toEqual(names(all.body).slice(2, 4))
      expect(new URL(second.body.previous as string).searchParams.get('offset'), list).toBe('0')
      if (total <= 4) expect(second.body.next, list).toBeNull()

      // search: any case, in the name; count is the matches'.
      const found = await call('GET', `${project}/${list}/?search=CHECKOUT`)
      expect(found.status, list).toBe(200)
      expect(names(found.body).sort(), list).toEqual(['Checkout errors', 'Checkout funnel'])
      expect(found.body.count, list).toBe(2)
      expect(names((await call('GET', `${project}/${list}/?search=checkout&limit=1&offset=1`)).body), list).toHaveLength(1)
      expect((await call('GET', `${project}/${list}/?search=nothing-like-this`)).body.count, list).toBe(0)
    }
  })
})
