// infra/Caddyfile, the cluster's one public entry point, run by Debian's caddy in front of Wren: posthog-js's
// files, remote config, flags, capture, the web app and the API all answer on the proxy's one address, only
// ready processes get requests, and the client's real address reaches Wren however X-Forwarded-For is forged.
import { createServer, type Server } from 'node:http'
import { PostHog } from 'posthog-node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { skipReason } from '../support/skip'
import { api, startWren, waitFor, type TestWren } from '../support/wren'
import { caddyMissing, startCaddy, type Caddy } from './caddy'
import { wrenError } from '../../services/platform/errors'

const skip = skipReason('the proxy test (infra/Caddyfile)', caddyMissing())

describe.skipIf(skip)('infra/Caddyfile in front of Wren', () => {
  let wren: TestWren
  let caddy: Caddy | null = null
  let proxy = ''
  // A process that is up but not ready: /_readyz answers 503, anything else 500, and every request is counted.
  let unready: Server
  const unreadyRequests: string[] = []
  let unreadyChecks = 0

  beforeAll(async () => {
    // Wren believes X-Forwarded-For from the proxy only (here, on loopback).
    wren = await startWren({ WREN_TRUSTED_PROXIES: '127.0.0.1' })
    unready = createServer((req, res) => {
      if (req.url === '/_readyz') unreadyChecks++
      else unreadyRequests.push(req.url ?? '')
      res.writeHead(req.url === '/_readyz' ? 503 : 500).end()
    })
    await new Promise<void>((resolve) => unready.listen(0, '127.0.0.1', resolve))
    const unreadyAt = `127.0.0.1:${(unready.address() as { port: number }).port}`
    const wrenAt = new URL(wren.url).host
    // Every role is the one embedded Wren; capture and decide also list the unready process.
    caddy = await startCaddy({ capture: [wrenAt, unreadyAt], decide: [unreadyAt, wrenAt], api: [wrenAt] })
    proxy = caddy.url
    // Both groups have checked the unready process once: a failed check takes it out at once.
    await waitFor(async () => unreadyChecks >= 2, { what: 'the first health checks', timeoutMs: 10_000 })
  }, 60_000)

  afterAll(async () => {
    await caddy?.stop()
    await new Promise((resolve) => unready?.close(resolve))
    await wren?.close()
  })

  it('serves what posthog-js loads, flags, the web app and the API on one address, from ready processes only', async () => {
    const arrayJs = await fetch(`${proxy}/static/array.js`)
    expect(arrayJs.status).toBe(200)
    expect(arrayJs.headers.get('content-type')).toContain('javascript')
    const config = await fetch(`${proxy}/array/${wren.projectKey}/config.js`)
    expect(config.status).toBe(200)
    expect(await config.text()).toContain(wren.projectKey)
    const configJson = await fetch(`${proxy}/array/${wren.projectKey}/config`)
    expect(configJson.status).toBe(200)
    for (let i = 0; i < 10; i++) {
      const flags = await fetch(`${proxy}/flags/?v=2`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: wren.projectKey, distinct_id: `user-${i}` }),
      })
      expect(flags.status).toBe(200)
      expect(await flags.json()).toHaveProperty('flags')
    }

    const page = await fetch(`${proxy}/`)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('/static/wren/app.js')
    const app = await fetch(`${proxy}/static/wren/app.js`)
    expect(app.status).toBe(200)
    const call = api({ url: proxy, personalKey: wren.personalKey })
    expect((await call('GET', '/api/projects/@current/')).body).toMatchObject({ api_token: wren.projectKey })
    expect(unreadyRequests).toEqual([])
  })

  it('takes posthog-node’s events, and Wren records the client’s own address whatever X-Forwarded-For it sends', async () => {
    const posthog = new PostHog(wren.projectKey, { host: proxy, flushAt: 5, flushInterval: 0 })
    for (let i = 0; i < 20; i++) posthog.capture({ distinctId: 'node-user', event: 'through the proxy', properties: { i } })
    posthog.identify({ distinctId: 'node-user', properties: { plan: 'team' } })
    await posthog.shutdown()

    const forged = await fetch(`${proxy}/e/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.7' },
      body: JSON.stringify({ api_key: wren.projectKey, event: 'forged address', distinct_id: 'browser-user' }),
    })
    expect(forged.status).toBe(200)

    const call = api({ url: proxy, personalKey: wren.personalKey })
    const events = await waitFor(
      async () => {
        const res = await call('GET', '/api/projects/@current/events/?limit=100')
        const results = (res.body?.results ?? []) as Array<{ event: string; properties: Record<string, unknown> }>
        return results.filter((e) => e.event === 'through the proxy').length === 20 && results.some((e) => e.event === 'forged address')
          ? results
          : null
      },
      { what: 'the events through the proxy' },
    )
    expect(events.find((e) => e.event === 'forged address')!.properties.$ip).toBe('127.0.0.1')
    const person = await waitFor(async () => {
      const res = await call('GET', '/api/projects/@current/persons/?distinct_id=node-user')
      return res.body?.results?.[0]?.properties?.plan === 'team' ? res.body.results[0] : null
    })
    expect(person.distinct_ids).toContain('node-user')
    expect(unreadyRequests).toEqual([])
  }, 60_000)

  it('refuses a body over the role’s limit with Wren’s own 413, every time', async () => {
    // The proxy answers from the Content-Length before reading the body (its max_size alone, tripping while
    // it streamed the body on, answered 502 before Wren's 413 arrived): the same answer Wren gives.
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${proxy}/flags/?v=2`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: wren.projectKey, distinct_id: 'x', pad: 'x'.repeat(11 * 1024 * 1024) }),
      })
      expect(res.status).toBe(413)
      expect(res.headers.get('content-type')).toMatch(/^application\/json/)
      expect(await res.json()).toEqual(wrenError('payload_too_large').toJSON())
    }
  })
})
