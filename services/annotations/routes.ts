// /api/projects/:project_id/annotations/ (and /api/environments/…): PostHog's annotations, with scopes
// annotation:read/write. A list newest marker first (search, the marker's date range, scope, the insight or the
// dashboard, when made, the deleted ones, PostHog's apply_all and order), create, retrieve, PATCH, and soft delete
// (PATCH deleted: true, as PostHog's app does, or DELETE).
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { wrenError } from '../platform/errors'
import { routesOf } from '../platform/http/route'
import { ListPaging, NoContent, Paginated, RecordId } from '../platform/http/schemas'
import { matchesSearch, pageOfList } from '../platform/http/request-url'
import type { PersonalApiKey, Tenants } from '../platform/tenancy'
import { parseDateString } from '../analytics/time/date-strings'
import type { Clock } from '../platform/clock'
import { ANNOTATION_SCOPES, type Annotation, type AnnotationScope, type AnnotationStore } from './store'
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
  /** The project's insights of these ids, as PostHog names them (none such, or deleted: left out), in one read. */
  insights: (teamId: number, ids: number[]) => Promise<Array<{ id: number; shortId: string; name: string }>>
  /** The project's dashboards of these ids, in one read. */
  dashboards: (teamId: number, ids: number[]) => Promise<Array<{ id: number; name: string }>>
}

const AnnotationId = Type.Object({ id: RecordId('The annotation’s id.') })

/** The orders the list takes (PostHog's `order`: a field, `-` first for descending). */
const ORDERS = ['date_marker', '-date_marker', 'created_at', '-created_at', 'updated_at', '-updated_at', 'id', '-id'] as const
const ordering = (order: (typeof ORDERS)[number]) => {
  const field = order.replace('-', '') as 'date_marker' | 'created_at' | 'updated_at' | 'id'
  const key = { date_marker: 'dateMarker', created_at: 'createdAt', updated_at: 'updatedAt', id: 'id' } as const
  const sign = order.startsWith('-') ? -1 : 1
  return (a: Annotation, b: Annotation) => {
    const [x, y] = [a[key[field]], b[key[field]]]
    const by = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y))
    return sign * (by || a.id - b.id)
  }
}
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
  dashboard_id: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'the dashboard, for scope dashboard' }),
  ),
  creation_type: Type.Optional(Type.Enum(['USR', 'GIT'])),
}

export async function annotationRoutes(app: FastifyInstance, deps: AnnotationRouteDeps): Promise<void> {
  const { projects, annotations } = deps
  const route = routesOf(app, { projects, tag: 'annotations' })
  /**
   * Annotations in PostHog's AnnotationSerializer's shape, with the names of their insights and dashboards: those
   * read in one query each however many annotations name them.
   */
  const serializeAll = async (teamId: number, list: Annotation[]) => {
    const ids = (of: (a: Annotation) => number | null) => [...new Set(list.flatMap((a) => of(a) ?? []))]
    const [insights, dashboards] = await Promise.all([
      deps.insights(
        teamId,
        ids((a) => a.dashboardItem),
      ),
      deps.dashboards(
        teamId,
        ids((a) => a.dashboardId),
      ),
    ])
    const insight = new Map(insights.map((i) => [i.id, i]))
    const dashboard = new Map(dashboards.map((d) => [d.id, d]))
    return list.map((a) => ({
      id: a.id,
      content: a.content,
      date_marker: a.dateMarker,
      creation_type: a.creationType,
      dashboard_item: a.dashboardItem,
      dashboard_id: a.dashboardId,
      dashboard_name: (a.dashboardId && dashboard.get(a.dashboardId)?.name) ?? null,
      insight_short_id: (a.dashboardItem && insight.get(a.dashboardItem)?.shortId) ?? null,
      insight_name: (a.dashboardItem && insight.get(a.dashboardItem)?.name) || null,
      // Wren derives no names for insights (as its insights' derived_name says).
      insight_derived_name: null,
      created_by: a.createdBy ? deps.userBasic(a.createdBy) : null,
      created_at: a.createdAt,
      updated_at: a.updatedAt,
      deleted: a.deleted,
      scope: a.scope,
    }))
  }
  const serialize = async (a: Annotation) => (await serializeAll(a.teamId, [a]))[0]
  /** What a scope needs: an insight's annotation names an insight of the project, a dashboard's a dashboard of it. */
  const placed = async (teamId: number, scope: AnnotationScope, item: number | null, dashboardId: number | null) => {
    if (scope === 'dashboard_item') {
      if (!item)
        throw wrenError('required', 'An annotation of an insight (scope dashboard_item) names it in dashboard_item.', 'dashboard_item')
      if (!(await deps.insights(teamId, [item])).length)
        throw wrenError('invalid_input', `Insight ${item} does not exist.`, 'dashboard_item')
    }
    if (scope === 'dashboard') {
      if (!dashboardId)
        throw wrenError('required', 'An annotation of a dashboard (scope dashboard) names it in dashboard_id.', 'dashboard_id')
      if (!(await deps.dashboards(teamId, [dashboardId])).length)
        throw wrenError('invalid_input', `Dashboard ${dashboardId} does not exist.`, 'dashboard_id')
    }
    return { dashboardItem: scope === 'dashboard_item' ? item : null, dashboardId: scope === 'dashboard' ? dashboardId : null }
  }
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
        dashboard_item: Type.Optional(Type.Integer({ minimum: 1, description: 'the same as dashboardItemId' })),
        dashboard_id: Type.Optional(Type.Integer({ minimum: 1, description: 'the annotations of this dashboard' })),
        after: Type.Optional(Type.String({ description: 'made after this moment' })),
        before: Type.Optional(Type.String({ description: 'made before this moment' })),
        deleted: Type.Optional(Type.Boolean({ description: 'true: only the deleted ones' })),
        apply_all: Type.Optional(
          Type.Boolean({ description: 'true: leave out the annotations of one insight; false: only those (PostHog’s apply_all)' }),
        ),
        order: Type.Optional(Type.Enum([...ORDERS], { description: 'a field to order by, - for descending (default -date_marker)' })),
      }),
      response: { 200: Paginated(AnnotationAnswer) },
    },
    handler: async (request, _reply, { project }) => {
      const q = request.query
      const from = q.date_from ? instant(q.date_from, 'date_from', project.timezone) : null
      const to = q.date_to ? instant(q.date_to, 'date_to', project.timezone) : null
      const after = q.after ? instant(q.after, 'after', project.timezone) : null
      const before = q.before ? instant(q.before, 'before', project.timezone) : null
      const item = q.dashboardItemId ?? q.dashboard_item
      const shown = (await annotations.list(project.id, { includeDeleted: q.deleted === true }))
        .filter(
          (a) =>
            matchesSearch(q.search, a.content) &&
            (q.deleted !== true || a.deleted) &&
            (!from || a.dateMarker >= from) &&
            (!to || a.dateMarker <= to) &&
            (!after || a.createdAt > after) &&
            (!before || a.createdAt < before) &&
            (!q.scope || a.scope === q.scope) &&
            (!item || a.dashboardItem === item) &&
            (!q.dashboard_id || a.dashboardId === q.dashboard_id) &&
            (q.apply_all === undefined || (a.scope === 'dashboard_item') !== q.apply_all),
        )
        .sort(ordering(q.order ?? '-date_marker'))
      const page = pageOfList(request, deps.siteUrl, shown, q, 100)
      return { ...page, results: await serializeAll(project.id, page.results) }
    },
  })

  route({
    method: 'GET',
    url: '/annotations/:id/',
    summary: 'Retrieve an annotation',
    access: { project: 'annotation:read' },
    schema: { params: AnnotationId, response: { 200: AnnotationAnswer } },
    handler: async (request, _reply, { project }) => await serialize(await find(project.id, request.params.id)),
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
      const scope = body.scope ?? (body.dashboard_item ? 'dashboard_item' : body.dashboard_id ? 'dashboard' : 'project')
      const dateMarker = instant(body.date_marker, 'date_marker', caller.project.timezone)
      const annotation = await annotations.create(caller.project.id, {
        content: body.content,
        dateMarker,
        scope,
        ...(await placed(caller.project.id, scope, body.dashboard_item ?? null, body.dashboard_id ?? null)),
        creationType: body.creation_type ?? 'USR',
        createdBy: deps.callerUser(caller.key) ?? '',
      })
      return reply.status(201).send(await serialize(annotation))
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
      const current = await find(project.id, request.params.id)
      const body = request.body
      if (body.content !== undefined && body.content.trim() === '') throw wrenError('invalid_input', 'content cannot be empty.', 'content')
      const dateMarker = body.date_marker !== undefined ? instant(body.date_marker, 'date_marker', project.timezone) : undefined
      const scope = body.scope ?? current.scope
      const place = await placed(
        project.id,
        scope,
        body.dashboard_item !== undefined ? body.dashboard_item : current.dashboardItem,
        body.dashboard_id !== undefined ? body.dashboard_id : current.dashboardId,
      )
      const saved = await annotations.update(project.id, current.id, (now) => {
        if (now.deleted) throw wrenError('not_found', `Annotation ${request.params.id} does not exist.`)
        return {
          ...(body.content !== undefined ? { content: body.content } : {}),
          ...(dateMarker !== undefined ? { dateMarker } : {}),
          ...(body.creation_type !== undefined ? { creationType: body.creation_type } : {}),
          scope,
          ...place,
          deleted: body.deleted === true,
        }
      })
      if (!saved) throw wrenError('not_found', `Annotation ${request.params.id} does not exist.`)
      return await serialize(saved)
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
