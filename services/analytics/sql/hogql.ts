// A restricted HogQL expression (for hogql breakdowns, filters and math): parsed here and re-emitted as
// ClickHouse SQL over the current row only — an event (with its person's properties), or a person (the
// persons list, cohorts). Identifiers are a fixed list of event columns plus `properties.<key>` /
// `person.properties.<key>`, and on an events row `session.<field>` (its session's properties, sessions.ts,
// where the query can join them); functions come from an allowlist; literals become parameters. There is no way
// to name a table, a subquery or another project's rows. PostHog's property_to_expr reads a `hogql` property
// filter as parse_expr(key) over the table the query reads (posthog/hogql/property.py): so does Wren.
import { wrenError } from '../../platform/errors'
import type { SqlParams } from '../../platform/clickhouse/params'
import type { PersonIdColumn } from './persons-sql'
import { SESSION_FIELD_NAMES, type SessionColumns } from './sessions'

type Kind = 'string' | 'number' | 'bool' | 'any'
interface Compiled {
  sql: string
  kind: Kind
  /** A raw property value (Nullable(String)) that may need a numeric conversion. */
  property?: boolean
  /** How many operators and calls nest in `sql` (a field or a literal: none). */
  depth?: number
}

const COLUMNS: Record<string, Compiled> = {
  event: { sql: 'event', kind: 'string' },
  distinct_id: { sql: 'distinct_id', kind: 'string' },
  timestamp: { sql: 'timestamp', kind: 'any' },
  elements_chain: { sql: 'elements_chain', kind: 'string' },
  $session_id: { sql: '`$session_id`', kind: 'string' },
  $window_id: { sql: '`$window_id`', kind: 'string' },
  $group_0: { sql: '`$group_0`', kind: 'string' },
  $group_1: { sql: '`$group_1`', kind: 'string' },
  $group_2: { sql: '`$group_2`', kind: 'string' },
  $group_3: { sql: '`$group_3`', kind: 'string' },
  $group_4: { sql: '`$group_4`', kind: 'string' },
}

/** name → [min args, max args, result kind, numeric args?] */
type FunctionSpec = [number, number, Kind, boolean]
const FUNCTIONS = new Map<string, FunctionSpec>([
  ['lower', [1, 1, 'string', false]],
  ['upper', [1, 1, 'string', false]],
  ['length', [1, 1, 'number', false]],
  ['trim', [1, 1, 'string', false]],
  ['concat', [1, 16, 'string', false]],
  ['substring', [2, 3, 'string', false]],
  ['replaceAll', [3, 3, 'string', false]],
  ['toString', [1, 1, 'string', false]],
  ['position', [2, 2, 'number', false]],
  ['positionCaseInsensitive', [2, 2, 'number', false]],
  ['like', [2, 2, 'bool', false]],
  ['ilike', [2, 2, 'bool', false]],
  ['notLike', [2, 2, 'bool', false]],
  ['notILike', [2, 2, 'bool', false]],
  ['match', [2, 2, 'bool', false]],
  ['startsWith', [2, 2, 'bool', false]],
  ['endsWith', [2, 2, 'bool', false]],
  ['empty', [1, 1, 'bool', false]],
  ['notEmpty', [1, 1, 'bool', false]],
  ['domain', [1, 1, 'string', false]],
  ['path', [1, 1, 'string', false]],
  ['toInt', [1, 1, 'number', true]],
  ['toFloat', [1, 1, 'number', true]],
  ['round', [1, 2, 'number', true]],
  ['floor', [1, 1, 'number', true]],
  ['ceil', [1, 1, 'number', true]],
  ['abs', [1, 1, 'number', true]],
  ['greatest', [2, 8, 'number', true]],
  ['least', [2, 8, 'number', true]],
  ['if', [3, 3, 'any', false]],
  ['multiIf', [3, 31, 'any', false]],
  ['coalesce', [1, 8, 'any', false]],
  ['ifNull', [2, 2, 'any', false]],
  ['nullIf', [2, 2, 'any', false]],
  ['isNull', [1, 1, 'bool', false]],
  ['isNotNull', [1, 1, 'bool', false]],
  ['toDate', [1, 1, 'any', false]],
  ['toStartOfDay', [1, 1, 'any', false]],
  ['toStartOfWeek', [1, 1, 'any', false]],
  ['toStartOfMonth', [1, 1, 'any', false]],
  ['toStartOfHour', [1, 1, 'any', false]],
  ['toHour', [1, 1, 'number', false]],
  ['toDayOfWeek', [1, 1, 'number', false]],
  ['toDayOfMonth', [1, 1, 'number', false]],
  ['toMonth', [1, 1, 'number', false]],
  ['toYear', [1, 1, 'number', false]],
  ['count', [0, 1, 'number', false]],
  ['countIf', [1, 1, 'number', false]],
  ['sum', [1, 1, 'number', true]],
  ['avg', [1, 1, 'number', true]],
  ['min', [1, 1, 'number', true]],
  ['max', [1, 1, 'number', true]],
  ['median', [1, 1, 'number', true]],
  ['uniq', [1, 1, 'number', false]],
  ['uniqExact', [1, 1, 'number', false]],
  ['sumIf', [2, 2, 'number', true]],
  ['avgIf', [2, 2, 'number', true]],
])
/** Functions that aggregate rows: a filter (a condition on one row) cannot use them. */
const AGGREGATES = new Set(['count', 'countIf', 'sum', 'avg', 'min', 'max', 'median', 'uniq', 'uniqExact', 'sumIf', 'avgIf'])
/** Functions whose ClickHouse name differs (a Map: a plain object would also answer `toString` from its prototype). */
const RENAMED = new Map([
  ['toInt', 'toInt64OrNull'],
  ['toFloat', 'toFloat64OrNull'],
])
const NUMERIC_CAST_FUNCTIONS = new Set(['toInt', 'toFloat'])

/** How deep brackets and function calls may nest in an expression (real ones nest a few levels). */
const MAX_NESTING = 100
/**
 * How deep operators and calls may nest in the SQL an expression becomes: a chain of 100 `+` or 100 unary
 * minuses is 100 levels. ClickHouse refuses a query nested about 1,000 levels deep (max_parser_depth,
 * max_ast_depth), and the query around the expression adds its own levels: past this bound the expression is a
 * 400 naming the construct, never ClickHouse's error.
 */
const MAX_DEPTH = 100
/** Literal numbers are exact doubles: past ±2^53 an integer is no longer the number that was written. */
const MAX_LITERAL = Number.MAX_SAFE_INTEGER

type Token = { t: 'num' | 'str' | 'id' | 'op' | 'punct' | 'end'; v: string }

function tokenize(src: string, attr: string): Token[] {
  const tokens: Token[] = []
  const re = /\s*(?:(\d+(?:\.\d+)?)|'((?:[^'\\]|\\.)*)'|([A-Za-z_$][\w$]*)|`([^`]+)`|"([^"]+)"|(==|!=|<>|<=|>=|[-+*/%<>=])|([(),.\[\]]))/y
  let pos = 0
  while (pos < src.length) {
    if (/^\s*$/.test(src.slice(pos))) break
    re.lastIndex = pos
    const m = re.exec(src)
    if (!m) throw wrenError('invalid_hogql', `Cannot read the HogQL expression '${src}' at '${src.slice(pos, pos + 20)}'.`, attr)
    pos = re.lastIndex
    if (m[1] !== undefined) tokens.push({ t: 'num', v: m[1] })
    else if (m[2] !== undefined) tokens.push({ t: 'str', v: m[2].replace(/\\(.)/g, '$1') })
    else if (m[3] !== undefined) tokens.push({ t: 'id', v: m[3] })
    else if (m[4] !== undefined || m[5] !== undefined) tokens.push({ t: 'id', v: (m[4] ?? m[5])! })
    else if (m[6] !== undefined) tokens.push({ t: 'op', v: m[6] })
    else tokens.push({ t: 'punct', v: m[7] })
  }
  tokens.push({ t: 'end', v: '' })
  return tokens
}

export interface HogqlOptions {
  /**
   * The row the expression reads: an events row (the default), or a row of the persons table, where
   * `properties` and `person.properties` are both the person's properties and there are no event columns.
   */
  table?: 'events' | 'persons'
  /** A property filter: a condition on one row (no aggregates, not a bare value). */
  filter?: boolean
  /** The parameter errors name (default `breakdown`). */
  attr?: string
  /** The events row's session (`session.<field>`), where the query joins sessions; without it `session.` is a 400. */
  sessions?: SessionColumns
}

/**
 * `personId`: how the query reads the row's person (an events query builder's choice, see persons-sql.ts;
 * the persons table's own uuid).
 */
export function compileHogql(src: string, params: SqlParams, personId: PersonIdColumn, opts: HogqlOptions = {}): string {
  const attr = opts.attr ?? 'breakdown'
  const persons = opts.table === 'persons'
  // (?<!\s): the alias's leading spaces are tried from the start of their run only (the same match; without it a long run
  // of spaces takes quadratic time, before the length is checked).
  const text = src.replace(/(?<!\s)\s+AS\s+[`"]?[\w$]+[`"]?\s*$/i, '')
  if (text.length > 2000) throw wrenError('invalid_hogql', 'The expression is too long.', attr)
  const tokens = tokenize(text, attr)
  let i = 0
  const peek = () => tokens[i]
  const fail = (why: string) => wrenError('invalid_hogql', `HogQL expression '${src}' is not allowed: ${why}.`, attr)
  const expect = (v: string) => {
    if (tokens[i].v !== v) throw fail(`expected '${v}'`)
    i++
  }
  const isKw = (kw: string) => peek().t === 'id' && peek().v.toUpperCase() === kw
  const num = (c: Compiled) => (c.property || c.kind === 'string' ? `toFloat64OrNull(${c.sql})` : c.sql)
  /** SQL made of `parts` by `construct` (named in the error when it nests the expression too deep). */
  const made = (sql: string, kind: Kind, parts: Compiled[], construct: string): Compiled => {
    const depth = 1 + Math.max(0, ...parts.map((p) => p.depth ?? 0))
    if (depth > MAX_DEPTH) throw fail(`${construct} nests the expression more than ${MAX_DEPTH} levels deep`)
    return { sql, kind, depth }
  }

  // Brackets and function calls nest orExpr: deeper than MAX_NESTING is a 400, not the stack's overflow.
  let depth = 0
  const orExpr = (): Compiled => {
    if (++depth > MAX_NESTING) throw fail(`brackets and calls nest more than ${MAX_NESTING} deep`)
    let left = andExpr()
    while (isKw('OR')) {
      i++
      const right = andExpr()
      left = made(`(${left.sql} OR ${right.sql})`, 'bool', [left, right], 'OR')
    }
    depth--
    return left
  }
  const andExpr = (): Compiled => {
    let left = notExpr()
    while (isKw('AND')) {
      i++
      const right = notExpr()
      left = made(`(${left.sql} AND ${right.sql})`, 'bool', [left, right], 'AND')
    }
    return left
  }
  const notExpr = (): Compiled => {
    if (isKw('NOT')) {
      i++
      const operand = notExpr()
      return made(`(NOT ${operand.sql})`, 'bool', [operand], 'NOT')
    }
    return comparison()
  }
  const comparison = (): Compiled => {
    const left = additive()
    const t = peek()
    if (t.t === 'op' && ['=', '==', '!=', '<>', '<', '<=', '>', '>='].includes(t.v)) {
      i++
      const right = additive()
      const op = t.v === '==' ? '=' : t.v === '<>' ? '!=' : t.v
      const numeric = left.kind === 'number' || right.kind === 'number'
      const l = numeric ? num(left) : left.sql
      const r = numeric ? num(right) : right.sql
      return made(`ifNull(${l} ${op} ${r}, 0)`, 'bool', [left, right], `'${t.v}'`)
    }
    if (isKw('LIKE') || isKw('ILIKE') || (isKw('NOT') && ['LIKE', 'ILIKE'].includes(tokens[i + 1]?.v.toUpperCase()))) {
      const negated = isKw('NOT')
      if (negated) i++
      const fn = peek().v.toUpperCase() === 'LIKE' ? 'like' : 'ilike'
      i++
      const right = additive()
      return made(
        `ifNull(${negated ? 'NOT ' : ''}${fn}(${left.sql}, ${right.sql}), ${negated ? 1 : 0})`,
        'bool',
        [left, right],
        fn.toUpperCase(),
      )
    }
    if (isKw('IS')) {
      i++
      const negated = isKw('NOT')
      if (negated) i++
      if (!isKw('NULL')) throw fail('expected NULL after IS')
      i++
      return made(`(${left.sql} IS ${negated ? 'NOT ' : ''}NULL)`, 'bool', [left], 'IS NULL')
    }
    return left
  }
  const additive = (): Compiled => {
    let left = multiplicative()
    while (peek().t === 'op' && (peek().v === '+' || peek().v === '-')) {
      const op = tokens[i++].v
      const right = multiplicative()
      left = made(`(${num(left)} ${op} ${num(right)})`, 'number', [left, right], `'${op}'`)
    }
    return left
  }
  const multiplicative = (): Compiled => {
    let left = unary()
    while (peek().t === 'op' && ['*', '/', '%'].includes(peek().v)) {
      const op = tokens[i++].v
      const right = unary()
      left = made(`(${num(left)} ${op} ${num(right)})`, 'number', [left, right], `'${op}'`)
    }
    return left
  }
  const unary = (): Compiled => {
    if (peek().t === 'op' && peek().v === '-') {
      i++
      const operand = unary()
      return made(`(-${num(operand)})`, 'number', [operand], "unary '-'")
    }
    return primary()
  }
  const propertyKey = (): string => {
    // properties.key, properties.$key, properties['key with spaces']
    if (peek().v === '.') {
      i++
      const t = tokens[i++]
      if (t.t !== 'id' && t.t !== 'num') throw fail('expected a property name')
      return t.v
    }
    if (peek().v === '[') {
      i++
      const t = tokens[i++]
      if (t.t !== 'str') throw fail('expected a quoted property name')
      expect(']')
      return t.v
    }
    throw fail('expected .name after properties')
  }
  const primary = (): Compiled => {
    const t = tokens[i++]
    if (t.t === 'num') {
      const n = Number(t.v)
      if (n > MAX_LITERAL) throw fail(`the number ${t.v} is past 2^53 (numbers are exact up to ${MAX_LITERAL})`)
      return { sql: params.add(t.v.includes('.') ? 'Float64' : 'Int64', n), kind: 'number' }
    }
    if (t.t === 'str') return { sql: params.add('String', t.v), kind: 'string' }
    if (t.t === 'punct' && t.v === '(') {
      const inner = orExpr()
      expect(')')
      return inner
    }
    if (t.t !== 'id') throw fail(`unexpected '${t.v}'`)
    const upper = t.v.toUpperCase()
    if (upper === 'TRUE' || upper === 'FALSE') return { sql: upper === 'TRUE' ? '1' : '0', kind: 'bool' }
    if (upper === 'NULL') return { sql: 'NULL', kind: 'any' }
    if (t.v === 'properties')
      return { sql: `JSONExtract(properties, ${params.add('String', propertyKey())}, 'Nullable(String)')`, kind: 'any', property: true }
    if (t.v === 'person' && peek().v === '.') {
      i++
      const next = tokens[i++]
      if (next.v !== 'properties') throw fail('only person.properties.<key> is available on person')
      return {
        sql: `JSONExtract(${persons ? 'properties' : 'person_properties'}, ${params.add('String', propertyKey())}, 'Nullable(String)')`,
        kind: 'any',
        property: true,
      }
    }
    if (t.v === 'session' && peek().v === '.') {
      i++
      const name = tokens[i++]
      if (name.t !== 'id') throw fail('expected a session field after session.')
      if (persons) throw fail(`'session.${name.v}': a person has no session (session fields are read on events)`)
      if (!opts.sessions) throw fail(`'session.${name.v}': session fields are not available here`)
      const field = opts.sessions.field(name.v)
      if (!field)
        throw fail(`'session.${name.v}' is not a session field (use ${SESSION_FIELD_NAMES.map((n) => `session.${n}`).join(', ')})`)
      return field
    }
    if (peek().v === '(') {
      const spec = FUNCTIONS.get(t.v)
      if (!spec) throw fail(`function '${t.v}' is not available`)
      if (opts.filter && AGGREGATES.has(t.v)) throw fail(`'${t.v}' aggregates rows, and a filter is a condition on one row`)
      i++
      const args: Compiled[] = []
      if (peek().v !== ')') {
        args.push(orExpr())
        while (peek().v === ',') {
          i++
          args.push(orExpr())
        }
      }
      expect(')')
      if (args.length < spec[0] || args.length > spec[1])
        throw fail(`${t.v} takes ${spec[0] === spec[1] ? spec[0] : `${spec[0]}-${spec[1]}`} arguments`)
      const name = RENAMED.get(t.v) ?? t.v
      const sqlArgs = args.map((a, k) =>
        spec[3] && !NUMERIC_CAST_FUNCTIONS.has(t.v) && !(t.v.endsWith('If') && k === args.length - 1) ? num(a) : a.sql,
      )
      const call = (sql: string, kind: Kind) => made(sql, kind, args, `${t.v}()`)
      if (NUMERIC_CAST_FUNCTIONS.has(t.v)) return call(`${name}(toString(${sqlArgs[0]}))`, 'number')
      return call(`${name}(${sqlArgs.join(', ')})`, spec[2])
    }
    if (t.v === 'person_id') return { sql: personId.sql, kind: 'any' }
    if (persons) throw fail(`'${t.v}' is not a field of persons (use properties.<name>, person.properties.<name>, person_id)`)
    if (!Object.hasOwn(COLUMNS, t.v))
      throw fail(
        `'${t.v}' is not a field of events (use properties.<name>, person.properties.<name>, person_id, session.<field>, ${Object.keys(COLUMNS).join(', ')})`,
      )
    return COLUMNS[t.v]
  }

  const result = orExpr()
  if (peek().t !== 'end') throw fail(`unexpected '${peek().v}'`)
  if (opts.filter && (result.property || result.kind === 'string' || result.kind === 'number'))
    throw fail(`a filter must be a condition (e.g. properties.plan = 'gold'), not a value`)
  return result.sql
}

/**
 * Whether the expression reads the event itself (`properties.<key>` of the event, an events column, or the
 * event's `session.<field>`), rather than only its person (`person.properties.<key>`, person_id): PostHog's recordings list reads the
 * first kind against a session's events and the second against its person (is_event_property /
 * is_person_property in posthog/session_recordings/queries/utils.py). An expression that cannot be read
 * counts as reading the event (compiling it there gives the 400).
 */
export function hogqlReadsEvent(src: string): boolean {
  let tokens: Token[]
  try {
    tokens = tokenize(src, 'properties')
  } catch {
    return true
  }
  return tokens.some((t, k) => {
    // Function names, and names after a dot (person.properties, a property's key), are not fields of the row.
    if (t.t !== 'id' || tokens[k + 1]?.v === '(' || tokens[k - 1]?.v === '.') return false
    return t.v === 'properties' || t.v === 'session' || Object.hasOwn(COLUMNS, t.v)
  })
}
