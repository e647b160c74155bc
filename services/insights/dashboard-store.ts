// Dashboards: configuration objects (platform/config-objects.ts). Tiles live in the dashboard's row: a tile
// shows an insight or a text, and is only ever read with its dashboard. Nothing else caches dashboards, so a
// write publishes nothing.
import type { ClickHouseClient } from '../platform/clickhouse'
import { ConfigObjectStore, timestamp, type ConfigObjectKind } from '../platform/config-objects'
import type { Clock } from '../platform/clock'
import type { ConfigLog } from '../platform/log/config-log'

export interface Tile {
  /** Unique within its dashboard. */
  id: number
  insightId: number | null
  text: { body: string } | null
  layouts: Record<string, unknown>
  color: string | null
}

export interface DashboardFilters {
  date_from?: string | null
  date_to?: string | null
  properties?: unknown
}

export interface Dashboard {
  id: number
  teamId: number
  name: string
  description: string
  pinned: boolean
  filters: DashboardFilters
  tiles: Tile[]
  tags: string[]
  createdAt: string
  lastModifiedAt: string
  deleted: boolean
  version: number
}

export type DashboardFields = Pick<Dashboard, 'name' | 'description' | 'pinned' | 'filters' | 'tiles' | 'tags'>
export type NewTile = Omit<Tile, 'id'>
/** A new dashboard's fields: its tiles are numbered as they are stored. */
export type NewDashboard = Omit<DashboardFields, 'tiles'> & { tiles: NewTile[] }

/** Tiles with ids: the new ones numbered after the dashboard's highest. */
export function numberTiles(existing: Tile[], added: NewTile[]): Tile[] {
  let next = Math.max(0, ...existing.map((t) => t.id))
  return [...existing, ...added.map((t) => ({ ...t, id: ++next }))]
}

export const DASHBOARDS: ConfigObjectKind<Dashboard, DashboardFields, NewDashboard> = {
  table: 'dashboards',
  object: 'dashboard',
  columns: ['name', 'description', 'pinned', 'filters', 'tiles', 'tags', 'last_modified_at'],
  create: (fields, now) => ({ ...fields, tiles: numberTiles([], fields.tiles), lastModifiedAt: now }),
  touch: (dashboard, _current, now) => ({ ...dashboard, lastModifiedAt: now }),
  toRow: (d) => ({
    name: d.name,
    description: d.description,
    pinned: d.pinned ? 1 : 0,
    filters: JSON.stringify(d.filters),
    tiles: JSON.stringify(d.tiles),
    tags: d.tags,
    last_modified_at: d.lastModifiedAt,
  }),
  fromRow: (r) => ({
    name: r.name as string,
    description: r.description as string,
    pinned: Number(r.pinned) === 1,
    filters: JSON.parse((r.filters as string) || '{}') as DashboardFilters,
    tiles: JSON.parse((r.tiles as string) || '[]') as Tile[],
    tags: r.tags as string[],
    lastModifiedAt: timestamp(r.last_modified_at),
  }),
}

export class DashboardStore extends ConfigObjectStore<Dashboard, DashboardFields, NewDashboard> {
  constructor(client: ClickHouseClient, clock: Clock, config: ConfigLog) {
    super(client, clock, config, DASHBOARDS)
  }
}
