// Input that used to answer 500 (or a text/plain 400): every one is a JSON 400 now, naming what is wrong.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'

const nested = (depth: number, leaf = '1'): string => '{"a":'.repeat(depth) + leaf + '}'.repeat(depth)

describe('bad input answers a JSON 4xx, never a 500', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  beforeAll(async () => {
    t = await startWren()
    call = api(t)
  })
  afterAll(async () => {
    await t?.close()
  })

  const send = async (method: string, route: string, body: string, headers: Record<string, string> = {}) => {
    const res = await fetch(t.url + route, { method, headers: { 'content-type': 'application/json', ...headers }, body })
    return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as Record<string, unknown> }
  }
  const tooDeep = {
    status: 400,
    type: expect.stringMatching(/^application\/json/),
    body: { type: 'validation_error', code: 'json_too_deep', detail: expect.stringContaining('128 levels') },
  }

  it('refuses event properties nested thousands of levels deep, on every capture path', async () => {
    for (const route of ['/e/', '/i/v0/e/', '/capture/']) {
      expect(
        await send('POST', route, `{"api_key":"${t.projectKey}","event":"deep","distinct_id":"d","properties":${nested(5_000)}}`),
      ).toMatchObject(tooDeep)
    }
    expect(
      await send(
        'POST',
        '/batch/',
        `{"api_key":"${t.projectKey}","batch":[{"event":"deep","distinct_id":"d","properties":{"x":${nested(100_000)}}}]}`,
      ),
    ).toMatchObject(tooDeep)
    // 100 levels are fine, and stored.
    expect(
      (await send('POST', '/e/', `{"api_key":"${t.projectKey}","event":"nested-ok","distinct_id":"d","properties":{"n":${nested(100)}}}`))
        .status,
    ).toBe(200)
    await drained(t.wren)
    const stored = await call('GET', `/api/projects/${t.projectId}/events/?event=nested-ok`)
    expect(JSON.stringify(stored.body.results[0].properties.n)).toBe(nested(100))
  })

  it('refuses deeply nested decide and flags bodies', async () => {
    for (const route of ['/decide/?v=3', '/flags/?v=2']) {
      expect(
        await send('POST', route, `{"api_key":"${t.projectKey}","distinct_id":"d","person_properties":${nested(5_000)}}`),
      ).toMatchObject(tooDeep)
    }
  })

  it('refuses deeply nested management bodies and query JSON', async () => {
    const auth = { authorization: `Bearer ${t.personalKey}` }
    expect(await send('PATCH', `/api/projects/${t.projectId}/`, `{"settings":${nested(5_000)}}`, auth)).toMatchObject(tooDeep)
    expect(
      await send(
        'POST',
        `/api/projects/${t.projectId}/feature_flags/`,
        `{"key":"deep","filters":{"groups":[{"rollout_percentage":100}],"payloads":{"true":${nested(5_000)}}}}`,
        auth,
      ),
    ).toMatchObject(tooDeep)
    await captureBatch(t, [{ event: 'seen', distinct_id: 'deep-person', properties: { $set: { plan: 'free' } } }])
    await drained(t.wren)
    const person = (await call('GET', `/api/environments/${t.projectId}/persons/?distinct_id=deep-person`)).body.results[0]
    expect(
      await send('PATCH', `/api/environments/${t.projectId}/persons/${person.id}/`, `{"properties":${nested(5_000)}}`, auth),
    ).toMatchObject(tooDeep)
    const deepFilter = encodeURIComponent('['.repeat(2_000) + ']'.repeat(2_000))
    const res = await call('GET', `/api/projects/${t.projectId}/events/?properties=${deepFilter}`)
    expect({ status: res.status, body: res.body }).toMatchObject({ status: 400, body: { code: 'json_too_deep', attr: 'properties' } })
  })

  it('refuses a properties_timeline date that is not an ISO date (date_from=0)', async () => {
    await captureBatch(t, [{ event: 'seen', distinct_id: 'timeline-person', properties: { $set: { plan: 'pro' } } }])
    await drained(t.wren)
    const person = (await call('GET', `/api/environments/${t.projectId}/persons/?distinct_id=timeline-person`)).body.results[0]
    for (const query of ['date_from=0', 'date_to=1', 'date_from=tomorrow']) {
      const res = await call('GET', `/api/environments/${t.projectId}/persons/${person.id}/properties_timeline/?${query}`)
      expect({ query, status: res.status, body: res.body }).toMatchObject({
        query,
        status: 400,
        body: { type: 'validation_error', attr: query.split('=')[0] },
      })
    }
    const ok = await call('GET', `/api/environments/${t.projectId}/persons/${person.id}/properties_timeline/?date_from=2000-01-01`)
    expect(ok.status).toBe(200)
  })

  it('stores a distinct_id and properties holding half an emoji with U+FFFD in its place, and ingestion goes on', async () => {
    // A client that cut a string between the two halves of an emoji; JSON.stringify sends the half as \ud83d.
    await captureBatch(t, [{ event: 'half-emoji', distinct_id: 'cut-\ud83d', properties: { ['title\udc00']: 'a\ud83d', whole: '😀' } }])
    // An alias reaches the person uuid (uuid v5 of the id), whose encodeURIComponent threw and stalled ingestion.
    await captureBatch(t, [{ event: '$create_alias', distinct_id: 'cut-alias', properties: { alias: 'alias-\ud83d' } }])
    await captureBatch(t, [{ event: 'after-half-emoji', distinct_id: 'next' }])
    await drained(t.wren)
    const [stored] = (await call('GET', `/api/projects/${t.projectId}/events/?event=half-emoji`)).body.results
    expect(stored).toMatchObject({ distinct_id: 'cut-\ufffd', properties: { 'title\ufffd': 'a\ufffd', whole: '😀' } })
    expect((await call('GET', `/api/projects/${t.projectId}/events/?event=after-half-emoji`)).body.results).toHaveLength(1)
  })

  it('answers OPTIONS on /decide/ and /flags/ without an Origin with 204, as capture does', async () => {
    for (const route of ['/decide/', '/flags/', '/e/']) {
      const res = await fetch(t.url + route, { method: 'OPTIONS' })
      expect({ route, status: res.status }).toEqual({ route, status: 204 })
    }
  })

  it('answers errors raised before routing (a malformed URL, oversized headers) in the same JSON shape', async () => {
    const badUrl = await fetch(`${t.url}/api/%zz`)
    expect(badUrl.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await badUrl.json()).toMatchObject({ type: 'validation_error', detail: expect.stringContaining('/api/%zz'), attr: null })
    const bigHeaders = await fetch(`${t.url}/_health`, { headers: { 'x-filler': 'x'.repeat(20_000) } })
    expect(bigHeaders.status).toBe(431)
    expect(await bigHeaders.json()).toEqual({ type: 'invalid_request', code: 'headers_too_large', detail: expect.any(String), attr: null })
  })
})
