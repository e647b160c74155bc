// Query input shaped to break the query rather than to ask a question, sent with the read-only keys a
// dashboard or an export uses (`query:read`, `insight:read`): every one answered 500 (issue 30), and each is
// a 4xx now that names the construct, while the expression a user meant still answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'

describe('shaped query input answers a 4xx naming the construct', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  let queryKey: string
  let insightKey: string

  beforeAll(async () => {
    t = await startWren()
    call = api(t)
    const key = async (scopes: string[]) =>
      (await call('POST', '/api/personal_api_keys/', { label: scopes[0], scopes, scoped_teams: [t.projectId] })).body.value as string
    queryKey = await key(['query:read'])
    insightKey = await key(['insight:read'])
    await captureBatch(t, [
      { event: 'bought', distinct_id: 'ann', properties: { plan: 'gold', price: 7 } },
      { event: 'bought', distinct_id: 'bob', properties: { plan: 'free', price: 3 } },
    ])
    await drained(t.wren)
  })
  afterAll(async () => {
    await t?.close()
  })

  /** The events list filtered by one HogQL expression, with the query:read key. */
  const events = (expr: string) =>
    call(
      'GET',
      `/api/projects/${t.projectId}/events/?properties=${encodeURIComponent(JSON.stringify([{ type: 'hogql', key: expr }]))}`,
      undefined,
      queryKey,
    )
  /** A trend of `bought`, with the insight:read key. */
  const trend = (body: Record<string, unknown>) =>
    call('POST', `/api/projects/${t.projectId}/insights/trend/`, { events: [{ id: 'bought' }], ...body }, insightKey)
  const refused = (res: { status: number; body: any; text: string }) => ({
    status: res.status,
    code: res.body?.code,
    detail: res.body?.detail,
  })

  it('runs toString(), a function of the subset that a plain-object lookup took for Object.prototype.toString', async () => {
    const listed = await events("toString(properties.price) = '7'")
    expect(listed.status, listed.text).toBe(200)
    expect(listed.body.results.map((e: any) => e.distinct_id)).toEqual(['ann'])
    const broken = await trend({ breakdown: 'toString(properties.plan)', breakdown_type: 'hogql' })
    expect(broken.status, broken.text).toBe(200)
    expect(broken.body.result.map((s: any) => [s.breakdown_value, s.count]).sort()).toEqual([
      ['free', 1],
      ['gold', 1],
    ])
  })

  it('refuses a remainder by zero as PostHog does (ClickHouse throws), and names it', async () => {
    expect(refused(await events('1 % 0 = 1'))).toEqual({ status: 400, code: 'division_by_zero', detail: expect.stringContaining("'%'") })
    expect(refused(await trend({ events: [{ id: 'bought', math: 'hogql', math_hogql: 'sum(toInt(properties.price) % 0)' }] }))).toEqual({
      status: 400,
      code: 'division_by_zero',
      detail: expect.stringContaining('nullIf'),
    })
    // Guarded as the error says, it answers.
    const guarded = await events('properties.price % nullIf(0, 0) IS NULL')
    expect(guarded.status, guarded.text).toBe(200)
    expect(guarded.body.results).toHaveLength(2)
  })

  it('refuses chains of operators nested deeper than the bound, before ClickHouse’s parser depth', async () => {
    expect(refused(await events(`${'- '.repeat(990)}1 = 1`))).toEqual({
      status: 400,
      code: 'invalid_hogql',
      detail: expect.stringContaining('more than 250 operators'),
    })
    const sum = (terms: number) => Array(terms).fill('properties.price').join(' + ')
    expect(refused(await events(`${Array(660).fill('1').join('+')} = 660`))).toEqual({
      status: 400,
      code: 'invalid_hogql',
      detail: expect.stringContaining('more than 250 operators'),
    })
    expect(refused(await trend({ breakdown: `${'abs('.repeat(150)}1${')'.repeat(150)}`, breakdown_type: 'hogql' }))).toMatchObject({
      status: 400,
      code: 'invalid_hogql',
    })
    // At the bound it runs: a 100-term sum of ann's price is 700.
    const atBound = await events(`${sum(100)} = 700`)
    expect(atBound.status, atBound.text).toBe(200)
    expect(atBound.body.results.map((e: any) => e.distinct_id)).toEqual(['ann'])
  })

  it('refuses a function argument out of its bounds, as PostHog does', async () => {
    expect(refused(await events('round(properties.price, 99999999) = 7'))).toEqual({
      status: 400,
      code: 'invalid_expression',
      detail: expect.stringContaining('Scale argument for rounding function is too large'),
    })
  })

  it('refuses numbers past 2^53, in HogQL and in property filters', async () => {
    expect(refused(await events('properties.price = 99999999999999999999'))).toEqual({
      status: 400,
      code: 'invalid_hogql',
      detail: expect.stringContaining('99999999999999999999 is past 2^53'),
    })
    expect(refused(await trend({ properties: [{ key: 'price', operator: 'gt', value: 1e30 }] }))).toEqual({
      status: 400,
      code: 'invalid_input',
      detail: expect.stringContaining('within ±2^53'),
    })
    const farBack = await call(
      'GET',
      `/api/projects/${t.projectId}/insights/trend/?events=[{"id":"bought"}]&date_from=-99999999999999999999d`,
    )
    expect(refused(farBack)).toEqual({ status: 400, code: 'invalid_date', detail: expect.stringContaining('-99999999999999999999d') })
  })

  it('refuses a group filter on the events list whose group_type_index is not a group type', async () => {
    for (const index of [99, -1, 1.5, '0) OR 1=1 --']) {
      const filter = JSON.stringify([{ type: 'group', key: 'industry', value: 'retail', group_type_index: index }])
      const res = await call('GET', `/api/projects/${t.projectId}/events/?properties=${encodeURIComponent(filter)}`, undefined, queryKey)
      expect({ index, ...refused(res), attr: res.body?.attr }).toEqual({
        index,
        status: 400,
        code: 'invalid_input',
        detail: expect.stringContaining('group_type_index 0-4'),
        attr: 'properties',
      })
    }
    const filter = JSON.stringify([{ type: 'group', key: 'industry', value: 'retail', group_type_index: 4 }])
    const res = await call('GET', `/api/projects/${t.projectId}/events/?properties=${encodeURIComponent(filter)}`, undefined, queryKey)
    expect({ status: res.status, results: res.body?.results }).toEqual({ status: 200, results: [] })
  })

  it('refuses a regex filter listing thousands of patterns, naming the bound; a value list of any length still runs', async () => {
    const patterns = Array.from({ length: 6_000 }, (_, i) => `^plan-${i}$`)
    expect(refused(await trend({ properties: [{ key: 'plan', operator: 'regex', value: patterns }] }))).toEqual({
      status: 400,
      code: 'invalid_input',
      detail: expect.stringContaining('regex lists 6000 values: at most 200'),
    })
    const listed = await trend({ properties: [{ key: 'plan', operator: 'exact', value: [...patterns, 'gold'] }] })
    expect(listed.status, listed.text).toBe(200)
    expect(listed.body.result[0].count).toBe(1)
  })
})
