// /api/projects/:project_id/annotations/ (and /api/environments/…): PostHog's annotations, with scopes
// annotation:read/write. A list newest marker first (search, the marker's date range, scope, the insight), create,
// retrieve, PATCH, and soft delete (PATCH deleted: true, as PostHog's app does, or DELETE).
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { wrenError } from '../platform/errors'
import { routesOf } from '../platform/http/route'
import { ListPaging, NoContent, Paginated, RecordId } from '../platform/http/schemas'
import { matchesSearch, pageOfList } from '../platform/http/request-url'
import type { PersonalApiKey, Tenants } from '../platform/tenancy'
import { parseDateString } from '../analytics/time/date-strings'
import type { Clock } from '../platform/clock'
import { ANNOTATION_SCOPES, type Annotation, type AnnotationStore } from './store'
import { AnnotationAnswer } from './schemas'

export interface AnnotationRouteDeps {
  projects: Tenants
  annotations: AnnotationStore
  siteUrl: string | null
  clock: Clock
  /** A user as PostHog's UserBasicSerializer shows one (null: no such user). */
  userBasic: (uuid: string) => Record<string, unknown> | null
  /** The user a caller (key or session) acts for, or null. */
  callerUser: (caller: PersonalApiKey) => string | null
}

const AnnotationId = Type.Object({ id: RecordId('The annotation’s id.') })
const Scope = Type.Enum([...ANNOTATION_SCOPES], {
  description: 'where it shows: an insight (dashboard_item), a dashboard, the project, the organization, a recording',
})
const fields = {
  content: Type.Optional(Type.String({ maxLength: 400 })),
  date_marker: Type.Optional(Type.String({ description: 'the moment it marks (ISO 8601)' })),
  scope: Type.Optional(Scope),
  dashboard_item: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'the insight, for scope dashboard_item' }),
  ),
  creation_type: Type.Optional(Type.Enum(['USR', 'GIT'])),
}

export async function annotationRoutes(app: FastifyInstance, deps: AnnotationRouteDeps): Promise<void> {
  const { projects, annotations } = deps
  const route = routesOf(app, { projects, tag: 'annotations' })
  const serialize = (a: Annotation) => ({
    id: a.id,
    content: a.content,
    date_marker: a.dateMarker,
    creation_type: a.creationType,
    dashboard_item: a.dashboardItem,
    dashboard_id: null,
    created_by: a.createdBy ? deps.userBasic(a.createdBy) : null,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
    deleted: a.deleted,
    scope: a.scope,
  })
  const find = async (teamId: number, rawId: string) => {
    const id = Number(rawId)
    const annotation = Number.isInteger(id) && id > 0 ? await annotations.get(teamId, id) : undefined
    if (!annotation) throw wrenError('not_found', `Annotation ${rawId} does not exist.`)
    return annotation
  }
  /** A date as PostHog's filters read one (ISO, naive in the project's timezone, or relative: -7d). */
  const instant = (value: string, attr: string, timezone: string): string => {
    const at = parseDateString(value, timezone, deps.clock.now().getTime())
    if (at === null) throw wrenError('invalid_date', `${attr} must be a date or a date and time (ISO 8601), got '${value}'.`, attr)
    return new Date(at).toISOString()
  }

  route({
    method: 'GET',
    url: '/annotations/',
    summary: 'List annotations, the latest marker first',
    access: { project: 'annotation:read' },
    schema: {
      querystring: Type.Object({
        ...ListPaging('the content'),
        date_from: Type.Optional(Type.String({ description: 'markers at or after this moment' })),
        date_to: Type.Optional(Type.String({ description: 'markers at or before this moment' })),
        scope: Type.Optional(Scope),
        dashboardItemId: Type.Optional(Type.Integer({ minimum: 1, description: 'the annotations of this insight' })),
      }),
      response: { 200: Paginated(AnnotationAnswer) },
    },
    handler: async (request, _reply, { project }) => {
      const q = request.query
      const from = q.date_from ? instant(q.date_from, 'date_from', project.timezone) : null
      const to = q.date_to ? instant(q.date_to, 'date_to', project.timezone) : null
      const shown = (await annotations.list(project.id))
        .filter(
          (a) =>
            matchesSearch(q.search, a.content) &&
            (!from || a.dateMarker >= from) &&
            (!to || a.dateMarker <= to) &&
            (!q.scope || a.scope === q.scope) &&
            (!q.dashboardItemId || a.dashboardItem === q.dashboardItemId),
        )
        .sort((a, b) => b.dateMarker.localeCompare(a.dateMarker) || b.id - a.id)
      const page = pageOfList(request, deps.siteUrl, shown, q, 100)
      return { ...page, results: page.results.map(serialize) }
    },
  })

  route({
    method: 'GET',
    url: '/annotations/:id/',
    summary: 'Retrieve an annotation',
    access: { project: 'annotation:read' },
    schema: { params: AnnotationId, response: { 200: AnnotationAnswer } },
    handler: async (request, _reply, { project }) => serialize(await find(project.id, request.params.id)),
  })

  route({
    method: 'POST',
    url: '/annotations/',
    summary: 'Create an annotation',
    access: { project: 'annotation:write' },
    schema: {
      body: Type.Object({ ...fields, content: Type.String({ minLength: 1, maxLength: 400 }), date_marker: Type.String() }),
      response: { 201: AnnotationAnswer },
    },
    handler: async (request, reply, caller) => {
      const body = request.body
      const scope = body.scope ?? (body.dashboard_item ? 'dashboard_item' : 'project')
      if (scope === 'dashboard_item' && !body.dashboard_item)
        throw wrenError('required', 'An annotation of an insight (scope dashboard_item) names it in dashboard_item.', 'dashboard_item')
      const annotation = await annotations.create(caller.project.id, {
        content: body.content,
        dateMarker: instant(body.date_marker, 'date_marker', caller.project.timezone),
        scope,
        dashboardItem: scope === 'dashboard_item' ? (body.dashboard_item ?? null) : null,
        creationType: body.creation_type ?? 'USR',
        createdBy: deps.callerUser(caller.key) ?? '',
      })
      return reply.status(201).send(serialize(annotation))
    },
  })

  route({
    method: 'PATCH',
    url: '/annotations/:id/',
    summary: 'Update an annotation; deleted: true deletes it',
    access: { project: 'annotation:write' },
    schema: {
      params: AnnotationId,
      body: Type.Object({ ...fields, deleted: Type.Optional(Type.Boolean()) }),
      response: { 200: AnnotationAnswer },
    },
    handler: async (request, _reply, { project }) => {
      const { id } = await find(project.id, request.params.id)
      const body = request.body
      if (body.content !== undefined && body.content.trim() === '') throw wrenError('invalid_input', 'content cannot be empty.', 'content')
      const dateMarker = body.date_marker !== undefined ? instant(body.date_marker, 'date_marker', project.timezone) : undefined
      const saved = await annotations.update(project.id, id, (current) => {
        if (current.deleted) throw wrenError('not_found', `Annotation ${request.params.id} does not exist.`)
        const scope = body.scope ?? current.scope
        const item = body.dashboard_item !== undefined ? body.dashboard_item : current.dashboardItem
        if (scope === 'dashboard_item' && !item)
          throw wrenError('required', 'An annotation of an insight (scope dashboard_item) names it in dashboard_item.', 'dashboard_item')
        return {
          ...(body.content !== undefined ? { content: body.content } : {}),
          ...(dateMarker !== undefined ? { dateMarker } : {}),
          ...(body.creation_type !== undefined ? { creationType: body.creation_type } : {}),
          scope,
          dashboardItem: scope === 'dashboard_item' ? item : null,
          deleted: body.deleted === true,
        }
      })
      if (!saved) throw wrenError('not_found', `Annotation ${request.params.id} does not exist.`)
      return serialize(saved)
    },
  })

  route({
    method: 'DELETE',
    url: '/annotations/:id/',
    summary: 'Delete an annotation (soft: it is kept, marked deleted)',
    access: { project: 'annotation:write' },
    schema: { params: AnnotationId, response: { 204: NoContent } },
    handler: async (request, reply, { project }) => {
      const { id } = await find(project.id, request.params.id)
      await annotations.update(project.id, id, () => ({ deleted: true }))
      return reply.status(204).send()
    },
  })
}
