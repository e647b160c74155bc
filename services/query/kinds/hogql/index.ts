// HogQLQuery: SQL for API users, as PostHog's (query-api.md §5.1, §6). The text is read by PostHog's parser
// and printed by Wren's HogQL printer (analytics/hogql/), which confines every table to the project; this
// kind adds what PostHog's HogQLQueryRunner adds: the placeholders ({filters}, {variables.x}, {name}), the
// LIMIT rules (default 100, at most 50,000; without a LIMIT of the query's own, `limit`/`offset` page it
// and `hasMore` tells of a next page), and the answer's shape (rows, `columns`, `types` as ClickHouse names
// them, datetimes in the project's timezone, `hogql` as run). It runs through queryTypedRows: bounded in
// time, memory and rows, and stopped with the run's signal.
import type { ClickHouseClient } from '../../../platform/clickhouse'
import { queryTypedRows } from '../../../platform/clickhouse'
import { SqlParams } from '../../../platform/clickhouse/params'
import { wrenError } from '../../../platform/errors'
import { parseSelect, type HogNode } from '../../../analytics/hogql/parser'
import { printQuery, type Printed } from '../../../analytics/hogql/printer'
import { selectText, setText } from '../../../analytics/hogql/text'
import { hasPersonOverrides } from '../../../analytics/sql/persons-sql'
import { hiddenPersons } from '../../../platform/http/hidden-persons'
import { SESSION_JOIN_SETTINGS } from '../../../analytics/sql/sessions'
import { compileGroup, type PropertyColumns } from '../../../analytics/property-filters/sql'
import { parsePropertyGroup, type PropertyGroup } from '../../../analytics/property-filters/parse'
import { dateParamInstant } from '../../../analytics/time/date-params'
import type { DashboardFilter, QueryKind, QueryRun } from '../../kind'

/** PostHog's rows of an API query without a LIMIT of its own, and the most any query returns (constants.py). */
export const DEFAULT_RETURNED_ROWS = 100
export const MAX_SELECT_RETURNED_ROWS = 50_000

export interface HogqlFilters {
  properties?: unknown
  dateRange?: { date_from?: string | null; date_to?: string | null } | null
  filterTestAccounts?: boolean | null
}

export interface HogqlQuery {
  query: string
  filters?: HogqlFilters
  values?: Record<string, unknown>
  variables?: Record<string, { code_name?: string; value?: unknown; isNull?: boolean }>
  limit?: number
  offset?: number
}

export interface HogqlDeps {
  clickhouse: ClickHouseClient
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function parse(node: Record<string, unknown>): HogqlQuery {
  const { query, filters, values, variables, limit, offset } = node
  if (typeof query !== 'string' || query.trim() === '')
    throw wrenError('invalid_input', 'A HogQLQuery needs `query`: the HogQL text.', 'query')
  if (filters !== undefined && filters !== null && !isRecord(filters))
    throw wrenError('invalid_input', '`filters` must be an object.', 'filters')
  if (values !== undefined && values !== null && !isRecord(values))
    throw wrenError('invalid_input', '`values` must be an object.', 'values')
  if (variables !== undefined && variables !== null && !isRecord(variables))
    throw wrenError('invalid_input', '`variables` must be an object.', 'variables')
  const whole = (v: unknown, attr: string, max: number) => {
    if (v === undefined || v === null) return undefined
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0 || v > max)
      throw wrenError('invalid_input', `\`${attr}\` must be a whole number from 0 to ${max}.`, attr)
    return v
  }
  return {
    query,
    filters: (filters ?? undefined) as HogqlFilters | undefined,
    values: (values ?? undefined) as HogqlQuery['values'],
    variables: (variables ?? undefined) as HogqlQuery['variables'],
    limit: whole(limit, 'limit', MAX_SELECT_RETURNED_ROWS),
    offset: whole(offset, 'offset', Number.MAX_SAFE_INTEGER),
  }
}

/** A value of `values` or `variables` as a bound constant. */
function constant(value: unknown, params: SqlParams, what: string): Printed {
  if (value === null || value === undefined) return { sql: 'NULL', kind: 'any' }
  if (typeof value === 'boolean') return { sql: value ? 'true' : 'false', kind: 'bool' }
  if (typeof value === 'number' && Number.isFinite(value))
    return { sql: params.add(Number.isSafeInteger(value) ? 'Int64' : 'Float64', value), kind: 'number' }
  if (typeof value === 'string') return { sql: params.add('String', value), kind: 'string' }
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return { sql: params.add('Array(String)', value), kind: 'any' }
  throw wrenError('invalid_hogql', `${what} must be a string, a number, a boolean, null or a list of strings`)
}

/** `{filters}` over the events (or sessions) of one SELECT: PostHog's HogQLFilters (posthog/hogql/filters.py). */
function filtersSql(query: HogqlQuery, run: QueryRun, params: SqlParams, table: 'events' | 'sessions'): Printed {
  const f = query.filters ?? {}
  const tz = run.project.timezone || 'UTC'
  const parts: string[] = []
  const time = table === 'sessions' ? 'session_start' : 'timestamp'
  const range = f.dateRange ?? {}
  const from = range.date_from ?? '-7d'
  if (from !== 'all') parts.push(`${time} >= toDateTime64(${params.add('String', instant(from, 'date_from', run, tz))}, 6, 'UTC')`)
  if (range.date_to) {
    // A day without a time is the whole day (PostHog's date_to runs to the end of its day).
    const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(String(range.date_to).trim())
    const to = day ? new Date(Date.UTC(+day[1], +day[2] - 1, +day[3] + 1)).toISOString().slice(0, 10) : range.date_to
    parts.push(`${time} < toDateTime64(${params.add('String', instant(to, 'date_to', run, tz))}, 6, 'UTC')`)
  }
  const groups: PropertyGroup[] = []
  if (f.properties !== undefined && f.properties !== null) groups.push(parsePropertyGroup(f.properties, 'filters'))
  if (f.filterTestAccounts) groups.push(parsePropertyGroup(run.project.settings.test_account_filters ?? [], 'test_account_filters'))
  const values = groups.filter((g) => g.values.length > 0)
  if (values.length) {
    if (table === 'sessions') throw wrenError('invalid_hogql', '{filters} with properties reads events: select FROM events to use it')
    const columns: PropertyColumns = {
      table: 'events',
      event: 'properties',
      person: 'person_properties',
      personId: { sql: 'person_id' },
      groups: true,
      elements: 'elements_chain',
      materialized: { column: () => undefined },
    }
    parts.push(
      compileGroup(
        { type: 'AND', values },
        {
          params,
          columns,
          cohortMembers: () => {
            throw wrenError('invalid_hogql', 'cohort filters are not supported in {filters}')
          },
          dateParam: (v) => params.add('String', instant(v, 'date_from', run, tz)),
        },
      ),
    )
  }
  return { sql: parts.length ? `(${parts.join(' AND ')})` : 'true', kind: 'bool' }
}

function instant(value: string, attr: 'date_from' | 'date_to', run: QueryRun, tz: string): string {
  return dateParamInstant(String(value), attr, run.now, tz).toISOString().replace('T', ' ').replace('Z', '')
}

/** The top-level LIMIT PostHog puts on an API query (§6.10), and whether the answer pages. */
function limits(query: HogqlQuery) {
  const pageLimit = query.limit ?? DEFAULT_RETURNED_ROWS
  const pageOffset = query.offset ?? 0
  let paged = false
  const clause = (top: HogNode | undefined) => {
    const own = top?.limit
    if (own) {
      if (own.node !== 'Constant' || !Number.isSafeInteger(own.value) || own.value < 0)
        throw wrenError('invalid_hogql', 'LIMIT takes a whole number')
      return `LIMIT ${Math.min(own.value, MAX_SELECT_RETURNED_ROWS)}`
    }
    paged = true
    return `LIMIT ${pageLimit + 1}${top?.offset || !pageOffset ? '' : ` OFFSET ${pageOffset}`}`
  }
  return { clause, paged: () => paged, pageLimit, pageOffset }
}

/** A ClickHouse value as PostHog serializes it: datetimes in the project's timezone with their offset. */
function serialize(value: unknown, type: string, tz: string): unknown {
  if (value === null || value === undefined) return null
  if (/^(Nullable\()?(LowCardinality\()?DateTime/.test(type) && typeof value === 'string') return inZone(value, tz)
  if (Array.isArray(value)) {
    const inner = /^Array\((.*)\)$/.exec(type)?.[1] ?? ''
    return value.map((v) => serialize(v, inner, tz))
  }
  return value
}

/** An ISO instant written in `tz`, with its offset (`Z` for UTC), as Django writes an aware datetime. */
function inZone(iso: string, tz: string): string {
  const d = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(iso) ? iso : `${iso.replace(' ', 'T')}Z`)
  if (Number.isNaN(d.getTime())) return iso
  const fraction = /\.(\d+)/.exec(iso)?.[1]
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(d)
      .map((p) => [p.type, p.value]),
  )
  const wall = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  )
  const offsetMin = Math.round((wall - Math.floor(d.getTime() / 1000) * 1000) / 60_000)
  const sign = offsetMin < 0 ? '-' : '+'
  const abs = Math.abs(offsetMin)
  const offset = offsetMin === 0 ? 'Z' : `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${fraction && !/^0+$/.test(fraction) ? `.${fraction}` : ''}${offset}`
}

async function run(deps: HogqlDeps, r: QueryRun, query: HogqlQuery): Promise<Record<string, unknown>> {
  const ast = parseSelect(query.query, 'query')
  const params = new SqlParams()
  const tz = r.project.timezone || 'UTC'
  const page = limits(query)
  // Only a query that names a person reads the person overrides (one cheap read).
  const personOverrides = /person/i.test(query.query) ? await hasPersonOverrides(deps.clickhouse, r.project.id) : false
  const hidden = r.viewer ? await hiddenPersons(deps.clickhouse, r.viewer, r.project.id) : null
  const printed = printQuery(ast, {
    params,
    hidden,
    text: query.query,
    attr: 'query',
    team: r.project.id,
    timezone: tz,
    personOverrides,
    limit: page.clause,
    placeholders: (chain, scope) => {
      const [head, ...rest] = chain
      if (head === 'filters' && rest.length === 0) {
        if (!scope.singleTable) throw wrenError('invalid_hogql', '{filters} works only in a SELECT that reads events or sessions alone')
        return filtersSql(query, r, params, scope.singleTable as 'events' | 'sessions')
      }
      if (head === 'variables' && rest.length === 1) {
        const entry = Object.values(query.variables ?? {}).find((v) => isRecord(v) && v.code_name === rest[0])
        if (!entry) throw wrenError('invalid_hogql', `Variable ${rest[0]} is missing from query`)
        return constant(entry.isNull ? null : entry.value, params, `variable ${rest[0]}`)
      }
      if (rest.length === 0 && query.values && Object.hasOwn(query.values, head))
        return constant(query.values[head], params, `value ${head}`)
      throw wrenError('invalid_hogql', `Placeholder {${chain.join('.')}} is not available: give it in values`)
    },
  })
  const sql = printed.sessions ? `${printed.sql}\nSETTINGS ${SESSION_JOIN_SETTINGS}` : printed.sql
  const result = await queryTypedRows(deps.clickhouse, sql, params.values, { signal: r.signal })
  const types = result.meta.map((m, i) => [printed.columns[i] ?? m.name, m.type])
  let rows = result.rows.map((row) => row.map((v, i) => serialize(v, result.meta[i].type, tz)))
  const paged = page.paged()
  const hasMore = paged && rows.length > page.pageLimit
  if (hasMore) rows = rows.slice(0, page.pageLimit)
  const hogql =
    ast.node === 'SelectQuery'
      ? selectText(
          ast,
          paged ? page.pageLimit : Math.min(Number(ast.limit?.value), MAX_SELECT_RETURNED_ROWS),
          paged && !ast.offset ? page.pageOffset : undefined,
        )
      : setText(ast)
  return {
    results: rows,
    columns: printed.columns,
    types,
    hogql,
    clickhouse: sql,
    query: query.query,
    ...(paged ? { hasMore, limit: page.pageLimit, offset: page.pageOffset } : {}),
  }
}

/** Register as one row of services/query/kinds.ts: `[hogqlQueryKind.kind, hogqlQueryKind]`, with deps `{ clickhouse }`. */
export const hogqlQueryKind: QueryKind<HogqlQuery, HogqlDeps> = {
  kind: 'HogQLQuery',
  insight: false,
  parse,
  withDashboardFilters(query: HogqlQuery, filters: DashboardFilter): HogqlQuery {
    // PostHog's apply_dashboard_filters on a HogQLQuery sets its {filters}: the date range and properties.
    const dateRange =
      filters.date_from !== undefined || filters.date_to !== undefined
        ? {
            date_from: filters.date_from ?? query.filters?.dateRange?.date_from,
            date_to: filters.date_to ?? query.filters?.dateRange?.date_to,
          }
        : query.filters?.dateRange
    const properties = filters.properties ?? query.filters?.properties
    return { ...query, filters: { ...query.filters, dateRange, properties } }
  },
  staleInterval: () => null,
  run,
}
