// /api/projects/:project_id/insights/ (and /api/environments/...): saved insights, scopes insight:read/write.
// An insight's result is computed on read (from the trends cache while the data is unchanged); with
// ?from_dashboard=<id> the dashboard's filters apply. Deleting is PATCH {"deleted": true}, as in PostHog.
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { wrenError } from '../platform/errors'
import { callerGone } from '../platform/http/caller-gone'
import { routesOf } from '../platform/http/route'
import { AnyObject, ErrorBody, ListPaging, Paginated, RecordId } from '../platform/http/schemas'
import { matchesSearch, pageOfList } from '../platform/http/request-url'
import type { Project } from '../platform/tenancy'
import { numberTiles } from './dashboard-store'
import { dashboardRoutes } from './dashboard-routes'
import type { InsightDeps } from './deps'
import { insightRefresh } from './results'
import { InsightAnswer } from './schemas'
import { serializeInsight } from './serialize'
import type { Insight, InsightFields } from './store'
import { FILTERS_OVERRIDE_DESCRIPTION, filtersOverride } from './filters-override'

const InsightId = Type.Object({ id: RecordId('The insight’s id.') })
const Refresh = Type.String({
  description:
    'true, force_blocking or force_async: recompute now. async, lazy_async, async_except_on_cache_miss: a stale or missing result is computed in the background (query_status says so). Otherwise (blocking, force_cache, false) the cached result unless stale, else computed now.',
})
const fields = {
  name: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  query: Type.Optional(Type.Union([AnyObject('A query node: an InsightVizNode with a TrendsQuery source is computed.'), Type.Null()])),
  filters: Type.Optional(AnyObject('A legacy filter: insight TRENDS (the default) with events/actions is computed.')),
  saved: Type.Optional(Type.Boolean()),
  favorited: Type.Optional(Type.Boolean()),
  tags: Type.Optional(Type.Array(Type.String())),
  dashboards: Type.Optional(
    Type.Array(Type.Integer(), { description: 'The dashboards the insight is on: tiles are added and removed to match.' }),
  ),
}

export async function insightRoutes(app: FastifyInstance, deps: InsightDeps): Promise<void> {
  const { projects, insights, dashboards, results } = deps
  const route = routesOf(app, { projects, tag: 'insights' })
  const find = async (teamId: number, rawId: string): Promise<Insight> => {
    const id = Number(rawId)
    const insight = Number.isInteger(id) && id > 0 ? await insights.get(teamId, id) : undefined
    if (!insight) throw wrenError('not_found', `Insight ${rawId} does not exist.`)
    return insight
  }

  route({
    method: 'GET',
    url: '/insights/',
    summary: 'List saved insights',
    description: 'Without results: retrieve an insight (or its dashboard) for its result.',
    access: { project: 'insight:read' },
    schema: {
      querystring: Type.Object({
        saved: Type.Optional(Type.Boolean()),
        favorited: Type.Optional(Type.Boolean()),
        short_id: Type.Optional(Type.String()),
        ...ListPaging('the name, description and tags'),
      }),
      response: { 200: Paginated(InsightAnswer) },
    },
    handler: async (request, reply, { project, key }) => {
      const { saved, favorited, short_id, search } = request.query
      const [all, boards] = await Promise.all([insights.list(project.id), dashboards.list(project.id)])
      const shown = all.filter(
        (i) =>
          (short_id === undefined || i.shortId === short_id) &&
          (saved === undefined || i.saved === saved) &&
          (favorited === undefined || i.favorited === favorited) &&
          matchesSearch(search, i.name, i.description, ...i.tags),
      )
      const page = pageOfList(request, deps.siteUrl, shown, request.query, 100)
      return reply.status(200).send({ ...page, results: page.results.map((i) => serializeInsight(i, boards, key)) })
    },
  })

  route({
    method: 'GET',
    url: '/insights/:id/',
    summary: 'Retrieve an insight with its result',
    access: { project: 'insight:read' },
    schema: {
      params: InsightId,
      querystring: Type.Object({
        refresh: Type.Optional(Refresh),
        from_dashboard: Type.Optional(Type.Integer({ description: 'Compute with this dashboard’s filters.' })),
        filters_override: Type.Optional(Type.String({ description: FILTERS_OVERRIDE_DESCRIPTION })),
      }),
      response: { 200: InsightAnswer },
    },
    handler: async (request, reply, { project, key }) => {
      const override = filtersOverride(request.query.filters_override)
      const insight = await find(project.id, request.params.id)
      const boards = await dashboards.list(project.id)
      const { from_dashboard } = request.query
      const dashboard = from_dashboard !== undefined ? boards.find((d) => d.id === from_dashboard) : null
      if (dashboard === undefined) throw wrenError('not_found', `Dashboard ${from_dashboard} does not exist.`)
      const result = await results.of(project, insight, {
        mode: insightRefresh(request.query.refresh),
        dashboard: override ? { ...(dashboard?.filters ?? {}), ...override } : (dashboard?.filters ?? null),
        viewer: key,
        signal: callerGone(reply),
      })
      return reply.status(200).send(serializeInsight(insight, boards, key, result))
    },
  })

  route({
    method: 'POST',
    url: '/insights/',
    summary: 'Save an insight',
    access: { project: 'insight:write' },
    schema: { body: Type.Object(fields), response: { 201: InsightAnswer } },
    handler: async (request, reply, { project, key }) => {
      const body = request.body
      const input: InsightFields = {
        name: body.name ?? '',
        description: body.description ?? '',
        query: body.query ?? null,
        filters: body.filters ?? {},
        saved: body.saved ?? false,
        favorited: body.favorited ?? false,
        tags: body.tags ?? [],
      }
      await results.check(project, input)
      await checkDashboards(project, body.dashboards)
      const insight = await insights.create(project.id, input)
      if (body.dashboards) await placeOnDashboards(project, insight.id, body.dashboards)
      return reply.status(201).send(serializeInsight(insight, await dashboards.list(project.id), key))
    },
  })

  route({
    method: 'PATCH',
    url: '/insights/:id/',
    summary: 'Update an insight',
    description: 'deleted: true deletes it (and takes it off its dashboards); dashboards: the dashboards it is on.',
    access: { project: 'insight:write' },
    schema: {
      params: InsightId,
      body: Type.Object({ ...fields, deleted: Type.Optional(Type.Boolean()) }),
      response: { 200: InsightAnswer },
    },
    handler: async (request, reply, { project, key }) => {
      const current = await find(project.id, request.params.id)
      const body = request.body
      const patch: Partial<InsightFields> & { deleted?: boolean } = {
        ...(body.name !== undefined ? { name: body.name ?? '' } : {}),
        ...(body.description !== undefined ? { description: body.description ?? '' } : {}),
        ...(body.query !== undefined ? { query: body.query } : {}),
        ...(body.filters !== undefined ? { filters: body.filters } : {}),
        ...(body.saved !== undefined ? { saved: body.saved } : {}),
        ...(body.favorited !== undefined ? { favorited: body.favorited } : {}),
        ...(body.tags !== undefined ? { tags: body.tags } : {}),
        ...(body.deleted !== undefined ? { deleted: body.deleted } : {}),
      }
      // What it computes is checked when it changes: an insight saved before a check existed can still be renamed or deleted.
      if (patch.query !== undefined || patch.filters !== undefined) await results.check(project, { ...current, ...patch })
      await checkDashboards(project, body.dashboards)
      const updated = (await insights.update(project.id, current.id, () => patch))!
      const onDashboards = updated.deleted ? [] : body.dashboards
      if (onDashboards) await placeOnDashboards(project, updated.id, onDashboards)
      return reply.status(200).send(serializeInsight(updated, await dashboards.list(project.id), key))
    },
  })

  route({
    method: 'DELETE',
    url: '/insights/:id/',
    summary: 'Refused: delete an insight by PATCHing {"deleted": true}',
    access: { project: 'insight:write' },
    schema: { params: InsightId, response: { 405: ErrorBody } },
    handler: async (request, _reply, { project }) => {
      await find(project.id, request.params.id)
      throw wrenError('method_not_allowed', 'Method "DELETE" not allowed. Delete an insight by PATCHing {"deleted": true}.')
    },
  })

  const checkDashboards = async (project: Project, ids: number[] | undefined) => {
    if (!ids?.length) return
    const known = new Set((await dashboards.list(project.id)).map((d) => d.id))
    const unknown = ids.filter((id) => !known.has(id))
    if (unknown.length) throw wrenError('invalid_input', `Dashboard ${unknown.join(', ')} does not exist.`, 'dashboards')
  }

  /** Adds a tile on each dashboard in `ids` that lacks one, and removes the insight's tiles from the others. */
  const placeOnDashboards = async (project: Project, insightId: number, ids: number[]) => {
    for (const board of await dashboards.list(project.id)) {
      const has = board.tiles.some((t) => t.insightId === insightId)
      const wanted = ids.includes(board.id)
      if (has === wanted) continue
      await dashboards.update(project.id, board.id, (current) => ({
        tiles: wanted
          ? numberTiles(current.tiles, [{ insightId, text: null, layouts: {}, color: null }])
          : current.tiles.filter((t) => t.insightId !== insightId),
      }))
    }
  }

  await app.register(dashboardRoutes, deps)
}
