// `Content-Type: application/json` with no body, as Python's requests (with a JSON header set once on a
// session), axios defaults and many API clients send it on every method: an empty body is no data, never
// an invalid_json 400, as PostHog takes it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWren, type TestWren } from '../support/wren'
import { createKey } from '../support/management'

describe('an empty body with a JSON content type', () => {
  let t: TestWren
  beforeAll(async () => {
    t = await startWren()
  })
  afterAll(async () => {
    await t?.close()
  })

  const send = async (method: string, route: string, body = '') => {
    const res = await fetch(t.url + route, {
      method,
      headers: { authorization: `Bearer ${t.personalKey}`, 'content-type': 'application/json' },
      body: method === 'GET' ? undefined : body,
    })
    const answer: any = res.status === 204 ? null : await res.json()
    return { status: res.status, body: answer }
  }

  it('revokes a key with DELETE (requests.delete with a JSON header), and a second DELETE is a 404', async () => {
    const key = await createKey(t, ['person:read'])
    expect((await send('DELETE', `/api/personal_api_keys/${key.id}/`)).status).toBe(204)
    const again = await send('DELETE', `/api/personal_api_keys/${key.id}/`)
    expect(again.status).toBe(404)
    const list = await send('GET', '/api/personal_api_keys/')
    expect(list.body.results.map((k: { id: string }) => k.id)).not.toContain(key.id)
  })

  it('reads with GET, and deletes an action and a cohort (a flag is deleted by PATCH, as in PostHog)', async () => {
    expect((await send('GET', `/api/projects/${t.projectId}/`)).body).toMatchObject({ id: t.projectId })
    const manage = (method: string, path: string, body: unknown) =>
      send(method, `/api/projects/${t.projectId}/${path}`, JSON.stringify(body))
    const flag = await manage('POST', 'feature_flags/', { key: 'empty-body', filters: { groups: [{ rollout_percentage: 100 }] } })
    const action = await manage('POST', 'actions/', { name: 'Signed up', steps: [{ event: 'signed_up' }] })
    const cohort = await manage('POST', 'cohorts/', {
      name: 'Gold',
      groups: [{ properties: [{ key: 'plan', value: 'gold', type: 'person' }] }],
    })
    expect(flag.status).toBe(201)
    expect((await send('DELETE', `/api/projects/${t.projectId}/feature_flags/${flag.body.id}/`)).status).toBe(405)
    for (const [path, created] of [
      ['actions', action],
      ['cohorts', cohort],
    ] as const) {
      expect(created.status, path).toBe(201)
      const deleted = await send('DELETE', `/api/projects/${t.projectId}/${path}/${created.body.id}/`)
      expect(deleted.status, path).toBeLessThan(300)
    }
  })

  it('takes a PATCH with no body as no change, and a POST with no body names the missing field', async () => {
    const before = await send('GET', `/api/projects/${t.projectId}/`)
    const patched = await send('PATCH', `/api/projects/${t.projectId}/`)
    expect(patched.status).toBe(200)
    expect(patched.body.name).toBe(before.body.name)
    const created = await send('POST', `/api/projects/${t.projectId}/feature_flags/`)
    expect(created.status).toBe(400)
    expect(created.body).toMatchObject({ type: 'validation_error', attr: 'key' })
  })

  it('still refuses a body that is not JSON', async () => {
    const bad = await send('PATCH', `/api/projects/${t.projectId}/`, '{"name":')
    expect(bad.status).toBe(400)
    expect(bad.body).toMatchObject({ code: 'invalid_json' })
  })
})
