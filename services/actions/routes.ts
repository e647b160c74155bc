// /api/projects/:project_id/actions/ (and /api/environments/...): CRUD with scopes action:read/write.
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { wrenError } from '../platform/errors'
import { sendFormatted } from '../platform/http/format'
import { routesOf } from '../platform/http/route'
import { AnyObject, Format, NoContent, ListPaging, Paginated, RecordId } from '../platform/http/schemas'
import { matchesSearch, pageOfList } from '../platform/http/request-url'
import { ActionAnswer } from './schemas'
import type { Tenants } from '../platform/tenancy'
import type { Action, ActionStore } from './store'
import { validateSteps } from './match'

export function serializeAction(a: Action): Record<string, unknown> {
  return {
    id: a.id,
    name: a.name,
    description: a.description,
    tags: a.tags,
    steps: a.steps,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
    deleted: a.deleted,
    is_calculating: false,
    team_id: a.teamId,
  }
}

const ActionId = Type.Object({ id: RecordId('The action’s id.') })
const FormatOnly = Type.Object({ format: Type.Optional(Format) })
const Name = Type.String({ minLength: 1, pattern: '\\S', description: 'a non-empty name' })
const fields = {
  description: Type.Optional(Type.String()),
  steps: Type.Optional(
    Type.Array(AnyObject(), {
      description:
        'Each step matches events: {event, properties, url, url_matching, selector, tag_name, text, href}; an action matches an event that any step matches.',
    }),
  ),
  tags: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])),
}

export async function actionRoutes(
  app: FastifyInstance,
  deps: { projects: Tenants; actions: ActionStore; siteUrl: string | null },
): Promise<void> {
  const { projects, actions } = deps
  const route = routesOf(app, { projects, tag: 'actions' })
  const find = async (teamId: number, rawId: string) => {
    const id = Number(rawId)
    if (!Number.isInteger(id) || id <= 0) throw wrenError('not_found', `Action ${rawId} does not exist.`)
    const action = await actions.get(teamId, id)
    if (!action) throw wrenError('not_found', `Action ${rawId} does not exist.`)
    return action
  }

  route({
    method: 'GET',
    url: '/actions/',
    summary: 'List actions',
    access: { project: 'action:read' },
    schema: {
      querystring: Type.Object({
        format: Type.Optional(Format),
        ...ListPaging('the name and description'),
      }),
      response: { 200: Paginated(ActionAnswer) },
    },
    handler: async (request, reply, { project }) => {
      const shown = (await actions.list(project.id)).filter((a) => matchesSearch(request.query.search, a.name, a.description))
      const page = pageOfList(request, deps.siteUrl, shown, request.query, 100)
      return sendFormatted(request, reply, 200, { ...page, results: page.results.map(serializeAction) })
    },
  })

  route({
    method: 'GET',
    url: '/actions/:id/',
    summary: 'Retrieve an action',
    access: { project: 'action:read' },
    schema: { params: ActionId, querystring: FormatOnly, response: { 200: ActionAnswer } },
    handler: async (request, reply, { project }) =>
      sendFormatted(request, reply, 200, serializeAction(await find(project.id, request.params.id))),
  })

  route({
    method: 'POST',
    url: '/actions/',
    summary: 'Create an action',
    access: { project: 'action:write' },
    schema: { body: Type.Object({ name: Name, ...fields }), response: { 201: ActionAnswer } },
    handler: async (request, reply, { project }) => {
      const body = request.body
      const existing = await actions.list(project.id)
      if (existing.some((a) => a.name === body.name))
        throw wrenError('unique', `This project already has an action named '${body.name}'.`, 'name')
      const action = await actions.create(project.id, {
        name: body.name,
        description: body.description ?? '',
        steps: validateSteps(body.steps),
        tags: body.tags ?? [],
      })
      return reply.status(201).send(serializeAction(action))
    },
  })

  for (const method of ['PATCH', 'PUT'] as const) {
    route({
      method,
      url: '/actions/:id/',
      summary: method === 'PATCH' ? 'Update some of an action' : 'Replace an action',
      description: 'deleted: true deletes it.',
      access: { project: 'action:write' },
      schema: {
        params: ActionId,
        querystring: FormatOnly,
        body: Type.Object({ name: method === 'PUT' ? Name : Type.Optional(Name), ...fields, deleted: Type.Optional(Type.Boolean()) }),
        response: { 200: ActionAnswer },
      },
      handler: async (request, reply, { project }) => {
        const { id } = await find(project.id, request.params.id)
        const body = request.body
        const steps = body.steps !== undefined ? validateSteps(body.steps) : undefined
        // The fields given, onto the action as stored now: a concurrent update of other fields stays.
        const saved = await actions.update(project.id, id, (current) => {
          if (current.deleted) throw wrenError('not_found', `Action ${request.params.id} does not exist.`)
          return {
            ...(body.name !== undefined ? { name: body.name } : {}),
            ...(body.description !== undefined ? { description: body.description } : {}),
            ...(steps !== undefined ? { steps } : {}),
            ...(body.tags !== undefined ? { tags: body.tags ?? [] } : {}),
            deleted: body.deleted === true,
          }
        })
        if (!saved) throw wrenError('not_found', `Action ${request.params.id} does not exist.`)
        return sendFormatted(request, reply, 200, serializeAction(saved))
      },
    })
  }

  route({
    method: 'DELETE',
    url: '/actions/:id/',
    summary: 'Delete an action',
    access: { project: 'action:write' },
    schema: { params: ActionId, response: { 204: NoContent } },
    handler: async (request, reply, { project }) => {
      const { id } = await find(project.id, request.params.id)
      await actions.update(project.id, id, () => ({ deleted: true }))
      return reply.status(204).send()
    },
  })
}
