// Insights and dashboards in PostHog's shapes (schemas.ts): every field of its InsightSerializer,
// DashboardSerializer and DashboardTileSerializer, with Wren's values, or null where Wren has no such thing.
import { createHash } from 'node:crypto'
import { hasScope } from '../platform/http/auth'
import type { PersonalApiKey } from '../platform/tenancy'
import type { Dashboard, Tile } from './dashboard-store'
import type { InsightResult } from './results'
import type { Insight } from './store'

/**
 * PostHog's collaboration levels (Dashboard.RestrictionLevel and PrivilegeLevel): everyone in a project may
 * edit (21); a caller can edit (37) or only view (21). A key's write scope is what lets it edit.
 */
const EVERYONE_CAN_EDIT = 21
const privilegeLevel = (viewer: PersonalApiKey | undefined, scope: string) => (viewer && hasScope(viewer, scope) ? 37 : 21)

/** An insight that was listed, created or updated: its result is not computed, as PostHog's cache-only lists. */
const NOT_COMPUTED: InsightResult = { result: null, last_refresh: null, is_cached: false, timezone: null, result_unavailable: null }

/** The answer's fields an insight carries (PostHog's InsightSerializer), null where the answer has none. */
const answerFields = (r: Partial<InsightResult>) => ({
  hasMore: r.hasMore ?? null,
  columns: r.columns ?? null,
  cache_target_age: r.cache_target_age ?? null,
  next_allowed_client_refresh: r.next_allowed_client_refresh ?? null,
  query_status: r.query_status ?? null,
  hogql: r.hogql ?? null,
  types: r.types ?? null,
})

/** `dashboards`: the project's dashboards, from which the insight's own are found. */
export function serializeInsight(
  insight: Insight,
  dashboards: Dashboard[],
  viewer: PersonalApiKey | undefined,
  computed?: InsightResult,
): Record<string, unknown> {
  const tiles = dashboards.flatMap((d) =>
    d.tiles.filter((t) => t.insightId === insight.id).map((t) => ({ id: t.id, dashboard_id: d.id, deleted: false })),
  )
  const { result_unavailable, result, last_refresh, is_cached, timezone, ...rest } = computed ?? NOT_COMPUTED
  return {
    id: insight.id,
    short_id: insight.shortId,
    name: insight.name || null,
    derived_name: null,
    description: insight.description,
    query: insight.query,
    filters: insight.filters,
    filters_hash: `cache_${createHash('sha256')
      .update(JSON.stringify([insight.query, insight.filters]))
      .digest('hex')
      .slice(0, 32)}`,
    order: null,
    dashboards: [...new Set(tiles.map((t) => t.dashboard_id))],
    dashboard_tiles: tiles,
    result,
    last_refresh,
    is_cached,
    timezone,
    ...(computed ? { result_unavailable } : {}),
    ...answerFields(rest),
    saved: insight.saved,
    favorited: insight.favorited,
    deleted: insight.deleted,
    is_sample: false,
    tags: insight.tags,
    created_at: insight.createdAt,
    created_by: null,
    updated_at: insight.updatedAt,
    last_modified_at: insight.lastModifiedAt,
    last_modified_by: null,
    effective_restriction_level: EVERYONE_CAN_EDIT,
    effective_privilege_level: privilegeLevel(viewer, 'insight:write'),
  }
}

/** The fields of a dashboard in a list (DashboardBasicSerializer's, with its filters and last change). */
export function serializeDashboard(d: Dashboard, viewer: PersonalApiKey | undefined): Record<string, unknown> {
  const canEdit = privilegeLevel(viewer, 'dashboard:write')
  return {
    id: d.id,
    name: d.name,
    description: d.description,
    pinned: d.pinned,
    filters: d.filters,
    tags: d.tags,
    created_at: d.createdAt,
    created_by: null,
    last_modified_at: d.lastModifiedAt,
    last_accessed_at: null,
    last_viewed_at: null,
    last_refresh: null,
    is_shared: false,
    deleted: d.deleted,
    creation_mode: 'default',
    restriction_level: EVERYONE_CAN_EDIT,
    effective_restriction_level: EVERYONE_CAN_EDIT,
    effective_privilege_level: canEdit,
    user_access_level: canEdit === 37 ? 'editor' : 'viewer',
    access_control_version: 'v2',
    team_id: d.teamId,
  }
}

/** A tile as DashboardTileSerializer answers it: `order` is its place on the dashboard. */
export function serializeTile(tile: Tile, order: number, insight: Record<string, unknown> | null): Record<string, unknown> {
  return {
    id: tile.id,
    insight,
    text: tile.text,
    button_tile: null,
    layouts: tile.layouts,
    color: tile.color,
    filters_overrides: {},
    show_description: null,
    transparent_background: null,
    order,
    last_refresh: (insight?.last_refresh as string | null | undefined) ?? null,
    is_cached: (insight?.is_cached as boolean | undefined) ?? false,
  }
}

/** A dashboard with its tiles (DashboardSerializer): the list's fields and the rest of PostHog's. */
export function serializeDashboardWithTiles(
  d: Dashboard,
  viewer: PersonalApiKey | undefined,
  tiles: Record<string, unknown>[],
  /** The filters the tiles were computed with (the dashboard's, or a read's filters_override over them). */
  filters: Dashboard['filters'] = d.filters,
): Record<string, unknown> {
  const refreshed = tiles.map((t) => t.last_refresh).filter((r): r is string => typeof r === 'string')
  return {
    ...serializeDashboard(d, viewer),
    filters,
    last_refresh: refreshed.length ? refreshed.reduce((a, b) => (a > b ? a : b)) : null,
    variables: {},
    persisted_filters: Object.keys(d.filters).length ? d.filters : null,
    persisted_variables: null,
    breakdown_colors: [],
    data_color_theme_id: null,
    quick_filter_ids: [],
    tiles,
  }
}
