// Cohorts in ClickHouse: definitions as versioned rows, static members as distinct ids. New ids come from
// the configuration log's allocator, and every change is published there (shared/log/config-log.ts), so
// decide's cohort readers in every process reload. Updates are compare-and-set on the version
// (shared/versioned-update.ts).
import type { ClickHouseClient } from '../shared/clickhouse'
import { latestVersionsSql } from '../shared/clickhouse/rows'
import { insertRows, queryRows } from '../shared/clickhouse'
import type { Clock } from '../shared/time/clock'
import { VersionedUpdates } from '../shared/versioned-update'
import type { ConfigLog } from '../shared/log/config-log'

export interface Cohort {
  id: number
  teamId: number
  name: string
  description: string
  /** `{properties: <property group of person/cohort filters>}` for dynamic cohorts. */
  filters: { properties: unknown }
  isStatic: boolean
  createdAt: string
  updatedAt: string
  deleted: boolean
  version: number
}

interface Row {
  id: number
  team_id: number
  name: string
  description: string
  filters: string
  is_static: number
  created_at: string
  updated_at: string
  deleted: number
  latest_version: number
}

const LATEST = latestVersionsSql('cohorts', ['name', 'description', 'filters', 'is_static', 'created_at', 'updated_at', 'deleted'])

export class CohortStore {
  private readonly updates: VersionedUpdates

  constructor(
    private readonly client: ClickHouseClient,
    private readonly clock: Clock,
    private readonly config: ConfigLog,
  ) {
    this.updates = new VersionedUpdates(config)
  }

  async list(teamId: number, opts: { includeDeleted?: boolean } = {}): Promise<Cohort[]> {
    const rows = await queryRows<Row>(
      this.client,
      `SELECT * FROM (${LATEST}) ${opts.includeDeleted ? '' : 'WHERE deleted = 0'} ORDER BY id`,
      { team: teamId },
    )
    return rows.map(fromRow)
  }

  async get(teamId: number, id: number): Promise<Cohort | undefined> {
    return (await this.list(teamId)).find((c) => c.id === id)
  }

  async create(teamId: number, input: Pick<Cohort, 'name' | 'description' | 'filters' | 'isStatic'>): Promise<Cohort> {
    const now = this.clock.now().toISOString()
    const cohort: Cohort = {
      ...input,
      id: await this.config.nextId('cohorts'),
      teamId,
      createdAt: now,
      updatedAt: now,
      deleted: false,
      version: 1,
    }
    await this.write(cohort)
    return cohort
  }

  /**
   * Applies `change` to the cohort as stored now (deleted included), so a concurrent update of other
   * fields stays. The cohort afterwards, or undefined when there is none.
   */
  async update(
    teamId: number,
    id: number,
    change: (current: Cohort) => Partial<Pick<Cohort, 'name' | 'description' | 'filters' | 'deleted'>>,
  ): Promise<Cohort | undefined> {
    return this.updates.apply<Cohort>({
      object: { kind: 'cohort', teamId, id },
      read: async () => (await this.list(teamId, { includeDeleted: true })).find((c) => c.id === id),
      change: (current) => ({ ...current, ...change(current), updatedAt: this.clock.now().toISOString() }),
      write: (next) => this.write(next),
    })
  }

  private async write(cohort: Cohort): Promise<void> {
    await insertRows(this.client, 'cohorts', [
      {
        team_id: cohort.teamId,
        id: cohort.id,
        name: cohort.name,
        description: cohort.description,
        filters: JSON.stringify(cohort.filters),
        is_static: cohort.isStatic ? 1 : 0,
        created_at: cohort.createdAt,
        updated_at: cohort.updatedAt,
        deleted: cohort.deleted ? 1 : 0,
        version: cohort.version,
      },
    ])
    await this.changed(cohort.teamId)
  }

  /** After every stored change (definitions or static members): readers that cache reload, in every process. */
  private changed(teamId: number): Promise<void> {
    return this.config.publish({ kind: 'cohort', teamId })
  }

  async addStaticMembers(teamId: number, cohortId: number, distinctIds: string[]): Promise<void> {
    const at = this.clock.now().toISOString()
    const unique = [...new Set(distinctIds)]
    for (let i = 0; i < unique.length; i += 10_000) {
      await insertRows(
        this.client,
        'cohort_static_members',
        unique.slice(i, i + 10_000).map((distinct_id) => ({ team_id: teamId, cohort_id: cohortId, distinct_id, added_at: at })),
      )
    }
    await this.changed(teamId)
  }

  /** How many current persons are members, but for the persons `hidden` (their uuids): for the `count` field. */
  async countMembers(teamId: number, membersSql: string, params: Record<string, unknown>, hidden: string[] = []): Promise<number> {
    // The members query answers one column of person uuids (its name differs by cohort kind).
    const sql = hidden.length
      ? `SELECT count() AS n FROM (${membersSql}) AS m WHERE COLUMNS('uuid') NOT IN {hidden_persons:Array(UUID)}`
      : `SELECT count() AS n FROM (${membersSql})`
    const [row] = await queryRows<{ n: number }>(this.client, sql, { ...params, team: teamId, hidden_persons: hidden })
    return Number(row?.n ?? 0)
  }
}

function fromRow(r: Row): Cohort {
  return {
    id: Number(r.id),
    teamId: Number(r.team_id),
    name: r.name,
    description: r.description,
    filters: JSON.parse(r.filters || '{}') as Cohort['filters'],
    isStatic: Number(r.is_static) === 1,
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
    deleted: Number(r.deleted) === 1,
    version: Number(r.latest_version),
  }
}
