// /api/projects/ and /api/personal_api_keys/: what a key can see and create.
import type { FastifyInstance } from 'fastify'
import { authorize, canReach, hasScope, isValidScope, personalKeyFrom } from '../shared/auth'
import { badRequest, forbidden, notFound } from '../shared/errors'
import { isRecord, sendFormatted } from '../shared/http'
import type { Project, ProjectStore } from './store'

export function serializeProject(p: Project): Record<string, unknown> {
  return { id: p.id, uuid: null, name: p.name, api_token: p.apiToken, timezone: p.timezone, created_at: p.createdAt, ...p.settings }
}

export async function projectRoutes(app: FastifyInstance, deps: { projects: ProjectStore }): Promise<void> {
  const { projects } = deps

  app.get('/api/projects/', async (request, reply) => {
    const key = personalKeyFrom(request, projects)
    if (!hasScope(key, 'project:read')) throw forbidden('permission_denied', "API key missing required scope 'project:read'")
    const results = projects.list().filter((p) => canReach(key, p.id)).map(serializeProject)
    return sendFormatted(request, reply, 200, { count: results.length, next: null, previous: null, results })
  })

  for (const prefix of ['/api/projects', '/api/environments']) {
    app.get<{ Params: { project_id: string } }>(`${prefix}/:project_id/`, async (request, reply) => {
      const { project } = authorize(request, projects, 'project:read', request.params.project_id)
      return sendFormatted(request, reply, 200, serializeProject(project))
    })
    app.patch<{ Params: { project_id: string }; Body: unknown }>(`${prefix}/:project_id/`, async (request, reply) => {
      const { project } = authorize(request, projects, 'project:write', request.params.project_id)
      const body = isRecord(request.body) ? request.body : {}
      const { name, timezone, ...settings } = body
      if (name !== undefined && (typeof name !== 'string' || !name.trim())) throw badRequest('invalid_input', 'name must be a non-empty string.', 'name')
      if (timezone !== undefined && !isTimezone(timezone)) throw badRequest('invalid_input', `Unknown timezone '${String(timezone)}'.`, 'timezone')
      const updated = await projects.updateProject(project.id, {
        ...(name !== undefined ? { name: name as string } : {}),
        ...(timezone !== undefined ? { timezone: timezone as string } : {}),
        settings: { ...project.settings, ...settings },
      })
      return sendFormatted(request, reply, 200, serializeProject(updated))
    })
  }

  app.post<{ Body: unknown }>('/api/projects/', async (request, reply) => {
    const key = personalKeyFrom(request, projects)
    if (!hasScope(key, 'project:write')) throw forbidden('permission_denied', "API key missing required scope 'project:write'")
    if (key.scopedTeams.length > 0) throw forbidden('permission_denied', 'A key limited to some projects cannot create projects.')
    const body = isRecord(request.body) ? request.body : {}
    if (typeof body.name !== 'string' || !body.name.trim()) throw badRequest('required', 'name is required.', 'name')
    const project = await projects.createProject({ name: body.name.trim() })
    return reply.status(201).send(serializeProject(project))
  })

  app.post<{ Body: unknown }>('/api/personal_api_keys/', async (request, reply) => {
    const caller = personalKeyFrom(request, projects)
    if (!caller.scopes.includes('*')) throw forbidden('permission_denied', 'Only a key holding every scope (*) can create keys.')
    const body = isRecord(request.body) ? request.body : {}
    const scopes = body.scopes
    if (!Array.isArray(scopes) || scopes.length === 0 || !scopes.every((s) => typeof s === 'string' && isValidScope(s))) {
      throw badRequest('invalid_input', 'scopes must be a non-empty list like ["person:read", "insight:read"] or ["*"].', 'scopes')
    }
    const teams = body.scoped_teams ?? []
    if (!Array.isArray(teams) || !teams.every((t) => Number.isInteger(t))) throw badRequest('invalid_input', 'scoped_teams must be a list of project ids.', 'scoped_teams')
    for (const t of teams as number[]) if (!projects.byId(t)) throw notFound(`Project ${t} does not exist.`)
    const label = typeof body.label === 'string' ? body.label : 'api'
    const { key, value } = await projects.createPersonalKey({ label, scopes: scopes as string[], scopedTeams: teams as number[] })
    return reply.status(201).send({ id: key.id, label: key.label, value, mask_value: key.maskValue, scopes: key.scopes, scoped_teams: key.scopedTeams, created_at: key.createdAt })
  })
}

function isTimezone(value: unknown): boolean {
  if (typeof value !== 'string') return false
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value })
    return true
  } catch {
    return false
  }
}
