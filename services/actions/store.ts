// Actions in ClickHouse: each write is a full new version of the row; reads take the latest per id. New ids
// come from the configuration log's allocator (shared/log/config-log.ts), unique across processes.
import type { ClickHouseClient } from '../shared/clickhouse'
import { insertRows, queryRows } from '../shared/clickhouse'
import type { Clock } from '../shared/time/clock'
import { SerialQueue } from '../shared/serial'
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

const LATEST = `
  SELECT id, team_id, argMax(name, version) AS name, argMax(description, version) AS description,
         argMax(steps, version) AS steps, argMax(tags, version) AS tags, argMax(created_at, version) AS created_at,
         argMax(updated_at, version) AS updated_at, argMax(deleted, version) AS deleted, max(version) AS latest_version
  FROM actions WHERE team_id = {team:Int64} GROUP BY team_id, id`

export class ActionStore {
  private readonly writes = new SerialQueue()

  constructor(
    private readonly client: ClickHouseClient,
    private readonly clock: Clock,
    private readonly config: ConfigLog,
  ) {}

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

  /** Creates (no id) or writes a new version of an action; serialized so this process's versions count up. */
  save(
    teamId: number,
    input: Pick<Action, 'name' | 'description' | 'steps' | 'tags'> & { id?: number; deleted?: boolean },
  ): Promise<Action> {
    return this.writes.run(async () => {
      const now = this.clock.now().toISOString()
      let current: Action | undefined
      let id = input.id
      if (id === undefined) {
        id = await this.config.nextId('actions')
      } else {
        current = (await this.list(teamId, { includeDeleted: true })).find((a) => a.id === id)
      }
      const action: Action = {
        id,
        teamId,
        name: input.name,
        description: input.description,
        steps: input.steps,
        tags: input.tags,
        createdAt: current?.createdAt ?? now,
        updatedAt: now,
        deleted: input.deleted ?? false,
        version: (current?.version ?? 0) + 1,
      }
      await insertRows(this.client, 'actions', [
        {
          team_id: teamId,
          id,
          name: action.name,
          description: action.description,
          steps: JSON.stringify(action.steps),
          tags: action.tags,
          created_at: action.createdAt,
          updated_at: now,
          deleted: action.deleted ? 1 : 0,
          version: action.version,
        },
      ])
      await this.config.publish({ kind: 'action', teamId, id })
      return action
    })
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
