// What PostHog's clients and API habits send, answered as PostHog answers it (issue 12): each case here
// failed on Wren before its fix. One Wren with a few persons and events, shared by the cases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'

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
      // Equal totals for the breakdown ordering: green 2, blue 1, red 1, null (missing and empty) 2.
      ...[{ color: 'green' }, { color: 'green' }, { color: 'red' }, { color: 'blue' }, {}, { color: '' }].map((p, i) => ({
        event: 'tie',
        distinct_id: `tie-${i}`,
        timestamp: now,
        properties: { ...p, size: 's' },
      })),
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

  describe('2 and 5. breakdown order and paging', () => {
    const trend = async (body: Record<string, unknown>) => {
      const res = await call('POST', `${project}/insights/trend/`, { events: [{ id: 'tie' }], date_from: '-1d', ...body })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      return res.body as { result: Array<{ breakdown_value: unknown; count: number; compare_label?: string }>; next: string | null }
    }
    const NULL = '$$_posthog_breakdown_null_$$'

    it('ranks by total, then value ascending, with null after real values; a one-entry breakdowns list answers lists', async () => {
      const single = await trend({ breakdown: 'color' })
      expect(single.result.map((r) => r.breakdown_value)).toEqual(['green', 'blue', 'red', NULL])
      const multi = await trend({
        breakdowns: [
          { property: 'color', type: 'event' },
          { property: 'size', type: 'event' },
        ],
      })
      expect(multi.result.map((r) => r.breakdown_value)).toEqual([
        ['green', 's'],
        ['blue', 's'],
        ['red', 's'],
        [NULL, 's'],
      ])
      const one = await trend({ breakdowns: [{ property: 'color', type: 'event' }] })
      expect(one.result.map((r) => r.breakdown_value)).toEqual([['green'], ['blue'], ['red'], [NULL]])
      const formula = await trend({ events: [{ id: 'tie' }, { id: 'tie' }], formula: 'A+B', breakdown: 'color', compare: true })
      const current = formula.result.filter((r) => r.compare_label === 'current')
      expect(current.map((r) => r.breakdown_value)).toEqual(['green', 'blue', 'red', NULL])
    })

    it('following next visits each breakdown value once and stops', async () => {
      const seen: unknown[] = []
      let page = await trend({ breakdown: 'color', breakdown_limit: 2 })
      for (let i = 0; i < 5; i++) {
        seen.push(...page.result.map((r) => r.breakdown_value).filter((v) => v !== '$$_posthog_breakdown_other_$$'))
        if (!page.next) break
        const res = await call('POST', new URL(page.next).pathname + new URL(page.next).search, {
          events: [{ id: 'tie' }],
          date_from: '-1d',
          breakdown: 'color',
          breakdown_limit: 2,
        })
        page = res.body
      }
      expect(page.next).toBeNull()
      expect(seen).toEqual(['green', 'blue', 'red', NULL])
    })
  })

  it('3. a new project filters local development traffic out of test accounts', async () => {
    const created = await call('POST', '/api/projects/', { name: 'Fresh' })
    expect(created.status).toBe(201)
    expect(created.body.test_account_filters).toEqual([
      { key: '$host', operator: 'not_regex', value: '^(localhost|127\\.0\\.0\\.1)($|:)', type: 'event' },
    ])
    const at = new Date().toISOString()
    await captureBatch({ url: t.url, projectKey: created.body.api_token }, [
      { event: 'visit', distinct_id: 'dev', timestamp: at, properties: { $host: 'localhost:3000' } },
      { event: 'visit', distinct_id: 'dev', timestamp: at, properties: { $host: '127.0.0.1' } },
      { event: 'visit', distinct_id: 'user', timestamp: at, properties: { $host: 'shop.example.com' } },
    ])
    await drained(t.wren)
    const count = async (filterTestAccounts: boolean) => {
      const res = await call('POST', `/api/projects/${created.body.id}/insights/trend/`, {
        events: [{ id: 'visit' }],
        date_from: '-1d',
        filter_test_accounts: filterTestAccounts,
      })
      return (res.body.result as Array<{ count: number }>)[0].count
    }
    expect(await count(false)).toBe(3)
    expect(await count(true)).toBe(1)
  })

  it('4. GET insights/trend/ with no parameters is 200', async () => {
    const res = await call('GET', `${project}/insights/trend/`)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(Array.isArray(res.body.result)).toBe(true)
  })

  it('6. an over-deep or over-large property group is a 400, not a 500', async () => {
    const leaf = '{"key":"plan","type":"person","value":"pro"}'
    const nest = (levels: number) => '{"type":"AND","values":['.repeat(levels) + leaf + ']}'.repeat(levels)
    const deep = nest(5000)
    const wide = JSON.stringify({
      type: 'AND',
      values: Array.from({ length: 20_000 }, (_, i) => ({ key: `k${i}`, type: 'person', value: 'v' })),
    })
    const send = async (method: string, path: string, body?: string) => {
      const res = await fetch(t.url + path, {
        method,
        headers: { authorization: `Bearer ${t.personalKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body,
      })
      return { status: res.status, body: (await res.json()) as { type: string; attr: string | null } }
    }
    // In a query string the URL limit comes first: 150 levels of groups are 300 levels of JSON.
    const inQuery = nest(150)
    const answers = [
      ...[deep, wide].flatMap((group) => [
        send('POST', `${project}/insights/trend/`, `{"events":[{"id":"bought"}],"properties":${group}}`),
        send('POST', `${project}/cohorts/`, `{"name":"deep","filters":{"properties":${group}}}`),
        send('POST', `${project}/feature_flags/`, `{"key":"deep","filters":{"groups":[{"properties":[${group}]}]}}`),
        send('POST', `${project}/actions/`, `{"name":"deep","steps":[{"event":"bought","properties":[${group}]}]}`),
      ]),
      send('GET', `${project}/insights/trend/?events=${encodeURIComponent('[{"id":"bought"}]')}&properties=${encodeURIComponent(inQuery)}`),
      send('GET', `${project}/persons/?properties=${encodeURIComponent(`[${inQuery}]`)}`),
      send('GET', `${project}/events/?properties=${encodeURIComponent(`[${inQuery}]`)}`),
    ]
    for (const answer of await Promise.all(answers)) {
      expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(400)
      expect(answer.body.type).toBe('validation_error')
    }
  })

  it('7. a cohort filter on the persons list returns the cohort’s members', async () => {
    const cohort = await call('POST', `${project}/cohorts/`, {
      name: 'Pro plan',
      filters: { properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'plan', type: 'person', value: 'pro' }] }] } },
    })
    expect(cohort.status).toBe(201)
    const filter = encodeURIComponent(JSON.stringify([{ type: 'cohort', key: 'id', value: cohort.body.id }]))
    const res = await call('GET', `${project}/persons/?properties=${filter}`)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results.flatMap((p: { distinct_ids: string[] }) => p.distinct_ids).sort()).toEqual(['adult', 'senior'])
  })

  it('9. a known path with an unsupported method is 405 with Allow', async () => {
    const res = await fetch(`${t.url}${project}/persons/`, { method: 'PUT', headers: { authorization: `Bearer ${t.personalKey}` } })
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toContain('GET')
    expect(await res.json()).toMatchObject({ type: 'invalid_request', code: 'method_not_allowed' })
  })

  it('10. properties_timeline takes relative dates', async () => {
    const persons = await call('GET', `${project}/persons/?distinct_id=adult`)
    const id = persons.body.results[0].uuid
    const res = await call('GET', `${project}/persons/${id}/properties_timeline/?date_from=-7d`)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.points.length).toBeGreaterThan(0)
    const bad = await call('GET', `${project}/persons/${id}/properties_timeline/?date_from=soon`)
    expect(bad.status).toBe(400)
    expect(bad.body.attr).toBe('date_from')
  })

  it('12. errors raised before a route are in the one error shape', async () => {
    const bad = await fetch(`${t.url}${project}/cohorts/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.personalKey}`, 'content-type': 'application/x-unknown' },
      body: 'x',
    })
    expect(bad.status).toBe(415)
    expect(Object.keys((await bad.json()) as object).sort()).toEqual(['attr', 'code', 'detail', 'type'])
    const huge = await fetch(`${t.url}${project}/persons/`, {
      headers: { authorization: `Bearer ${t.personalKey}`, 'x-big': 'a'.repeat(20_000) },
    })
    expect(huge.status).toBe(431)
    expect(Object.keys((await huge.json()) as object).sort()).toEqual(['attr', 'code', 'detail', 'type'])
  })

  it('15. following next on the events list visits every event once, even at one timestamp', async () => {
    const at = new Date(Date.now() - 60_000).toISOString()
    await captureBatch(
      t,
      Array.from({ length: 35 }, (_, i) => ({ event: 'same-instant', distinct_id: `burst-${i}`, timestamp: at, properties: { i } })),
    )
    await drained(t.wren)
    const seen: number[] = []
    let url: string | null = `${project}/events/?event=same-instant&limit=10`
    for (let pages = 0; url && pages < 10; pages++) {
      const res = await call('GET', url)
      expect(res.status).toBe(200)
      seen.push(...res.body.results.map((e: { properties: { i: number } }) => e.properties.i))
      url = res.body.next ? new URL(res.body.next).pathname + new URL(res.body.next).search : null
    }
    expect(url).toBeNull()
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 35 }, (_, i) => i))
  })

  it('16. posthog-js’s surveys poll answers the surveys list shape', async () => {
    const res = await fetch(`${t.url}/api/surveys/?token=${t.projectKey}`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ surveys: [], survey_config: null })
    expect((await fetch(`${t.url}/api/surveys?token=phc_nope`)).status).toBe(401)
  })

  it('19. a NUL in a property string is stored as U+FFFD', async () => {
    await captureBatch(t, [{ event: 'nul-event', distinct_id: 'nul-user', properties: { text: 'a\u0000b' } }])
    await drained(t.wren)
    const res = await call('GET', `${project}/events/?event=nul-event`)
    expect(res.body.results[0].properties.text).toBe('a\uFFFDb')
  })
})
