// Cohorts in ClickHouse: definitions as configuration objects (platform/config-objects.ts), static members as
// distinct ids. Every change is published on the configuration log (platform/log/config-log.ts), so decide's
// cohort readers in every process reload.
import type { ClickHouseClient } from '../platform/clickhouse'
import { insertRows, queryRows } from '../platform/clickhouse'
import { ConfigObjectStore, timestamp, type ConfigObjectKind } from '../platform/config-objects'
import type { Clock } from '../platform/clock'
import type { ConfigChange, ConfigLog } from '../platform/log/config-log'

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

export type CohortFields = Pick<Cohort, 'name' | 'description' | 'filters' | 'isStatic'>

/** After every stored change (definitions or static members): readers that cache reload, in every process. */
const changed = (teamId: number): ConfigChange => ({ kind: 'cohort', teamId })

export const COHORTS: ConfigObjectKind<Cohort, CohortFields> = {
  table: 'cohorts',
  object: 'cohort',
  columns: ['name', 'description', 'filters', 'is_static', 'updated_at'],
  create: (fields, now) => ({ ...fields, updatedAt: now }),
  touch: (cohort, _current, now) => ({ ...cohort, updatedAt: now }),
  toRow: (c) => ({
    name: c.name,
    description: c.description,
    filters: JSON.stringify(c.filters),
    is_static: c.isStatic ? 1 : 0,
    updated_at: c.updatedAt,
  }),
  fromRow: (r) => ({
    name: r.name as string,
    description: r.description as string,
    filters: JSON.parse((r.filters as string) || '{}') as Cohort['filters'],
    isStatic: Number(r.is_static) === 1,
    updatedAt: timestamp(r.updated_at),
  }),
  published: (c) => changed(c.teamId),
}

export class CohortStore extends ConfigObjectStore<Cohort, CohortFields> {
  constructor(client: ClickHouseClient, clock: Clock, config: ConfigLog) {
    super(client, clock, config, COHORTS)
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
    await this.config.publish(changed(teamId))
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
