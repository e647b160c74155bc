// The recordings list's filters, in PostHog's query parameter names (its RecordingsQuery, sent as JSON in the
// query string), compiled to conditions on each session of session_recording_metadata (metadata-store.ts):
//
//   date_from / date_to         the session's start (ISO, or relative like `-7d`); PostHog's default is `-3d`
//   distinct_ids / person_uuid  whose sessions (an empty distinct_ids is no filter)
//   session_ids                 these sessions only
//   events / actions            sessions with an event (`$session_id` = the session) that is one of these, with
//                               the entry's own `properties`; an events entry with `id: null` is any event
//   properties                  event filters (an event of the session has it; with a negative operator, every
//                               event has it), person and cohort filters (its person has it / is in it),
//                               recording filters (as having_predicates), HogQL filters (an event of the
//                               session matches it; one that reads only person.properties: its person does),
//                               session filters (the session's properties as trends compute them from its
//                               events: $session_duration, $entry_current_url, …; also HogQL's session.<field>)
//   console_log_filters         sessions with a console line of this `level` / `message` (log_entries)
//   having_predicates           the session's own metadata: duration, active_seconds, click_count,
//                               console_error_count, … , snapshot_source, visited_page (any url of it)
//   filter_test_accounts        the project's test_account_filters too (read as `properties` are)
//   operand                     AND (default) or OR between events, actions, properties and console filters,
//                               and between person filters (and between cohort filters) of a flat `properties`
//   order / order_direction     start_time (default), duration, active_seconds, click_count, …; DESC by default
//
// Everything runs in SQL (events and console lines as `session_id IN (subquery)`), so a page of a project
// with many recordings reads only the page's states. Bad filters are 400s naming their parameter.
import type { ActionStore } from '../actions/store'
import { actionSql } from '../actions/match'
import { cohortIdsIn, cohortResolver } from '../cohorts/membership'
import type { CohortStore } from '../cohorts/store'
import { personDistinctIdsSql } from '../persons/queries'
import { WrenError, wrenError } from '../platform/errors'
import { isRecord } from '../platform/json'
import { parseDateString } from '../analytics/time/date-strings'
import { isGroup, parsePropertyGroup, type PropertyFilter, type PropertyGroup } from '../analytics/property-filters/parse'
import {
  anyInList,
  compareValue,
  compileFilter,
  compileGroup,
  eventColumns,
  PERSON_COLUMNS,
  type FilterContext,
} from '../analytics/property-filters/sql'
import type { HiddenPersons } from '../platform/http/hidden-persons'
import { hogqlReadsEvent } from '../analytics/sql/hogql'
import { SqlParams } from '../platform/clickhouse/params'
import { SessionColumns, sessionJoin } from '../analytics/sql/sessions'
import { EventPersonId } from '../analytics/sql/persons-sql'
import type { Project } from '../platform/tenancy'
import { SESSION_SQL, type RecordingQuery, type SessionColumn } from './metadata-store'
import { dateParamInstant } from '../analytics/time/date-params'

/** The list's query string as the route reads it (JSON values as strings, as PostHog takes them). */
export interface ListParams {
  date_from?: string
  date_to?: string
  distinct_id?: string
  distinct_ids?: string
  session_ids?: string
  min_duration?: number
  events?: string
  actions?: string
  properties?: string
  console_log_filters?: string
  having_predicates?: string
  filter_test_accounts?: string
  operand?: string
  order?: string
  order_direction?: string
}

/** PostHog's default window for the list (RecordingsQuery.date_from). */
export const DEFAULT_DATE_FROM = '-3d'

/** The recording filter keys (`type: "recording"`), each a SESSION_SQL column; `duration` is the recording's length. */
const RECORDING_KEYS: Record<string, SessionColumn> = {
  duration: 'duration',
  recording_duration: 'duration',
  active_seconds: 'active_seconds',
  inactive_seconds: 'inactive_seconds',
  click_count: 'click_count',
  keypress_count: 'keypress_count',
  mouse_activity_count: 'mouse_activity_count',
  console_log_count: 'console_log_count',
  console_warn_count: 'console_warn_count',
  console_error_count: 'console_error_count',
  activity_score: 'activity_score',
  snapshot_source: 'snapshot_source',
}
const VISITED_PAGE = 'visited_page'
/** Console line filters (`type: "log_entry"`, or PostHog's older recording keys) → log_entries columns. */
const LOG_KEYS: Record<string, 'level' | 'message'> = {
  level: 'level',
  message: 'message',
  console_log_level: 'level',
  console_log_query: 'message',
}
const ORDERS: Record<string, SessionColumn> = { start_time: 'start_time', ...RECORDING_KEYS }
delete ORDERS.snapshot_source
/**
 * PostHog's NEGATIVE_OPERATORS and INVERSE_OPERATOR_FOR (session_recording_list_from_query.py): an event filter
 * with one of these holds for a session only when none of its events has the opposite (a session with one
 * pageview on localhost is a test session, whatever its other events).
 */
const INVERSE_OPERATOR: Record<string, string> = { is_not: 'exact', not_regex: 'regex', not_icontains: 'icontains', is_not_set: 'is_set' }
/** Events of a session are looked for this far around its start window (clocks of browsers drift). */
const EVENT_MARGIN_MS = 24 * 3_600_000

/** A JSON parameter, or a 400 naming it. */
function json(raw: string | undefined, attr: string): unknown {
  if (raw === undefined || raw === '') return undefined
  try {
    return JSON.parse(raw)
  } catch {
    throw wrenError('invalid_input', `${attr} must be JSON.`, attr)
  }
}

function stringList(raw: string | undefined, attr: string): string[] | undefined {
  const value = json(raw, attr)
  if (value === undefined || value === null) return undefined
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    throw wrenError('invalid_input', `${attr} must be a JSON list of strings.`, attr)
  return value as string[]
}

/** `date_from` / `date_to` as trends read them (shared with the persons timeline); `all`: no bound. */
function rangeEnd(raw: string, attr: 'date_from' | 'date_to', timeZone: string, now: number): string | undefined {
  return raw === 'all' ? undefined : dateParamInstant(raw, attr, new Date(now), timeZone).toISOString()
}

/** A property filter's date value as an ISO instant, read in the project's timezone; `all`: none. */
function instant(raw: string, attr: string, timeZone: string, now: number): string | undefined {
  if (raw === 'all') return undefined
  const ms = parseDateString(raw, timeZone, now)
  if (ms === null) throw wrenError('invalid_input', `${attr} must be an ISO date-time or a relative date like -7d, got '${raw}'.`, attr)
  return new Date(ms).toISOString()
}

export interface ListContext {
  project: Project
  now: Date
  actions: ActionStore
  /** For cohort filters (in `properties`, `having_predicates` and the test-account filters). */
  cohorts: Pick<CohortStore, 'list'>
  /** Persons the caller may not see: their recordings are left out. */
  hidden: HiddenPersons | null
}

/** The store's query for these parameters (limit and offset aside). */
export async function recordingQuery(q: ListParams, ctx: ListContext): Promise<Omit<RecordingQuery, 'limit' | 'offset'>> {
  const { project } = ctx
  const tz = project.timezone || 'UTC'
  const now = ctx.now.getTime()
  const params = new SqlParams()
  const conditions: string[] = []
  const dateFrom = rangeEnd(q.date_from || DEFAULT_DATE_FROM, 'date_from', tz, now)
  const dateTo = q.date_to ? rangeEnd(q.date_to, 'date_to', tz, now) : undefined
  const extra = { extraTypes: ['recording', 'log_entry'] }
  const properties = parsePropertyGroup(json(q.properties, 'properties'), 'properties', extra)
  const having = parsePropertyGroup(json(q.having_predicates, 'having_predicates'), 'having_predicates', extra)
  const testFilters =
    q.filter_test_accounts === 'true' ? parsePropertyGroup(project.settings.test_account_filters ?? [], 'test_account_filters') : null
  // Cohorts are read only when a filter names one.
  const cohorts = [properties, having, testFilters].some((g) => g && cohortIdsIn(g).length > 0)
    ? new Map((await ctx.cohorts.list(project.id)).map((c) => [c.id, c]))
    : new Map()
  const cohortMembers = cohortResolver(project.id, cohorts, params)

  // Events of the session, around its start window (the events' bounds, and the session join's).
  const at = (iso: string, sign: '-' | '+') =>
    `parseDateTime64BestEffort(${params.add('String', iso)}, 3) ${sign} toIntervalMillisecond(${EVENT_MARGIN_MS})`
  const eventWindow = { from: dateFrom ? at(dateFrom, '-') : undefined, to: dateTo ? at(dateTo, '+') : undefined }
  const eventBounds = [
    eventWindow.from ? `timestamp >= ${eventWindow.from}` : '',
    eventWindow.to ? `timestamp <= ${eventWindow.to}` : '',
  ].filter(Boolean)
  const eventCtx = (attr: string): FilterContext => ({
    params,
    columns: eventColumns(new EventPersonId(false)),
    sessions: new SessionColumns(),
    cohortMembers: (id) => about(attr, () => cohortMembers(id)),
    // is_date_* read it with toDateTime64(…, 'UTC'): a UTC wall-clock string.
    dateParam: (v) => params.add('String', (instant(v, attr, tz, now) ?? new Date(0).toISOString()).replace('T', ' ').replace('Z', '')),
  })
  let joinsSessions = false
  const eventsWhere = (condition: string) => ['team_id = {team:Int64}', "`$session_id` != ''", ...eventBounds, condition].join(' AND ')
  /**
   * Sessions with an event matching what `compile` makes of an events context: the event's own session
   * properties (session filters, HogQL's session.<field>) join in only when read, computed from the
   * session's events as trends compute them (query/sessions.ts), around the same window.
   */
  const sessionsWithEvent = (attr: string, compile: (c: FilterContext) => string) => {
    const c = eventCtx(attr)
    const condition = about(attr, () => compile(c))
    const join = c.sessions?.used ? ` ${sessionJoin('team_id = {team:Int64}', eventWindow)}` : ''
    if (join) joinsSessions = true
    return `session_id IN (SELECT \`$session_id\` FROM events${join} WHERE ${eventsWhere(condition)})`
  }
  /** PostHog's negative event filters: sessions with events, none of which has the opposite. */
  const sessionsWithNoEvent = (condition: string) =>
    `session_id IN (SELECT \`$session_id\` FROM events WHERE ${eventsWhere('1')} GROUP BY \`$session_id\` HAVING countIf(${condition}) = 0)`
  /** A person's filter (or a cohort's) as the sessions of that person's distinct ids. */
  const personSessions = (f: PropertyFilter, attr: string) =>
    `${SESSION_SQL.distinct_id} IN (${personDistinctIdsSql(compileFilter(f, { ...eventCtx(attr), columns: PERSON_COLUMNS }))})`

  /** Every filter as a condition on a session (see the header). */
  const sessionCtx = (attr: string): FilterContext => ({
    ...eventCtx(attr),
    own: (f) => sessionFilter(f, attr),
  })
  const sessionFilter = (f: PropertyFilter, attr: string): string => {
    switch (f.type) {
      case 'recording':
        return recordingFilter(f, attr)
      case 'log_entry':
        return consoleFilter(f, attr)
      case 'person':
      case 'cohort':
        return personSessions(f, attr)
      case 'hogql':
        return isPersonFilter(f) ? personSessions(f, attr) : sessionsWithEvent(attr, (c) => compileFilter(f, c))
      case 'event': {
        const inverse = INVERSE_OPERATOR[f.operator]
        if (inverse && !f.negation) return sessionsWithNoEvent(compileFilter({ ...f, operator: inverse }, eventCtx(attr)))
        return sessionsWithEvent(attr, (c) => compileFilter(f, c))
      }
      case 'element':
      case 'event_metadata':
      case 'group':
      case 'session':
        return sessionsWithEvent(attr, (c) => compileFilter(f, c))
      default:
        throw wrenError('invalid_input', `${attr}: '${f.type}' filters are not supported on the recordings list.`, attr)
    }
  }
  const recordingFilter = (f: PropertyFilter, attr: string): string => {
    if (f.key === VISITED_PAGE) return anyInList(SESSION_SQL.urls, f, eventCtx(attr))
    if (LOG_KEYS[f.key]) return consoleFilter(f, attr)
    const column = RECORDING_KEYS[f.key]
    if (!column)
      throw wrenError(
        'invalid_input',
        `${attr}: unknown recording property '${f.key}'. Use one of ${[...Object.keys(RECORDING_KEYS), VISITED_PAGE].join(', ')}.`,
        attr,
      )
    return compareValue(`toNullable(toString(${SESSION_SQL[column]}))`, f, eventCtx(attr))
  }
  const logCondition = (f: PropertyFilter, attr: string): string => {
    const column = LOG_KEYS[f.key]
    if (!column) throw wrenError('invalid_input', `${attr}: unknown console log property '${f.key}'. Use level or message.`, attr)
    return compareValue(`toNullable(${column})`, f, eventCtx(attr))
  }
  const sessionsWithLines = (condition: string) =>
    `session_id IN (SELECT log_source_id FROM log_entries WHERE team_id = {team:Int64} AND log_source = 'session_replay' AND ${condition})`
  const consoleFilter = (f: PropertyFilter, attr: string) => sessionsWithLines(logCondition(f, attr))

  const operand = (q.operand ?? 'AND').toUpperCase()
  if (operand !== 'AND' && operand !== 'OR') throw wrenError('invalid_input', 'operand must be AND or OR.', 'operand')
  const optional: string[] = []

  // events: [{id: '$pageview', properties: [...]}, …]; an id of null is any event (PostHog's frontend sends
  // {id: null, name: 'All events'}); only an entry without an id is read by its name.
  for (const [i, entry] of entries(q.events, 'events').entries()) {
    const id = entry.id !== undefined ? entry.id : (entry.name ?? null)
    if (id !== null && typeof id !== 'string') throw wrenError('invalid_input', `events[${i}].id must be an event name or null.`, 'events')
    const props = parsePropertyGroup(entry.properties, 'events')
    optional.push(
      sessionsWithEvent('events', (c) => [id === null ? '1' : `event = ${params.add('String', id)}`, compileGroup(props, c)].join(' AND ')),
    )
  }
  // actions: [{id: 3, properties: [...]}, …]: an event of the session matches the action and the entry's filters.
  const actionEntries = entries(q.actions, 'actions')
  if (actionEntries.length) {
    const ids = actionEntries.map((a, i) => {
      const id = Number(a.id)
      if (!Number.isSafeInteger(id) || id <= 0) throw wrenError('invalid_input', `actions[${i}].id must be an action id.`, 'actions')
      return id
    })
    const found = new Map((await ctx.actions.list(project.id, { ids })).map((a) => [a.id, a] as const))
    for (const [i, id] of ids.entries()) {
      const action = found.get(id)
      if (!action) throw wrenError('invalid_input', `Action ${id} does not exist in this project.`, 'actions')
      const props = parsePropertyGroup(actionEntries[i].properties, 'actions')
      optional.push(sessionsWithEvent('actions', (c) => `${actionSql(action, c)} AND ${compileGroup(props, c)}`))
    }
  }
  optional.push(...propertyConditions(properties, operand, (g) => compileGroup(g, sessionCtx('properties'))))
  // Console lines: the filters hold together on one line (or any of them, with operand OR).
  const consoleGroup = parsePropertyGroup(json(q.console_log_filters, 'console_log_filters'), 'console_log_filters', extra)
  if (consoleGroup.values.length) {
    const group: PropertyGroup = { type: operand, values: consoleGroup.values }
    const lineCtx: FilterContext = { ...eventCtx('console_log_filters'), own: (f) => logCondition(f, 'console_log_filters') }
    optional.push(sessionsWithLines(about('console_log_filters', () => compileGroup(group, lineCtx))))
  }
  if (optional.length) conditions.push(optional.length === 1 ? optional[0] : `(${optional.join(` ${operand} `)})`)

  if (having.values.length) conditions.push(about('having_predicates', () => compileGroup(having, sessionCtx('having_predicates'))))
  if (testFilters?.values.length)
    conditions.push(about('filter_test_accounts', () => compileGroup(testFilters, sessionCtx('filter_test_accounts'))))
  if (ctx.hidden) conditions.push(`NOT hasAny(${SESSION_SQL.distinct_ids}, ${params.add('Array(String)', ctx.hidden.distinctIds)})`)

  const orderKey = q.order ?? 'start_time'
  const orderBy = ORDERS[orderKey]
  if (!orderBy) throw wrenError('invalid_input', `order must be one of ${Object.keys(ORDERS).join(', ')}.`, 'order')
  const direction = (q.order_direction ?? 'DESC').toUpperCase()
  if (direction !== 'ASC' && direction !== 'DESC')
    throw wrenError('invalid_input', 'order_direction must be ASC or DESC.', 'order_direction')

  return {
    dateFrom,
    dateTo,
    distinctIds: q.distinct_id !== undefined ? [q.distinct_id] : nonEmpty(stringList(q.distinct_ids, 'distinct_ids')),
    sessionIds: stringList(q.session_ids, 'session_ids'),
    minDuration: q.min_duration,
    conditions,
    params: params.values,
    orderBy: { key: orderBy, direction },
    joinsSessions,
  }
}

/** The conditions that leave hidden persons' recordings out (for retrieving one recording). */
export function visibleRecordings(hidden: HiddenPersons | null): Pick<RecordingQuery, 'conditions' | 'params'> {
  if (!hidden) return {}
  const params = new SqlParams()
  return {
    conditions: [`NOT hasAny(${SESSION_SQL.distinct_ids}, ${params.add('Array(String)', hidden.distinctIds)})`],
    params: params.values,
  }
}

/**
 * `properties` as PostHog splits a flat list (session_recording_list_from_query.py): person filters in one
 * group and cohort filters in another, each joined by `operand` (PersonsPropertiesSubQuery,
 * CohortPropertyGroupsSubQuery), the rest together; each part is one of the conditions `operand` joins.
 * A nested group is read as given.
 */
function propertyConditions(properties: PropertyGroup, operand: 'AND' | 'OR', compile: (g: PropertyGroup) => string): string[] {
  if (properties.values.length === 0) return []
  if (operand === 'AND' || properties.values.some(isGroup)) return [compile(properties)]
  const filters = properties.values as PropertyFilter[]
  const parts = [
    { type: 'AND' as const, values: filters.filter((f) => !isPersonFilter(f) && f.type !== 'cohort') },
    { type: operand, values: filters.filter(isPersonFilter) },
    { type: operand, values: filters.filter((f) => f.type === 'cohort') },
  ]
  return parts.filter((g) => g.values.length > 0).map(compile)
}

/** A person filter, or a HogQL filter that reads only the person (PostHog's is_person_property). */
function isPersonFilter(f: PropertyFilter): boolean {
  return f.type === 'person' || (f.type === 'hogql' && !hogqlReadsEvent(f.key))
}

/** PostHog reads an empty `distinct_ids` as no filter (`if self._query.distinct_ids`). */
function nonEmpty(list: string[] | undefined): string[] | undefined {
  return list?.length ? list : undefined
}

/** Runs a compile whose shared-compiler errors (which name `properties`) should name this parameter. */
function about<T>(attr: string, compile: () => T): T {
  try {
    return compile()
  } catch (err) {
    if (err instanceof WrenError && err.attr === 'properties' && attr !== 'properties') throw new WrenError(err.code, err.message, attr)
    throw err
  }
}

/** `events` / `actions`: a JSON list of objects. */
function entries(raw: string | undefined, attr: string): Array<Record<string, unknown>> {
  const value = json(raw, attr)
  if (value === undefined || value === null) return []
  if (!Array.isArray(value) || !value.every(isRecord)) throw wrenError('invalid_input', `${attr} must be a JSON list of objects.`, attr)
  return value
}
