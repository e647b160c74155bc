// EventsQuery: the events table PostHog's app and tools read (posthog/hogql_queries/events_query_runner.py).
// `select` is a list of HogQL expressions (`*` the event object, `person` its person object); when any of them
// aggregates, the others become the GROUP BY; `where` items are ANDed (those that aggregate go to HAVING). The
// time bounds default as PostHog's: after the last 24 hours ("all" lifts it), before now + 5 s. One page of
// `limit` rows from `offset`, one more row read to tell `hasMore`.
import type { ClickHouseClient } from '../../../platform/clickhouse'
import { wrenError } from '../../../platform/errors'
import { SqlParams } from '../../../platform/clickhouse/params'
import type { Project } from '../../../platform/tenancy'
import { hiddenPersons, visibleEventsSql } from '../../../platform/http/hidden-persons'
import { parseDateString } from '../../../analytics/time/date-strings'
import { compileHogql } from '../../../analytics/sql/hogql'
import { EventPersonId, hasPersonOverrides } from '../../../analytics/sql/persons-sql'
import { SessionColumns } from '../../../analytics/sql/sessions'
import { eventsSource } from '../../../analytics/sql/events-source'
import type { PropertyColumnSource } from '../../../analytics/sql/materialized-properties'
import { compileGroup, eventColumns, type FilterContext } from '../../../analytics/property-filters/sql'
import { parsePropertyGroup, type PropertyGroup } from '../../../analytics/property-filters/parse'
import type { ActionStore } from '../../../actions/store'
import { actionSql } from '../../../actions/match'
import type { Cohort, CohortStore } from '../../../cohorts/store'
import { cohortIdsIn, cohortResolver } from '../../../cohorts/membership'
import { PersonQueries, personDistinctIdsSql } from '../../../persons/queries'
import type { DashboardFilter, QueryKind, QueryRun } from '../../kind'
import { columnExpr, hasAggregation, orderBySql, paging, presentValue, refuseUnknownFields, stringList } from '../../common/columns'
import { readTable } from '../../common/table'

export interface EventsQueryDeps {
  clickhouse: ClickHouseClient
  actions: Pick<ActionStore, 'list'>
  cohorts: Pick<CohortStore, 'list'>
  materialized?: PropertyColumnSource
}

export interface EventsQuery {
  select: string[]
  where: string[]
  properties: PropertyGroup
  fixedProperties: PropertyGroup
  /** `event` and `events` together: only these event names (none: every event). */
  events: string[]
  actionId: number | null
  /** A person's uuid or integer id: only the events of its distinct ids. */
  personId: string | null
  /** PostHog's default '-24h'; 'all' lifts the bound. */
  after: string
  /** Null: now + 5 s. */
  before: string | null
  orderBy: string[] | null
  filterTestAccounts: boolean
  limit: number
  offset: number
}

const FIELDS = [
  'select',
  'where',
  'properties',
  'fixedProperties',
  'event',
  'events',
  'actionId',
  'personId',
  'after',
  'before',
  'orderBy',
  'limit',
  'offset',
  'filterTestAccounts',
]

/** What `*` selects, in PostHog's order (SELECT_STAR_FROM_EVENTS_FIELDS). */
const STAR_FIELDS = ['uuid', 'event', 'properties', 'timestamp', 'team_id', 'distinct_id', 'elements_chain', 'created_at', 'person_mode']
/** PostHog's person display name: the first of these person properties that is set, else the distinct id. */
const DISPLAY_NAME_PROPERTIES = ['email', 'Email', 'name', 'Name', 'username', 'Username', 'UserName']

export function parseEventsQuery(node: Record<string, unknown>): EventsQuery {
  refuseUnknownFields(node, 'EventsQuery', FIELDS, ['source', 'actionSteps'])
  const optionalString = (name: string): string | null => {
    const v = node[name]
    if (v === undefined || v === null) return null
    if (typeof v !== 'string') throw wrenError('invalid_input', `${name} must be a string.`, name)
    return v
  }
  const event = optionalString('event')
  const events = node.events === undefined || node.events === null ? [] : stringList(node, 'events')!
  const actionId = node.actionId === undefined || node.actionId === null ? null : node.actionId
  if (actionId !== null && !(typeof actionId === 'number' && Number.isSafeInteger(actionId) && actionId > 0))
    throw wrenError('invalid_input', 'actionId must be a positive integer.', 'actionId')
  const personId = node.personId === undefined || node.personId === null ? null : String(node.personId)
  const select = stringList(node, 'select') ?? []
  return {
    select: select.length ? select : ['*'],
    where: stringList(node, 'where') ?? [],
    properties: parsePropertyGroup(node.properties, 'properties'),
    fixedProperties: parsePropertyGroup(node.fixedProperties, 'fixedProperties'),
    events: [...(event ? [event] : []), ...events.filter(Boolean)],
    actionId,
    personId,
    after: optionalString('after') ?? '-24h',
    before: optionalString('before'),
    orderBy: stringList(node, 'orderBy') ?? null,
    filterTestAccounts: node.filterTestAccounts === true,
    ...paging(node),
  }
}

/** PostHog's apply_dashboard_filters: a dashboard's dates replace both bounds; its properties are added. */
function withDashboardFilters(query: EventsQuery, filters: DashboardFilter): EventsQuery {
  const next = { ...query }
  if (filters.date_from || filters.date_to) {
    next.after = filters.date_from ?? '-24h'
    next.before = filters.date_to ?? null
  }
  if (filters.properties) {
    const extra = parsePropertyGroup(filters.properties, 'filters_override.properties')
    next.properties = { type: 'AND', values: [query.properties, extra] }
  }
  return next
}

interface Column {
  /** As asked (with its label), for `columns`. */
  name: string
  sql: string
  aggregate: boolean
  special: 'star' | 'person' | 'display' | null
}

export async function runEventsQuery(deps: EventsQueryDeps, run: QueryRun, q: EventsQuery): Promise<Record<string, unknown>> {
  const { project, signal } = run
  const tz = project.timezone || 'UTC'
  const params = new SqlParams()
  const team = `team_id = ${params.add('Int64', project.id)}`
  const personId = new EventPersonId(await hasPersonOverrides(deps.clickhouse, project.id))
  const sessions = new SessionColumns()
  const hogql = (expr: string, attr: string) => compileHogql(expr, params, personId, { sessions, attr })

  const columns: Column[] = []
  for (const [i, name] of q.select.entries()) {
    const expr = columnExpr(name)
    if (expr === '*') columns.push({ name, sql: `tuple(${STAR_FIELDS.join(', ')})`, aggregate: false, special: 'star' })
    else if (expr === 'person') columns.push({ name, sql: 'distinct_id', aggregate: false, special: 'person' })
    else if (expr === 'person_display_name') {
      const props = DISPLAY_NAME_PROPERTIES.map((p) => `nullIf(JSONExtractString(person_properties, ${params.add('String', p)}), '')`)
      const sql = `tuple(coalesce(${props.join(', ')}, distinct_id), toString(${personId.sql}), distinct_id)`
      columns.push({ name, sql, aggregate: false, special: 'display' })
    } else columns.push({ name, sql: hogql(expr, `select[${i}]`), aggregate: await hasAggregation(expr, `select[${i}]`), special: null })
  }
  const where: string[] = [team]
  const having: string[] = []
  for (const [i, expr] of q.where.entries()) {
    const sql = hogql(expr, `where[${i}]`)
    ;((await hasAggregation(expr, `where[${i}]`)) ? having : where).push(sql)
  }
  const cohorts = await cohortsFor(deps, project, q)
  const filters: FilterContext = {
    params,
    sessions,
    columns: eventColumns(personId, deps.materialized),
    cohortMembers: cohortResolver(project.id, cohorts, params),
    dateParam: (v) => params.add('String', v),
  }
  const testAccounts = q.filterTestAccounts ? parsePropertyGroup(project.settings.test_account_filters ?? [], 'test_account_filters') : null
  for (const group of [q.properties, q.fixedProperties, ...(testAccounts ? [testAccounts] : [])]) {
    const sql = compileGroup(group, filters)
    if (sql !== '1') where.push(sql)
  }
  if (q.events.length === 1) where.push(`event = ${params.add('String', q.events[0])}`)
  else if (q.events.length > 1) where.push(`event IN ${params.add('Array(String)', q.events)}`)
  if (q.actionId !== null) {
    const [action] = await deps.actions.list(project.id, { ids: [q.actionId] })
    if (!action) throw wrenError('invalid_input', `Action ${q.actionId} does not exist in this project.`, 'actionId')
    where.push(actionSql(action, filters))
  }
  if (q.personId !== null) {
    // PostHog's: a person by uuid or integer id, and the events of its distinct ids now.
    const id = params.add('String', q.personId.toLowerCase())
    params.values.team = project.id
    where.push(`distinct_id IN (${personDistinctIdsSql(`(toString(uuid) = ${id} OR toString(id) = ${id})`)})`)
  }
  const instant = (text: string, name: string) => {
    const ms = parseDateString(text, tz, run.now.getTime())
    if (ms === null) throw wrenError('invalid_date', `${name} must be a date or a relative date such as -24h, got '${text}'.`, name)
    return `toDateTime64(${params.add('String', new Date(ms).toISOString().slice(0, 23).replace('T', ' '))}, 3, 'UTC')`
  }
  const before = q.before !== null ? instant(q.before, 'before') : instant(new Date(run.now.getTime() + 5_000).toISOString(), 'before')
  const after = q.after !== 'all' ? instant(q.after, 'after') : undefined
  where.push(`timestamp < ${before}`)
  if (after) where.push(`timestamp > ${after}`)
  const hidden = run.viewer ? await hiddenPersons(deps.clickhouse, run.viewer, project.id) : null
  if (hidden) where.push(visibleEventsSql(hidden, params))

  const orderBy = orderBySql(q.orderBy, columns, { newest: 'timestamp', own: (expr) => (expr === 'person' ? 'distinct_id' : null), hogql })
  // Last: the joins are those the columns, conditions and order read.
  const source = eventsSource(team, { sessions, personId }, { from: after, to: before })
  const table = { columns, from: source.from, where, having, orderBy, ties: ['uuid'], settings: source.settings }
  const page = await readTable(deps.clickhouse, { ...table, limit: q.limit, offset: q.offset }, params, { tz, signal })
  const results = page.rows
  for (const [i, c] of columns.entries()) {
    if (c.special === 'star') for (const row of results) row[i] = eventObject(row[i])
    if (c.special === 'display')
      for (const row of results) {
        const [display_name, id, distinct_id] = row[i] as string[]
        row[i] = { display_name, id, distinct_id }
      }
  }
  const personColumns = columns.flatMap((c, i) => (c.special === 'person' ? [i] : []))
  if (personColumns.length && results.length) {
    const ids = [...new Set(results.map((row) => String(row[personColumns[0]])))]
    const persons = await new PersonQueries(deps.clickhouse).byDistinctIds(project.id, ids, signal)
    for (const i of personColumns)
      for (const row of results) {
        const distinct_id = String(row[i])
        const p = persons.get(distinct_id)
        row[i] = p
          ? { uuid: p.uuid, created_at: presentValue(p.createdAt, 'DateTime', tz), properties: p.properties, distinct_id }
          : { distinct_id }
      }
  }
  return {
    results,
    columns: columns.map((c) => c.name),
    types: page.types,
    hasMore: page.hasMore,
    limit: q.limit,
    offset: q.offset,
  }
}

/** `*` as PostHog sends it: the event's fields by name, its properties parsed. */
function eventObject(value: unknown): Record<string, unknown> {
  const fields = Array.isArray(value) ? value : Object.values(value as Record<string, unknown>)
  const event: Record<string, unknown> = Object.fromEntries(STAR_FIELDS.map((f, i) => [f, fields[i]]))
  event.properties = typeof event.properties === 'string' ? (JSON.parse(event.properties) as unknown) : event.properties
  event.elements = []
  return event
}

async function cohortsFor(deps: EventsQueryDeps, project: Project, q: EventsQuery): Promise<Map<number, Cohort>> {
  const used = cohortIdsIn(q.properties).length + cohortIdsIn(q.fixedProperties).length > 0 || q.actionId !== null
  return used ? new Map((await deps.cohorts.list(project.id)).map((c) => [c.id, c] as const)) : new Map()
}

export const eventsQueryKind: QueryKind<EventsQuery, EventsQueryDeps> = {
  kind: 'EventsQuery',
  insight: false,
  parse: parseEventsQuery,
  withDashboardFilters,
  definitions: async (deps, project, q) => ({
    action: q.actionId === null ? null : ((await deps.actions.list(project.id, { ids: [q.actionId] }))[0] ?? null),
    cohorts: [...(await cohortsFor(deps, project, q)).values()],
    testAccounts: q.filterTestAccounts ? (project.settings.test_account_filters ?? null) : null,
  }),
  staleInterval: () => 'minute',
  run: runEventsQuery,
}
