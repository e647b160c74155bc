// One page of a table-shaped kind (EventsQuery, ActorsQuery): its columns as SQL, grouped by the ones that do
// not aggregate when any does (PostHog's implicit GROUP BY), ordered, `limit` rows from `offset` and one more
// to tell `hasMore`; each column's ClickHouse type beside it (or, on an empty page, from DESCRIBE).
import type { ClickHouseClient } from '../../platform/clickhouse'
import { queryRows } from '../../platform/clickhouse'
import type { SqlParams } from '../../platform/clickhouse/params'
import { presentType, presentValue } from './columns'

export interface TableColumn {
  sql: string
  aggregate: boolean
}

export interface TableQuery {
  columns: TableColumn[]
  /** What follows FROM. */
  from: string
  where: string[]
  having: string[]
  /** ORDER BY items; a column is `c<index>`. */
  orderBy: string[]
  /** The tie-breakers when no column aggregates (the rows' own key), so that pages neither repeat nor skip a row. */
  ties: string[]
  limit: number
  offset: number
  /** The SETTINGS clause's content ('' for none). */
  settings: string
}

export interface TablePage {
  /** Each row's cells, as PostHog serializes them (datetimes in the project's timezone). */
  rows: unknown[][]
  types: string[]
  hasMore: boolean
}

/** Whether the table groups: a column or a HAVING condition aggregates. */
export const groups = (t: Pick<TableQuery, 'columns' | 'having'>): boolean => t.columns.some((c) => c.aggregate) || t.having.length > 0

export async function readTable(
  client: ClickHouseClient,
  t: TableQuery,
  params: SqlParams,
  opts: { tz: string; signal: AbortSignal },
): Promise<TablePage> {
  const grouped = groups(t)
  const keys = t.columns.flatMap((c, i) => (c.aggregate ? [] : [`c${i}`]))
  const select = t.columns.map((c, i) => `${c.sql} AS c${i}, toTypeName(c${i}) AS t${i}`).join(', ')
  const body = `SELECT ${select} FROM ${t.from} ${t.where.length ? `WHERE ${t.where.join(' AND ')}` : ''}
    ${grouped && keys.length ? `GROUP BY ${keys.join(', ')}` : ''} ${t.having.length ? `HAVING ${t.having.join(' AND ')}` : ''}`
  const settings = t.settings ? ` SETTINGS ${t.settings}` : ''
  const order = [...t.orderBy, ...(grouped ? keys : t.ties)]
  const sql = `${body} ${order.length ? `ORDER BY ${order.join(', ')}` : ''} LIMIT ${t.limit + 1} OFFSET ${t.offset}${settings}`
  const rows = await queryRows<Record<string, unknown>>(client, sql, params.values, { signal: opts.signal })
  let types: string[]
  if (rows.length) types = t.columns.map((_, i) => String(rows[0][`t${i}`]))
  else {
    const described = await queryRows<{ name: string; type: string }>(client, `DESCRIBE TABLE (${body}${settings})`, params.values, {
      signal: opts.signal,
    })
    const byName = new Map(described.map((d) => [d.name, d.type]))
    types = t.columns.map((_, i) => byName.get(`c${i}`) ?? 'String')
  }
  types = types.map((type) => presentType(type, opts.tz))
  return {
    rows: rows.slice(0, t.limit).map((r) => t.columns.map((_, i) => presentValue(r[`c${i}`], types[i], opts.tz))),
    types,
    hasMore: rows.length > t.limit,
  }
}
