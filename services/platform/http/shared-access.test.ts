// A route that declares `sharedRecording` (route.ts) with fakes of the project and sharing stores: a
// sharing token opens GETs of its one recording in its one project, the handler learns that the caller
// is a token and not a key, and requests with a valid token never count against the failed-authentication
// limit (management.ts) while invalid ones do.
import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Type } from 'typebox'
import { installErrorHandler } from './error-handler'
import { guardManagementRoutes } from './management'
import { routesOf } from './route'
import { installValidation } from './validation'
import type { SharedRecording, SharingTokens } from './auth'
import type { PersonalApiKey, Project, Tenants } from '../tenancy'

const project = (id: number): Project => ({ id, name: `p${id}`, apiToken: `phc_${id}`, timezone: 'UTC', settings: {}, createdAt: '' })
const key: PersonalApiKey = {
  id: 'k',
  label: 'k',
  maskValue: 'phx_...k',
  scopes: ['*'],
  scopedTeams: [],
  createdAt: '',
  lastUsedAt: null,
}
const tenants: Tenants = {
  byId: (id) => (id === 1 || id === 2 ? project(id) : undefined),
  list: () => [project(1), project(2)],
  byToken: () => undefined,
  keyByValue: (value) => (value === 'phx_valid' ? key : undefined),
  markKeyUsed: () => {},
  sessionByToken: async () => undefined,
}
const LIMIT = 3

describe('routes that take a sharing token', () => {
  let app: FastifyInstance
  const lookups: string[] = []
  const sharing: SharingTokens = {
    async findEnabled(token): Promise<SharedRecording | null> {
      lookups.push(token)
      return token === 'tok-1' ? { teamId: 1, sessionId: 's1' } : null
    },
  }

  beforeAll(async () => {
    app = Fastify()
    app.setNotFoundHandler(installErrorHandler(app))
    installValidation(app)
    await guardManagementRoutes(app, { projects: tenants, authFailures: { max: LIMIT, windowMs: 60_000, trustedProxies: [] }, sharing })
    const route = routesOf(app, { projects: tenants, tag: 't', sharing })
    route({
      method: 'GET',
      url: '/things/:id/',
      summary: 'one',
      access: { project: 'session_recording:read', sharedRecording: 'id' },
      schema: { params: Type.Object({ id: Type.String() }) },
      handler: async (request, _reply, caller) => ({ id: request.params.id, by: caller.key === null ? 'token' : 'key' }),
    })
    route({
      method: 'GET',
      url: '/things/',
      summary: 'all',
      access: { project: 'session_recording:read' },
      schema: {},
      handler: async () => ({ results: [] }),
    })
    await app.ready()
  })
  afterAll(async () => {
    await app.close()
  })

  const get = (url: string, authorization?: string, remoteAddress = '127.0.0.1') =>
    app.inject({ method: 'GET', url, remoteAddress, headers: authorization ? { authorization } : {} })

  it('lets a token in to its recording only, and tells the handler', async () => {
    expect((await get('/api/projects/1/things/s1/?sharing_access_token=tok-1')).json()).toEqual({ id: 's1', by: 'token' })
    expect((await get('/api/environments/1/things/s1/?sharing_access_token=tok-1')).statusCode).toBe(200)
    expect((await get('/api/projects/1/things/s1/', 'Bearer phx_valid')).json()).toEqual({ id: 's1', by: 'key' })
    expect((await get('/api/projects/1/things/s2/?sharing_access_token=tok-1')).statusCode).toBe(403)
    expect((await get('/api/projects/2/things/s1/?sharing_access_token=tok-1')).statusCode).toBe(403)
    // `@current` is a key's project: a token alone names none, even the one its recording is in.
    expect((await get('/api/projects/@current/things/s1/?sharing_access_token=tok-1')).statusCode).toBe(403)
    expect((await get('/api/projects/@current/things/s1/?sharing_access_token=tok-1', 'Bearer phx_valid')).statusCode).toBe(403)
    expect((await get('/api/projects/@current/things/s1/', 'Bearer phx_valid')).json()).toEqual({ id: 's1', by: 'key' })
    // A route that does not declare sharing ignores the token and wants a key.
    expect((await get('/api/projects/1/things/?sharing_access_token=tok-1')).statusCode).toBe(401)
    // The token decides when there is one, even beside a valid key.
    expect((await get('/api/projects/1/things/s1/?sharing_access_token=nope', 'Bearer phx_valid')).json()).toMatchObject({
      code: 'authentication_failed',
    })
  })

  it('refuses to declare a sharing route that is not a GET', () => {
    const route = routesOf(Fastify(), { projects: tenants, tag: 't', sharing })
    expect(() =>
      route({
        method: 'DELETE',
        url: '/things/:id/',
        summary: 'x',
        access: { project: 'session_recording:write', sharedRecording: 'id' },
        schema: {},
        handler: async () => null,
      }),
    ).toThrow(/GET route/)
  })

  it('never counts a valid token as a failed authentication, and counts an invalid one', async () => {
    // An address of its own: the requests above count for theirs.
    const viewer = (url: string) => get(url, undefined, '192.0.2.7')
    lookups.length = 0
    for (let i = 0; i < LIMIT * 4; i++) expect((await viewer('/api/projects/1/things/s1/?sharing_access_token=tok-1')).statusCode).toBe(200)
    // One lookup per request, shared by the limit and the route.
    expect(lookups).toHaveLength(LIMIT * 4)
    for (let i = 0; i < LIMIT; i++) expect((await viewer('/api/projects/1/things/s1/?sharing_access_token=guess')).statusCode).toBe(401)
    expect((await viewer('/api/projects/1/things/s1/?sharing_access_token=guess')).statusCode).toBe(429)
  })
})
