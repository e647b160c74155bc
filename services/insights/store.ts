// Saved insights in ClickHouse: each write is a full new version of the row; reads take the latest per id.
// Every change goes through `update` (the change applied to the row as stored now, written as version + 1
// under the configuration log's compare-and-set). New ids come from the configuration log's allocator.
import { randomBytes } from 'node:crypto'
import type { ClickHouseClient } from '../shared/clickhouse'
import { latestVersionsSql } from '../shared/clickhouse/rows'
import { insertRows, queryRows } from '../shared/clickhouse'
import type { Clock } from '../shared/time/clock'
import { VersionedUpdates } from '../shared/versioned-update'
import type { ConfigLog } from '../shared/log/config-log'

export interface Insight {
  id: number
  teamId: number
  shortId: string
  name: string
  description: string
  /** PostHog's query (an InsightVizNode, or any other node), or null for a legacy `filters` insight. */
  query: Record<string, unknown> | null
  filters: Record<string, unknown>
  saved: boolean
  favorited: boolean
  tags: string[]
  createdAt: string
  lastModifiedAt: string
  deleted: boolean
  version: number
}

export type InsightFields = Pick<Insight, 'name' | 'description' | 'query' | 'filters' | 'saved' | 'favorited' | 'tags' | 'deleted'>

interface Row {
  team_id: number
  id: number
  short_id: string
  name: string
  description: string
  query: string
  filters: string
  saved: number
  favorited: number
  tags: string[]
  created_at: string
  last_modified_at: string
  deleted: number
  latest_version: number
}

const LATEST = latestVersionsSql('insights', [
  'short_id',
  'name',
  'description',
  'query',
  'filters',
  'saved',
  'favorited',
  'tags',
  'created_at',
  'last_modified_at',
  'deleted',
])

/** PostHog's short ids: 8 characters from a URL-safe alphabet. */
function shortId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'
  return [...randomBytes(8)].map((b) => alphabet[b % alphabet.length]).join('')
}

export class InsightStore {
  private readonly updates: VersionedUpdates

  constructor(
    private readonly client: ClickHouseClient,
    private readonly clock: Clock,
    private readonly config: ConfigLog,
  ) {
    this.updates = new VersionedUpdates(config)
  }

  async list(teamId: number, opts: { includeDeleted?: boolean; ids?: number[]; shortId?: string } = {}): Promise<Insight[]> {
    const where = [
      ...(opts.includeDeleted ? [] : ['deleted = 0']),
      ...(opts.ids ? ['id IN {ids:Array(UInt64)}'] : []),
      ...(opts.shortId !== undefined ? ['short_id = {short:String}'] : []),
    ]
    const rows = await queryRows<Row>(
      this.client,
      `SELECT * FROM (${LATEST}) ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id`,
      { team: teamId, ids: opts.ids ?? [], short: opts.shortId ?? '' },
    )
    return rows.map(fromRow)
  }

  async get(teamId: number, id: number, opts: { includeDeleted?: boolean } = {}): Promise<Insight | undefined> {
    return (await this.list(teamId, { ...opts, ids: [id] }))[0]
  }

  async create(teamId: number, fields: InsightFields): Promise<Insight> {
    const now = this.clock.now().toISOString()
    const id = await this.config.nextId('insights')
    return this.write({ ...fields, id, teamId, shortId: shortId(), createdAt: now, lastModifiedAt: now, version: 1 })
  }

  /**
   * The one update path: `change` applied to the insight as stored now (deleted included), written as the next
   * version under the configuration log's compare-and-set (shared/versioned-update.ts). Undefined: there is none.
   */
  async update(teamId: number, id: number, change: (current: Insight) => Partial<InsightFields>): Promise<Insight | undefined> {
    return this.updates.apply<Insight>({
      object: { kind: 'insight', teamId, id },
      read: async () => await this.get(teamId, id, { includeDeleted: true }),
      change: (current) => ({ ...current, ...change(current), lastModifiedAt: this.clock.now().toISOString() }),
      write: async (next) => void (await this.write(next)),
    })
  }

  private async write(insight: Insight): Promise<Insight> {
    await insertRows(this.client, 'insights', [
      {
        team_id: insight.teamId,
        id: insight.id,
        short_id: insight.shortId,
        name: insight.name,
        description: insight.description,
        query: insight.query ? JSON.stringify(insight.query) : '',
        filters: JSON.stringify(insight.filters),
        saved: insight.saved ? 1 : 0,
        favorited: insight.favorited ? 1 : 0,
        tags: insight.tags,
        created_at: insight.createdAt,
        last_modified_at: insight.lastModifiedAt,
        deleted: insight.deleted ? 1 : 0,
        version: insight.version,
      },
    ])
    return insight
  }
}

function fromRow(r: Row): Insight {
  return {
    id: Number(r.id),
    teamId: Number(r.team_id),
    shortId: r.short_id,
    name: r.name,
    description: r.description,
    query: r.query ? (JSON.parse(r.query) as Record<string, unknown>) : null,
    filters: JSON.parse(r.filters || '{}') as Record<string, unknown>,
    saved: Number(r.saved) === 1,
    favorited: Number(r.favorited) === 1,
    tags: r.tags,
    createdAt: new Date(r.created_at).toISOString(),
    lastModifiedAt: new Date(r.last_modified_at).toISOString(),
    deleted: Number(r.deleted) === 1,
    version: Number(r.latest_version),
  }
}
