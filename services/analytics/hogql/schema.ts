// The tables a HogQL query reads, with PostHog's names (posthog/hogql/database/schema/*.py), each printed as
// a subquery of Wren's own tables confined to one project: the team guard is in the table's own SQL, so no
// text of the caller's decides it. Fields with PostHog's types: datetimes in the project's timezone,
// `properties.<key>` read from the JSON as text (NULL when missing or null).
import type { SqlParams } from '../../platform/clickhouse/params'
import type { HiddenPersons } from '../../platform/http/hidden-persons'
import { SESSION_PROPERTIES, sessionJoin } from '../sql/sessions'
import { EventPersonId } from '../sql/persons-sql'

/** What a printed expression is, for PostHog's type rules (a property is text until a number meets it). */
export type Kind = 'string' | 'number' | 'bool' | 'datetime' | 'any'
export interface Printed {
  sql: string
  kind: Kind
  /** A datetime column as stored (UTC): compared with an instant it reads the table's keys, not their zoned copy. */
  instant?: string
  /** A property read from JSON (Nullable(String)): cast to a number where a number meets it. */
  property?: boolean
  /** Holds an aggregate outside any subquery. */
  aggregate?: boolean
}

/** What a table's SQL needs from the query around it. */
export interface TableContext {
  params: SqlParams
  /** The team guard's parameter (`{pN:Int64}`). */
  team: string
  /** The project's timezone as a parameter. */
  tz: string
  /** Whether any distinct id of the project moved to another person (persons-sql.ts). */
  personOverrides: boolean
  /** Whether the query reads `session.<field>` of events. */
  sessions: boolean
  /** Persons the key asking may not see: their events and their rows are left out of every table. */
  hidden: HiddenPersons | null
}

/** The events (of `table`, an alias or the table's name) a key may see: a condition to AND, or ''. */
function visibleEvents(ctx: TableContext, table: string): string {
  if (!ctx.hidden) return ''
  const { uuids, distinctIds } = ctx.hidden
  return ` AND NOT (${table}.person_id IN ${ctx.params.add('Array(UUID)', uuids)} OR ${table}.distinct_id IN ${ctx.params.add('Array(String)', distinctIds)})`
}
const visiblePersons = (ctx: TableContext, column: string) =>
  ctx.hidden ? ` AND ${column} NOT IN ${ctx.params.add('Array(UUID)', ctx.hidden.uuids)}` : ''

export interface TableDef {
  /** The table's SQL, read by one project only. */
  sql(ctx: TableContext): string
  /** HogQL column → the subquery's column, in `SELECT *` order (PostHog's non-hidden fields). */
  columns: ReadonlyArray<readonly [string, string, Kind]>
  /** Columns reachable by name but left out of `*` (PostHog's hidden and virtual fields). */
  hidden?: ReadonlyArray<readonly [string, string, Kind]>
  /** A chain of more than one name on this table (properties.x, person.properties.x, session.x), or undefined. */
  chain?(col: (name: string) => string, chain: string[], ctx: TableContext): Printed | string | undefined
}

/** A JSON property of `column` (keys nested), as Nullable(String): NULL when missing or null, numbers as text. */
export function jsonProperty(column: string, keys: string[], params: SqlParams): Printed {
  const path = keys.map((k) => params.add('String', k)).join(', ')
  return { sql: `JSONExtract(${column}, ${path}, 'Nullable(String)')`, kind: 'any', property: true }
}

/** A stored instant in the project's timezone (PostHog prints DateTime fields so); `instant`: the column itself. */
export const tzOf = (sql: string, ctx: TableContext) => `toTimeZone(${sql}, ${ctx.tz})`

const GROUP_KEYS = [0, 1, 2, 3, 4].map((i) => [`$group_${i}`, `$group_${i}`, 'string'] as const)

/** The session fields of an event's session, by PostHog's names (sessions.ts). */
const SESSION_ALIASES: Record<string, string> = { $exit_current_url: '$end_current_url', $exit_pathname: '$end_pathname' }
export function sessionField(name: string): { column: string; kind: Kind } | undefined {
  const key = Object.hasOwn(SESSION_ALIASES, name) ? SESSION_ALIASES[name] : name
  if (!Object.hasOwn(SESSION_PROPERTIES, key)) return undefined
  const p = SESSION_PROPERTIES[key]
  return { column: p.column, kind: p.kind === 'number' ? 'number' : p.kind === 'datetime' ? 'datetime' : 'string' }
}

/**
 * The chains of an events row (the events table, or one row in expression mode): properties.<key>,
 * person.properties.<key>, person.id, pdi.person_id, session.<field>. `col` names a column of the row.
 */
export function eventChain(
  col: (name: string) => string,
  chain: string[],
  params: SqlParams,
  session: (field: string) => Printed | string,
): Printed | string | undefined {
  const [head, ...rest] = chain
  if (head === 'properties') return jsonProperty(col('properties'), rest, params)
  if (head === 'person') {
    if (rest[0] === 'properties')
      return rest.length === 1
        ? { sql: col('person_properties'), kind: 'string' }
        : jsonProperty(col('person_properties'), rest.slice(1), params)
    if (rest.length === 1 && rest[0] === 'id') return { sql: col('person_id'), kind: 'any' }
    if (rest.length === 1 && rest[0] === 'created_at')
      return { sql: col('person_created_at'), kind: 'datetime', instant: col('person_created_at') }
    return `'person.${rest.join('.')}' is not a field of person (use person.id, person.properties.<name>, person.created_at)`
  }
  if (head === 'pdi' && rest.length === 1 && (rest[0] === 'person_id' || rest[0] === 'distinct_id'))
    return { sql: col(rest[0]), kind: rest[0] === 'distinct_id' ? 'string' : 'any' }
  if (head === 'session') {
    if (rest.length !== 1) return `'session.${rest.join('.')}' is not a session field`
    return session(rest[0])
  }
  return undefined
}

const EVENT_COLUMNS: ReadonlyArray<readonly [string, string, Kind]> = [
  ['uuid', 'uuid', 'any'],
  ['event', 'event', 'string'],
  ['properties', 'properties', 'string'],
  ['timestamp', 'timestamp', 'datetime'],
  ['distinct_id', 'distinct_id', 'string'],
  ['elements_chain', 'elements_chain', 'string'],
  ['created_at', 'created_at', 'datetime'],
  ['$session_id', '$session_id', 'string'],
  ['$window_id', '$window_id', 'string'],
  ['person_id', 'person_id', 'any'],
  ...GROUP_KEYS,
]

export const TABLES: Record<string, TableDef> = {
  events: {
    columns: EVENT_COLUMNS,
    hidden: [
      ['person_mode', 'person_mode', 'string'],
      ['person_properties', 'person_properties', 'string'],
    ],
    sql(ctx) {
      const personId = new EventPersonId(ctx.personOverrides)
      const person = ctx.personOverrides
        ? "if(overrides.override_person_id = toUUID('00000000-0000-0000-0000-000000000000'), events.person_id, overrides.override_person_id)"
        : 'events.person_id'
      // Reading personId.sql marks the override join as needed (persons-sql.ts).
      void personId.sql
      const sessions = ctx.sessions
        ? `, sessions.session_key AS session_key, ${Object.values(SESSION_PROPERTIES)
            .map((p) => `sessions.${p.column} AS ${p.column}`)
            .join(', ')}`
        : ''
      return `SELECT events.uuid AS uuid, events.event AS event, events.properties AS properties, events.timestamp AS timestamp,
      events.distinct_id AS distinct_id, events.elements_chain AS elements_chain, events.created_at AS created_at,
      ${person} AS person_id, events.person_properties AS person_properties, events.person_created_at AS person_created_at,
      toString(events.person_mode) AS person_mode, events.\`$session_id\` AS \`$session_id\`, events.\`$window_id\` AS \`$window_id\`,
      ${GROUP_KEYS.map(([k]) => `events.\`${k}\` AS \`${k}\``).join(', ')},
      ${[0, 1, 2, 3, 4].map((i) => `events.group${i}_properties AS group${i}_properties`).join(', ')}${sessions}
    FROM events ${personId.join(`team_id = ${ctx.team}`)} ${ctx.sessions ? sessionJoin(`team_id = ${ctx.team}`) : ''}
    WHERE events.team_id = ${ctx.team}${visibleEvents(ctx, 'events')}`
    },
    chain(col, chain, ctx) {
      const r = eventChain(col, chain, ctx.params, (name) => {
        const f = sessionField(name)
        if (!f) return `'session.${name}' is not a session field`
        const value =
          f.kind === 'datetime' ? tzOf(col(f.column), ctx) : f.kind === 'string' ? `nullIf(${col(f.column)}, '')` : col(f.column)
        return { sql: `if(${col('session_key')} = '', NULL, ${value})`, kind: f.kind }
      })
      return typeof r === 'object' && r.instant ? { ...r, sql: tzOf(r.sql, ctx) } : r
    },
  },
  persons: {
    columns: [
      ['id', 'id', 'any'],
      ['created_at', 'created_at', 'datetime'],
      ['properties', 'properties', 'string'],
      ['is_identified', 'is_identified', 'number'],
    ],
    sql: (ctx) => `SELECT uuid AS id, argMax(person.created_at, version) AS created_at,
      argMax(person.properties, version) AS properties, argMax(person.is_identified, version) AS is_identified
    FROM person WHERE team_id = ${ctx.team}${visiblePersons(ctx, 'uuid')} GROUP BY uuid HAVING argMax(is_deleted, version) = 0`,
    chain: (col, chain, ctx) => (chain[0] === 'properties' ? jsonProperty(col('properties'), chain.slice(1), ctx.params) : undefined),
  },
  person_distinct_ids: {
    columns: [
      ['distinct_id', 'distinct_id', 'string'],
      ['person_id', 'person_id', 'any'],
    ],
    sql: (ctx) => `SELECT distinct_id, argMax(person_uuid, version) AS person_id
    FROM person_distinct_id WHERE team_id = ${ctx.team} GROUP BY distinct_id
    HAVING argMax(is_deleted, version) = 0${visiblePersons(ctx, 'person_id')}`,
  },
  sessions: {
    columns: [
      ['session_id', 'session_id', 'string'],
      ['distinct_id', 'distinct_id', 'string'],
      ...Object.entries(SESSION_PROPERTIES).map(
        ([name, p]) => [name, p.column, p.kind === 'number' ? 'number' : p.kind === 'datetime' ? 'datetime' : 'string'] as const,
      ),
    ],
    hidden: [
      ['id', 'session_id', 'string'],
      ['duration', 'session_duration', 'number'],
      ['$exit_current_url', 'session_exit_url', 'string'],
      ['$exit_pathname', 'session_end_pathname', 'string'],
    ],
    sql: (ctx) => `SELECT \`$session_id\` AS session_id, any(distinct_id) AS distinct_id, ${Object.values(SESSION_PROPERTIES)
      .map((p) => `${p.sql} AS ${p.column}`)
      .join(', ')}
    FROM events WHERE team_id = ${ctx.team} AND \`$session_id\` != ''${visibleEvents(ctx, 'events')} GROUP BY session_id`,
  },
  groups: {
    columns: [
      ['index', 'group_index', 'number'],
      ['key', 'group_key', 'string'],
      ['created_at', 'group_created_at', 'datetime'],
      ['properties', 'group_properties', 'string'],
    ],
    sql: (ctx) => `SELECT group_type_index AS group_index, group_key, argMax(groups.created_at, version) AS group_created_at,
      argMax(groups.properties, version) AS group_properties
    FROM groups WHERE team_id = ${ctx.team} GROUP BY group_type_index, group_key`,
    chain: (col, chain, ctx) => (chain[0] === 'properties' ? jsonProperty(col('group_properties'), chain.slice(1), ctx.params) : undefined),
  },
}

/** The tables a query may name, for messages. */
export const TABLE_NAMES = [...Object.keys(TABLES), 'numbers']
