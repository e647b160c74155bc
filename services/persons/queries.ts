// Reads of person state from ClickHouse. Person rows are versioned: the latest version of each uuid
// wins, deleted persons and moved distinct ids are left out.
import type { ClickHouseClient } from '../platform/clickhouse'
import { queryRows } from '../platform/clickhouse'
import { SqlParams } from '../platform/clickhouse/params'
import type { PropertyFilter } from '../analytics/property-filters/parse'
import { listFilterSql } from '../analytics/property-filters/sql'
import { cohortResolver } from '../cohorts/membership'
import type { Cohort } from '../cohorts/store'

export interface PersonRecord {
  id: number
  uuid: string
  properties: Record<string, unknown>
  createdAt: string
  isIdentified: boolean
  distinctIds: string[]
}

export interface ListFilters {
  distinctId?: string
  email?: string
  search?: string
  properties: PropertyFilter[]
  /** Integer ids the caller may not see (access level 'none'). */
  hiddenIds?: number[]
  /** The project's cohorts, for cohort filters in `properties`. */
  cohorts?: Map<number, Cohort>
  limit: number
  offset: number
  /** The caller's (platform/http/caller-gone.ts): the list's queries stop once it aborts. */
  signal?: AbortSignal
}

const LATEST_PERSONS_AND_DELETED = `
  SELECT uuid, argMax(id, version) AS id, argMax(properties, version) AS properties, argMax(created_at, version) AS created_at,
         argMax(is_identified, version) AS is_identified, argMax(is_deleted, version) AS deleted
  FROM person WHERE team_id = {team:Int64} GROUP BY uuid`
const LATEST_PERSONS = `${LATEST_PERSONS_AND_DELETED} HAVING deleted = 0`

const LATEST_DISTINCT_IDS = `
  SELECT distinct_id, argMax(person_uuid, version) AS person_uuid, argMax(is_deleted, version) AS deleted, max(version) AS ver
  FROM person_distinct_id WHERE team_id = {team:Int64} GROUP BY distinct_id HAVING deleted = 0`

/**
 * SQL selecting the distinct ids now attached to the persons for whom `condition` (over the persons
 * table: `properties`, `uuid`, `id`) holds; reads the `{team:Int64}` parameter.
 */
export function personDistinctIdsSql(condition: string): string {
  return `SELECT distinct_id FROM (${LATEST_DISTINCT_IDS}) WHERE person_uuid IN (SELECT uuid FROM (${LATEST_PERSONS}) WHERE ${condition})`
}

interface Row {
  uuid: string
  id: number
  properties: string
  created_at: string
  is_identified: number
  total?: number
}

export class PersonQueries {
  constructor(private readonly client: ClickHouseClient) {}

  async list(teamId: number, f: ListFilters): Promise<{ total: number; persons: PersonRecord[] }> {
    const { params, where } = this.listWhere(teamId, f)
    const rows = await queryRows<Row>(
      this.client,
      `SELECT uuid, id, properties, created_at, is_identified, count() OVER () AS total
       FROM (${LATEST_PERSONS}) ${where.length ? 'WHERE ' + where.join(' AND ') : ''}
       ORDER BY created_at DESC, id DESC LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
      { ...params.values, team: teamId, limit: f.limit, offset: f.offset },
      { signal: f.signal },
    )
    let total = Number(rows[0]?.total ?? 0)
    if (rows.length === 0 && f.offset > 0) {
      const [c] = await queryRows<{ c: number }>(
        this.client,
        `SELECT count() AS c FROM (${LATEST_PERSONS}) ${where.length ? 'WHERE ' + where.join(' AND ') : ''}`,
        { ...params.values, team: teamId },
        { signal: f.signal },
      )
      total = Number(c?.c ?? 0)
    }
    return { total, persons: await this.withDistinctIds(teamId, rows) }
  }

  /**
   * Every person the list's filters select, newest first as the list orders them, up to `max`: read a page
   * at a time, each page starting after the last one's (created_at, id), so a caller holds one page at a
   * time. (One streamed query would not do: over chDB, @clickhouse/client's result stream is the whole
   * result already materialized in one buffer; only over HTTP does it arrive in chunks.)
   */
  async *each(teamId: number, f: Omit<ListFilters, 'limit' | 'offset'>, max: number, pageSize = 2_000): AsyncGenerator<PersonRecord> {
    const { params, where } = this.listWhere(teamId, f)
    let after: Row | null = null
    for (let left = max; left > 0;) {
      const conditions = after
        ? [...where, '(created_at, id) < (parseDateTime64BestEffort({after_created_at:String}, 6), {after_id:Int64})']
        : where
      const rows: Row[] = await queryRows<Row>(
        this.client,
        `SELECT uuid, id, properties, created_at, is_identified
         FROM (${LATEST_PERSONS}) ${conditions.length ? 'WHERE ' + conditions.join(' AND ') : ''}
         ORDER BY created_at DESC, id DESC LIMIT {limit:UInt32}`,
        {
          ...params.values,
          team: teamId,
          limit: Math.min(pageSize, left),
          ...(after ? { after_created_at: after.created_at, after_id: after.id } : {}),
        },
      )
      yield* await this.withDistinctIds(teamId, rows)
      if (rows.length < Math.min(pageSize, left)) return
      left -= rows.length
      after = rows[rows.length - 1]
    }
  }

  private listWhere(teamId: number, f: Omit<ListFilters, 'limit' | 'offset'>): { params: SqlParams; where: string[] } {
    const params = new SqlParams()
    const where: string[] = []
    if (f.distinctId !== undefined)
      where.push(`uuid IN (SELECT person_uuid FROM (${LATEST_DISTINCT_IDS}) WHERE distinct_id = ${params.add('String', f.distinctId)})`)
    if (f.email !== undefined) where.push(`JSONExtractString(properties, 'email') = ${params.add('String', f.email)}`)
    if (f.search) {
      const s = params.add('String', f.search)
      where.push(
        `(positionCaseInsensitiveUTF8(JSONExtractString(properties, 'email'), ${s}) > 0 OR toString(uuid) = lower(${s})
          OR uuid IN (SELECT person_uuid FROM (${LATEST_DISTINCT_IDS}) WHERE distinct_id = ${s}))`,
      )
    }
    // The list has no events: every filter reads the person's own properties.
    if (f.properties.length)
      where.push(listFilterSql(f.properties, 'person', params, { cohortMembers: cohortResolver(teamId, f.cohorts ?? new Map(), params) }))
    if (f.hiddenIds?.length) where.push(`id NOT IN ${params.add('Array(Int64)', f.hiddenIds)}`)
    return { params, where }
  }

  /** The distinct ids now attached to the persons with these emails, or these person ids (uuids or integer ids). */
  async distinctIdsOfPersons(teamId: number, by: 'email' | 'person_id', values: string[]): Promise<string[]> {
    const condition =
      by === 'email'
        ? `JSONExtractString(properties, 'email') IN {values:Array(String)}`
        : `(toString(uuid) IN {values:Array(String)} OR toString(id) IN {values:Array(String)})`
    const rows = await queryRows<{ distinct_id: string }>(this.client, personDistinctIdsSql(condition), {
      team: teamId,
      values: by === 'email' ? values : values.map((v) => v.toLowerCase()),
    })
    return rows.map((r) => r.distinct_id)
  }

  /** By integer id or uuid; a deleted person only when asked for (its activity outlives it). */
  async get(teamId: number, key: { id: number } | { uuid: string }, opts: { includeDeleted?: boolean } = {}): Promise<PersonRecord | null> {
    const filter = 'id' in key ? 'id = {id:Int64}' : 'uuid = {uuid:UUID}'
    const persons = opts.includeDeleted ? LATEST_PERSONS_AND_DELETED : LATEST_PERSONS
    const rows = await queryRows<Row>(
      this.client,
      `SELECT uuid, id, properties, created_at, is_identified FROM (${persons}) WHERE ${filter} LIMIT 1`,
      { team: teamId, ...key },
    )
    const [person] = await this.withDistinctIds(teamId, rows)
    return person ?? null
  }

  /**
   * The person each of these distinct ids belongs to now (one query for a whole page), by distinct id. As
   * PostHog embeds a person in a recording, its `distinctIds` hold only the distinct id it was found by.
   */
  async byDistinctIds(teamId: number, distinctIds: string[]): Promise<Map<string, PersonRecord>> {
    if (distinctIds.length === 0) return new Map()
    const rows = await queryRows<Row & { distinct_id: string }>(
      this.client,
      `SELECT d.distinct_id AS distinct_id, p.uuid AS uuid, p.id AS id, p.properties AS properties, p.created_at AS created_at,
              p.is_identified AS is_identified
       FROM (SELECT distinct_id, person_uuid FROM (${LATEST_DISTINCT_IDS}) WHERE distinct_id IN {ids:Array(String)}) AS d
       INNER JOIN (SELECT * FROM (${LATEST_PERSONS}) WHERE uuid IN (SELECT person_uuid FROM (${LATEST_DISTINCT_IDS}) WHERE distinct_id IN {ids:Array(String)})) AS p
       ON p.uuid = d.person_uuid`,
      { team: teamId, ids: distinctIds },
    )
    return new Map(rows.map((r) => [r.distinct_id, toRecord(r, [r.distinct_id])] as const))
  }

  /** Newest first; entries of one millisecond in a fixed order, so that pages neither repeat nor skip one. */
  async activity(
    teamId: number,
    personUuid: string,
    limit: number,
    offset: number,
  ): Promise<{ total: number; rows: Array<{ activity: string; detail: string; at: string }> }> {
    const where = 'team_id = {team:Int64} AND person_uuid = {uuid:UUID}'
    const params = { team: teamId, uuid: personUuid, limit, offset }
    // Counted apart: a page past the end has no row to carry the count.
    const [[count], rows] = await Promise.all([
      queryRows<{ n: number }>(this.client, `SELECT count() AS n FROM person_activity WHERE ${where}`, params),
      queryRows<{ activity: string; detail: string; at: string }>(
        this.client,
        `SELECT activity, detail, at FROM person_activity WHERE ${where}
         ORDER BY at DESC, activity, detail LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
        params,
      ),
    ])
    return { total: Number(count?.n ?? 0), rows }
  }

  /** The person's properties as each of its events saw them, oldest first. */
  async propertiesAtEvents(
    teamId: number,
    distinctIds: string[],
    from: string | null,
    to: string | null,
  ): Promise<Array<{ timestamp: string; person_properties: string }>> {
    return queryRows(
      this.client,
      `SELECT timestamp, person_properties FROM events
       WHERE team_id = {team:Int64} AND distinct_id IN {ids:Array(String)} AND person_mode != 'propertyless'
         ${from ? 'AND timestamp >= parseDateTime64BestEffort({from:String}, 6)' : ''} ${to ? 'AND timestamp <= parseDateTime64BestEffort({to:String}, 6)' : ''}
       ORDER BY timestamp, uuid`,
      { team: teamId, ids: distinctIds, ...(from ? { from } : {}), ...(to ? { to } : {}) },
    )
  }

  private async withDistinctIds(teamId: number, rows: Row[]): Promise<PersonRecord[]> {
    if (rows.length === 0) return []
    const ids = await queryRows<{ distinct_id: string; person_uuid: string }>(
      this.client,
      `SELECT distinct_id, person_uuid FROM (${LATEST_DISTINCT_IDS}) WHERE person_uuid IN {uuids:Array(UUID)} ORDER BY ver, distinct_id`,
      { team: teamId, uuids: rows.map((r) => r.uuid) },
    )
    const byPerson = new Map<string, string[]>()
    for (const row of ids) byPerson.set(row.person_uuid, [...(byPerson.get(row.person_uuid) ?? []), row.distinct_id])
    return rows.map((r) => toRecord(r, byPerson.get(r.uuid) ?? []))
  }
}

function toRecord(r: Row, distinctIds: string[]): PersonRecord {
  return {
    id: Number(r.id),
    uuid: r.uuid,
    properties: JSON.parse(r.properties) as Record<string, unknown>,
    createdAt: r.created_at,
    isIdentified: Number(r.is_identified) === 1,
    distinctIds,
  }
}
