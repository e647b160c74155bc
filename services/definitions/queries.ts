// The definitions ingestion keeps (ingestion/definitions.ts, schemas/clickhouse/046_definitions.sql), read
// a page at a time: one query for the page, one for its count, and for events one more for the page's
// 30-day volumes. Rows of parts not yet merged are folded here by GROUP BY.
import { v5 } from 'uuid'
import type { ClickHouseClient } from '../platform/clickhouse'
import { queryRows } from '../platform/clickhouse'
import { SqlParams } from '../platform/clickhouse/params'
import { SESSION_PROPERTIES } from '../analytics/sql/sessions'

// Ids are derived from the key (no table of ids to keep): the same definition always has the same id.
const DEFINITION_ID_NAMESPACE = 'f4c1b0a2-8d3e-4b6f-9a57-2e0c9d1b7a64'

export type EventType = 'event' | 'event_custom' | 'event_posthog'
export type EventOrdering = 'name' | 'last_seen_at' | 'created_at'

export interface EventDefinitionQuery {
  search: string
  eventType: EventType
  /** null: PostHog's default (last seen day, newest first, then name; the shortest names first when searching). */
  ordering: { field: EventOrdering; descending: boolean } | null
  excluded: string[]
  limit: number
  offset: number
}

export interface PropertyDefinitionQuery {
  kind: 'event' | 'person' | 'group'
  groupTypeIndex: number
  search: string
  /** Only these names (PostHog's comma-separated `properties`). */
  names: string[] | null
  excluded: string[]
  /** Leave out every name starting with '$' (PostHog's exclude_core_properties). */
  excludePrefixed: boolean
  numericalOnly: boolean
  eventNames: string[] | null
  filterByEventNames: boolean
  limit: number
  offset: number
}

export interface EventDefinitionRow {
  id: string
  name: string
  created_at: string | null
  last_seen_at: string | null
  volume_30_day: number | null
  query_usage_30_day: null
  tags: string[]
}

export interface PropertyDefinitionRow {
  id: string
  name: string
  is_numerical: boolean
  property_type: 'DateTime' | 'String' | 'Numeric' | 'Boolean' | 'Duration' | null
  tags: string[]
  is_seen_on_filtered_events: boolean | null
}

const DAY_MS = 86_400_000

export class DefinitionQueries {
  constructor(private readonly client: ClickHouseClient) {}

  async events(teamId: number, q: EventDefinitionQuery, now: Date): Promise<{ count: number; results: EventDefinitionRow[] }> {
    const params = new SqlParams()
    const where = ['team_id = {team:Int64}', ...searchSql(q.search, params)]
    if (q.eventType === 'event_custom') where.push(`NOT startsWith(name, '$')`)
    if (q.eventType === 'event_posthog') where.push(`startsWith(name, '$')`)
    if (q.excluded.length) where.push(`name NOT IN ${params.add('Array(String)', q.excluded)}`)
    const order = q.ordering
      ? [`${q.ordering.field} ${q.ordering.descending ? 'DESC' : 'ASC'}`, 'name ASC']
      : [...(q.search.trim() ? ['length(name) ASC'] : []), 'toDate(last_seen_at) DESC', 'name ASC']
    const grouped = `SELECT name, min(created_at) AS created_at, max(last_seen_at) AS last_seen_at
      FROM event_definitions WHERE ${where.join(' AND ')} GROUP BY name`
    const values = { ...params.values, team: teamId }
    const [page, [total]] = await Promise.all([
      queryRows<{ name: string; created_at: string; last_seen_at: string }>(
        this.client,
        `${grouped} ORDER BY ${order.join(', ')} LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
        { ...values, limit: q.limit, offset: q.offset },
      ),
      queryRows<{ count: string }>(this.client, `SELECT count() AS count FROM (${grouped})`, values),
    ])
    const volumes = new Map<string, number>()
    if (page.length) {
      const rows = await queryRows<{ event: string; volume: string }>(
        this.client,
        `SELECT event, count() AS volume FROM events
         WHERE team_id = {team:Int64} AND event IN {names:Array(String)} AND timestamp >= {since:DateTime64(6, 'UTC')}
         GROUP BY event`,
        { team: teamId, names: page.map((r) => r.name), since: toDateTime64(new Date(now.getTime() - 30 * DAY_MS)) },
      )
      for (const r of rows) volumes.set(r.event, Number(r.volume))
    }
    return {
      count: Number(total?.count ?? 0),
      results: page.map((r) => ({
        id: definitionId(teamId, 'event', -1, r.name),
        name: r.name,
        created_at: isoTime(r.created_at),
        last_seen_at: isoTime(r.last_seen_at),
        volume_30_day: volumes.get(r.name) ?? 0,
        query_usage_30_day: null,
        tags: [],
      })),
    }
  }

  async properties(teamId: number, q: PropertyDefinitionQuery): Promise<{ count: number; results: PropertyDefinitionRow[] }> {
    const params = new SqlParams()
    const where = [
      'team_id = {team:Int64}',
      `type = ${params.add('String', q.kind)}`,
      `group_type_index = ${params.add('Int8', q.groupTypeIndex)}`,
      ...searchSql(q.search, params),
    ]
    if (q.names) where.push(`name IN ${params.add('Array(String)', q.names)}`)
    if (q.excluded.length) where.push(`name NOT IN ${params.add('Array(String)', q.excluded)}`)
    if (q.excludePrefixed) where.push(`NOT startsWith(name, '$')`)
    // PostHog leaves these two out of numerical properties: they are numbers that are not measures.
    const having = q.numericalOnly ? `HAVING property_type = 'Numeric' AND name NOT IN ('distinct_id', 'timestamp')` : ''
    const seenOn = q.eventNames?.length
      ? `name IN (SELECT property FROM event_properties WHERE team_id = {team:Int64} AND event IN ${params.add('Array(String)', q.eventNames)})`
      : null
    if (seenOn && q.filterByEventNames) where.push(seenOn)
    const grouped = `SELECT name, min(first_type).2 AS property_type${seenOn ? `, ${seenOn} AS seen` : ''}
      FROM property_definitions WHERE ${where.join(' AND ')} GROUP BY name ${having}`
    const values = { ...params.values, team: teamId }
    const [page, [total]] = await Promise.all([
      queryRows<{ name: string; property_type: string; seen?: number }>(
        this.client,
        `${grouped} ORDER BY ${seenOn ? 'seen DESC, ' : ''}name ASC LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
        { ...values, limit: q.limit, offset: q.offset },
      ),
      queryRows<{ count: string }>(this.client, `SELECT count() AS count FROM (${grouped})`, values),
    ])
    return {
      count: Number(total?.count ?? 0),
      results: page.map((r) => {
        const type = (r.property_type || null) as PropertyDefinitionRow['property_type']
        return {
          id: definitionId(teamId, q.kind, q.groupTypeIndex, r.name),
          name: r.name,
          is_numerical: type === 'Numeric',
          property_type: type,
          tags: [],
          is_seen_on_filtered_events: seenOn ? Boolean(Number(r.seen)) : null,
        }
      }),
    }
  }
}

/**
 * The session properties Wren computes (analytics/sql/sessions.ts), as PostHog lists its sessions table's fields
 * for `type=session` (get_lazy_session_table_properties_v2: in the table's order, aliases left out,
 * $session_duration a Duration): computed per session, never seen by ingestion, so the same for every project.
 */
export function sessionPropertyDefinitions(
  teamId: number,
  q: Pick<PropertyDefinitionQuery, 'search' | 'names' | 'excluded' | 'numericalOnly' | 'limit' | 'offset'>,
): { count: number; results: PropertyDefinitionRow[] } {
  const words = q.search.toLowerCase().split(/\s+/).filter(Boolean)
  const all = Object.entries(SESSION_PROPERTIES)
    .filter(
      ([name, p]) =>
        words.every((w) => name.toLowerCase().includes(w)) &&
        (q.names === null || q.names.includes(name)) &&
        !q.excluded.includes(name) &&
        (!q.numericalOnly || p.kind === 'number'),
    )
    .map(([name, p]): PropertyDefinitionRow => ({
      id: definitionId(teamId, 'session', -1, name),
      name,
      is_numerical: p.kind === 'number',
      property_type:
        name === '$session_duration' ? 'Duration' : p.kind === 'number' ? 'Numeric' : p.kind === 'datetime' ? 'DateTime' : 'String',
      tags: [],
      is_seen_on_filtered_events: null,
    }))
  return { count: all.length, results: all.slice(q.offset, q.offset + q.limit) }
}

/** PostHog's term search: every word of the search is somewhere in the name, any case. */
function searchSql(search: string, params: SqlParams): string[] {
  return search
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => `positionCaseInsensitiveUTF8(name, ${params.add('String', word)}) > 0`)
}

function definitionId(teamId: number, kind: string, groupTypeIndex: number, name: string): string {
  return v5(`${teamId}:${kind}:${groupTypeIndex}:${name}`, DEFINITION_ID_NAMESPACE)
}

/** ClickHouse's DateTime64 text ('2026-03-15 12:00:00.000000') as ISO 8601 UTC. */
function isoTime(value: string | null): string | null {
  if (!value) return null
  return new Date(value.replace(' ', 'T') + (value.endsWith('Z') ? '' : 'Z')).toISOString()
}

function toDateTime64(date: Date): string {
  return date.toISOString().replace('T', ' ').replace('Z', '')
}
