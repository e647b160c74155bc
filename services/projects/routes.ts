// /api/projects/: what a key can see and create (keys themselves: key-routes.ts).
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { canReach } from '../platform/http/auth'
import { wrenError } from '../platform/errors'
import { sendFormatted } from '../platform/http/format'
import { routesOf } from '../platform/http/route'
import { Format, MAX_LIST_LIMIT, Paginated, Paging } from '../platform/http/schemas'
import { pageOfList } from '../platform/http/request-url'
import { ProjectAnswer } from './schemas'
import type { ProjectStore } from './store'
import type { Project } from '../platform/tenancy'
import { keyRoutes } from './key-routes'
import { applySettings, PROJECT_SETTINGS, READ_ONLY_FIELDS } from '../analytics/project-settings'

/** A project in PostHog's TeamSerializer's shape; `organizationId`: the organization's uuid, which clients read. */
export function serializeProject(p: Project, organizationId: string): Record<string, unknown> {
  // Settings first: nothing stored in them can shadow the project's own fields.
  return {
    primary_dashboard: null,
    ...knownSettings(p.settings),
    id: p.id,
    uuid: null,
    organization: organizationId,
    name: p.name,
    api_token: p.apiToken,
    timezone: p.timezone,
    created_at: p.createdAt,
  }
}

const Name = Type.String({ minLength: 1, pattern: '\\S', description: 'a non-empty name' })

export async function projectRoutes(
  app: FastifyInstance,
  deps: { projects: ProjectStore; siteUrl: string | null; organizationId: () => string },
): Promise<void> {
  const serialize = (p: Project) => serializeProject(p, deps.organizationId())
  const { projects, siteUrl } = deps
  const route = routesOf(app, { projects, tag: 'projects' })

  route({
    method: 'GET',
    url: '/api/projects/',
    summary: 'List the projects this key reaches',
    access: { key: 'project:read' },
    description: 'In the order they were created.',
    schema: {
      querystring: Type.Object({ ...Paging(100, MAX_LIST_LIMIT), format: Type.Optional(Format) }),
      response: { 200: Paginated(ProjectAnswer) },
    },
    handler: async (request, reply, key) => {
      const reached = projects
        .list()
        .filter((p) => canReach(key, p.id))
        .sort((a, b) => a.id - b.id)
      const page = pageOfList(request, siteUrl, reached, request.query, 100)
      return sendFormatted(request, reply, 200, { ...page, results: page.results.map(serialize) })
    },
  })

  route({
    method: 'GET',
    url: '/',
    summary: 'Retrieve a project',
    access: { project: 'project:read' },
    schema: { querystring: Type.Object({ format: Type.Optional(Format) }), response: { 200: ProjectAnswer } },
    handler: async (request, reply, { project }) => sendFormatted(request, reply, 200, serialize(project)),
  })

  route({
    method: 'PATCH',
    url: '/',
    summary: 'Update a project’s name, timezone or settings',
    description: `Settings: ${Object.keys(PROJECT_SETTINGS).join(', ')}; null puts one back to its default. ${READ_ONLY_FIELDS.join(', ')} may be sent back unchanged, never changed.`,
    access: { project: 'project:write' },
    schema: {
      querystring: Type.Object({ format: Type.Optional(Format) }),
      body: Type.Object(
        { name: Type.Optional(Name), timezone: Type.Optional(Type.String({ description: 'an IANA timezone' })) },
        { additionalProperties: true },
      ),
      response: { 200: ProjectAnswer },
    },
    handler: async (request, reply, { project }) => {
      const { name, timezone, ...settings } = request.body as Record<string, unknown>
      const current = serialize(project)
      for (const field of READ_ONLY_FIELDS) {
        if (!(field in settings)) continue
        if (settings[field] !== current[field]) throw wrenError('read_only', `${field} cannot be changed.`, field)
        delete settings[field]
      }
      if (timezone !== undefined && !isTimezone(timezone))
        throw wrenError('invalid_input', `Unknown timezone '${String(timezone)}'.`, 'timezone')
      const updated = await projects.updateProject(project.id, (stored) => ({
        ...(name !== undefined ? { name: name as string } : {}),
        ...(timezone !== undefined ? { timezone: timezone as string } : {}),
        settings: applySettings(knownSettings(stored.settings), settings),
      }))
      return sendFormatted(request, reply, 200, serialize(updated))
    },
  })

  route({
    method: 'POST',
    url: '/api/projects/',
    summary: 'Create a project, with its own project API key',
    access: { key: 'project:write', allProjects: 'A key limited to some projects cannot create projects.' },
    schema: { body: Type.Object({ name: Name }), response: { 201: ProjectAnswer } },
    handler: async (request, reply) => {
      const project = await projects.createProject({ name: request.body.name.trim() })
      return reply.status(201).send(serialize(project))
    },
  })

  await app.register(keyRoutes, { projects, siteUrl })
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
