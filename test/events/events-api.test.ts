// GET /api/projects/:project_id/events/ over real HTTP: filters, paging, CSV, bad input and auth.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'
import { createKey, createProject, expectAuthChecks } from '../support/management'

describe('events API', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  let events: string
  beforeAll(async () => {
    t = await startWren()
    call = api(t)
    events = `/api/projects/${t.projectId}/events`
    await captureBatch(t, [
      {
        event: '$pageview',
        distinct_id: 'ev-ada',
        timestamp: '2026-03-01T10:00:00Z',
        properties: { $current_url: 'https://shop.example/', plan: 'pro' },
      },
      { event: 'purchase', distinct_id: 'ev-ada', timestamp: '2026-03-02T10:00:00Z', properties: { amount: 30, plan: 'pro' } },
      { event: 'purchase', distinct_id: 'ev-bob', timestamp: '2026-03-03T10:00:00Z', properties: { amount: 5, plan: 'free' } },
      { event: '$pageview', distinct_id: 'ev-bob', timestamp: '2026-03-04T10:00:00Z', properties: { plan: 'free' } },
    ])
    await drained(t.wren)
  })
  afterAll(async () => {
    await t?.close()
  })

  const list = async (query: string, prefix = events) => {
    const res = await call('GET', `${prefix}/?${query}`)
    expect(res.status, query).toBe(200)
    return res.body.results.map((e: any) => `${e.event}/${e.distinct_id}`)
  }

  it('lists events newest first with their properties and person', async () => {
    const res = await call('GET', `${events}/`)
    expect(res.status).toBe(200)
    expect(res.body.next).toBeNull()
    expect(res.body.results.map((e: any) => `${e.event}/${e.distinct_id}`)).toEqual([
      '$pageview/ev-bob',
      'purchase/ev-bob',
      'purchase/ev-ada',
      '$pageview/ev-ada',
    ])
    const purchase = res.body.results[2]
    expect(purchase.properties).toMatchObject({ amount: 30, plan: 'pro' })
    expect(purchase.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(new Date(purchase.timestamp).toISOString()).toBe('2026-03-02T10:00:00.000Z')
    const persons = await call('GET', `/api/environments/${t.projectId}/persons/?distinct_id=ev-ada`)
    expect(purchase.person_id).toBe(persons.body.results[0].uuid)
    expect(await list('', `/api/environments/${t.projectId}/events`)).toEqual(
      res.body.results.map((e: any) => `${e.event}/${e.distinct_id}`),
    )
  })

  it('filters by event, distinct_id, person_id, time and properties', async () => {
    expect(await list('event=purchase')).toEqual(['purchase/ev-bob', 'purchase/ev-ada'])
    expect(await list('distinct_id=ev-ada')).toEqual(['purchase/ev-ada', '$pageview/ev-ada'])
    const [bob] = (await call('GET', `/api/environments/${t.projectId}/persons/?distinct_id=ev-bob`)).body.results
    expect(await list(`person_id=${bob.uuid}`)).toEqual(['$pageview/ev-bob', 'purchase/ev-bob'])
    expect(await list('after=2026-03-02T00:00:00Z&before=2026-03-04T00:00:00Z')).toEqual(['purchase/ev-bob', 'purchase/ev-ada'])
    const filters = encodeURIComponent(JSON.stringify([{ key: 'amount', value: 10, operator: 'gt', type: 'event' }]))
    expect(await list(`properties=${filters}`)).toEqual(['purchase/ev-ada'])
  })

  it('pages with limit and an absolute next URL', async () => {
    const first = await call('GET', `${events}/?limit=3`)
    expect(first.body.results).toHaveLength(3)
    const next = new URL(first.body.next)
    expect(next.origin).toBe(t.url)
    const second = await call('GET', next.pathname + next.search)
    expect(second.body.results.map((e: any) => `${e.event}/${e.distinct_id}`)).toEqual(['$pageview/ev-ada'])
    expect(second.body.next).toBeNull()
  })

  it('writes CSV with flattened properties', async () => {
    const res = await call('GET', `${events}/?format=csv&event=purchase`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/)
    const [header, ...rows] = res.text.trim().split('\n')
    expect(header.split(',')).toEqual(expect.arrayContaining(['id', 'event', 'distinct_id', 'properties.amount', 'timestamp']))
    expect(rows).toHaveLength(2)
  })

  it('answers 400 naming the parameter for bad input', async () => {
    const cases: Array<[string, string]> = [
      ['limit=0', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=100000', 'limit'],
      ['after=not-a-date', 'after'],
      ['before=31/31/2026', 'before'],
      ['person_id=not-a-uuid', 'person_id'],
      ['properties=[oops', 'properties'],
      ['format=xml', 'format'],
    ]
    for (const [query, attr] of cases) {
      const res = await call('GET', `${events}/?${query}`)
      expect(res.status, query).toBe(400)
      expect(res.body, query).toMatchObject({ type: 'validation_error', attr })
    }
  })

  it('checks the key, its scope and its project', async () => {
    const other = await createProject(t, 'Other')
    const wrongScopeKey = (await createKey(t, ['person:read'])).value
    const otherProjectKey = (await createKey(t, ['query:read'], [other.id])).value
    for (const route of ['/api/projects/:project_id/events/', '/api/environments/:project_id/events/']) {
      await expectAuthChecks(t, { method: 'GET', route, scope: 'query:read' }, { wrongScopeKey, otherProjectKey })
    }
    // The other project's key sees its own (empty) project, never this one's events.
    const own = await call('GET', `/api/projects/${other.id}/events/`, undefined, otherProjectKey)
    expect(own.status).toBe(200)
    expect(own.body.results).toEqual([])
  })
})
