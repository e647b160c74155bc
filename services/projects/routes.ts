// /api/projects/: what a key can see and create (keys themselves: key-routes.ts).
import type { FastifyInstance } from 'fastify'
import { authorize, canReach, hasScope, personalKeyFrom } from '../shared/http/auth'
import { badRequest, forbidden } from '../shared/errors'
import { isRecord, sendFormatted } from '../shared/http'
import type { ProjectStore } from './store'
import type { Project } from '../shared/tenancy'
import { keyRoutes } from './key-routes'
import { applySettings, PROJECT_SETTINGS, READ_ONLY_FIELDS } from './settings'

export function serializeProject(p: Project): Record<string, unknown> {
  // Settings first: nothing stored in them can shadow the project's own fields.
  return { ...knownSettings(p.settings), id: p.id, uuid: null, name: p.name, api_token: p.apiToken, timezone: p.timezone, created_at: p.createdAt }
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
      const current = serializeProject(project)
      for (const field of READ_ONLY_FIELDS) {
        if (!(field in settings)) continue
        if (settings[field] !== current[field]) throw badRequest('read_only', `${field} cannot be changed.`, field)
        delete settings[field]
      }
      if (name !== undefined && (typeof name !== 'string' || !name.trim())) throw badRequest('invalid_input', 'name must be a non-empty string.', 'name')
      if (timezone !== undefined && !isTimezone(timezone)) throw badRequest('invalid_input', `Unknown timezone '${String(timezone)}'.`, 'timezone')
      const updated = await projects.updateProject(project.id, {
        ...(name !== undefined ? { name: name as string } : {}),
        ...(timezone !== undefined ? { timezone: timezone as string } : {}),
        settings: applySettings(knownSettings(project.settings), settings),
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

  await app.register(keyRoutes, { projects })
}

/** Settings stored before the allow-list existed may hold anything: only known keys are shown or kept. */
function knownSettings(settings: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(settings).filter(([k]) => Object.hasOwn(PROJECT_SETTINGS, k)))
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
