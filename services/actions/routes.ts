// /api/projects/:project_id/actions/ (and /api/environments/...): CRUD with scopes action:read/write.
import type { FastifyInstance } from 'fastify'
import { authorize } from '../shared/http/auth'
import { badRequest, notFound } from '../shared/errors'
import { isRecord, sendFormatted } from '../shared/http'
import type { ProjectStore } from '../projects/store'
import type { Action, ActionStore } from './store'
import { validateSteps } from './match'

type Params = { project_id: string; id: string }

export function serializeAction(a: Action): Record<string, unknown> {
  return { id: a.id, name: a.name, description: a.description, tags: a.tags, steps: a.steps, created_at: a.createdAt, updated_at: a.updatedAt, deleted: a.deleted, is_calculating: false, team_id: a.teamId }
}

export async function actionRoutes(app: FastifyInstance, deps: { projects: ProjectStore; actions: ActionStore }): Promise<void> {
  const { projects, actions } = deps
  const find = async (teamId: number, rawId: string) => {
    const id = Number(rawId)
    if (!Number.isInteger(id) || id <= 0) throw notFound(`Action ${rawId} does not exist.`)
    const action = await actions.get(teamId, id)
    if (!action) throw notFound(`Action ${rawId} does not exist.`)
    return action
  }

  for (const prefix of ['/api/projects/:project_id/actions', '/api/environments/:project_id/actions']) {
    app.get<{ Params: Params }>(`${prefix}/`, async (request, reply) => {
      const { project } = authorize(request, projects, 'action:read', request.params.project_id)
      const results = (await actions.list(project.id)).map(serializeAction)
      return sendFormatted(request, reply, 200, { count: results.length, next: null, previous: null, results })
    })

    app.get<{ Params: Params }>(`${prefix}/:id/`, async (request, reply) => {
      const { project } = authorize(request, projects, 'action:read', request.params.project_id)
      return sendFormatted(request, reply, 200, serializeAction(await find(project.id, request.params.id)))
    })

    app.post<{ Params: Params; Body: unknown }>(`${prefix}/`, async (request, reply) => {
      const { project } = authorize(request, projects, 'action:write', request.params.project_id)
      const body = isRecord(request.body) ? request.body : {}
      if (typeof body.name !== 'string' || !body.name.trim()) throw badRequest('required', 'name is required.', 'name')
      const existing = await actions.list(project.id)
      if (existing.some((a) => a.name === body.name)) throw badRequest('unique', `This project already has an action named '${body.name}'.`, 'name')
      const action = await actions.save(project.id, { name: body.name, description: stringOr(body.description, ''), steps: validateSteps(body.steps), tags: tagsOf(body.tags) })
      return reply.status(201).send(serializeAction(action))
    })

    const update = async (request: { params: Params; body: unknown }, partial: boolean) => {
      const { project } = authorize(request as never, projects, 'action:write', request.params.project_id)
      const current = await find(project.id, request.params.id)
      const body = isRecord(request.body) ? request.body : {}
      if (!partial && (typeof body.name !== 'string' || !body.name.trim())) throw badRequest('required', 'name is required.', 'name')
      if (body.name !== undefined && (typeof body.name !== 'string' || !body.name.trim())) throw badRequest('invalid_input', 'name must be a non-empty string.', 'name')
      return actions.save(project.id, {
        id: current.id,
        name: (body.name as string | undefined) ?? current.name,
        description: body.description !== undefined ? stringOr(body.description, '') : current.description,
        steps: body.steps !== undefined ? validateSteps(body.steps) : current.steps,
        tags: body.tags !== undefined ? tagsOf(body.tags) : current.tags,
        deleted: body.deleted === true,
      })
    }
    app.patch<{ Params: Params; Body: unknown }>(`${prefix}/:id/`, async (request, reply) => sendFormatted(request, reply, 200, serializeAction(await update(request, true))))
    app.put<{ Params: Params; Body: unknown }>(`${prefix}/:id/`, async (request, reply) => sendFormatted(request, reply, 200, serializeAction(await update(request, false))))

    app.delete<{ Params: Params }>(`${prefix}/:id/`, async (request, reply) => {
      const { project } = authorize(request, projects, 'action:write', request.params.project_id)
      const current = await find(project.id, request.params.id)
      await actions.save(project.id, { ...current, deleted: true })
      return reply.status(204).send()
    })
  }
}

function stringOr(v: unknown, fallback: string): string {
  return typeof v === 'string' ? v : fallback
}

function tagsOf(v: unknown): string[] {
  if (v === undefined || v === null) return []
  if (!Array.isArray(v) || !v.every((t) => typeof t === 'string')) throw badRequest('invalid_input', 'tags must be a list of strings.', 'tags')
  return v
}
