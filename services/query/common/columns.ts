// What the table-shaped kinds (EventsQuery, ActorsQuery) share: their columns as HogQL strings (a `-- label`
// kept in `columns`), which of them aggregate (PostHog's implicit GROUP BY of the others), `orderBy` items,
// paging with `hasMore`, and values as PostHog serializes them (datetimes in the project's timezone).
import createParser from '@posthog/hogql-parser'
import { wrenError } from '../../platform/errors'
import { toWall } from '../../analytics/time/wall-time'

/** PostHog's rows per answer when `limit` is absent, and the most it returns (posthog/hogql/constants.py). */
export const DEFAULT_LIMIT = 100
export const MAX_LIMIT = 50_000

/** A column's expression without its `-- label` comment. */
export function columnExpr(column: string): string {
  return column.split('--')[0].trim()
}

/**
 * `limit` and `offset` of a table kind, as PostHog's paginator reads them: no limit (or one of 0 or less) is the
 * default, a larger one than the maximum is the maximum.
 */
export function paging(node: Record<string, unknown>): { limit: number; offset: number } {
  const int = (name: 'limit' | 'offset') => {
    const v = node[name]
    if (v === undefined || v === null) return undefined
    if (typeof v !== 'number' || !Number.isSafeInteger(v))
      throw wrenError('invalid_input', `${name} must be an integer, got ${JSON.stringify(v)}.`, name)
    return v
  }
  const limit = int('limit')
  const offset = int('offset') ?? 0
  if (offset < 0) throw wrenError('invalid_input', `offset must be 0 or more, got ${offset}.`, 'offset')
  return { limit: limit === undefined || limit <= 0 ? DEFAULT_LIMIT : Math.min(limit, MAX_LIMIT), offset }
}

/** A list of strings (`select`, `where`, `orderBy`), or undefined when absent. */
export function stringList(node: Record<string, unknown>, name: string): string[] | undefined {
  const v = node[name]
  if (v === undefined || v === null) return undefined
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string'))
    throw wrenError('invalid_input', `${name} must be a list of HogQL expressions (strings).`, name)
  return v as string[]
}

/** Fields a kind's node may carry that change nothing Wren computes (PostHog's UI and client bookkeeping). */
export const IGNORED_FIELDS = ['kind', 'response', 'modifiers', 'tags', 'version', 'useSessionsTable', 'dataColorTheme']

/**
 * A node's fields beyond `known`: a 400 naming the first, as PostHog's schema (extra fields forbidden) answers;
 * one of PostHog's own fields Wren does not apply yet (`notYet`) says so.
 */
export function refuseUnknownFields(
  node: Record<string, unknown>,
  kind: string,
  known: readonly string[],
  notYet: readonly string[] = [],
): void {
  const unknown = Object.keys(node).find(
    (k) => !known.includes(k) && !IGNORED_FIELDS.includes(k) && node[k] !== undefined && node[k] !== null,
  )
  if (!unknown) return
  if (notYet.includes(unknown)) throw wrenError('unsupported', `${kind}'s '${unknown}' is not applied by Wren yet.`, unknown)
  throw wrenError('unknown_field', `${kind} has no field '${unknown}'.`, unknown)
}

/** An `orderBy` item: the expression and its direction. */
export function orderItem(item: string): { expr: string; desc: boolean } {
  const m = /^(.*?)\s+(ASC|DESC)\s*$/is.exec(columnExpr(item))
  return m ? { expr: m[1].trim(), desc: m[2].toUpperCase() === 'DESC' } : { expr: columnExpr(item), desc: false }
}

/** A selected column as the table kinds read it: `c<i>` in their SQL. */
export interface SelectedColumn {
  name: string
  aggregate: boolean
}

/**
 * PostHog's order for a table kind: `orderBy` as given (an expression the kind orders its own way by `own`, a
 * selected column by its place, else HogQL); without it count() DESC if selected, then the first aggregate DESC, then
 * `newest` DESC if selected (timestamp, created_at), else the first column.
 */
export function orderBySql(
  orderBy: string[] | null,
  columns: SelectedColumn[],
  opts: { newest: string; own: (expr: string) => string | null; hogql: (expr: string, attr: string) => string },
): string[] {
  const index = (expr: string) => columns.findIndex((c) => columnExpr(c.name).replace(/\s+/g, '') === expr.replace(/\s+/g, ''))
  if (orderBy)
    return orderBy.map((item, k) => {
      const { expr, desc } = orderItem(item)
      const i = index(expr)
      const sql = opts.own(expr) ?? (i >= 0 ? `c${i}` : opts.hogql(expr, `orderBy[${k}]`))
      return `${sql} ${desc ? 'DESC' : 'ASC'}`
    })
  const first = [index('count()'), columns.findIndex((c) => c.aggregate), index(opts.newest)].find((i) => i >= 0)
  if (first !== undefined) return [`c${first} DESC`]
  return columns.length ? ['c0 ASC'] : []
}

// ClickHouse's aggregate functions a HogQL column may call (PostHog's has_aggregation reads HogQL's list).
const AGGREGATES = new Set(
  [
    'count',
    'countIf',
    'countDistinct',
    'sum',
    'sumIf',
    'avg',
    'avgIf',
    'min',
    'minIf',
    'max',
    'maxIf',
    'median',
    'quantile',
    'quantiles',
    'uniq',
    'uniqIf',
    'uniqExact',
    'uniqExactIf',
    'any',
    'anyIf',
    'anyLast',
    'argMin',
    'argMax',
    'groupArray',
    'groupUniqArray',
    'stddevPop',
    'stddevSamp',
    'varPop',
    'varSamp',
    'topK',
  ].map((n) => n.toLowerCase()),
)

let parser: Awaited<ReturnType<typeof createParser>> | null = null

/** Whether a HogQL expression aggregates rows (calls an aggregate function anywhere in it). */
export async function hasAggregation(expr: string, attr: string): Promise<boolean> {
  parser ??= await createParser()
  const ast = JSON.parse(parser.parseExpr(expr, true)) as Record<string, unknown>
  if (ast.error) throw wrenError('invalid_hogql', `${attr}: cannot read '${expr}': ${String(ast.message)}.`, attr)
  const walk = (node: unknown): boolean => {
    if (Array.isArray(node)) return node.some(walk)
    if (!node || typeof node !== 'object') return false
    const n = node as Record<string, unknown>
    if (n.node === 'Call' && typeof n.name === 'string' && AGGREGATES.has(n.name.toLowerCase())) return true
    return Object.values(n).some(walk)
  }
  return walk(ast)
}

/** A UTC ISO date-time as ClickHouse writes it, in `tz` with its offset as PostHog's JSON writes datetimes (UTC as `Z`). */
export function isoInZone(utc: string, tz: string): string {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?Z$/.exec(utc)
  if (!m) return utc
  const instant = new Date(`${m[1]}Z`)
  const wall = toWall(instant, tz)
  const offset = Math.round((wall.getTime() - instant.getTime()) / 60_000)
  const zone =
    offset === 0
      ? 'Z'
      : `${offset < 0 ? '-' : '+'}${String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0')}:${String(Math.abs(offset) % 60).padStart(2, '0')}`
  return `${wall.toISOString().slice(0, 19)}${m[2] ?? ''}${zone}`
}

/** A cell as PostHog serializes it: datetimes (also inside arrays and tuples) in the project's timezone. */
export function presentValue(value: unknown, type: string, tz: string): unknown {
  const inner = type.replace(/^(Nullable|LowCardinality)\((.*)\)$/, '$2')
  if (inner.startsWith('DateTime') && typeof value === 'string') return isoInZone(value, tz)
  if (Array.isArray(value) && /^(Array|Tuple)\(/.test(inner)) {
    if (inner.startsWith('Array(')) return value.map((v) => presentValue(v, inner.slice(6, -1), tz))
    const parts = splitTypes(inner.slice(6, -1))
    return value.map((v, i) => presentValue(v, parts[i] ?? '', tz))
  }
  return value
}

/** A column's ClickHouse type as the answer names it: datetimes in the project's timezone, as their values are. */
export function presentType(type: string, tz: string): string {
  return type.replace(/DateTime(64\(\d+, |\()'UTC'\)/g, (_, head: string) => `DateTime${head}'${tz}')`)
}

/** The element types of a Tuple's `A, B(C, D), E`. */
function splitTypes(list: string): string[] {
  const out: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i < list.length; i++) {
    const ch = list[i]
    if (ch === '(') depth++
    else if (ch === ')') depth--
    else if (ch === "'") i = list.indexOf("'", i + 1)
    else if (ch === ',' && depth === 0) {
      out.push(list.slice(start, i).trim())
      start = i + 1
    }
  }
  out.push(list.slice(start).trim())
  return out.map((t) => t.replace(/^\w+ (?=[A-Z])/, ''))
}
