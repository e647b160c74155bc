// X-Forwarded-Host, -Proto and -For are any client's to write: Wren believes them only from the proxies in
// WREN_TRUSTED_PROXIES, for the links it builds (`next`), its own origin (the CORS same-origin check) and a
// captured event's $ip. Wren trusts 127.0.0.2 here; the test's requests come from 127.0.0.1 (a client) or
// 127.0.0.2 (the proxy), both on the loopback interface.
import http from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { captureBatch, drained, startWren, type TestWren } from '../support/wren'

const PROXY = '127.0.0.2'
const CLIENT = '127.0.0.1'
const FORWARDED = { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' }

describe('forwarded headers', () => {
  let t: TestWren
  const get = (from: string, path: string, headers: Record<string, string>) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const request = http.get(t.url + path, { localAddress: from, headers }, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (body += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      })
      request.on('error', reject)
    })
  const send = (from: string, path: string, body: unknown, headers: Record<string, string>) =>
    new Promise<number>((resolve, reject) => {
      const request = http.request(
        t.url + path,
        { method: 'POST', localAddress: from, headers: { ...headers, 'content-type': 'application/json' } },
        (res) => {
          res.resume()
          res.on('end', () => resolve(res.statusCode ?? 0))
        },
      )
      request.on('error', reject)
      request.end(JSON.stringify(body))
    })

  beforeAll(async () => {
    t = await startWren({ WREN_TRUSTED_PROXIES: PROXY })
    await captureBatch(t, [
      { event: 'seen', distinct_id: 'fw-ada', timestamp: '2026-03-01T10:00:00Z' },
      { event: 'seen', distinct_id: 'fw-bob', timestamp: '2026-03-02T10:00:00Z' },
    ])
    for (const [from, id] of [
      [CLIENT, 'fw-client'],
      [PROXY, 'fw-proxied'],
    ])
      expect(await send(from, '/capture/', { api_key: t.projectKey, event: 'ip', distinct_id: id }, FORWARDED)).toBe(200)
    await drained(t.wren)
  })
  afterAll(async () => {
    await t?.close()
  })

  const nextLink = async (from: string) => {
    const res = await get(from, `/api/projects/${t.projectId}/events/?event=seen&limit=1`, {
      ...FORWARDED,
      authorization: `Bearer ${t.personalKey}`,
    })
    expect(res.status).toBe(200)
    return new URL(JSON.parse(res.body).next).origin
  }

  it('builds links on the Host a client sent, and on the forwarded host only from a trusted proxy', async () => {
    expect(await nextLink(CLIENT)).toBe(t.url)
    expect(await nextLink(PROXY)).toBe('https://evil.example')
  })

  it('takes a forwarded origin as its own only from a trusted proxy', async () => {
    const headers = { ...FORWARDED, origin: 'https://evil.example', authorization: `Bearer ${t.personalKey}` }
    const fromClient = await get(CLIENT, `/api/projects/${t.projectId}/`, headers)
    expect(fromClient.status).toBe(200)
    expect(fromClient.headers['access-control-allow-origin']).toBeUndefined()
    const fromProxy = await get(PROXY, `/api/projects/${t.projectId}/`, headers)
    expect(fromProxy.headers['access-control-allow-origin']).toBe('https://evil.example')
  })

  it('records a captured event’s $ip from X-Forwarded-For only from a trusted proxy', async () => {
    const ipOf = async (distinctId: string) => {
      const res = await get(CLIENT, `/api/projects/${t.projectId}/events/?distinct_id=${distinctId}`, {
        authorization: `Bearer ${t.personalKey}`,
      })
      return JSON.parse(res.body).results[0]?.properties?.$ip
    }
    expect(await ipOf('fw-client')).toBe(CLIENT)
    expect(await ipOf('fw-proxied')).toBe('203.0.113.9')
  })
})
