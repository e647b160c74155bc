// How PostHog's clients name the project and show the key, and the errors raised before any route (issue 12,
// items 8, 12 and 13): `@current` in place of the project id, a personal API key as `personal_api_key` in the
// query string or the JSON body, and 413/415/431 in the one error shape on management and public routes.
// One Wren, two projects, its log kept to check that no key reaches it.
import http from 'node:http'
import { Writable } from 'node:stream'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { captureBatch, drained, startWren, type TestWren } from '../support/wren'

const LIMIT = 3
const ERROR_KEYS = ['attr', 'code', 'detail', 'type']

describe('project and key as PostHog clients send them', () => {
  let t: TestWren
  let log = ''
  let second: number
  let onlySecond: string
  let both: string
  let peer = 0
  // Every request comes from its own address (Wren trusts the test's X-Forwarded-For), so that failures
  // here never reach the failed-authentication limit, except where a case means to.
  const send = async (
    method: string,
    route: string,
    opts: { key?: string | null; body?: unknown; from?: string } = {},
  ): Promise<{ status: number; body: any }> => {
    const res = await fetch(t.url + route, {
      method,
      headers: {
        'x-forwarded-for': opts.from ?? `10.0.${Math.floor(peer / 250)}.${(peer++ % 250) + 1}`,
        ...(opts.key ? { authorization: `Bearer ${opts.key}` } : {}),
        ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
    })
    const text = await res.text()
    return { status: res.status, body: text ? JSON.parse(text) : null }
  }

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        log += String(chunk)
        done()
      },
    })
    t = await startWren(
      { WREN_AUTH_FAILURE_LIMIT: String(LIMIT), WREN_TRUSTED_PROXIES: '127.0.0.1', LOG_REQUESTS: '1' },
      { logger: pino({ level: 'trace' }, sink) },
    )
    const created = await send('POST', '/api/projects/', { key: t.personalKey, body: { name: 'Second' } })
    expect(created.status).toBe(201)
    second = created.body.id
    const key = async (scopedTeams: number[]) => {
      const res = await send('POST', '/api/personal_api_keys/', {
        key: t.personalKey,
        body: { label: `teams ${scopedTeams.join(' ')}`, scopes: ['*'], scoped_teams: scopedTeams },
      })
      expect(res.status).toBe(201)
      return res.body.value as string
    }
    onlySecond = await key([second])
    both = await key([second, t.projectId])
    await captureBatch(t, [
      { event: 'seen', distinct_id: 'first-a' },
      { event: 'seen', distinct_id: 'first-b' },
    ])
    await captureBatch({ url: t.url, projectKey: created.body.api_token }, [{ event: 'seen', distinct_id: 'second-a' }])
    await drained(t.wren)
  })
  afterAll(async () => {
    await t?.close()
  })

  describe('8. @current as the project id', () => {
    it('is the key’s project: its only one, else the lowest id it reaches, under both prefixes', async () => {
      const everyProject = await send('GET', '/api/projects/@current/', { key: t.personalKey })
      expect(everyProject.status).toBe(200)
      expect(everyProject.body.id).toBe(t.projectId)
      const limited = await send('GET', '/api/environments/@current/', { key: onlySecond })
      expect(limited.status).toBe(200)
      expect(limited.body.id).toBe(second)
      expect((await send('GET', '/api/projects/@current/', { key: both })).body.id).toBe(Math.min(second, t.projectId))

      const persons = await send('GET', '/api/environments/@current/persons/', { key: onlySecond })
      expect(persons.status).toBe(200)
      expect(persons.body.results.flatMap((p: { distinct_ids: string[] }) => p.distinct_ids)).toEqual(['second-a'])
    })

    it('writes go to that project', async () => {
      const flag = { key: 'made-at-current', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } }
      const made = await send('POST', '/api/projects/@current/feature_flags/', { key: onlySecond, body: flag })
      expect(made.status, JSON.stringify(made.body)).toBe(201)
      const keys = async (project: number) =>
        (await send('GET', `/api/projects/${project}/feature_flags/`, { key: t.personalKey })).body.results.map(
          (f: { key: string }) => f.key,
        )
      expect(await keys(second)).toContain('made-at-current')
      expect(await keys(t.projectId)).not.toContain('made-at-current')
      const one = await send('GET', `/api/environments/@current/feature_flags/${made.body.id}/`, { key: onlySecond })
      expect(one.status).toBe(200)
      expect(one.body.key).toBe('made-at-current')
    })

    it('is checked like any project id: the key first', async () => {
      expect((await send('GET', '/api/projects/@current/persons/')).status).toBe(401)
      expect((await send('GET', '/api/projects/@current/persons/', { key: 'phx_notakey' })).status).toBe(401)
      expect((await send('GET', '/api/projects/@elsewhere/persons/', { key: t.personalKey })).body).toMatchObject({
        code: 'invalid_project_id',
        attr: 'project_id',
      })
    })
  })

  describe('13. personal_api_key in the query string or the JSON body', () => {
    it('is taken from the query string, on project routes and routes of the key alone', async () => {
      const persons = await send('GET', `/api/projects/${t.projectId}/persons/?personal_api_key=${t.personalKey}`)
      expect(persons.status, JSON.stringify(persons.body)).toBe(200)
      expect(persons.body.results).toHaveLength(2)
      expect((await send('GET', `/api/personal_api_keys/?personal_api_key=${onlySecond}`)).status).toBe(200)
      const definitions = await send('GET', `/api/feature_flag/local_evaluation/?token=${t.projectKey}&personal_api_key=${t.personalKey}`)
      expect(definitions.status).toBe(200)
      expect((await send('GET', `/api/projects/@current/?personal_api_key=${onlySecond}`)).body.id).toBe(second)
    })

    it('is taken from a JSON body, and is not kept as one of the body’s fields', async () => {
      const renamed = await send('PATCH', `/api/projects/${t.projectId}/`, { body: { name: 'Renamed', personal_api_key: t.personalKey } })
      expect(renamed.status, JSON.stringify(renamed.body)).toBe(200)
      expect(renamed.body.name).toBe('Renamed')
      expect(renamed.body).not.toHaveProperty('personal_api_key')
      const cohort = await send('POST', `/api/projects/${t.projectId}/cohorts/`, {
        body: { name: 'from body', groups: [{ properties: [] }], personal_api_key: t.personalKey },
      })
      expect(cohort.status, JSON.stringify(cohort.body)).toBe(201)
      expect(JSON.stringify(cohort.body)).not.toContain(t.personalKey)
      // A key in the header leaves a body key unread (and unstored).
      const flag = await send('POST', `/api/projects/${t.projectId}/feature_flags/`, {
        key: t.personalKey,
        body: { key: 'header-wins', filters: { groups: [] }, personal_api_key: 'phx_ignored' },
      })
      expect(flag.status, JSON.stringify(flag.body)).toBe(201)
    })

    it('tries only the first key found: the header, then the body, then the query string', async () => {
      const query = `?personal_api_key=${t.personalKey}`
      const header = await send('GET', `/api/projects/${t.projectId}/persons/${query}`, { key: 'phx_notakey' })
      expect(header.status).toBe(401)
      expect(header.body).toMatchObject({ code: 'authentication_failed', detail: expect.stringContaining('Authorization header') })
      const body = await send('PATCH', `/api/projects/${t.projectId}/${query}`, { body: { personal_api_key: 'phx_notakey' } })
      expect(body.status).toBe(401)
      expect(body.body.detail).toContain('body')
      const inQuery = await send('GET', `/api/projects/${t.projectId}/persons/?personal_api_key=phx_notakey`)
      expect(inQuery.status).toBe(401)
      expect(inQuery.body.detail).toContain('query string')
    })

    it('counts for the failed-authentication limit as a header key does', async () => {
      const good = '192.0.2.1'
      for (let i = 0; i < LIMIT + 2; i++) {
        expect((await send('GET', `/api/projects/${t.projectId}/?personal_api_key=${t.personalKey}`, { from: good })).status).toBe(200)
        const patched = await send('PATCH', `/api/projects/${t.projectId}/`, { from: good, body: { personal_api_key: t.personalKey } })
        expect(patched.status).toBe(200)
      }
      const bad = '192.0.2.2'
      for (let i = 0; i < LIMIT; i++)
        expect((await send('GET', `/api/projects/${t.projectId}/?personal_api_key=phx_guess${i}`, { from: bad })).status).toBe(401)
      expect((await send('GET', `/api/projects/${t.projectId}/?personal_api_key=phx_guess`, { from: bad })).status).toBe(429)
      const refused = await send('PATCH', `/api/projects/${t.projectId}/`, { from: bad, body: { personal_api_key: 'phx_guess' } })
      expect(refused.status).toBe(429)
      // The limit slows only failures: a valid key in the body is served from that address all the same.
      const served = await send('PATCH', `/api/projects/${t.projectId}/`, { from: bad, body: { personal_api_key: t.personalKey } })
      expect(served.status).toBe(200)
    })

    it('never appears in next/previous links', async () => {
      const first = await send('GET', `/api/projects/${t.projectId}/persons/?limit=1&personal_api_key=${t.personalKey}`)
      expect(first.status).toBe(200)
      const next = first.body.next as string
      expect(next).toContain('limit=1')
      expect(next).not.toContain('personal_api_key')
      expect(next).not.toContain(t.personalKey)
      const page = await fetch(next, { headers: { authorization: `Bearer ${t.personalKey}` } })
      const body = (await page.json()) as { results: unknown[]; previous: string }
      expect(body.results).toHaveLength(1)
      expect(body.previous).not.toContain(t.personalKey)
    })

    it('never reaches the log', async () => {
      await send('GET', `/api/projects/${t.projectId}/persons/?personal_api_key=${t.personalKey}&limit=1`)
      await send('GET', `/api/projects/${t.projectId}/persons/?personal_api_key=phx_wrongwrongwrong`)
      expect(log).toContain('"route":"/api/projects/:project_id/persons/"')
      // A request logged whole (Fastify's `req`) shows its URL without the key.
      const request = { method: 'GET', url: `/api/projects/1/persons/?limit=1&personal_api_key=${t.personalKey}`, host: 'h', ip: '::1' }
      t.wren.app.log.info({ req: request }, 'a logged request')
      expect(log).toContain('"url":"/api/projects/1/persons/?limit=1"')
      expect(log).not.toContain(t.personalKey)
      expect(log).not.toContain(onlySecond)
      expect(log).not.toContain('phx_wrongwrongwrong')
      // Nor a recording's sharing token, in the query string or in the shared page's path.
      for (const url of [`/api/projects/1/session_recordings/s1/?sharing_access_token=${'tok'.repeat(15)}`, `/shared/${'tok'.repeat(15)}`])
        t.wren.app.log.info({ req: { method: 'GET', url, host: 'h', ip: '::1' } }, 'a logged request')
      expect(log).toContain('"url":"/api/projects/1/session_recordings/s1/"')
      expect(log).toContain('"url":"/shared/<token>"')
      expect(log).not.toContain('tok'.repeat(15))
    })
  })

  describe('12. errors raised before a route', () => {
    const post = (path: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; body: any }> =>
      new Promise((resolve, reject) => {
        const url = new URL(t.url + path)
        const request = http.request({ host: url.hostname, port: url.port, path, method: 'POST', headers }, (res) => {
          let text = ''
          res.on('data', (chunk) => (text += chunk))
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }))
        })
        request.on('error', reject)
        request.end(body)
      })
    const routes = () => [
      { path: `/api/projects/${t.projectId}/cohorts/`, management: true },
      ...['/e/', '/batch/', '/s/', '/flags/?v=2', '/decide/?v=3'].map((path) => ({ path, management: false })),
    ]

    it('413: a body over the limit', async () => {
      const huge = Buffer.alloc(20 * 1024 * 1024 + 1, 'a')
      for (const { path } of routes()) {
        const res = await post(path, { authorization: `Bearer ${t.personalKey}`, 'content-type': 'application/json' }, huge)
        expect(res.status, path).toBe(413)
        expect(Object.keys(res.body).sort(), path).toEqual(ERROR_KEYS)
        expect(res.body.code).toBe('payload_too_large')
      }
    })

    it('415: a body type the route does not read (the SDK routes read any, and answer 400)', async () => {
      for (const { path, management } of routes()) {
        const res = await post(
          path,
          { authorization: `Bearer ${t.personalKey}`, 'content-type': 'application/x-unknown' },
          Buffer.from('x'),
        )
        expect(Object.keys(res.body).sort(), path).toEqual(ERROR_KEYS)
        if (management) {
          expect(res.status).toBe(415)
          expect(res.body).toMatchObject({
            code: 'unsupported_media_type',
            detail: 'Unsupported media type "application/x-unknown" in request.',
          })
        } else expect(res.status, path).toBe(400)
      }
    })

    it('431: headers over the limit', async () => {
      for (const { path } of routes()) {
        const res = await post(path, { 'content-type': 'application/json', 'x-big': 'a'.repeat(20_000) }, Buffer.from('{}'))
        expect(res.status, path).toBe(431)
        expect(Object.keys(res.body).sort(), path).toEqual(ERROR_KEYS)
        expect(res.body.code).toBe('headers_too_large')
      }
    })
  })
})
