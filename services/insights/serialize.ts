// Insights and dashboards in PostHog's shapes (schemas.ts).
import type { Dashboard } from './dashboard-store'
import type { InsightResult } from './results'
import type { Insight } from './store'

/** `dashboards`: the project's dashboards, from which the insight's own are found. */
export function serializeInsight(insight: Insight, dashboards: Dashboard[], result?: InsightResult): Record<string, unknown> {
  const tiles = dashboards.flatMap((d) => d.tiles.filter((t) => t.insightId === insight.id).map((t) => ({ id: t.id, dashboard_id: d.id })))
  return {
    id: insight.id,
    short_id: insight.shortId,
    name: insight.name || null,
    derived_name: null,
    description: insight.description,
    query: insight.query,
    filters: insight.filters,
    dashboards: [...new Set(tiles.map((t) => t.dashboard_id))],
    dashboard_tiles: tiles,
    ...(result ?? {}),
    saved: insight.saved,
    favorited: insight.favorited,
    deleted: insight.deleted,
    tags: insight.tags,
    created_at: insight.createdAt,
    created_by: null,
    last_modified_at: insight.lastModifiedAt,
    last_modified_by: null,
  }
}

export function serializeDashboard(d: Dashboard): Record<string, unknown> {
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
    deleted: d.deleted,
  }
}
