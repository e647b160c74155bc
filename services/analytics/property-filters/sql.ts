// Parsed property filters and nested AND/OR property groups (parse.ts), compiled to parameterized
// ClickHouse SQL: event, person, group, element, cohort, event-metadata, session and HogQL filters with every
// operator that runs in SQL (operators.ts). The one compiler of a property filter: trends, actions, cohorts,
// the persons, events and recordings lists all compile through compileFilter, and a filter it cannot apply
// where it is used is a 400, never left out. Values only ever enter the SQL as parameters.
import { wrenError } from '../../platform/errors'
import { compileHogql } from '../sql/hogql'
import { SqlParams } from '../../platform/clickhouse/params'
import { SessionColumns } from '../sql/sessions'
import { EventPersonId, type PersonIdColumn } from '../sql/persons-sql'
import { FIXED_PROPERTY_COLUMNS, type PropertyColumnSource } from '../sql/materialized-properties'
import { GROUP_TYPE_COUNT, isGroup, type PropertyFilter, type PropertyGroup, type PropertyNode } from './parse'

/** Where each kind of property lives, so one compiler serves events and the persons table. */
export interface PropertyColumns {
  /** The table a row is of: HogQL filters read its fields (analytics/sql/hogql.ts). */
  table: 'events' | 'persons'
  event: string | null
  person: string
  personId: PersonIdColumn
  groups: boolean
  elements: string | null
  /** Event properties that `event` also has as columns of their own (only the events table does). */
  materialized: PropertyColumnSource
}
/**
 * The events table, reading each row's person as `personId` says (the query builder's choice), and event
 * properties from their columns where `materialized` has one (query/materialized-properties.ts).
 */
export function eventColumns(personId: PersonIdColumn, materialized: PropertyColumnSource = FIXED_PROPERTY_COLUMNS): PropertyColumns {
  return {
    table: 'events',
    event: 'properties',
    person: 'person_properties',
    personId,
    groups: true,
    elements: 'elements_chain',
    materialized,
  }
}
export const PERSON_COLUMNS: PropertyColumns = {
  table: 'persons',
  event: null,
  person: 'properties',
  personId: { sql: 'uuid' },
  groups: false,
  elements: null,
  materialized: { column: () => undefined },
}

export interface FilterContext {
  params: SqlParams
  columns: PropertyColumns
  /** SQL selecting the current member person uuids of a cohort (throws 400 for an unknown one). */
  cohortMembers(id: number): string
  /** Parses a date-filter value to a UTC instant param string. */
  dateParam(value: string): string
  /**
   * The session of an events row (session filters, HogQL's session.<field>), where the query can join it in
   * (query/sessions.ts: its builder adds sessionJoin when `used`); without it both are a 400.
   */
  sessions?: SessionColumns
  /**
   * The caller's own reading of a filter, or null to compile it here: the recordings list reads every
   * filter as a condition on a session (an event of it, its person, its own metadata, its console logs).
   */
  own?(f: PropertyFilter): string | null
}

/** Types the lists read as a property of their own rows (the persons list's clients send `person`, the events list's `event`). */
const OWN_PROPERTY_TYPES = new Set(['event', 'events', 'person'])
const COHORT_TYPES = new Set(['cohort', 'precalculated-cohort', 'static-cohort'])
/** Whether a list's filter names a cohort (PostHog's clients also send precalculated-cohort and static-cohort). */
export const isCohortType = (type: string): boolean => COHORT_TYPES.has(type)

/**
 * A flat list of filters (AND) on the persons or events list, with no sessions to join: event and person
 * filters read a property of the list's rows (persons: the person's properties; events: the event's); every
 * other type compiles as itself (HogQL over the row, cohorts on the persons list when given `cohortMembers`,
 * elements and groups on the events list), and a type the list cannot apply is a 400.
 */
export function listFilterSql(
  filters: PropertyFilter[],
  table: 'person' | 'event',
  params: SqlParams,
  opts: { cohortMembers?: (id: number) => string; sessions?: SessionColumns } = {},
): string {
  const { cohortMembers, sessions } = opts
  const group: PropertyGroup = {
    type: 'AND',
    values: filters.map((f) => ({
      ...f,
      type: OWN_PROPERTY_TYPES.has(f.type) ? table : COHORT_TYPES.has(f.type) ? 'cohort' : f.type,
    })),
  }
  return compileGroup(group, {
    params,
    // The events list has no cohort or person-id filters, so it reads no person id.
    columns: table === 'person' ? PERSON_COLUMNS : eventColumns(new EventPersonId(false)),
    cohortMembers:
      cohortMembers ??
      (() => {
        throw wrenError('invalid_input', 'Cohort filters are not supported on this list.', 'properties')
      }),
    dateParam: (v) => params.add('String', v),
    sessions: table === 'event' ? sessions : undefined,
  })
}

/**
 * Checks every HogQL filter of a stored definition (an action's steps, a cohort, the test-account filters)
 * when it is written, so that a construct outside Wren's HogQL is a 400 naming `attr` then, not when a query
 * reads it. `table`: the rows the definition is read against.
 */
export function checkHogqlFilters(node: PropertyNode, table: PropertyColumns['table'], attr: string): void {
  if (isGroup(node)) return node.values.forEach((v) => checkHogqlFilters(v, table, attr))
  // Where the rows are events, the queries that read the definition join their sessions.
  const sessions = table === 'events' ? new SessionColumns() : undefined
  if (node.type === 'hogql') compileHogql(node.key, new SqlParams(), { sql: 'person_id' }, { table, filter: true, attr, sessions })
}

export function compileGroup(group: PropertyNode, ctx: FilterContext): string {
  if (!isGroup(group)) return compileFilter(group, ctx)
  const parts = group.values.map((v) => compileGroup(v, ctx)).filter((s) => s !== '1')
  if (parts.length === 0) return '1'
  if (parts.length === 1) return parts[0]
  return `(${parts.join(group.type === 'OR' ? ' OR ' : ' AND ')})`
}

/**
 * A property of a JSON column as Nullable(String): NULL when missing or null, numbers as text. Keys
 * `materialized` has a column for are read from that column instead (events only).
 */
export function jsonValue(column: string, key: string, params: SqlParams, materialized?: PropertyColumnSource): string {
  const stored = materialized?.column(key)
  if (stored !== undefined) return stored
  return `JSONExtract(${column}, ${params.add('String', key)}, 'Nullable(String)')`
}

export function compileFilter(f: PropertyFilter, ctx: FilterContext): string {
  const own = ctx.own?.(f)
  if (own !== undefined && own !== null) return own
  const { params, columns } = ctx
  switch (f.type) {
    case 'event':
      if (!columns.event) throw wrenError('invalid_input', `Event property filters are not allowed here ('${f.key}').`, 'properties')
      if (f.key === '$elements_chain' && columns.elements) return compareValue(columns.elements, f, ctx)
      return compareValue(jsonValue(columns.event, f.key, params, columns.materialized), f, ctx)
    case 'person':
      return compareValue(jsonValue(columns.person, f.key, params), f, ctx)
    case 'group': {
      if (!columns.groups) throw wrenError('invalid_input', 'Group property filters are not allowed here.', 'properties')
      // The group's columns come from a fixed list: group_type_index never enters the SQL as text.
      const idx = f.groupTypeIndex ?? 0
      const group = GROUP_COLUMNS[idx]
      if (!group) throw wrenError('invalid_input', `A group filter needs group_type_index 0-${GROUP_TYPE_COUNT - 1}.`, 'properties')
      const expr = compareValue(jsonValue(group.properties, f.key, params), f, ctx)
      // A negative operator also matches events that belong to no group of that type.
      return NEGATIVE.has(f.operator) ? `(${group.key} = '' OR ${expr})` : expr
    }
    case 'event_metadata': {
      if (!columns.event) throw wrenError('invalid_input', `Event metadata filters are not allowed here ('${f.key}').`, 'properties')
      const column = metadataColumn(f.key, columns.personId)
      if (!column)
        throw wrenError(
          'invalid_input',
          `Unknown event metadata '${f.key}'. Use one of ${Object.keys(METADATA_COLUMNS).join(', ')}.`,
          'properties',
        )
      return compareValue(column, f, ctx)
    }
    case 'cohort': {
      const ids = (Array.isArray(f.value) ? f.value : [f.value]).map(Number)
      if (ids.length === 0 || ids.some((id) => !Number.isInteger(id)))
        throw wrenError('invalid_input', 'A cohort filter needs the cohort id as its value.', 'properties')
      const inAny = ids.map((id) => `${columns.personId.sql} IN (${ctx.cohortMembers(id)})`).join(' OR ')
      return f.negation || f.operator === 'not_in' ? `NOT (${inAny})` : `(${inAny})`
    }
    case 'element':
      if (!columns.elements) throw wrenError('invalid_input', 'Element filters are not allowed here.', 'properties')
      return elementFilter(columns.elements, f, ctx)
    case 'hogql':
      return `(${compileHogql(f.key, params, columns.personId, { table: columns.table, filter: true, attr: 'properties', sessions: ctx.sessions })})`
    case 'session':
      if (!ctx.sessions || columns.table !== 'events') {
        const why = columns.table === 'persons' ? 'a person has no session' : 'sessions are not read here'
        throw wrenError('invalid_input', `Session property filters are not allowed here ('${f.key}': ${why}).`, 'properties')
      }
      return compareValue(ctx.sessions.value(f.key), f, ctx)
    default:
      throw wrenError('invalid_input', `Unknown property type '${f.type}'.`, 'properties')
  }
}

/** Each group type's columns on an events row, by group_type_index. */
const GROUP_COLUMNS = Array.from({ length: GROUP_TYPE_COUNT }, (_, i) => ({ properties: `group${i}_properties`, key: `\`$group_${i}\`` }))

const METADATA_COLUMNS: Record<string, string> = {
  distinct_id: 'distinct_id',
  event: 'event',
  person_id: '' /* read as the query reads it: metadataColumn */,
  timestamp: "formatDateTime(timestamp, '%Y-%m-%d %H:%i:%S', 'UTC')",
  $group_0: '`$group_0`',
  $group_1: '`$group_1`',
  $group_2: '`$group_2`',
  $group_3: '`$group_3`',
  $group_4: '`$group_4`',
  $session_id: '`$session_id`',
  $window_id: '`$window_id`',
}

/** An events column by its metadata name; person_id as the query reads it. */
function metadataColumn(key: string, personId: PersonIdColumn): string | undefined {
  if (!Object.hasOwn(METADATA_COLUMNS, key)) return undefined
  return key === 'person_id' ? `toString(${personId.sql})` : METADATA_COLUMNS[key]
}

const NEGATIVE = new Set(['is_not', 'not_icontains', 'not_regex', 'is_not_set', 'not_in', 'not_between'])

function valuesOf(f: PropertyFilter): string[] {
  const list = Array.isArray(f.value) ? f.value : [f.value]
  return list
    .filter((v) => v !== undefined && v !== null)
    .map((v) => (typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v)))
}

function numberParam(v: string, f: PropertyFilter, params: SqlParams): string {
  const n = Number(v)
  // Past ±2^53 a number is no longer exact, and the query's parameters refuse it.
  if (v.trim() === '' || !Number.isFinite(n) || Math.abs(n) > Number.MAX_SAFE_INTEGER)
    throw wrenError(
      'invalid_input',
      `Property filter '${f.key}' with operator ${f.operator} needs a number within ±2^53, got '${v}'.`,
      'properties',
    )
  return params.add('Float64', n)
}

/**
 * How many values a filter may list for an operator that compiles one condition per value (regex, icontains,
 * gt, …): each adds its own SQL, and ClickHouse refuses a query past 256 KiB. exact, is_not, in and not_in
 * take a list of any length (one array parameter).
 */
export const MAX_FILTER_ALTERNATIVES = 200

/** `x` is a Nullable(String) expression: NULL when the property is missing or null. */
export function compareValue(x: string, f: PropertyFilter, ctx: FilterContext): string {
  const { params } = ctx
  const values = valuesOf(f)
  const num = `toFloat64OrNull(${x})`
  const any = (fn: (v: string) => string, join: 'OR' | 'AND') => {
    if (values.length > MAX_FILTER_ALTERNATIVES)
      throw wrenError(
        'invalid_input',
        `Property filter '${f.key}' with operator ${f.operator} lists ${values.length} values: at most ${MAX_FILTER_ALTERNATIVES} (exact and is_not take any number).`,
        'properties',
      )
    return values.length === 0 ? '1' : values.length === 1 ? fn(values[0]) : `(${values.map(fn).join(` ${join} `)})`
  }
  switch (f.operator) {
    case 'exact':
    case 'in':
      if (values.length === 0) return '1'
      return `ifNull(${x} IN ${params.add('Array(String)', values)}, 0)`
    case 'is_not':
    case 'not_in':
      if (values.length === 0) return '1'
      return `ifNull(${x} NOT IN ${params.add('Array(String)', values)}, 1)`
    case 'icontains':
      return any((v) => `ifNull(positionCaseInsensitiveUTF8(${x}, ${params.add('String', v)}) > 0, 0)`, 'OR')
    case 'not_icontains':
      return any((v) => `ifNull(positionCaseInsensitiveUTF8(${x}, ${params.add('String', v)}) = 0, 1)`, 'AND')
    case 'regex':
      return any((v) => `ifNull(match(${x}, ${params.add('String', v)}), 0)`, 'OR')
    case 'not_regex':
      return any((v) => `ifNull(NOT match(${x}, ${params.add('String', v)}), 1)`, 'AND')
    case 'gt':
    case 'gte':
    case 'min':
    case 'lt':
    case 'lte':
    case 'max': {
      const op = { gt: '>', gte: '>=', min: '>=', lt: '<', lte: '<=', max: '<=' }[f.operator]
      return any((v) => `ifNull(${num} ${op} ${numberParam(v, f, params)}, 0)`, 'OR')
    }
    case 'between':
    case 'not_between': {
      if (values.length !== 2)
        throw wrenError('invalid_input', `Property filter '${f.key}' with operator ${f.operator} needs [min, max].`, 'properties')
      const inside = `(${num} >= ${numberParam(values[0], f, params)} AND ${num} <= ${numberParam(values[1], f, params)})`
      return f.operator === 'between' ? `ifNull(${inside}, 0)` : `ifNull(NOT ${inside}, 1)`
    }
    case 'is_set':
      return `(${x} IS NOT NULL)`
    case 'is_not_set':
      return `(${x} IS NULL)`
    case 'is_date_before':
    case 'is_date_after':
    case 'is_date_exact': {
      if (values.length !== 1)
        throw wrenError('invalid_input', `Property filter '${f.key}' with operator ${f.operator} needs one date.`, 'properties')
      const d = `parseDateTime64BestEffortOrNull(${x}, 6, 'UTC')`
      const v = `toDateTime64(${ctx.dateParam(values[0])}, 6, 'UTC')`
      const op = f.operator === 'is_date_before' ? '<' : f.operator === 'is_date_after' ? '>' : '='
      return f.operator === 'is_date_exact' ? `ifNull(toStartOfMinute(${d}) = toStartOfMinute(${v}), 0)` : `ifNull(${d} ${op} ${v}, 0)`
    }
    default:
      throw wrenError('invalid_input', `Unknown operator '${f.operator}'.`, 'properties')
  }
}

/** Elements: attributes parsed out of `elements_chain` (`tag.class:attr="v"...;parent...`). */
function elementFilter(chain: string, f: PropertyFilter, ctx: FilterContext): string {
  const { params } = ctx
  const attrValues = (attr: string) => `extractAll(${chain}, ${params.add('String', `(?::|")${attr}="(.*?)"`)})`
  switch (f.key) {
    case 'text':
    case 'href':
      return anyInList(attrValues(f.key), f, ctx)
    case 'tag_name':
    case 'selector': {
      if (f.operator !== 'exact' && f.operator !== 'is_not')
        throw wrenError('invalid_input', `Element ${f.key} filters take only exact or is_not.`, 'properties')
      const values = valuesOf(f)
      if (values.length === 0) return '1'
      const hits = values.map((v) =>
        f.key === 'tag_name'
          ? `match(${chain}, ${params.add('String', `(^|;)${escapeRegex(v)}(\\.|$|;|:)`)})`
          : selectorSql(chain, v, params),
      )
      const hit = hits.length === 1 ? hits[0] : `(${hits.join(' OR ')})`
      return f.operator === 'exact' ? hit : `NOT ${hit}`
    }
    default:
      throw wrenError('invalid_input', `Unknown element property '${f.key}'. Use text, href, tag_name or selector.`, 'properties')
  }
}

const POSITIVE_OF: Record<string, string> = { is_not: 'exact', not_icontains: 'icontains', not_regex: 'regex', not_in: 'in' }

/**
 * A filter on an Array(String) expression: true when any item matches; with a negative operator (is_not,
 * not_icontains, …), true when no item matches its positive form (an element's texts, a recording's urls).
 */
export function anyInList(list: string, f: PropertyFilter, ctx: FilterContext): string {
  const positive = NEGATIVE.has(f.operator) ? { ...f, operator: POSITIVE_OF[f.operator] ?? f.operator } : f
  const hit = `arrayExists(v -> ${compareValue('toNullable(v)', positive, ctx)}, ${list})`
  return NEGATIVE.has(f.operator) ? `NOT ${hit}` : hit
}

export function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
}

/**
 * A CSS selector over elements_chain. Supports tag, .class, #id, [attr] / [attr="v"], and the descendant
 * and child combinators. The chain lists the clicked element first, then its ancestors, split by ';'.
 */
export function selectorSql(chain: string, selector: string, params: SqlParams): string {
  const parts = selector
    .trim()
    .replace(/\s*>\s*/g, ' > ')
    .split(/\s+/)
    .filter(Boolean)
  const elements: Array<{ conds: string[]; directChild: boolean }> = []
  let direct = false
  for (const part of parts) {
    if (part === '>') {
      direct = true
      continue
    }
    const m = /^([a-zA-Z][\w-]*|\*)?((?:[.#][\w-]+|\[[^\]]+\])*)$/.exec(part)
    if (!m || part === '')
      throw wrenError(
        'invalid_input',
        `Selector '${selector}' is not supported: use tags, .classes, #ids, [attr="value"], spaces and >.`,
        'properties',
      )
    const regexes: string[] = []
    if (m[1] && m[1] !== '*') regexes.push(`^${escapeRegex(m[1])}([.:]|$)`)
    for (const piece of m[2].match(/[.#][\w-]+|\[[^\]]+\]/g) ?? []) {
      if (piece.startsWith('.')) regexes.push(`^[^:]*\\.${escapeRegex(piece.slice(1))}([.:]|$)`)
      else if (piece.startsWith('#')) regexes.push(`attr_id="${escapeRegex(piece.slice(1))}"`)
      else {
        const am = /^\[([\w-]+)(?:=["']?([^"'\]]*)["']?)?\]$/.exec(piece)
        if (!am) throw wrenError('invalid_input', `Selector attribute '${piece}' is not supported.`, 'properties')
        regexes.push(am[2] !== undefined ? `attr__${escapeRegex(am[1])}="${escapeRegex(am[2])}"` : `attr__${escapeRegex(am[1])}=`)
      }
    }
    elements.push({ conds: regexes, directChild: direct })
    direct = false
  }
  if (elements.length === 0) throw wrenError('invalid_input', 'Empty selector.', 'properties')
  // Innermost (last in the selector) is matched first, then each ancestor further along the chain.
  const reversed = [...elements].reverse()
  const build = (k: number, prev: string | null): string => {
    const el = reversed[k]
    const cond = el.conds.length ? el.conds.map((re) => `match(e${k}, ${params.add('String', re)})`).join(' AND ') : '1'
    const position = prev === null ? '' : reversed[k - 1].directChild ? ` AND i${k} = ${prev} + 1` : ` AND i${k} > ${prev}`
    const rest = k + 1 < reversed.length ? ` AND ${build(k + 1, `i${k}`)}` : ''
    return `arrayExists((e${k}, i${k}) -> ${cond}${position}${rest}, splitByChar(';', ${chain}), arrayEnumerate(splitByChar(';', ${chain})))`
  }
  return build(0, null)
}
