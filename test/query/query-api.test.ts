// The Query API's door (issue 31): POST …/query/ with every `refresh` mode, the envelope, the asynchronous
// flow (202, GET until complete, DELETE), its refusals, `filters_override`, and saved insights through it.
// One Wren on chDB with a handful of events; killing a running query is in query-callers.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKey, createProject } from '../support/management'
import { api, captureBatch, drained, startWren, waitFor, type TestWren } from '../support/wren'

const NOW = '2026-03-15T12:00:00Z'
const pageviews = (dateFrom: string, extra: Record<string, unknown> = {}) => ({
  kind: 'TrendsQuery',
  series: [{ kind: 'EventsNode', event: '$pageview' }],
  dateRange: { date_from: dateFrom, date_to: '2026-03-15' },
  ...extra,
})

describe('the Query API', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  const at = (path: string, prefix = 'environments') => `/api/${prefix}/${t.projectId}${path}`
  const query = (body: Record<string, unknown>, path = '/query/') => call('POST', at(path), body)
  /** Polls GET …/query/:id/ until the job is no longer running. */
  const finished = async (id: string) =>
    waitFor(
      async () => {
        const res = await call('GET', at(`/query/${id}/`))
        return res.status === 202 ? false : res
      },
      { what: `query ${id} to finish`, intervalMs: 20 },
    )
  const pv = (distinct_id: string, timestamp: string, $browser = 'Chrome') => ({
    event: '$pageview',
    distinct_id,
    timestamp,
    properties: { $browser },
  })

  beforeAll(async () => {
    t = await startWren({ WREN_NOW: NOW })
    call = api(t)
    await captureBatch(t, [
      pv('u1', '2026-03-10T10:00:00Z'),
      pv('u2', '2026-03-12T10:00:00Z', 'Safari'),
      pv('u1', '2026-03-14T10:00:00Z'),
      pv('u3', '2026-03-01T10:00:00Z'),
    ])
    await drained(t.wren)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('answers a TrendsQuery in PostHog’s envelope on both prefixes: computed, then from the cache', async () => {
    const first = await query({ query: pageviews('2026-03-09') })
    expect(first.status).toBe(200)
    const body = first.body
    expect(body.results[0].data).toEqual([0, 1, 0, 1, 0, 1, 0])
    expect(body.results[0].label).toBe('$pageview')
    expect(body).toMatchObject({
      is_cached: false,
      timezone: 'UTC',
      hasMore: false,
      hogql: null,
      timings: null,
      error: null,
      query_status: null,
    })
    expect(body.cache_key).toMatch(/^cache_[0-9a-f]{32}$/)
    expect(body.resolved_date_range).toEqual({ date_from: '2026-03-09T00:00:00+00:00', date_to: '2026-03-15T23:59:59.999999+00:00' })
    // An insight's client refresh interval (15 minutes) and its day interval's staleness (6 hours).
    expect(body.last_refresh).toBe(NOW)
    expect(body.next_allowed_client_refresh).toBe('2026-03-15T12:15:00Z')
    expect(body.cache_target_age).toBe('2026-03-15T18:00:00Z')

    const again = await call('POST', at('/query/', 'projects'), { query: pageviews('2026-03-09') })
    expect(again.body).toMatchObject({ is_cached: true, last_refresh: body.last_refresh, cache_key: body.cache_key })
    expect(again.body.results).toEqual(body.results)
    // Wrapped, by the path naming its kind, with force_cache (blocking on this endpoint) or async: the same cached answer.
    for (const request of [
      { query: { kind: 'InsightVizNode', source: pageviews('2026-03-09') } },
      { query: pageviews('2026-03-09'), refresh: 'force_cache' },
      { query: pageviews('2026-03-09'), refresh: 'async' },
      { query: pageviews('2026-03-09'), refresh: 'lazy_async' },
      { query: pageviews('2026-03-09'), refresh: false },
    ]) {
      const res = await query(request, request.query.kind === 'TrendsQuery' ? '/query/TrendsQuery/' : '/query/')
      expect([res.status, res.body.is_cached, res.body.cache_key, res.body.query_status], JSON.stringify(request)).toEqual([
        200,
        true,
        body.cache_key,
        null,
      ])
    }
    for (const refresh of [true, 'force_blocking']) {
      const res = await query({ query: pageviews('2026-03-09'), refresh })
      expect([res.status, res.body.is_cached, res.body.results], String(refresh)).toEqual([200, false, body.results])
    }
    // A miss that async_except_on_cache_miss computes at once, and force_cache computes too (blocking here).
    for (const [refresh, from] of [
      ['async_except_on_cache_miss', '2026-03-08'],
      ['force_cache', '2026-03-07'],
    ]) {
      const res = await query({ query: pageviews(from), refresh })
      expect([res.status, res.body.is_cached, res.body.results[0].count], refresh).toEqual([200, false, 3])
    }
  })

  it('runs async queries as jobs: 202 with query_status, GET until complete carries the answer, which is then cached', async () => {
    const started = await query({ query: pageviews('2026-03-01'), refresh: 'async', client_query_id: 'mine-1' })
    expect(started.status).toBe(202)
    expect(started.body.cache_key).toMatch(/^cache_/)
    expect(started.body.query_status).toMatchObject({
      id: 'mine-1',
      team_id: t.projectId,
      query_async: true,
      complete: false,
      results: null,
    })
    const done = await finished('mine-1')
    expect(done.status).toBe(200)
    const status = done.body.query_status
    expect(status).toMatchObject({ id: 'mine-1', complete: true, error: false, error_message: null })
    expect(status.results).toMatchObject({ is_cached: false, cache_key: started.body.cache_key })
    expect(status.results.results[0].count).toBe(4)
    // The job filled the cache.
    const blocking = await query({ query: pageviews('2026-03-01') })
    expect([blocking.body.is_cached, blocking.body.results]).toEqual([true, status.results.results])

    // lazy_async and the legacy `async: true` start a job on a miss; force_async always does, and answers its status only.
    for (const [request, id, from] of [
      [{ refresh: 'lazy_async' }, 'lazy-1', '2026-03-04'],
      [{ async: true }, 'legacy-1', '2026-03-05'],
      [{ refresh: 'force_async' }, 'forced-1', '2026-03-01'],
    ] as const) {
      const res = await query({ query: pageviews(from), client_query_id: id, ...request })
      expect([res.status, res.body.query_status?.id], id).toEqual([202, id])
      if (id === 'forced-1') expect(Object.keys(res.body)).toEqual(['query_status'])
      expect((await finished(id)).body.query_status.results.results[0].count, id).toBeGreaterThan(0)
    }
    // A job whose query ClickHouse refuses fails with the refusal's words: GET answers 400.
    const refused = await query({
      query: pageviews('2026-03-03', { properties: [{ key: '$browser', value: '((', operator: 'regex', type: 'event' }] }),
      refresh: 'force_async',
      client_query_id: 'refused-1',
    })
    expect(refused.status).toBe(202)
    const failed = await finished('refused-1')
    expect([failed.status, failed.body.query_status.complete, failed.body.query_status.error]).toEqual([400, true, true])
    expect(failed.body.query_status.error_message).toMatch(/regex/i)
    // DELETE of a finished job forgets it.
    expect((await call('DELETE', at('/query/mine-1/'))).body).toEqual({ message: 'Query already complete.' })
    expect((await call('GET', at('/query/mine-1/'))).status).toBe(404)
  })

  it('answers a stale cached result at once with async (and computes it in a job), and recomputes it with blocking', async () => {
    const asked = pageviews('2026-03-11', { interval: 'week' })
    const before = await query({ query: asked })
    const other = await query({ query: pageviews('2026-03-11') })
    await captureBatch(t, [pv('u9', '2026-03-13T10:00:00Z')])
    await drained(t.wren)
    const stale = await query({ query: asked, refresh: 'async', client_query_id: 'stale-1' })
    expect(stale.status).toBe(202)
    expect([stale.body.is_cached, stale.body.results, stale.body.query_status.complete]).toEqual([true, before.body.results, false])
    const fresh = (await finished('stale-1')).body.query_status.results
    expect(fresh.results[0].count).toBe(before.body.results[0].count + 1)
    const recomputed = await query({ query: pageviews('2026-03-11') })
    expect([recomputed.body.is_cached, recomputed.body.results[0].count]).toEqual([false, other.body.results[0].count + 1])
  })

  it('applies filters_override as a dashboard does: its date range replaces the query’s, its properties are ANDed', async () => {
    const res = await query({
      query: pageviews('2026-03-01', { properties: [{ key: '$browser', value: ['Chrome', 'Safari'], operator: 'exact', type: 'event' }] }),
      filters_override: {
        date_from: '2026-03-12',
        date_to: '2026-03-15',
        properties: [{ key: '$browser', value: 'Safari', operator: 'exact', type: 'event' }],
      },
    })
    expect(res.status).toBe(200)
    expect(res.body.resolved_date_range.date_from).toBe('2026-03-12T00:00:00+00:00')
    expect(res.body.results[0].data).toEqual([1, 0, 0, 0])
  })

  it('refuses what it cannot run with a 400 naming it, in PostHog’s error shape', async () => {
    const refused = async (body: unknown, path = '/query/') => {
      const res = await call('POST', at(path), body)
      expect(res.status, JSON.stringify(res.body)).toBe(400)
      expect(Object.keys(res.body).sort()).toEqual(['attr', 'code', 'detail', 'type'])
      return res.body
    }
    expect((await refused({ query: pageviews('-7d') }, '/query/HogQLQuery/')).detail).toBe(
      'Kind mismatch: the path says HogQLQuery, the query is TrendsQuery.',
    )
    const soup = await refused({ query: { kind: 'Tomato Soup' } })
    expect([soup.code, soup.attr]).toEqual(['parse_error', 'query.kind'])
    expect(soup.detail).toContain("'Tomato Soup'")
    expect((await refused({ query: { kind: 'WebOverviewQuery' } })).detail).toMatch(/^Wren does not compute WebOverviewQuery yet\./)
    expect((await refused({ query: { kind: 'DataTableNode', source: { kind: 'WebStatsTableQuery' } } })).detail).toMatch(
      /WebStatsTableQuery yet/,
    )
    expect((await refused({ refresh: 'blocking' })).attr).toBe('query')
    expect((await refused({ query: pageviews('-7d'), refresh: 'sometimes' })).attr).toBe('refresh')
    expect((await refused({ query: { kind: 'TrendsQuery', series: [{ kind: 'DataWarehouseNode', table_name: 'x' }] } })).detail).toBe(
      'series[0]: Wren does not compute DataWarehouseNode series yet.',
    )
    expect((await refused({ query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', math: 'sum' }] } })).detail).toBe(
      "series[0]: math 'sum' needs math_property.",
    )
  })

  it('shows a job to its project only, and needs query:read', async () => {
    const started = await query({ query: pageviews('2026-03-02'), refresh: 'force_async', client_query_id: 'private-1' })
    expect(started.status).toBe(202)
    const other = await createProject(t, 'Other')
    for (const method of ['GET', 'DELETE']) {
      const res = await call(method, `/api/projects/${other.id}/query/private-1/`)
      expect([res.status, res.body.detail]).toEqual([404, `Query private-1 not found for team ${other.id}.`])
    }
    expect((await finished('private-1')).status).toBe(200)
    const reader = await createKey(t, ['insight:read'])
    for (const [method, path] of [
      ['POST', '/query/'],
      ['GET', '/query/private-1/'],
      ['DELETE', '/query/private-1/'],
    ]) {
      const res = await call(method, at(path), method === 'POST' ? { query: pageviews('-7d') } : undefined, reader.value)
      expect([res.status, res.body.detail], `${method} ${path}`).toEqual([403, "API key missing required scope 'query:read'"])
    }
    const querier = await createKey(t, ['query:read'])
    expect((await call('GET', at('/query/private-1/'), undefined, querier.value)).status).toBe(200)
  })

  it('computes saved insights through the runner, and refuses to save one it could not compute', async () => {
    const saved = await call('POST', at('/insights/'), { name: 'q', query: { kind: 'InsightVizNode', source: pageviews('2026-03-09') } })
    expect(saved.status).toBe(201)
    const read = await call('GET', at(`/insights/${saved.body.id}/`))
    const direct = await query({ query: pageviews('2026-03-09') })
    // One answer, one cache: the endpoint reads what the insight computed.
    expect(read.body.result).toEqual(direct.body.results)
    expect([read.body.last_refresh, read.body.cache_target_age, read.body.hasMore]).toEqual([
      direct.body.last_refresh,
      direct.body.cache_target_age,
      false,
    ])
    expect([read.body.is_cached, direct.body.is_cached]).toEqual([false, true])

    const funnel = await call('POST', at('/insights/'), {
      name: 'f',
      query: { kind: 'InsightVizNode', source: { kind: 'WebOverviewQuery' } },
    })
    expect(funnel.status).toBe(201)
    expect((await call('GET', at(`/insights/${funnel.body.id}/`))).body).toMatchObject({
      result: null,
      result_unavailable: 'Wren does not compute WebOverviewQuery insights yet.',
    })
    for (const query of [
      { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: 'pageviews' } },
      { kind: 'Tomato Soup' },
      { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], interval: 'fortnight' },
    ]) {
      const res = await call('POST', at('/insights/'), { name: 'bad', query })
      expect(res.status, JSON.stringify(query)).toBe(400)
    }
  })
})
