// Dashboards in ClickHouse, versioned like insights (store.ts): `update` is the one path a change takes
// (the change applied to the row as stored now, written as version + 1 under the compare-and-set). Tiles live in the dashboard's row: a tile
// shows an insight or a text, and is only ever read with its dashboard.
import type { ClickHouseClient } from '../shared/clickhouse'
import { latestVersionsSql } from '../shared/clickhouse/rows'
import { insertRows, queryRows } from '../shared/clickhouse'
import type { Clock } from '../shared/time/clock'
import { VersionedUpdates } from '../shared/versioned-update'
import type { ConfigLog } from '../shared/log/config-log'

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

export type DashboardFields = Pick<Dashboard, 'name' | 'description' | 'pinned' | 'filters' | 'tiles' | 'tags' | 'deleted'>
export type NewTile = Omit<Tile, 'id'>

interface Row {
  team_id: number
  id: number
  name: string
  description: string
  pinned: number
  filters: string
  tiles: string
  tags: string[]
  created_at: string
  last_modified_at: string
  deleted: number
  latest_version: number
}

const LATEST = latestVersionsSql('dashboards', [
  'name',
  'description',
  'pinned',
  'filters',
  'tiles',
  'tags',
  'created_at',
  'last_modified_at',
  'deleted',
])

/** Tiles with ids: the new ones numbered after the dashboard's highest. */
export function numberTiles(existing: Tile[], added: NewTile[]): Tile[] {
  let next = Math.max(0, ...existing.map((t) => t.id))
  return [...existing, ...added.map((t) => ({ ...t, id: ++next }))]
}

export class DashboardStore {
  private readonly updates: VersionedUpdates

  constructor(
    private readonly client: ClickHouseClient,
    private readonly clock: Clock,
    private readonly config: ConfigLog,
  ) {
    this.updates = new VersionedUpdates(config)
  }

  async list(teamId: number, opts: { includeDeleted?: boolean; ids?: number[] } = {}): Promise<Dashboard[]> {
    const where = [...(opts.includeDeleted ? [] : ['deleted = 0']), ...(opts.ids ? ['id IN {ids:Array(UInt64)}'] : [])]
    const rows = await queryRows<Row>(
      this.client,
      `SELECT * FROM (${LATEST}) ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id`,
      { team: teamId, ids: opts.ids ?? [] },
    )
    return rows.map(fromRow)
  }

  async get(teamId: number, id: number): Promise<Dashboard | undefined> {
    return (await this.list(teamId, { ids: [id] }))[0]
  }

  async create(teamId: number, fields: Omit<DashboardFields, 'tiles'> & { tiles: NewTile[] }): Promise<Dashboard> {
    const now = this.clock.now().toISOString()
    const id = await this.config.nextId('dashboards')
    const tiles = numberTiles([], fields.tiles)
    return this.write({ ...fields, tiles, id, teamId, createdAt: now, lastModifiedAt: now, version: 1 })
  }

  /**
   * The one update path: `change` applied to the dashboard as stored now (deleted included), written as the next
   * version under the configuration log's compare-and-set (shared/versioned-update.ts). Undefined: there is none.
   */
  async update(teamId: number, id: number, change: (current: Dashboard) => Partial<DashboardFields>): Promise<Dashboard | undefined> {
    return this.updates.apply<Dashboard>({
      object: { kind: 'dashboard', teamId, id },
      read: async () => (await this.list(teamId, { ids: [id], includeDeleted: true }))[0],
      change: (current) => ({ ...current, ...change(current), lastModifiedAt: this.clock.now().toISOString() }),
      write: async (next) => void (await this.write(next)),
    })
  }

  private async write(d: Dashboard): Promise<Dashboard> {
    await insertRows(this.client, 'dashboards', [
      {
        team_id: d.teamId,
        id: d.id,
        name: d.name,
        description: d.description,
        pinned: d.pinned ? 1 : 0,
        filters: JSON.stringify(d.filters),
        tiles: JSON.stringify(d.tiles),
        tags: d.tags,
        created_at: d.createdAt,
        last_modified_at: d.lastModifiedAt,
        deleted: d.deleted ? 1 : 0,
        version: d.version,
      },
    ])
    return d
  }
}

function fromRow(r: Row): Dashboard {
  return {
    id: Number(r.id),
    teamId: Number(r.team_id),
    name: r.name,
    description: r.description,
    pinned: Number(r.pinned) === 1,
    filters: JSON.parse(r.filters || '{}') as DashboardFilters,
    tiles: JSON.parse(r.tiles || '[]') as Tile[],
    tags: r.tags,
    createdAt: new Date(r.created_at).toISOString(),
    lastModifiedAt: new Date(r.last_modified_at).toISOString(),
    deleted: Number(r.deleted) === 1,
    version: Number(r.latest_version),
  }
}
