// Failed management-API authentication is limited per client address (429 with Retry-After), while
// requests with a valid key never count and are never refused, and capture and decide are untouched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, startWren, waitFor, type TestWren } from '../support/wren'
import { clientAddressOf } from '../../services/platform/http/management'

const LIMIT = 5

describe('failed authentication limit', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  beforeAll(async () => {
    t = await startWren({ WREN_AUTH_FAILURE_LIMIT: String(LIMIT), WREN_AUTH_FAILURE_WINDOW_S: '4' })
    call = api(t)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('answers 429 with Retry-After once an address has failed too often, and lets it in again after the window', async () => {
    const route = `/api/projects/${t.projectId}/`
    // Successful requests never count.
    for (let i = 0; i < LIMIT * 4; i++) expect((await call('GET', route)).status).toBe(200)

    const bad = ['phx_wrong0000000000000000000000000000000', null, t.projectKey, 'not a bearer token']
    for (let i = 0; i < LIMIT; i++) expect((await call('GET', route, undefined, bad[i % bad.length])).status, `failure ${i + 1}`).toBe(401)
    const refused = await call('GET', route, undefined, 'phx_wrong0000000000000000000000000000000')
    expect(refused.status).toBe(429)
    expect(refused.body).toMatchObject({ type: 'throttled_error', code: 'throttled' })
    const retryAfter = Number(refused.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(4)
    // Every management route, for any failing request, until the window ends; a forged X-Forwarded-For
    // changes nothing.
    expect((await call('GET', '/api/personal_api_keys/', undefined, null)).status).toBe(429)
    const forged = await fetch(`${t.url}/api/projects/`, {
      headers: { authorization: 'Bearer phx_guess', 'x-forwarded-for': '203.0.113.9' },
    })
    expect(forged.status).toBe(429)
    // A valid key from the same address (everyone behind one proxy) is served all along: the bootstrap
    // key and a key with one scope alike. Its requests are not failures, so they end no lockout either.
    const reader = await call('POST', '/api/personal_api_keys/', { label: 'reader', scopes: ['project:read'] })
    expect(reader.status).toBe(201)
    for (let i = 0; i < LIMIT * 2; i++) {
      expect((await call('GET', route)).status).toBe(200)
      expect((await call('GET', '/api/personal_api_keys/')).status).toBe(200)
      expect((await call('GET', route, undefined, reader.body.value)).status).toBe(200)
    }
    // A valid key without the route's scope is no failed authentication either: its 403 is the route's.
    expect((await call('GET', `${route}persons/`, undefined, reader.body.value)).status).toBe(403)
    expect((await call('GET', route, undefined, 'phx_wrong0000000000000000000000000000000')).status).toBe(429)

    // Capture, decide and remote config take project keys and are never limited.
    const capture = await fetch(`${t.url}/capture/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: t.projectKey, event: 'e', distinct_id: 'u' }),
    })
    expect(capture.status).toBe(200)
    const badCapture = await fetch(`${t.url}/capture/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: 'phc_wrong', event: 'e', distinct_id: 'u' }),
    })
    expect(badCapture.status).toBe(401)
    const decide = await fetch(`${t.url}/decide/?v=3`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: t.projectKey, distinct_id: 'u' }),
    })
    expect(decide.status).toBe(200)
    expect((await fetch(`${t.url}/array/${t.projectKey}/config`)).status).toBe(200)

    await waitFor(async () => (await call('GET', route, undefined, null)).status === 401, {
      timeoutMs: 10_000,
      intervalMs: 500,
      what: 'the window to end',
    })
    expect((await call('GET', route, undefined, 'phx_wrong0000000000000000000000000000000')).status).toBe(401)
  })

  it('believes X-Forwarded-For only from a trusted proxy', () => {
    const request = (peer: string, forwarded?: string) =>
      ({
        raw: {
          socket: { remoteAddress: peer },
          connection: { remoteAddress: peer },
          headers: forwarded ? { 'x-forwarded-for': forwarded } : {},
        },
      }) as never
    expect(clientAddressOf([])(request('10.0.0.5', '203.0.113.9'))).toBe('10.0.0.5')
    const behindProxy = clientAddressOf(['10.0.0.0/8'])
    expect(behindProxy(request('10.0.0.5', '203.0.113.9'))).toBe('203.0.113.9')
    expect(behindProxy(request('10.0.0.5', '198.51.100.7, 10.0.0.9'))).toBe('198.51.100.7')
    expect(behindProxy(request('192.0.2.1', '203.0.113.9'))).toBe('192.0.2.1')
  })
})
