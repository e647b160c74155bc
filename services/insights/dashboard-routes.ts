// /api/projects/:project_id/dashboards/ (and /api/environments/...): dashboards and their tiles, scopes
// dashboard:read/write. A dashboard's GET computes its insight tiles a few at a time (WREN_DASHBOARD_CONCURRENCY;
// from the trends cache while the data is unchanged; ?refresh=true recomputes), each with the dashboard's
// filters applied; once its caller has gone, no further tile starts and the running ones stop.
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { wrenError } from '../platform/errors'
import { routesOf } from '../platform/http/route'
import { AnyObject, ErrorBody, ListPaging, Paginated, RecordId } from '../platform/http/schemas'
import { matchesSearch, pageOfList } from '../platform/http/request-url'
import { isRecord } from '../platform/json'
import type { Project } from '../platform/tenancy'
import { callerGone } from '../platform/http/caller-gone'
import { mapBounded } from '../platform/work'
import { numberTiles, type Dashboard, type DashboardFilters, type NewTile, type Tile } from './dashboard-store'
import { insightRefresh, type InsightResult, type InsightRunOptions } from './results'
import type { InsightDeps } from './deps'
import { DashboardAnswer, DashboardBasicAnswer } from './schemas'
import { FILTERS_OVERRIDE_DESCRIPTION, filtersOverride } from './filters-override'
import { serializeDashboard, serializeDashboardWithTiles, serializeInsight, serializeTile } from './serialize'

const DashboardId = Type.Object({ id: RecordId('The dashboard’s id.') })
const Filters = Type.Object(
  {
    date_from: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    date_to: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    properties: Type.Optional(Type.Unknown()),
  },
  { description: 'date_from/date_to override every tile’s date range; properties are added to every tile’s.' },
)
const TileInput = Type.Object({
  id: Type.Optional(Type.Integer({ description: 'An existing tile (to change its layouts or color); none: a new text tile.' })),
  text: Type.Optional(Type.Union([Type.Object({ body: Type.String() }), Type.Null()])),
  layouts: Type.Optional(AnyObject()),
  color: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  deleted: Type.Optional(Type.Boolean({ description: 'true: take the tile off the dashboard.' })),
})
const fields = {
  description: Type.Optional(Type.String()),
  pinned: Type.Optional(Type.Boolean()),
  filters: Type.Optional(Filters),
  tags: Type.Optional(Type.Array(Type.String())),
}

export async function dashboardRoutes(app: FastifyInstance, deps: InsightDeps): Promise<void> {
  const { projects, insights, dashboards, results, tileConcurrency } = deps
  const route = routesOf(app, { projects, tag: 'dashboards' })
  const find = async (teamId: number, rawId: string): Promise<Dashboard> => {
    const id = Number(rawId)
    const dashboard = Number.isInteger(id) && id > 0 ? await dashboards.get(teamId, id) : undefined
    if (!dashboard) throw wrenError('not_found', `Dashboard ${rawId} does not exist.`)
    return dashboard
  }

  /**
   * The dashboard with its tiles' insights, their results computed a few at a time; `override`: filters of this
   * read only (filters_override), over the dashboard's own.
   */
  const withTiles = async (project: Project, dashboard: Dashboard, opts: InsightRunOptions, override: DashboardFilters | null = null) => {
    const filters = override ? { ...dashboard.filters, ...override } : dashboard.filters
    const ids = dashboard.tiles.flatMap((t) => (t.insightId !== null ? [t.insightId] : []))
    const [tileInsights, boards] = await Promise.all([ids.length ? insights.list(project.id, { ids }) : [], dashboards.list(project.id)])
    const byId = new Map(tileInsights.map((i) => [i.id, i]))
    const shown = dashboard.tiles.filter((t) => t.insightId === null || byId.has(t.insightId))
    const tiles = await mapBounded(
      shown.map((tile, order) => ({ tile, order })),
      tileConcurrency,
      opts.signal,
      async ({ tile, order }) => {
        const insight = tile.insightId !== null ? byId.get(tile.insightId)! : null
        const result = insight ? await tileResult(project, insight, filters, opts) : undefined
        return serializeTile(tile, order, insight ? serializeInsight(insight, boards, opts.viewer, result) : null)
      },
    )
    return serializeDashboardWithTiles(dashboard, opts.viewer, tiles, filters)
  }
  /** One tile's failure (a query ClickHouse refuses) is that tile's, not the dashboard's. */
  const tileResult = async (
    project: Project,
    insight: Parameters<typeof results.of>[1],
    filters: DashboardFilters,
    opts: InsightRunOptions,
  ): Promise<InsightResult> => {
    try {
      return await results.of(project, insight, { ...opts, dashboard: filters })
    } catch (err) {
      const reason = isRecord(err) && typeof err.message === 'string' ? err.message : 'The query failed.'
      return { result: null, last_refresh: null, is_cached: false, timezone: null, result_unavailable: reason }
    }
  }

  route({
    method: 'GET',
    url: '/dashboards/',
    summary: 'List dashboards',
    description: 'Without tiles: retrieve a dashboard for its tiles and their results.',
    access: { project: 'dashboard:read' },
    schema: {
      querystring: Type.Object({
        ...ListPaging('the name and description'),
      }),
      response: { 200: Paginated(DashboardBasicAnswer) },
    },
    handler: async (request, reply, { project, key }) => {
      const shown = (await dashboards.list(project.id)).filter((d) => matchesSearch(request.query.search, d.name, d.description))
      const page = pageOfList(request, deps.siteUrl, shown, request.query, 100)
      return reply.status(200).send({ ...page, results: page.results.map((d) => serializeDashboard(d, key)) })
    },
  })

  route({
    method: 'GET',
    url: '/dashboards/:id/',
    summary: 'Retrieve a dashboard with its tiles’ results',
    access: { project: 'dashboard:read' },
    schema: {
      params: DashboardId,
      querystring: Type.Object({
        refresh: Type.Optional(Type.String({ description: 'true or force_blocking: recompute every tile.' })),
        filters_override: Type.Optional(Type.String({ description: FILTERS_OVERRIDE_DESCRIPTION })),
      }),
      response: { 200: DashboardAnswer },
    },
    handler: async (request, reply, { project, key }) => {
      const override = filtersOverride(request.query.filters_override)
      const dashboard = await find(project.id, request.params.id)
      const opts = { mode: insightRefresh(request.query.refresh), viewer: key, signal: callerGone(reply) }
      return reply.status(200).send(await withTiles(project, dashboard, opts, override))
    },
  })

  route({
    method: 'POST',
    url: '/dashboards/',
    summary: 'Create a dashboard',
    description:
      'Insights are put on it with PATCH /insights/:id/ {"dashboards": [...]}; text tiles with tiles: [{text: {body}}]. ' +
      'use_dashboard: a copy of that dashboard, its tiles on the same insights (PostHog’s duplicate).',
    access: { project: 'dashboard:write' },
    schema: {
      body: Type.Object({
        name: Type.String(),
        ...fields,
        tiles: Type.Optional(Type.Array(TileInput)),
        use_dashboard: Type.Optional(
          Type.Integer({ description: 'The dashboard whose tiles, description, filters and tags the new one copies.' }),
        ),
        duplicate_tiles: Type.Optional(Type.Boolean({ description: 'Only false: the copy’s tiles show the same insights.' })),
      }),
      response: { 201: DashboardAnswer },
    },
    handler: async (request, reply, { project, key }) => {
      const body = request.body
      if (body.duplicate_tiles)
        throw wrenError(
          'unsupported',
          'duplicate_tiles: a copy shows the same insights; copying the insights too is not done.',
          'duplicate_tiles',
        )
      const copiedId = body.use_dashboard
      // An id past 2^53 names no dashboard (ids stay below it): refused before any read.
      const source =
        copiedId === undefined
          ? null
          : Number.isSafeInteger(copiedId) && copiedId > 0
            ? await dashboards.get(project.id, copiedId)
            : undefined
      if (source === undefined)
        throw wrenError('invalid_input', `use_dashboard: dashboard ${body.use_dashboard} does not exist in this project.`, 'use_dashboard')
      const copied: NewTile[] = (source?.tiles ?? []).map(({ insightId, text, layouts, color }) => ({ insightId, text, layouts, color }))
      const dashboard = await dashboards.create(project.id, {
        name: body.name,
        description: body.description ?? source?.description ?? '',
        pinned: body.pinned ?? false,
        filters: body.filters ?? source?.filters ?? {},
        tags: body.tags ?? source?.tags ?? [],
        tiles: [...copied, ...(body.tiles ?? []).map(newTextTile)],
      })
      return reply.status(201).send(await withTiles(project, dashboard, { mode: 'blocking', viewer: key, signal: callerGone(reply) }))
    },
  })

  route({
    method: 'PATCH',
    url: '/dashboards/:id/',
    summary: 'Update a dashboard, its filters or its tiles',
    description:
      'deleted: true deletes it. tiles: [{id, layouts, color, deleted}] changes those tiles; a tile without id adds a text tile.',
    access: { project: 'dashboard:write' },
    schema: {
      params: DashboardId,
      body: Type.Object({
        name: Type.Optional(Type.String()),
        ...fields,
        tiles: Type.Optional(Type.Array(TileInput)),
        deleted: Type.Optional(Type.Boolean()),
      }),
      response: { 200: DashboardAnswer },
    },
    handler: async (request, reply, { project, key }) => {
      const current = await find(project.id, request.params.id)
      const body = request.body
      const known = new Set(current.tiles.map((t) => t.id))
      const unknown = (body.tiles ?? []).filter((t) => t.id !== undefined && !known.has(t.id))
      if (unknown.length) throw wrenError('invalid_input', `Tile ${unknown.map((t) => t.id).join(', ')} is not on this dashboard.`, 'tiles')
      const updated = (await dashboards.update(project.id, current.id, (d) => ({
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(body.pinned !== undefined ? { pinned: body.pinned } : {}),
        ...(body.filters !== undefined ? { filters: body.filters } : {}),
        ...(body.tags !== undefined ? { tags: body.tags } : {}),
        ...(body.deleted !== undefined ? { deleted: body.deleted } : {}),
        ...(body.tiles !== undefined ? { tiles: applyTiles(d.tiles, body.tiles) } : {}),
      })))!
      return reply.status(200).send(await withTiles(project, updated, { mode: 'blocking', viewer: key, signal: callerGone(reply) }))
    },
  })

  route({
    method: 'DELETE',
    url: '/dashboards/:id/',
    summary: 'Refused: delete a dashboard by PATCHing {"deleted": true}',
    access: { project: 'dashboard:write' },
    schema: { params: DashboardId, response: { 405: ErrorBody } },
    handler: async (request, _reply, { project }) => {
      await find(project.id, request.params.id)
      throw wrenError('method_not_allowed', 'Method "DELETE" not allowed. Delete a dashboard by PATCHing {"deleted": true}.')
    },
  })
}

type TileChange = {
  id?: number
  text?: { body: string } | null
  layouts?: Record<string, unknown>
  color?: string | null
  deleted?: boolean
}

function newTextTile(t: TileChange): NewTile {
  if (!t.text) throw wrenError('required', 'A new tile needs text: {"body": "..."} (insights are added from the insight).', 'tiles')
  return { insightId: null, text: t.text, layouts: t.layouts ?? {}, color: t.color ?? null }
}

/** The tiles after `changes`: listed tiles changed or removed, the others kept, tiles without id added. */
function applyTiles(current: Tile[], changes: TileChange[]): Tile[] {
  const byId = new Map(changes.filter((c) => c.id !== undefined).map((c) => [c.id!, c]))
  const kept = current.flatMap((tile) => {
    const change = byId.get(tile.id)
    if (!change) return [tile]
    if (change.deleted) return []
    return [
      {
        ...tile,
        ...(change.layouts !== undefined ? { layouts: change.layouts } : {}),
        ...(change.color !== undefined ? { color: change.color } : {}),
        ...(change.text && tile.text ? { text: change.text } : {}),
      },
    ]
  })
  return numberTiles(kept, changes.filter((c) => c.id === undefined).map(newTextTile))
}
