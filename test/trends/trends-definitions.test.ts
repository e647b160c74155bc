// Actions and cohorts: their CRUD APIs, and trends that use them (series, filters, breakdowns),
// plus element filters over autocapture's elements_chain.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'
import { bothDoors } from '../support/trend-doors'

describe('actions and cohorts in trends', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  const range = { date_from: '2026-03-09', date_to: '2026-03-15' }
  const trend = async (body: Record<string, unknown>) => {
    const res = await call('POST', `/api/environments/${t.projectId}/insights/trend/`, { ...range, ...body })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body.result
  }
  const BUY =
    'button.btn.primary:attr__class="btn primary"nth-child="1"nth-of-type="1"text="Buy now";div.card:attr__class="card"nth-child="2"nth-of-type="1";body:nth-child="1"nth-of-type="1"'
  const DOCS =
    'a:href="/docs"nth-child="1"nth-of-type="1"text="Docs";nav.top:attr__class="top"nth-child="1"nth-of-type="1";body:nth-child="1"nth-of-type="1"'

  beforeAll(async () => {
    t = await startWren({ WREN_NOW: '2026-03-15T12:00:00Z' })
    call = bothDoors(api(t))
    const ev = (event: string, distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}) => ({
      event,
      distinct_id,
      timestamp,
      properties,
    })
    await captureBatch(t, [
      ev('$pageview', 'u1', '2026-03-09T10:00:00Z', {
        $current_url: 'https://shop.example/pricing?x=1',
        $set: { email: 'a@example.com', plan: 'pro' },
      }),
      ev('$pageview', 'u2', '2026-03-10T10:00:00Z', { $current_url: 'https://shop.example/home', $set: { plan: 'free' } }),
      ev('signed_up', 'u2', '2026-03-11T10:00:00Z'),
      ev('$autocapture', 'u3', '2026-03-12T10:00:00Z', { $elements_chain: BUY }),
      ev('$autocapture', 'u4', '2026-03-12T11:00:00Z', { $elements_chain: DOCS, $set: { plan: 'pro', email: 'd@other.org' } }),
      ev('$pageview', 'u4', '2026-03-13T10:00:00Z', { $current_url: 'https://shop.example/pricing' }),
    ])
    await drained(t.wren)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('creates, reads, updates and deletes actions, and a trend counts exactly what the steps match', async () => {
    const created = await call('POST', `/api/projects/${t.projectId}/actions/`, {
      name: 'Signed up or pricing',
      steps: [{ event: 'signed_up' }, { event: '$pageview', url: '/pricing', url_matching: 'contains' }],
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ id: expect.any(Number), name: 'Signed up or pricing', deleted: false })
    const id = created.body.id
    const list = await call('GET', `/api/projects/${t.projectId}/actions/`)
    expect(list.body.results.map((a: any) => a.id)).toEqual([id])
    const [series] = await trend({ actions: [{ id }] })
    expect(series.label).toBe('Signed up or pricing')
    expect(series.data).toEqual([1, 0, 1, 0, 1, 0, 0])

    const renamed = await call('PATCH', `/api/projects/${t.projectId}/actions/${id}/`, {
      name: 'Pricing',
      steps: [{ event: '$pageview', url: 'https://shop.example/pricing', url_matching: 'exact' }],
    })
    expect(renamed.status).toBe(200)
    expect((await call('GET', `/api/projects/${t.projectId}/actions/${id}/`)).body.name).toBe('Pricing')
    const [exact] = await trend({ actions: [{ id }] })
    expect(exact.data).toEqual([0, 0, 0, 0, 1, 0, 0])

    // Actions come first in series order, so they are formula letter A.
    const [formula] = await trend({ actions: [{ id }], events: [{ id: '$pageview' }], formula: 'A / B' })
    expect(formula.data).toEqual([0, 0, 0, 0, 1, 0, 0])

    expect((await call('DELETE', `/api/projects/${t.projectId}/actions/${id}/`)).status).toBe(204)
    expect((await call('GET', `/api/projects/${t.projectId}/actions/${id}/`)).status).toBe(404)
    expect(await trend({ actions: [{ id }] })).toEqual([])
  })

  it('matches autocapture steps by selector, text and href, and element filters in trends', async () => {
    const make = async (name: string, step: Record<string, unknown>) =>
      (await call('POST', `/api/projects/${t.projectId}/actions/`, { name, steps: [{ event: '$autocapture', ...step }] })).body.id
    const selector = await make('Buy click', { selector: 'div.card > button.primary' })
    const wrongSelector = await make('Nav button', { selector: 'nav button' })
    const text = await make('Docs text', { text: 'Docs' })
    const href = await make('Docs href', { href: '/doc', href_matching: 'contains' })
    const result = await trend({ actions: [{ id: selector }, { id: wrongSelector }, { id: text }, { id: href }] })
    expect(result.map((s: any) => [s.label, s.count])).toEqual([
      ['Buy click', 1],
      ['Nav button', 0],
      ['Docs text', 1],
      ['Docs href', 1],
    ])

    const count = async (properties: unknown) => (await trend({ events: [{ id: '$autocapture' }], properties }))[0].count
    expect(await count([{ type: 'element', key: 'tag_name', value: 'a' }])).toBe(1)
    expect(await count([{ type: 'element', key: 'selector', value: '.card button' }])).toBe(1)
    expect(await count([{ type: 'element', key: 'selector', value: '#missing' }])).toBe(0)
    expect(await count([{ type: 'element', key: 'text', value: 'buy', operator: 'icontains' }])).toBe(1)
    expect(await count([{ type: 'element', key: 'href', value: '/docs', operator: 'is_not' }])).toBe(1)
  })

  it('refuses action writes without action:write', async () => {
    const key = await call('POST', '/api/personal_api_keys/', { label: 'reader', scopes: ['action:read', 'insight:read'] })
    expect(key.status).toBe(201)
    const denied = await call('POST', `/api/projects/${t.projectId}/actions/`, { name: 'x', steps: [] }, key.body.value)
    expect(denied.status).toBe(403)
    expect((await call('GET', `/api/projects/${t.projectId}/actions/`, undefined, key.body.value)).status).toBe(200)
    const bad = await call('POST', `/api/projects/${t.projectId}/actions/`, { name: 'bad', steps: [{ url: '/x', url_matching: 'fuzzy' }] })
    expect(bad.status).toBe(400)
  })

  it('keeps dynamic and static cohorts and uses their current members in filters and breakdowns', async () => {
    const pro = await call('POST', `/api/projects/${t.projectId}/cohorts/`, {
      name: 'Pro',
      filters: {
        properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person', operator: 'exact' }] }] },
      },
    })
    expect(pro.status).toBe(201)
    expect(pro.body).toMatchObject({ name: 'Pro', is_static: false, count: 2 })
    const listed = await call('POST', `/api/projects/${t.projectId}/cohorts/`, {
      name: 'Listed',
      is_static: true,
      distinct_ids: ['u2', 'u3'],
    })
    expect(listed.body).toMatchObject({ is_static: true, count: 2 })
    const form = new FormData()
    form.set('name', 'Uploaded')
    form.set('is_static', 'true')
    form.set('csv', new Blob(['distinct_id\r\nu3\r\nnobody\r\n'], { type: 'text/csv' }), 'people.csv')
    const uploadRes = await fetch(`${t.url}/api/projects/${t.projectId}/cohorts/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.personalKey}` },
      body: form,
    })
    expect(uploadRes.status).toBe(201)
    const uploaded = await uploadRes.json()
    expect(uploaded).toMatchObject({ name: 'Uploaded', is_static: true, count: 1 })
    const nested = await call('POST', `/api/projects/${t.projectId}/cohorts/`, {
      name: 'Pro at example',
      filters: {
        properties: {
          type: 'AND',
          values: [
            { type: 'cohort', key: 'id', value: pro.body.id },
            { key: 'email', value: 'example.com', operator: 'icontains', type: 'person' },
          ],
        },
      },
    })
    expect(nested.body.count).toBe(1)

    const all = await trend({
      events: [{ id: '$pageview' }, { id: '$autocapture' }],
      properties: [{ type: 'cohort', key: 'id', value: pro.body.id }],
    })
    expect(all.map((s: any) => s.data)).toEqual([
      [1, 0, 0, 0, 1, 0, 0],
      [0, 0, 0, 1, 0, 0, 0],
    ])
    const [notIn] = await trend({
      events: [{ id: '$pageview' }],
      properties: [{ type: 'cohort', key: 'id', value: pro.body.id, operator: 'not_in' }],
    })
    expect(notIn.data).toEqual([0, 1, 0, 0, 0, 0, 0])

    const breakdown = await trend({
      events: [{ id: '$pageview' }],
      breakdown_type: 'cohort',
      breakdown: [pro.body.id, listed.body.id, 'all'],
    })
    expect(breakdown.map((s: any) => [s.breakdown_value, s.label, s.count])).toEqual(
      [
        [pro.body.id, 'Pro', 2],
        ['all', 'all users', 3],
        [listed.body.id, 'Listed', 1],
      ].sort((a: any, b: any) => b[2] - a[2] || String(a[0]).localeCompare(String(b[0]))),
    )

    const unknown = await call('POST', `/api/environments/${t.projectId}/insights/trend/`, {
      events: [{ id: '$pageview' }],
      properties: [{ type: 'cohort', key: 'id', value: 9999 }],
    })
    expect(unknown.status).toBe(400)
    expect(unknown.body.detail).toMatch(/Cohort 9999 does not exist/)

    const renamed = await call('PATCH', `/api/projects/${t.projectId}/cohorts/${pro.body.id}/`, { name: 'Pro plan' })
    expect(renamed.body.name).toBe('Pro plan')
    expect((await call('DELETE', `/api/projects/${t.projectId}/cohorts/${listed.body.id}/`)).status).toBe(204)
    const names = (await call('GET', `/api/projects/${t.projectId}/cohorts/`)).body.results.map((c: any) => c.name)
    expect(names).toEqual(['Pro plan', 'Uploaded', 'Pro at example'])
    const behavioral = await call('POST', `/api/projects/${t.projectId}/cohorts/`, {
      name: 'b',
      filters: { properties: { type: 'AND', values: [{ key: 'signed_up', type: 'behavioral', value: 'performed_event' }] } },
    })
    expect(behavioral.status).toBe(400)
  })
})
