// Actions in ClickHouse: each write is a full new version of the row; reads take the latest per id. New ids
// come from the configuration log's allocator (shared/log/config-log.ts), unique across processes; updates
// are compare-and-set on the version (shared/versioned-update.ts).
import type { ClickHouseClient } from '../shared/clickhouse'
import { latestVersionsSql } from '../shared/clickhouse/rows'
import { insertRows, queryRows } from '../shared/clickhouse'
import type { Clock } from '../shared/time/clock'
import { VersionedUpdates } from '../shared/versioned-update'
import type { ConfigLog } from '../shared/log/config-log'

export interface ActionStep {
  event?: string | null
  url?: string | null
  url_matching?: 'contains' | 'exact' | 'regex' | null
  text?: string | null
  text_matching?: 'contains' | 'exact' | 'regex' | null
  href?: string | null
  href_matching?: 'contains' | 'exact' | 'regex' | null
  selector?: string | null
  tag_name?: string | null
  properties?: unknown[] | null
}

export interface Action {
  id: number
  teamId: number
  name: string
  description: string
  steps: ActionStep[]
  tags: string[]
  createdAt: string
  updatedAt: string
  deleted: boolean
  version: number
}

interface Row {
  team_id: number
  id: number
  name: string
  description: string
  steps: string
  tags: string[]
  created_at: string
  updated_at: string
  deleted: number
  version: number
}

const LATEST = latestVersionsSql('actions', ['name', 'description', 'steps', 'tags', 'created_at', 'updated_at', 'deleted'])

export class ActionStore {
  private readonly updates: VersionedUpdates

  constructor(
    private readonly client: ClickHouseClient,
    private readonly clock: Clock,
    private readonly config: ConfigLog,
  ) {
    this.updates = new VersionedUpdates(config)
  }

  async list(teamId: number, opts: { includeDeleted?: boolean } = {}): Promise<Action[]> {
    const rows = await queryRows<Row & { latest_version: number }>(
      this.client,
      `SELECT * FROM (${LATEST}) ${opts.includeDeleted ? '' : 'WHERE deleted = 0'} ORDER BY id`,
      { team: teamId },
    )
    return rows.map(fromRow)
  }

  async byIds(teamId: number, ids: number[], opts: { includeDeleted?: boolean } = {}): Promise<Map<number, Action>> {
    if (ids.length === 0) return new Map()
    const rows = await queryRows<Row & { latest_version: number }>(
      this.client,
      `SELECT * FROM (${LATEST}) WHERE ${opts.includeDeleted ? '' : 'deleted = 0 AND '}id IN {ids:Array(UInt64)}`,
      { team: teamId, ids },
    )
    return new Map(rows.map((r) => [Number(r.id), fromRow(r)]))
  }

  async get(teamId: number, id: number): Promise<Action | undefined> {
    return (await this.byIds(teamId, [id])).get(id)
  }

  async create(teamId: number, input: Pick<Action, 'name' | 'description' | 'steps' | 'tags'>): Promise<Action> {
    const now = this.clock.now().toISOString()
    const action: Action = {
      ...input,
      id: await this.config.nextId('actions'),
      teamId,
      createdAt: now,
      updatedAt: now,
      deleted: false,
      version: 1,
    }
    await this.write(action)
    return action
  }

  /**
   * Applies `change` to the action as stored now (deleted included), so a concurrent update of other
   * fields stays. The action afterwards, or undefined when there is none.
   */
  async update(
    teamId: number,
    id: number,
    change: (current: Action) => Partial<Pick<Action, 'name' | 'description' | 'steps' | 'tags' | 'deleted'>>,
  ): Promise<Action | undefined> {
    return this.updates.apply<Action>({
      object: { kind: 'action', teamId, id },
      read: async () => (await this.byIds(teamId, [id], { includeDeleted: true })).get(id),
      change: (current) => ({ ...current, ...change(current), updatedAt: this.clock.now().toISOString() }),
      write: (next) => this.write(next),
    })
  }

  private async write(action: Action): Promise<void> {
    await insertRows(this.client, 'actions', [
      {
        team_id: action.teamId,
        id: action.id,
        name: action.name,
        description: action.description,
        steps: JSON.stringify(action.steps),
        tags: action.tags,
        created_at: action.createdAt,
        updated_at: action.updatedAt,
        deleted: action.deleted ? 1 : 0,
        version: action.version,
      },
    ])
    await this.config.publish({ kind: 'action', teamId: action.teamId, id: action.id })
  }
}

function fromRow(r: Row & { latest_version: number }): Action {
  return {
    id: Number(r.id),
    teamId: Number(r.team_id),
    name: r.name,
    description: r.description,
    steps: JSON.parse(r.steps || '[]') as ActionStep[],
    tags: r.tags,
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
    deleted: Number(r.deleted) === 1,
    version: Number(r.latest_version),
  }
}
