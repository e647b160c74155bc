// Query strings and ids a hostile client sends: a repeated parameter takes its first value on every route
// (the SDK decoders never see an array), and a number past 2^53 is a 400 naming an integer field, or a
// 404 for a record's id: never a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWren, type TestWren } from '../support/wren'

const UNSAFE = ['1e30', '99999999999999999999', '-99999999999999999999', '9007199254740993']

describe('query strings never throw', () => {
  let t: TestWren
  beforeAll(async () => {
    t = await startWren()
  })
  afterAll(async () => {
    await t?.close()
  })

  const send = async (method: string, route: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(t.url + route, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    return { status: res.status, type: res.headers.get('content-type'), text }
  }
  const manage = (method: string, route: string, body?: unknown) => send(method, route, body, { authorization: `Bearer ${t.personalKey}` })

  it('takes the first value of a repeated parameter on every SDK path', async () => {
    const event = { api_key: t.projectKey, event: 'repeated', distinct_id: 'd', properties: { $session_id: 's', $window_id: 'w' } }
    const bodies: Record<string, unknown> = {
      '/e/': event,
      '/i/v0/e/': event,
      '/batch/': { api_key: t.projectKey, batch: [event] },
      '/s/': { api_key: t.projectKey, event: '$snapshot', distinct_id: 'd', properties: { $session_id: 's', $snapshot_data: [] } },
      '/decide/': { api_key: t.projectKey, distinct_id: 'd' },
      '/flags/': { api_key: t.projectKey, distinct_id: 'd' },
    }
    const first = 'compression=none&_=1700000000000&sent_at=1700000000000&ver=1.0.0&v=3'
    const repeated = 'compression=none&compression=gzip&_=1700000000000&_=x&sent_at=1700000000000&sent_at=y&ver=1.0.0&ver=2&v=3&v=1'
    for (const [path, body] of Object.entries(bodies)) {
      const single = await send('POST', `${path}?${first}`, body)
      const twice = await send('POST', `${path}?${repeated}`, body)
      expect(single.status, path).toBeLessThan(500)
      // The same answer as the first values alone (but for the per-request id and time decide stamps).
      const same = (text: string) => text.replace(/"requestId":"[^"]*"|"evaluatedAt":\d+/g, '')
      expect({ path, status: twice.status, text: same(twice.text) }).toEqual({ path, status: single.status, text: same(single.text) })
      // A GET with only the query string (no body) answers a 4xx, not a 500.
      expect((await send('GET', `${path}?${repeated}`)).status, `GET ${path}`).toBeLessThan(500)
    }
  })

  it('takes the first value of a repeated parameter on a management route', async () => {
    const list = await manage('GET', `/api/projects/${t.projectId}/actions/?format=json&format=csv`)
    expect(list.status).toBe(200)
    expect(list.type).toMatch(/^application\/json/)
    const persons = await manage('GET', `/api/projects/${t.projectId}/persons/?limit=5&limit=abc`)
    expect(persons.status).toBe(200)
  })

  it('answers 404 for record ids past 2^53 on every id route of actions, cohorts, flags and persons', async () => {
    const idRoutes = t.wren.routes.filter((r) =>
      /^\/api\/projects\/:project_id\/(actions|cohorts|feature_flags|persons)\/:id\//.test(r.url),
    )
    expect(idRoutes.length).toBeGreaterThan(10)
    for (const { method, url } of idRoutes) {
      if (method === 'HEAD' || method === 'OPTIONS') continue
      for (const id of UNSAFE) {
        const path = url.replace(':project_id', String(t.projectId)).replace(':id', id)
        const res = await manage(method, path, method === 'GET' || method === 'DELETE' ? undefined : {})
        expect({ route: `${method} ${path}`, status: res.status }).toEqual({ route: `${method} ${path}`, status: 404 })
        expect(JSON.parse(res.text)).toMatchObject({
          code: 'not_found',
          attr: 'id',
          detail: `No record has id '${id}': ids stay below 2^53.`,
        })
      }
    }
  })

  it('answers 400 naming the field for integer query parameters past 2^53', async () => {
    const lists = t.wren.routes.filter((r) => r.method === 'GET' && /^\/api\/projects\/:project_id\/[^:]*$/.test(r.url))
    expect(lists.length).toBeGreaterThan(5)
    for (const { url } of lists)
      for (const name of ['limit', 'offset', 'page']) {
        const path = `${url.replace(':project_id', String(t.projectId))}?${name}=99999999999999999999`
        const res = await manage('GET', path)
        expect(res.status, path).toBeLessThan(500)
        if (res.status === 400) expect(JSON.parse(res.text), path).toMatchObject({ attr: name })
      }
    const page = await manage('GET', `/api/projects/${t.projectId}/persons/1/activity/?page=1e30`)
    expect(page.status).toBe(400)
    expect(JSON.parse(page.text)).toMatchObject({ attr: 'page', detail: expect.stringContaining('page must be an integer') })
  })

  it('answers 400 naming the field for integer query parameters that read as infinite', async () => {
    // '1e400' and 'Infinity' coerce to Infinity, which the validator's range checks let through.
    const lists = t.wren.routes.filter((r) => r.method === 'GET' && /^\/api\/projects\/:project_id\/[^:]*$/.test(r.url))
    for (const { url } of lists)
      for (const name of ['limit', 'offset', 'page'])
        for (const value of ['1e400', 'Infinity', '-1e400']) {
          const path = `${url.replace(':project_id', String(t.projectId))}?${name}=${value}`
          const res = await manage('GET', path)
          expect({ path, status: res.status }).toEqual({ path, status: res.status < 500 ? res.status : 'below 500' })
          if (res.status === 400) expect(JSON.parse(res.text), path).toMatchObject({ attr: name })
        }
    const persons = await manage('GET', `/api/projects/${t.projectId}/persons/?limit=1e400`)
    expect({ status: persons.status, body: JSON.parse(persons.text) }).toEqual({
      status: 400,
      body: {
        type: 'validation_error',
        code: 'invalid_input',
        attr: 'limit',
        detail: "limit must be an integer from 1 to 1000, got 'Infinity'.",
      },
    })
  })
})
