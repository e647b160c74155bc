// /api/personal_api_keys/: create, list and revoke personal API keys. A key manages only keys that can
// do no more than itself (scopes and projects a subset of its own, see canManageKey), so no key can mint
// or reveal its way to more than it has.
import type { FastifyInstance } from 'fastify'
import { canManageKey, isValidScope, personalKeyFrom, projectsWithin, scopesBeyond } from '../shared/http/auth'
import { badRequest, forbidden, notFound } from '../shared/errors'
import { isRecord, sendFormatted } from '../shared/http'
import type { ProjectStore } from './store'
import type { PersonalApiKey } from '../shared/tenancy'

/** PostHog's shape; the value itself is shown once, at creation. */
export function serializeKey(k: PersonalApiKey): Record<string, unknown> {
  return { id: k.id, label: k.label, mask_value: k.maskValue, scopes: k.scopes, scoped_teams: k.scopedTeams, scoped_organizations: [], created_at: k.createdAt, last_used_at: k.lastUsedAt }
}

export async function keyRoutes(app: FastifyInstance, deps: { projects: ProjectStore }): Promise<void> {
  const { projects } = deps

  app.post<{ Body: unknown }>('/api/personal_api_keys/', async (request, reply) => {
    const caller = personalKeyFrom(request, projects)
    const body = isRecord(request.body) ? request.body : {}
    const scopes = body.scopes
    if (!Array.isArray(scopes) || scopes.length === 0 || !scopes.every((s) => typeof s === 'string' && isValidScope(s))) {
      throw badRequest('invalid_input', 'scopes must be a non-empty list like ["person:read", "insight:read"] or ["*"].', 'scopes')
    }
    const teams = body.scoped_teams ?? []
    if (!Array.isArray(teams) || !teams.every((t) => Number.isInteger(t))) throw badRequest('invalid_input', 'scoped_teams must be a list of project ids.', 'scoped_teams')
    for (const t of teams as number[]) if (!projects.byId(t)) throw notFound(`Project ${t} does not exist.`)
    const missing = scopesBeyond(caller, scopes as string[])
    if (missing.length) throw forbidden('permission_denied', `A key can only create keys with scopes it holds itself; this key does not hold ${missing.map((s) => `'${s}'`).join(', ')}.`)
    if (!projectsWithin(caller, teams as number[])) {
      throw forbidden('permission_denied', `This key is limited to projects ${caller.scopedTeams.join(', ')}: the keys it creates must list scoped_teams within those.`)
    }
    const label = typeof body.label === 'string' ? body.label : 'api'
    const { key, value } = await projects.createPersonalKey({ label, scopes: scopes as string[], scopedTeams: teams as number[] })
    return reply.status(201).send({ ...serializeKey(key), value })
  })

  app.get('/api/personal_api_keys/', async (request, reply) => {
    const caller = personalKeyFrom(request, projects)
    const results = projects.listKeys().filter((k) => canManageKey(caller, k)).map(serializeKey)
    return sendFormatted(request, reply, 200, { count: results.length, next: null, previous: null, results })
  })

  app.get<{ Params: { id: string } }>('/api/personal_api_keys/:id/', async (request, reply) => {
    const caller = personalKeyFrom(request, projects)
    const key = projects.listKeys().find((k) => k.id === request.params.id && canManageKey(caller, k))
    // Keys beyond the caller's reach answer as if they did not exist.
    if (!key) throw notFound('Personal API key not found.')
    return sendFormatted(request, reply, 200, serializeKey(key))
  })

  app.delete<{ Params: { id: string } }>('/api/personal_api_keys/:id/', async (request, reply) => {
    const caller = personalKeyFrom(request, projects)
    const key = projects.listKeys().find((k) => k.id === request.params.id && canManageKey(caller, k))
    if (!key || !(await projects.revokeKey(key.id))) throw notFound('Personal API key not found.')
    return reply.status(204).send()
  })
}
