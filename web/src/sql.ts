// The SQL page's model, without the DOM (Node's unit tests run it): the query in the URL, a HogQLQuery saved
// as an insight in PostHog's shape for SQL insights, the place in the query an error names, and what the
// editor completes (HogQL's tables and their fields, its functions).

type Json = Record<string, unknown>

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/** What the page opens with when the URL holds no query. */
export const FIRST_QUERY = 'select event, count() as c\nfrom events\ngroup by event\norder by c desc\nlimit 100'

/** The query the URL's search part holds (`?q=`), or null. */
export function sqlOfSearch(search: string): string | null {
  return new URLSearchParams(search).get('q')
}

/** The search part (without `?`) that holds `sql`. */
export function searchOfSql(sql: string): string {
  return new URLSearchParams({ q: sql }).toString()
}

/** The body of POST …/query/ for `sql`. */
export function hogqlRequest(sql: string, clientQueryId: string): Json {
  return { query: { kind: 'HogQLQuery', query: sql }, client_query_id: clientQueryId, refresh: 'force_blocking' }
}

/** A HogQLQuery's answer, as the page reads it (PostHog's HogQLQueryResponse). */
export interface SqlAnswer {
  results: unknown[][]
  columns: string[]
  /** `[name, ClickHouse type]` pairs (HogQLQuery); a saved insight may carry the types alone. */
  types: Array<[string, string] | string>
  hasMore?: boolean | null
  limit?: number | null
  offset?: number | null
}

/** A column's ClickHouse type, from either form of `types`. */
export function typeOf(types: SqlAnswer['types'] | null | undefined, index: number): string {
  const type = types?.[index]
  return Array.isArray(type) ? String(type[1] ?? '') : typeof type === 'string' ? type : ''
}

/** The answer's rows and columns, or null when `value` is no HogQL answer (a saved insight before it is computed). */
export function sqlAnswer(value: {
  results?: unknown
  result?: unknown
  columns?: unknown
  types?: unknown
  hasMore?: unknown
}): SqlAnswer | null {
  const rows = value.results ?? value.result
  if (!Array.isArray(rows) || !rows.every(Array.isArray) || !Array.isArray(value.columns)) return null
  return {
    results: rows as unknown[][],
    columns: value.columns.map(String),
    types: Array.isArray(value.types) ? (value.types as SqlAnswer['types']) : [],
    hasMore: value.hasMore === true,
  }
}

/** A value as a result cell shows it: strings as they are, null as null, anything else as JSON. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return 'null'
  if (typeof value === 'string') return value
  return JSON.stringify(value)
}

/**
 * `sql` as a saved insight's query: PostHog's SQL insight, a DataVisualizationNode around the HogQLQuery,
 * shown as a table.
 */
export function sqlInsightQuery(sql: string): Json {
  return { kind: 'DataVisualizationNode', source: { kind: 'HogQLQuery', query: sql }, display: 'ActionsTable' }
}

/** The SQL a saved insight's query holds (a HogQLQuery, bare or in a DataVisualizationNode or DataTableNode), or null. */
export function insightSql(query: unknown): string | null {
  if (!isRecord(query)) return null
  const wrapped = (query.kind === 'DataVisualizationNode' || query.kind === 'DataTableNode') && isRecord(query.source)
  const source = wrapped ? (query.source as Json) : query
  return source.kind === 'HogQLQuery' && typeof source.query === 'string' ? source.query : null
}

/** A name for an unnamed SQL insight: its first line, cut. */
export function sqlName(sql: string): string {
  const first = sql.trim().split('\n')[0]?.trim() ?? ''
  if (!first) return 'SQL query'
  return first.length > 60 ? `${first.slice(0, 59)}…` : first
}

/** Where in the query an error points: its line (from 1), column (from 0), and the offset of both in the text. */
export interface ErrorPlace {
  line: number
  column: number
  offset: number
  /** The offset the error's span ends at (exclusive); `offset` when it names one point. */
  end: number
}

/** The offset of `line` (from 1) and `column` (from 0) in `sql`, kept inside the text. */
function offsetOf(sql: string, line: number, column: number): number {
  const lines = sql.split('\n')
  const at = Math.min(Math.max(line, 1), lines.length)
  const start = lines.slice(0, at - 1).reduce((n, l) => n + l.length + 1, 0)
  return start + Math.min(Math.max(column, 0), lines[at - 1].length)
}

function placeAt(sql: string, offset: number, end: number): ErrorPlace {
  const clamp = (n: number) => Math.min(Math.max(0, n), sql.length)
  const from = clamp(offset)
  const before = sql.slice(0, from).split('\n')
  return { line: before.length, column: before.at(-1)!.length, offset: from, end: Math.max(from, clamp(end)) }
}

/** A position as an error body gives it: an offset, or `{line, column, offset}` (the parser's: line from 1, column from 0). */
function offsetIn(sql: string, position: unknown): number | null {
  if (typeof position === 'number' && Number.isInteger(position)) return position
  if (!isRecord(position)) return null
  if (typeof position.offset === 'number') return position.offset
  if (typeof position.line === 'number' && typeof position.column === 'number') return offsetOf(sql, position.line, position.column)
  return null
}

/**
 * The place in `sql` an API error names: the error body's `start` (and `end`), or its `line` and `column`, or
 * "line L, column C" in its detail (column from 1, as a person reads it); null when it names none.
 */
export function errorPlace(sql: string, error: { detail: string; body?: Json | null }): ErrorPlace | null {
  const body = error.body ?? {}
  const start = offsetIn(sql, body.start)
  if (start !== null) return placeAt(sql, start, offsetIn(sql, body.end) ?? start)
  if (typeof body.line === 'number' && typeof body.column === 'number') {
    const at = offsetOf(sql, body.line, body.column)
    return placeAt(sql, at, at)
  }
  const said = /line (\d+),? col(?:umn)? (\d+)/i.exec(error.detail)
  if (said) {
    const at = offsetOf(sql, Number(said[1]), Number(said[2]) - 1)
    return placeAt(sql, at, at)
  }
  return null
}

/** The session fields HogQL reads, on `sessions` and through an event's `session.` (Wren's computed ones). */
const SESSION_FIELDS = [
  '$start_timestamp',
  '$end_timestamp',
  '$session_duration',
  '$entry_current_url',
  '$end_current_url',
  '$exit_current_url',
  '$entry_pathname',
  '$end_pathname',
  '$exit_pathname',
  '$pageview_count',
  '$autocapture_count',
  '$screen_count',
]

/** HogQL's tables as Wren serves them (services/analytics/hogql/schema.ts), with their fields: PostHog's names. */
export const HOGQL_TABLES: Record<string, string[]> = {
  events: [
    'uuid',
    'event',
    'properties',
    'timestamp',
    'distinct_id',
    'elements_chain',
    'created_at',
    '$session_id',
    '$window_id',
    'person_id',
    'person',
    'session',
    'pdi',
    '$group_0',
    '$group_1',
    '$group_2',
    '$group_3',
    '$group_4',
  ],
  persons: ['id', 'created_at', 'properties', 'is_identified'],
  person_distinct_ids: ['distinct_id', 'person_id'],
  sessions: ['session_id', 'id', 'distinct_id', 'duration', ...SESSION_FIELDS],
  groups: ['index', 'key', 'created_at', 'properties'],
}

/** What follows a name in a chain: its fields, whose `properties` it has, and the names that lead further. */
interface ChainLevel {
  fields: string[]
  properties?: 'event' | 'person' | 'group'
  joins?: Record<string, ChainLevel>
}

/** The chains a table reads: an event's `person.`, `session.` and `pdi.` (its lazy joins in PostHog). */
export const CHAINS: Record<string, ChainLevel> = {
  events: {
    fields: HOGQL_TABLES.events,
    properties: 'event',
    joins: {
      person: { fields: ['id', 'properties', 'created_at'], properties: 'person' },
      session: { fields: SESSION_FIELDS },
      pdi: { fields: ['distinct_id', 'person_id'] },
    },
  },
  persons: { fields: HOGQL_TABLES.persons, properties: 'person' },
  person_distinct_ids: { fields: HOGQL_TABLES.person_distinct_ids },
  sessions: { fields: HOGQL_TABLES.sessions },
  groups: { fields: HOGQL_TABLES.groups, properties: 'group' },
}

/** HogQL functions the editor offers: the common ones of PostHog's function registry. */
export const HOGQL_FUNCTIONS = [
  // aggregations
  'count',
  'countIf',
  'sum',
  'sumIf',
  'avg',
  'avgIf',
  'min',
  'max',
  'uniq',
  'uniqIf',
  'uniqExact',
  'any',
  'argMax',
  'argMin',
  'groupArray',
  'groupUniqArray',
  'quantile',
  'median',
  'topK',
  // dates and times
  'now',
  'today',
  'yesterday',
  'toDate',
  'toDateTime',
  'toStartOfMinute',
  'toStartOfHour',
  'toStartOfDay',
  'toStartOfWeek',
  'toStartOfMonth',
  'toYear',
  'toMonth',
  'toDayOfWeek',
  'toHour',
  'dateDiff',
  'dateAdd',
  'dateSub',
  'dateTrunc',
  'formatDateTime',
  'toIntervalDay',
  'toIntervalHour',
  // conversions
  'toString',
  'toInt',
  'toFloat',
  'toUUID',
  // strings
  'lower',
  'upper',
  'length',
  'concat',
  'substring',
  'trim',
  'replaceAll',
  'replaceRegexpAll',
  'splitByChar',
  'position',
  'startsWith',
  'endsWith',
  'like',
  'ilike',
  'match',
  'extract',
  // urls
  'domain',
  'path',
  'extractURLParameter',
  // arrays
  'arrayJoin',
  'has',
  'length',
  'arrayMap',
  'arrayFilter',
  'indexOf',
  // conditionals and nulls
  'if',
  'multiIf',
  'coalesce',
  'ifNull',
  'nullIf',
  'isNull',
  'isNotNull',
  // maths
  'round',
  'floor',
  'ceil',
  'abs',
  'greatest',
  'least',
  // JSON
  'JSONExtractString',
  'JSONExtractInt',
  'JSONExtractFloat',
  'JSONExtractRaw',
  'JSONHas',
].filter((name, i, all) => all.indexOf(name) === i)

/** The tables a query reads (after FROM or JOIN), with the alias each has, if any. */
export function tablesOf(sql: string): Array<{ table: string; alias: string | null }> {
  const found: Array<{ table: string; alias: string | null }> = []
  const keywords = /^(where|group|order|limit|left|right|inner|outer|full|cross|join|on|using|prewhere|having|union|settings|as)$/i
  for (const m of sql.matchAll(/\b(?:from|join)\s+([a-z_][\w]*)(?:\s+(?:as\s+)?([a-z_][\w]*))?/gi)) {
    const table = m[1].toLowerCase()
    if (!(table in HOGQL_TABLES)) continue
    const alias = m[2] && !keywords.test(m[2]) ? m[2] : null
    found.push({ table, alias })
  }
  return found
}

/** What the editor offers at a place, by the chain of names before it (`events.`, `person.properties.`, `e.`). */
export type Offer =
  { kind: 'fields'; fields: string[] } | { kind: 'properties'; of: 'event' | 'person' | 'group' } | { kind: 'names'; fields: string[] }

/**
 * What to offer after `chain` (the dotted names before the word being typed, e.g. ['person', 'properties']) in
 * `sql`: a table's or a chain's fields, property names, or (no chain) the fields of the tables the query reads
 * with HogQL's functions; null when nothing fits.
 */
export function offerAt(sql: string, chain: string[]): Offer | null {
  const tables = tablesOf(sql)
  if (!chain.length) {
    const fields = tables.flatMap((t) => HOGQL_TABLES[t.table])
    return { kind: 'names', fields: [...new Set(fields)] }
  }
  // A table alias or a table name first: what follows is read in that table; else in the first table read.
  const head = chain[0]
  const named = tables.find((t) => t.alias === head)?.table ?? (head in HOGQL_TABLES ? head : null)
  let level: ChainLevel | undefined = CHAINS[named ?? tables[0]?.table ?? 'events']
  const rest = named ? chain.slice(1) : chain
  for (const [i, name] of rest.entries()) {
    if (name === 'properties' && i === rest.length - 1 && level.properties) return { kind: 'properties', of: level.properties }
    level = level.joins?.[name]
    if (!level) return null
  }
  return { kind: 'fields', fields: level.fields }
}

/** A name as HogQL reads it in a chain: as it is when it is a plain identifier, else in backticks. */
export function fieldName(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : `\`${name.replace(/`/g, '\\`')}\``
}
