// Query parameters for parameterized ClickHouse SQL, and the strict parser of the flat property-filter
// lists that the persons and events lists take. Filters compile to SQL in one place: trends/properties.ts.
import { badRequest } from '../errors'
import { isRecord } from '../http'
import { jsonTooDeep, jsonTooDeepIn } from '../json'

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
    if (jsonTooDeepIn(value)) throw jsonTooDeep(attr)
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
