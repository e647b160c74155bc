// The one parser of property filters, and the shape every user of filters reads: trends, actions and
// cohorts (nested AND/OR groups, compiled to SQL by sql.ts), the persons and events lists (a strict flat
// list), and flags (one filter per condition entry, matched in memory by match.ts). Operators come from
// the one list (operators.ts); a filter is refused when its operator cannot run where it is used.
import { wrenError } from '../../platform/errors'
import { isRecord, jsonTooDeep, jsonTooDeepIn } from '../../platform/json'
import { operatorsFor, runsIn, type Evaluator } from './operators'

export interface PropertyFilter {
  key: string
  value?: unknown
  operator: string
  type: string
  groupTypeIndex?: number
  negation?: boolean
}
export interface PropertyGroup {
  type: 'AND' | 'OR'
  values: PropertyNode[]
}
export type PropertyNode = PropertyGroup | PropertyFilter

export const isGroup = (n: PropertyNode): n is PropertyGroup => Array.isArray((n as PropertyGroup).values)

/** Group types a project has: `group_type_index` 0 to 4 (`$group_0`…`$group_4`, `group0_properties`…). */
export const GROUP_TYPE_COUNT = 5

/** The property types a query can filter on. */
export const PROPERTY_TYPES = ['event', 'person', 'cohort', 'group', 'session', 'element', 'event_metadata', 'hogql'] as const

const EMPTY: PropertyGroup = { type: 'AND', values: [] }

export interface ParseOptions {
  /**
   * The persons and events lists: only a flat list of filters (or `{values: [...]}`), each an object with
   * a key; no nested groups, no legacy `{"key__operator": value}` object, no empty string. Errors name
   * `attr` itself, not the entry.
   */
  strict?: boolean
  /** Property types this query takes besides PROPERTY_TYPES (the recordings list: `recording`, `log_entry`). */
  extraTypes?: readonly string[]
}

/**
 * Property filters as a query takes them: a list (AND), a `{type, values}` group (nested), an old-style
 * `{"key__operator": value}` object, a JSON string of any of these, or nothing. With `strict`, the
 * lists' syntax only (see ParseOptions).
 */
export function parsePropertyGroup(raw: unknown, attr: string, options: ParseOptions = {}): PropertyGroup {
  const strict = options.strict === true
  let value = raw
  if (typeof raw === 'string') {
    if (!strict && !raw.trim()) return EMPTY
    try {
      value = JSON.parse(raw)
    } catch {
      throw wrenError('invalid_input', `${attr} must be a JSON list of property filters${strict ? '' : ' or a property group'}.`, attr)
    }
    if (jsonTooDeepIn(value)) throw jsonTooDeep(attr)
  }
  if (value === undefined || value === null) return EMPTY
  if (strict) {
    if (isRecord(value) && Array.isArray(value.values)) value = value.values
    if (!Array.isArray(value)) throw wrenError('invalid_input', `${attr} must be a list of property filters.`, attr)
    return { type: 'AND', values: value.map((f, i) => readFilter(f, `${attr}[${i}]`, LIST, attr)) }
  }
  const types = options.extraTypes?.length ? [...PROPERTY_TYPES, ...options.extraTypes] : PROPERTY_TYPES
  if (Array.isArray(value))
    return { type: 'AND', values: value.filter((v) => v !== null).map((v, i) => parseNode(v, `${attr}[${i}]`, types)) }
  if (isRecord(value) && Array.isArray(value.values)) return parseNode(value, attr, types) as PropertyGroup
  if (isRecord(value) && Object.keys(value).length === 0) return EMPTY
  if (isRecord(value)) {
    // Old style {"key__operator": value}.
    return {
      type: 'AND',
      values: Object.entries(value).map(([k, v]) => {
        const [key, operator = 'exact'] = k.split('__')
        return parseNode({ key, operator, value: v }, attr, types)
      }),
    }
  }
  throw wrenError('invalid_input', `${attr} must be a list of property filters or a property group.`, attr)
}

/** The persons and events lists' filters (strict): a flat list, each filter read as a property of the list's rows. */
export function parsePropertyFilters(raw: unknown, attr = 'properties'): PropertyFilter[] {
  return parsePropertyGroup(raw, attr, { strict: true }).values as PropertyFilter[]
}

/** One filter of a flag condition (`where` names it in errors; errors name the field `filters`). */
export function parseFlagFilter(raw: unknown, where: string): PropertyFilter {
  return readFilter(raw, where, FLAG, 'filters')
}

/**
 * A stored flag filter (validated by parseFlagFilter when it was written) in the parsed shape, read
 * without checks: what decide evaluates.
 */
export function storedFlagFilter(raw: StoredFilter): PropertyFilter {
  return toFilter(raw, FLAG.defaultType)
}

type StoredFilter = { key: unknown; value?: unknown; operator?: unknown; type?: unknown; group_type_index?: unknown; negation?: unknown }

function toFilter(raw: StoredFilter, defaultType: string): PropertyFilter {
  const filter: PropertyFilter = {
    key: String(raw.key),
    value: raw.value,
    operator: typeof raw.operator === 'string' ? raw.operator : 'exact',
    type: typeof raw.type === 'string' ? raw.type : defaultType,
  }
  if (typeof raw.group_type_index === 'number') filter.groupTypeIndex = raw.group_type_index
  if (raw.negation === true) filter.negation = true
  return filter
}

/** How one filter is read where it is used. */
interface Syntax {
  runs: Evaluator
  /** The type of a filter that names none. */
  defaultType: string
}
const LIST: Syntax = { runs: 'sql', defaultType: 'event' }
const FLAG: Syntax = { runs: 'memory', defaultType: 'person' }

/** The checks every syntax shares: an object with a string key and an operator that runs there. `field`: the attr errors name. */
function readFilter(raw: unknown, where: string, syntax: Syntax, field: string): PropertyFilter {
  if (!isRecord(raw) || typeof raw.key !== 'string' || raw.key === '')
    throw wrenError('invalid_input', `${where} needs a string key.`, field)
  const operator = typeof raw.operator === 'string' ? raw.operator : 'exact'
  checkOperator(operator, syntax.runs, where, field)
  const filter = toFilter({ ...raw, key: raw.key }, syntax.defaultType)
  if (filter.type === 'group' && syntax.runs === 'sql') filter.groupTypeIndex = groupTypeIndex(raw.group_type_index, where, field)
  return filter
}

/** A group filter's group_type_index: an integer naming one of the project's group types. */
function groupTypeIndex(raw: unknown, where: string, attr: string): number {
  const idx = Number(raw)
  if (!Number.isInteger(idx) || idx < 0 || idx >= GROUP_TYPE_COUNT)
    throw wrenError('invalid_input', `${where}: a group filter needs group_type_index 0-${GROUP_TYPE_COUNT - 1}.`, attr)
  return idx
}

function checkOperator(operator: string, runs: Evaluator, where: string, field: string): void {
  if (!runsIn(operator, runs))
    throw wrenError('invalid_input', `${where}: unknown operator '${operator}'. Use one of ${operatorsFor(runs).join(', ')}.`, field)
}

/** A query's filter or nested group; errors name the offending part (`properties[0].values[1]`). */
function parseNode(raw: unknown, attr: string, types: readonly string[]): PropertyNode {
  if (!isRecord(raw)) throw wrenError('invalid_input', `${attr} must be a property filter object.`, attr)
  if (Array.isArray(raw.values) && raw.key === undefined) {
    const type = String(raw.type ?? 'AND').toUpperCase()
    if (type !== 'AND' && type !== 'OR') throw wrenError('invalid_input', `${attr}.type must be AND or OR.`, attr)
    return { type, values: raw.values.filter((v) => v !== null).map((v, i) => parseNode(v, `${attr}.values[${i}]`, types)) }
  }
  let type = typeof raw.type === 'string' ? raw.type : 'event'
  if (type === 'events') type = 'event'
  if (type === 'precalculated-cohort' || type === 'static-cohort') type = 'cohort'
  if (!types.includes(type))
    throw wrenError('invalid_input', `${attr}: unknown property type '${type}'. Use one of ${types.join(', ')}.`, attr)
  const key = type === 'cohort' ? 'id' : raw.key
  if (typeof key !== 'string' || !key) throw wrenError('invalid_input', `${attr} needs a string key.`, attr)
  const operator = typeof raw.operator === 'string' ? raw.operator : type === 'cohort' ? 'in' : 'exact'
  checkOperator(operator, 'sql', attr, attr)
  let value = raw.value !== undefined ? raw.value : raw.values
  if (Array.isArray(value)) value = value.filter((v) => v !== null)
  const filter: PropertyFilter = { key, value, operator, type }
  if (raw.negation === true) filter.negation = true
  if (type === 'group') filter.groupTypeIndex = groupTypeIndex(raw.group_type_index, attr, attr)
  return filter
}
