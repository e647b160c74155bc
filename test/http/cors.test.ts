// CORS: the routes browsers call from any site stay open to every origin; the management API answers
// cross-origin requests only from the origins in WREN_CORS_ORIGINS (and the server's own).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWren, type TestWren } from '../support/wren'

const APP = 'https://app.example.com'
const EVIL = 'https://evil.example'

describe('CORS', () => {
  let t: TestWren
  beforeAll(async () => {
    t = await startWren({ WREN_CORS_ORIGINS: `${APP},https://admin.example.com:8443` })
  })
  afterAll(async () => {
    await t?.close()
  })
  const preflight = (path: string, origin: string, method = 'POST') =>
    fetch(t.url + path, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization,content-type' },
    })

  it('keeps capture, decide, flags, remote config, surveys and /static open to any origin', async () => {
    for (const path of [
      '/e/',
      '/batch/',
      '/i/v0/e/',
      '/decide/?v=3',
      '/flags/?v=2',
      `/array/${t.projectKey}/config`,
      `/api/surveys/?token=${t.projectKey}`,
      '/static/recorder.js',
    ]) {
      const res = await preflight(path, EVIL)
      expect(res.status, path).toBeLessThan(300)
      expect(res.headers.get('access-control-allow-origin'), path).toBe(EVIL)
    }
    const decide = await fetch(`${t.url}/decide/?v=3`, {
      method: 'POST',
      headers: { origin: EVIL, 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: t.projectKey, distinct_id: 'u' }),
    })
    expect(decide.status).toBe(200)
    expect(decide.headers.get('access-control-allow-origin')).toBe(EVIL)
    const config = await fetch(`${t.url}/array/${t.projectKey}/config`, { headers: { origin: EVIL } })
    expect(config.headers.get('access-control-allow-origin')).toBe(EVIL)
    // posthog-js fetches the surveys from the customer's page.
    const surveys = await fetch(`${t.url}/api/surveys/?token=${t.projectKey}`, { headers: { origin: EVIL } })
    expect(surveys.headers.get('access-control-allow-origin')).toBe(EVIL)
  })

  it('answers capture’s POST (its own scope) with the CORS headers of its GET and OPTIONS (the plugin’s), errors included', async () => {
    const corsHeaders = (res: Response) =>
      Object.fromEntries([...res.headers].filter(([name]) => name.startsWith('access-control-') || name === 'vary'))
    const data = Buffer.from(JSON.stringify({ api_key: t.projectKey, event: 'cors', distinct_id: 'u' })).toString('base64')
    for (const path of ['/e/', '/batch/', '/i/v0/e/', '/capture/', '/track/', '/engage/'])
      for (const origin of [EVIL, null]) {
        const headers: Record<string, string> = { 'content-type': 'application/json', ...(origin ? { origin } : {}) }
        const post = await fetch(t.url + path, {
          method: 'POST',
          headers,
          body: JSON.stringify({ api_key: t.projectKey, event: 'cors', distinct_id: 'u' }),
        })
        expect(post.status, path).toBe(200)
        const get = await fetch(`${t.url}${path}?data=${encodeURIComponent(data)}`, { headers })
        expect(get.status, path).toBe(200)
        expect(corsHeaders(post), path).toEqual(corsHeaders(get))
        expect(corsHeaders(post), path).toEqual({
          ...(origin ? { 'access-control-allow-origin': origin } : {}),
          'access-control-allow-credentials': 'true',
          vary: 'Origin',
        })
        const refused = await fetch(t.url + path, {
          method: 'POST',
          headers,
          body: JSON.stringify({ api_key: 'phc_nope', event: 'x', distinct_id: 'u' }),
        })
        expect(refused.status, path).toBe(401)
        expect(corsHeaders(refused), path).toEqual(corsHeaders(get))
      }
  })

  it('gives other origins nothing on the management API: no allowed origin, no credentials, a failed preflight', async () => {
    for (const path of [
      '/api/projects/',
      `/api/environments/${t.projectId}/persons/`,
      '/api/personal_api_keys/',
      '/api/feature_flag/local_evaluation/',
      '/flags/definitions',
    ]) {
      const pre = await preflight(path, EVIL, 'GET')
      // No route takes OPTIONS there: 405 (the path's methods in Allow), and no CORS headers.
      expect(pre.status, path).toBe(405)
      expect(pre.headers.get('access-control-allow-origin'), path).toBeNull()
      const res = await fetch(t.url + path, { headers: { origin: EVIL, authorization: `Bearer ${t.personalKey}` } })
      expect(res.headers.get('access-control-allow-origin'), path).toBeNull()
      expect(res.headers.get('access-control-allow-credentials'), path).toBeNull()
    }
  })

  it('answers the configured origins and the server’s own', async () => {
    for (const origin of [APP, 'https://admin.example.com:8443', t.url]) {
      const pre = await preflight(`/api/projects/${t.projectId}/`, origin, 'PATCH')
      expect(pre.status, origin).toBe(204)
      expect(pre.headers.get('access-control-allow-origin'), origin).toBe(origin)
      expect(pre.headers.get('access-control-allow-methods'), origin).toContain('PATCH')
      expect(pre.headers.get('access-control-allow-headers')?.toLowerCase(), origin).toContain('authorization')
      const res = await fetch(`${t.url}/api/projects/`, { headers: { origin, authorization: `Bearer ${t.personalKey}` } })
      expect(res.status).toBe(200)
      expect(res.headers.get('access-control-allow-origin')).toBe(origin)
      expect(res.headers.get('vary')).toMatch(/origin/i)
    }
    // Close is not enough: another scheme, port or subdomain is another origin.
    for (const origin of [
      'http://app.example.com',
      'https://app.example.com:444',
      'https://evil.app.example.com',
      'https://app.example.com.evil.example',
    ]) {
      const res = await fetch(`${t.url}/api/projects/`, { headers: { origin, authorization: `Bearer ${t.personalKey}` } })
      expect(res.headers.get('access-control-allow-origin'), origin).toBeNull()
    }
  })
})
