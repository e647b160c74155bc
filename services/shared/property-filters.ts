// Property filters ({key, value, operator, type}) compiled to parameterized ClickHouse SQL over a JSON
// string column. Values never enter the SQL text: each becomes a named parameter.
import { badRequest } from './errors'
import { isRecord } from './http'

export interface PropertyFilter {
  key: string
  value?: unknown
  operator?: string
  type?: string
}

export const OPERATORS = ['exact', 'is_not', 'icontains', 'not_icontains', 'regex', 'not_regex', 'gt', 'gte', 'lt', 'lte', 'is_set', 'is_not_set', 'is_date_before', 'is_date_after', 'is_date_exact', 'between'] as const

export class SqlParams {
  readonly values: Record<string, unknown> = {}
  private n = 0
  add(type: string, value: unknown): string {
    const name = `p${this.n++}`
    this.values[name] = value
    return `{${name}:${type}}`
  }
}

export function parsePropertyFilters(raw: unknown, attr = 'properties'): PropertyFilter[] {
  let value = raw
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw)
    } catch {
      throw badRequest('invalid_input', `${attr} must be a JSON list of property filters.`, attr)
    }
  }
  if (value === undefined || value === null || value === '') return []
  if (isRecord(value) && Array.isArray(value.values)) value = value.values
  if (!Array.isArray(value)) throw badRequest('invalid_input', `${attr} must be a list of property filters.`, attr)
  return value.map((f, i) => {
    if (!isRecord(f) || typeof f.key !== 'string' || !f.key) throw badRequest('invalid_input', `${attr}[${i}] needs a string key.`, attr)
    const operator = typeof f.operator === 'string' ? f.operator : 'exact'
    if (!(OPERATORS as readonly string[]).includes(operator)) throw badRequest('invalid_input', `${attr}[${i}]: unknown operator '${operator}'.`, attr)
    return { key: f.key, value: f.value, operator, type: typeof f.type === 'string' ? f.type : undefined }
  })
}

/** One filter against `column`, a JSON-object String column. */
export function filterSql(column: string, f: PropertyFilter, params: SqlParams): string {
  const key = params.add('String', f.key)
  const str = `JSONExtractString(${column}, ${key})`
  const raw = `JSONExtractRaw(${column}, ${key})`
  const num = `JSONExtractFloat(${column}, ${key})`
  const has = `JSONHas(${column}, ${key})`
  const values = (Array.isArray(f.value) ? f.value : [f.value]).map((v) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v)))
  const asString = `if(JSONType(${column}, ${key}) = 'String', ${str}, ${raw})`
  const one = () => params.add('String', values[0] ?? '')
  switch (f.operator ?? 'exact') {
    case 'exact':
      return `(${has} AND ${asString} IN ${params.add('Array(String)', values)})`
    case 'is_not':
      return `NOT (${has} AND ${asString} IN ${params.add('Array(String)', values)})`
    case 'icontains':
      return `positionCaseInsensitiveUTF8(${asString}, ${one()}) > 0`
    case 'not_icontains':
      return `positionCaseInsensitiveUTF8(${asString}, ${one()}) = 0`
    case 'regex':
      return `(${has} AND match(${asString}, ${one()}))`
    case 'not_regex':
      return `NOT (${has} AND match(${asString}, ${one()}))`
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const op = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[f.operator as 'gt']
      return `(${has} AND ${num} ${op} ${params.add('Float64', Number(values[0]))})`
    }
    case 'is_set':
      return `(${has} AND ${raw} != 'null')`
    case 'is_not_set':
      return `NOT (${has} AND ${raw} != 'null')`
    case 'is_date_before':
    case 'is_date_after':
    case 'is_date_exact': {
      const d = `parseDateTime64BestEffortOrNull(${asString}, 6, 'UTC')`
      const v = `parseDateTime64BestEffortOrNull(${one()}, 6, 'UTC')`
      return f.operator === 'is_date_before' ? `${d} < ${v}` : f.operator === 'is_date_after' ? `${d} > ${v}` : `toDate(${d}) = toDate(${v})`
    }
    case 'between': {
      const [lo, hi] = Array.isArray(f.value) ? f.value : []
      return `(${has} AND ${num} >= ${params.add('Float64', Number(lo))} AND ${num} <= ${params.add('Float64', Number(hi))})`
    }
    default:
      throw badRequest('invalid_input', `Unknown operator '${f.operator}'.`, 'properties')
  }
}
