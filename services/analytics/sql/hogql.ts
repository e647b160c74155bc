// A HogQL expression (a `hogql` property filter, breakdown or math) over the current row only: an event
// (with its person's properties and, where the query joins it, its session), or a person (the persons list,
// cohorts). Read by PostHog's own parser and printed by the one HogQL printer (analytics/hogql/), so every
// surface takes the whole expression language and refuses the same things in the same words as a HogQL
// query. PostHog's property_to_expr reads a `hogql` property filter as parse_expr(key) over the table the
// query reads (posthog/hogql/property.py): so does Wren. Literals become parameters; there is no table to
// name (a subquery is a 400 here).
import type { SqlParams } from '../../platform/clickhouse/params'
import { hogqlError, parseExpr, type HogNode } from '../hogql/parser'
import { printExpression, type Printed, type RowScope } from '../hogql/printer'
import { eventChain } from '../hogql/schema'
import type { PersonIdColumn } from './persons-sql'
import { SESSION_FIELD_NAMES, type SessionColumns } from './sessions'

/** The plain columns of an events row, and their kinds. */
const EVENT_COLUMNS: Record<string, Printed> = {
  uuid: { sql: 'uuid', kind: 'any' },
  event: { sql: 'event', kind: 'string' },
  distinct_id: { sql: 'distinct_id', kind: 'string' },
  timestamp: { sql: 'timestamp', kind: 'datetime' },
  created_at: { sql: 'created_at', kind: 'datetime' },
  elements_chain: { sql: 'elements_chain', kind: 'string' },
  $session_id: { sql: '`$session_id`', kind: 'string' },
  $window_id: { sql: '`$window_id`', kind: 'string' },
  ...Object.fromEntries([0, 1, 2, 3, 4].map((i) => [`$group_${i}`, { sql: `\`$group_${i}\``, kind: 'string' as const }])),
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
  /** The events row's session (`session.<field>`), where the query can join it; without it `session.` is a 400. */
  sessions?: SessionColumns
  /** The name the query gives the events row (PostHog's stickiness reads `e`): `e.properties.x` is `properties.x`. */
  alias?: string
}

function eventsRow(personId: PersonIdColumn, params: SqlParams, sessions: SessionColumns | undefined): RowScope {
  return {
    field(chain) {
      if (chain.length === 1 && Object.hasOwn(EVENT_COLUMNS, chain[0])) return EVENT_COLUMNS[chain[0]]
      if (chain.length === 1 && chain[0] === 'person_id') return { sql: personId.sql, kind: 'any' }
      const col = (name: string) => (name === 'person_id' ? personId.sql : name === 'person_created_at' ? 'person_created_at' : name)
      const r = eventChain(col, chain, params, (name) => {
        if (!sessions) return `'session.${name}': session fields are not available here`
        const f = sessions.field(name)
        if (!f) return `'session.${name}' is not a session field (use ${SESSION_FIELD_NAMES.map((n) => `session.${n}`).join(', ')})`
        return f
      })
      return (
        r ??
        `'${chain.join('.')}' is not a field of events (use properties.<name>, person.properties.<name>, person_id, session.<field>, ${Object.keys(EVENT_COLUMNS).join(', ')})`
      )
    },
  }
}

function personsRow(personId: PersonIdColumn, params: SqlParams): RowScope {
  return {
    field(chain) {
      const [head, ...rest] = chain
      if (chain.length === 1 && (head === 'person_id' || head === 'id')) return { sql: personId.sql, kind: 'any' }
      const keys = head === 'properties' ? rest : head === 'person' && rest[0] === 'properties' ? rest.slice(1) : null
      if (keys && keys.length === 0) return { sql: 'properties', kind: 'string' }
      if (keys)
        return {
          sql: `JSONExtract(properties, ${keys.map((k) => params.add('String', k)).join(', ')}, 'Nullable(String)')`,
          kind: 'any',
          property: true,
        }
      if (head === 'session') return `'session.${rest.join('.')}': a person has no session (session fields are read on events)`
      return `'${chain.join('.')}' is not a field of persons (use properties.<name>, person.properties.<name>, person_id)`
    },
  }
}

/**
 * `personId`: how the query reads the row's person (an events query builder's choice, see persons-sql.ts;
 * the persons table's own uuid).
 */
export function compileHogql(src: string, params: SqlParams, personId: PersonIdColumn, opts: HogqlOptions = {}): string {
  const attr = opts.attr ?? 'breakdown'
  const ast = parseExpr(src, attr)
  let row = opts.table === 'persons' ? personsRow(personId, params) : eventsRow(personId, params, opts.sessions)
  const { alias } = opts
  if (alias) {
    const own = row
    row = { ...own, field: (chain) => own.field(chain.length > 1 && chain[0] === alias ? chain.slice(1) : chain) }
  }
  const printed = printExpression(ast, { params, text: src, attr }, row, opts.filter ?? false)
  if (opts.filter && (printed.property || printed.kind === 'string' || printed.kind === 'number')) throw printedError(src, attr)
  return printed.sql
}

/** The same 400 as the printer's (invalid_hogql), without a position: it is about the whole expression. */
const printedError = (src: string, attr: string) =>
  hogqlError(
    src,
    `HogQL expression '${src}' is not allowed: a filter must be a condition (e.g. properties.plan = 'gold'), not a value`,
    undefined,
    attr,
  )

/**
 * Whether the expression reads the event itself (`properties.<key>` of the event, an events column, or the
 * event's `session.<field>`), rather than only its person (`person.properties.<key>`, person_id): PostHog's recordings list reads the
 * first kind against a session's events and the second against its person (is_event_property /
 * is_person_property in posthog/session_recordings/queries/utils.py). An expression that cannot be read
 * counts as reading the event (compiling it there gives the 400).
 */
export function hogqlReadsEvent(src: string): boolean {
  let ast: HogNode
  try {
    ast = parseExpr(src, 'properties')
  } catch {
    return true
  }
  const reads = (n: unknown): boolean => {
    if (!n || typeof n !== 'object') return false
    if (Array.isArray(n)) return n.some(reads)
    const node = n as HogNode
    if (node.node === 'Field') {
      const head = node.chain[0]
      return head === 'properties' || head === 'session' || head === 'pdi' || Object.hasOwn(EVENT_COLUMNS, head)
    }
    return Object.entries(node).some(([k, v]) => k !== 'start' && k !== 'end' && reads(v))
  }
  return reads(ast)
}
