// ActorsQuery: the persons of a project, or the persons behind one data point of an insight when its `source` is
// an InsightActorsQuery (posthog/hogql_queries/actors_query_runner.py, actor_strategies.py PersonStrategy).
// `select` columns over the persons (`person` the person object, `id`, `created_at`, `properties.x`, and from a
// source `event_count` and `event_distinct_ids`), `search` (email, name, id, a distinct id), person `properties`,
// `orderBy`, and one page with `hasMore`. The point's SQL comes from the source's own kind (kind.ts `actors`),
// found through the table of kinds: this kind never imports another.
import type { ClickHouseClient } from '../../../platform/clickhouse'
import { wrenError } from '../../../platform/errors'
import { isRecord } from '../../../platform/json'
import { SqlParams } from '../../../platform/clickhouse/params'
import { hiddenPersons } from '../../../platform/http/hidden-persons'
import { compileHogql } from '../../../analytics/sql/hogql'
import { jsonProperty } from '../../../analytics/hogql/schema'
import { SESSION_JOIN_SETTINGS } from '../../../analytics/sql/sessions'
import { compileGroup, PERSON_COLUMNS } from '../../../analytics/property-filters/sql'
import { parsePropertyGroup, type PropertyGroup } from '../../../analytics/property-filters/parse'
import type { Cohort, CohortStore } from '../../../cohorts/store'
import type { Project } from '../../../platform/tenancy'
import { cohortIdsIn, cohortResolver } from '../../../cohorts/membership'
import { LATEST_DISTINCT_IDS, LATEST_PERSONS, PersonQueries } from '../../../persons/queries'
import { sortDistinctIds } from '../../../persons/serialize'
import type { ActorsPoint, ActorsSql, InsightActors, QueryKind, QueryRun } from '../../kind'
import { embedSql } from '../../common/nested'
import { columnExpr, hasAggregation, orderBySql, paging, presentValue, refuseUnknownFields, stringList } from '../../common/columns'
import { readTable } from '../../common/table'

export interface ActorsQueryDeps {
  clickhouse: ClickHouseClient
  cohorts: Pick<CohortStore, 'list'>
}

export interface ActorsQuery<D = unknown> {
  select: string[]
  search: string | null
  properties: PropertyGroup
  fixedProperties: PropertyGroup
  orderBy: string[] | null
  limit: number
  offset: number
  /** Whether `select` was sent (else the default columns: a person's, or a group's when the actors are groups). */
  selected: boolean
  /** The InsightActorsQuery: the insight (as sent: the cache key reads it), the point, and the insight as its kind reads it. */
  source: { insight: Record<string, unknown>; point: ActorsPoint; read: InsightActors<D> } | null
}

const FIELDS = ['select', 'search', 'properties', 'fixedProperties', 'orderBy', 'limit', 'offset', 'source']
const INSIGHT_ACTORS_FIELDS = ['source', 'day', 'status', 'interval', 'series', 'breakdown', 'compare', 'includeRecordings']
/** PostHog's StickinessActorsQuery: a stickiness point, `operator` comparing its number of intervals. */
const STICKINESS_ACTORS_FIELDS = ['source', 'day', 'series', 'compare', 'operator', 'includeRecordings']
/** PostHog's person display name for `person_display_name` and ordering by `person`: the first of these set. */
const DISPLAY_NAME_PROPERTIES = ['email', 'Email', 'name', 'Name', 'username', 'Username', 'UserName']
/** PostHog lists at most this many distinct ids on a person object. */
const MAX_DISTINCT_IDS = 101

/**
 * The kind, given how to find a source insight's actors: `actorsOf(node)` parses the insight node with its own
 * kind and answers its PointActors, or throws the 400 of a kind whose points have no actors in Wren.
 */
export function actorsQueryKind<D extends ActorsQueryDeps>(
  actorsOf: (insight: Record<string, unknown>) => InsightActors<D>,
): QueryKind<ActorsQuery<D>, D> {
  return {
    kind: 'ActorsQuery',
    insight: false,
    parse: (node) => parseActorsQuery(node, actorsOf),
    definitions: async (deps, project, q) => ({
      cohorts: await usedCohorts(deps, project, q),
      source: q.source ? await q.source.read.definitions(deps, project) : null,
    }),
    staleInterval: () => 'minute',
    run: runActorsQuery,
  }
}

export function parseActorsQuery<D>(
  node: Record<string, unknown>,
  actorsOf: (insight: Record<string, unknown>) => InsightActors<D>,
): ActorsQuery<D> {
  refuseUnknownFields(node, 'ActorsQuery', FIELDS)
  const search = node.search === undefined || node.search === null ? null : node.search
  if (search !== null && typeof search !== 'string') throw wrenError('invalid_input', 'search must be a string.', 'search')
  const source = node.source === undefined || node.source === null ? null : parseSource(node.source, actorsOf)
  const select = stringList(node, 'select')
  return {
    select: select?.length
      ? select
      : source
        ? ['person', 'id', 'person.$delete', 'event_distinct_ids']
        : ['person', 'id', 'person.$delete'],
    selected: !!select?.length,
    search: search || null,
    properties: parsePropertyGroup(node.properties, 'properties'),
    fixedProperties: parsePropertyGroup(node.fixedProperties, 'fixedProperties'),
    orderBy: stringList(node, 'orderBy') ?? null,
    ...paging(node),
    source,
  }
}

function parseSource<D>(raw: unknown, actorsOf: (insight: Record<string, unknown>) => InsightActors<D>): ActorsQuery<D>['source'] {
  if (!isRecord(raw)) throw wrenError('invalid_input', 'source must be a query node.', 'source')
  if (raw.kind === 'FunnelsActorsQuery') return parseFunnelSource(raw, actorsOf)
  const stickiness = raw.kind === 'StickinessActorsQuery'
  if (raw.kind !== 'InsightActorsQuery' && !stickiness)
    throw wrenError(
      'unsupported',
      `An ActorsQuery's source of kind '${String(raw.kind)}' is not computed yet: only InsightActorsQuery, FunnelsActorsQuery and StickinessActorsQuery.`,
      'source',
    )
  const known = stickiness ? STICKINESS_ACTORS_FIELDS : INSIGHT_ACTORS_FIELDS
  const unknown = Object.keys(raw).find((k) => !known.includes(k) && !['kind', 'response', 'modifiers'].includes(k))
  if (unknown) throw wrenError('unknown_field', `${String(raw.kind)} has no field '${unknown}' that Wren can apply.`, `source.${unknown}`)
  if (!isRecord(raw.source)) throw wrenError('required', `An ${String(raw.kind)} needs the insight query as its source.`, 'source.source')
  if (stickiness && raw.source.kind !== 'StickinessQuery')
    throw wrenError('invalid_input', 'A StickinessActorsQuery needs a StickinessQuery as its source.', 'source.source')
  const operator = raw.operator === undefined || raw.operator === null ? null : raw.operator
  if (operator !== null && operator !== 'exact' && operator !== 'gte' && operator !== 'lte')
    throw wrenError('invalid_choice', "operator must be 'exact', 'gte' or 'lte'.", 'source.operator')
  const int = (name: string): number | null => {
    const v = raw[name]
    if (v === undefined || v === null) return null
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
      throw wrenError('invalid_input', `${name} must be an integer of at least 0.`, `source.${name}`)
    return v
  }
  const compare = raw.compare === undefined || raw.compare === null ? null : raw.compare
  if (compare !== null && compare !== 'current' && compare !== 'previous')
    throw wrenError('invalid_choice', "compare must be 'current' or 'previous'.", 'source.compare')
  const day = raw.day === undefined || raw.day === null ? null : raw.day
  if (day !== null && typeof day !== 'string' && typeof day !== 'number')
    throw wrenError('invalid_input', 'day must be a date string.', 'source.day')
  const status = raw.status === undefined || raw.status === null ? null : String(raw.status)
  const point: ActorsPoint = {
    day,
    series: int('series') ?? 0,
    breakdown: raw.breakdown ?? null,
    compare,
    status,
    interval: int('interval'),
    operator,
  }
  return { insight: raw.source, point, read: actorsOf(raw.source) }
}

const FUNNEL_ACTORS_FIELDS = [
  'source',
  'funnelStep',
  'funnelCustomSteps',
  'funnelStepBreakdown',
  'funnelTrendsDropOff',
  'funnelTrendsEntrancePeriodStart',
  'includeRecordings',
]

/** A FunnelsActorsQuery: the funnel's own fields, read by the funnel kind (which checks them against the funnel). */
function parseFunnelSource<D>(
  raw: Record<string, unknown>,
  actorsOf: (insight: Record<string, unknown>) => InsightActors<D>,
): ActorsQuery<D>['source'] {
  const unknown = Object.keys(raw).find((k) => !FUNNEL_ACTORS_FIELDS.includes(k) && !['kind', 'response', 'modifiers'].includes(k))
  if (unknown) throw wrenError('unknown_field', `FunnelsActorsQuery has no field '${unknown}' that Wren can apply.`, `source.${unknown}`)
  if (!isRecord(raw.source) || raw.source.kind !== 'FunnelsQuery')
    throw wrenError('required', 'A FunnelsActorsQuery needs the FunnelsQuery as its source.', 'source.source')
  const step = raw.funnelStep
  if (step !== undefined && step !== null && (typeof step !== 'number' || !Number.isSafeInteger(step)))
    throw wrenError('invalid_input', 'funnelStep must be an integer.', 'source.funnelStep')
  const custom = raw.funnelCustomSteps
  if (
    custom !== undefined &&
    custom !== null &&
    (!Array.isArray(custom) || custom.length === 0 || !custom.every((n) => typeof n === 'number' && Number.isSafeInteger(n)))
  )
    throw wrenError('invalid_input', 'funnelCustomSteps must be a list of step numbers (1-based).', 'source.funnelCustomSteps')
  const period = raw.funnelTrendsEntrancePeriodStart
  if (period !== undefined && period !== null && typeof period !== 'string')
    throw wrenError('invalid_input', 'funnelTrendsEntrancePeriodStart must be a date string.', 'source.funnelTrendsEntrancePeriodStart')
  const point: ActorsPoint = {
    day: null,
    series: 0,
    breakdown: null,
    compare: null,
    status: null,
    interval: null,
    funnel: {
      funnelStep: typeof step === 'number' ? step : null,
      funnelCustomSteps: Array.isArray(custom) ? (custom as number[]) : null,
      funnelStepBreakdown: raw.funnelStepBreakdown ?? null,
      funnelTrendsDropOff: typeof raw.funnelTrendsDropOff === 'boolean' ? raw.funnelTrendsDropOff : null,
      funnelTrendsEntrancePeriodStart: typeof period === 'string' ? period : null,
    },
  }
  return { insight: raw.source, point, read: actorsOf(raw.source) }
}

interface Column {
  name: string
  sql: string
  aggregate: boolean
  special: 'person' | 'display' | 'group' | null
}

export async function runActorsQuery<D extends ActorsQueryDeps>(
  deps: D,
  run: QueryRun,
  q: ActorsQuery<D>,
): Promise<Record<string, unknown>> {
  const { project, signal } = run
  const tz = project.timezone || 'UTC'
  const params = new SqlParams()
  params.values.team = project.id
  const personId = { sql: 'persons.uuid' }
  const hogql = (expr: string, attr: string) => compileHogql(expr, params, personId, { table: 'persons', attr })

  // The point's actors first: what the source offers beyond event_count and event_distinct_ids is selectable.
  const point = q.source ? await q.source.read.actors(deps, run, q.source.point) : null
  if (point?.groupTypeIndex !== undefined) return runGroupActors(deps, run, q, point, point.groupTypeIndex)
  const columns: Column[] = []
  for (const [i, name] of q.select.entries()) {
    const expr = columnExpr(name)
    const plain = (sql: string, special: Column['special'] = null) => columns.push({ name, sql, aggregate: false, special })
    if (expr === 'person' || expr === 'actor') plain('persons.uuid', 'person')
    else if (expr === 'id') plain('persons.uuid')
    else if (expr === 'created_at') plain('persons.created_at')
    else if (expr === 'is_identified') plain('persons.is_identified')
    else if (expr === 'person.$delete') plain('toUInt8(1)')
    else if (expr === 'person_display_name') plain(`tuple(${displayName(params)}, toString(persons.uuid))`, 'display')
    else if (expr === 'event_count' || expr === 'event_distinct_ids') {
      if (!q.source)
        throw wrenError('invalid_input', `select[${i}]: '${expr}' needs a source (the point whose events it counts).`, `select[${i}]`)
      plain(`source.${expr}`)
    } else if (point?.columns && Object.hasOwn(point.columns, expr)) plain(point.columns[expr])
    else if (expr === 'matched_recordings')
      throw wrenError('unsupported', `select[${i}]: 'matched_recordings' is not computed yet.`, `select[${i}]`)
    else columns.push({ name, sql: hogql(expr, `select[${i}]`), aggregate: await hasAggregation(expr, `select[${i}]`), special: null })
  }

  const where: string[] = []
  const cohorts = await usedCohorts(deps, project, q)
  const filters = {
    params,
    columns: PERSON_COLUMNS,
    cohortMembers: cohortResolver(project.id, new Map(cohorts.map((c) => [c.id, c] as const)), params),
    dateParam: (v: string) => params.add('String', v),
  }
  for (const group of [q.properties, q.fixedProperties]) {
    const sql = compileGroup(group, filters)
    if (sql !== '1') where.push(sql)
  }
  if (q.search) {
    // PostHog's: the email, the name or the id contain it (case-insensitively), or a distinct id does.
    const s = params.add('String', `%${q.search}%`)
    where.push(`(JSONExtractString(persons.properties, 'email') ILIKE ${s} OR JSONExtractString(persons.properties, 'name') ILIKE ${s}
      OR toString(persons.uuid) ILIKE ${s} OR persons.uuid IN (SELECT person_uuid FROM (${LATEST_DISTINCT_IDS}) WHERE distinct_id ILIKE ${s}))`)
  }
  const hidden = run.viewer ? await hiddenPersons(deps.clickhouse, run.viewer, project.id) : null
  if (hidden) where.push(`persons.uuid NOT IN ${params.add('Array(UUID)', hidden.uuids)}`)

  let from = `(${LATEST_PERSONS}) AS persons`
  if (point) {
    const sql = embedSql(point, params, 's_')
    from += ` INNER JOIN (${sql}) AS source ON source.actor_id = persons.uuid`
  }
  const orderBy = orderBySql(q.orderBy, columns, {
    newest: 'created_at',
    own: (expr) =>
      // One `person` order sorts by email, as PostHog's; the source's counts by their own column.
      expr === 'person' && q.orderBy?.length === 1
        ? `JSONExtractString(persons.properties, ${params.add('String', 'email')})`
        : q.source && (expr === 'event_count' || expr === 'event_distinct_ids')
          ? `source.${expr}`
          : (point?.columns?.[expr] ?? null),
    hogql,
  })
  const table = { columns, from, where, having: [], orderBy, ties: ['persons.uuid'], settings: q.source ? SESSION_JOIN_SETTINGS : '' }
  const page = await readTable(deps.clickhouse, { ...table, limit: q.limit, offset: q.offset }, params, { tz, signal })
  const results = page.rows

  for (const [i, c] of columns.entries())
    if (c.special === 'display')
      for (const row of results) {
        const [display_name, id] = row[i] as string[]
        row[i] = { display_name, id }
      }
  const personColumns = columns.flatMap((c, i) => (c.special === 'person' ? [i] : []))
  if (personColumns.length && results.length) {
    const uuids = [...new Set(results.map((row) => String(row[personColumns[0]])))]
    const persons = await new PersonQueries(deps.clickhouse).byUuids(project.id, uuids, signal)
    for (const i of personColumns)
      for (const row of results) {
        const p = persons.get(String(row[i]))
        row[i] = p
          ? {
              id: p.uuid,
              properties: p.properties,
              is_identified: p.isIdentified,
              created_at: presentValue(p.createdAt, 'DateTime', tz),
              distinct_ids: sortDistinctIds(p.distinctIds).slice(0, MAX_DISTINCT_IDS),
            }
          : { id: row[i] }
      }
  }
  return actorsAnswer(q, columns, page)
}

/**
 * The groups behind a point of an insight aggregated by groups (PostHog's GroupStrategy): `group` (the group: its
 * key, type, properties and creation), `key` (or `id`), `created_at`, `properties.x` and the source's columns;
 * `search` in the key and the `name` property; ordered by `group` (its name), or as asked. Person filters do not
 * apply to groups: a query with them is a 400, never answered without them.
 */
async function runGroupActors<D extends ActorsQueryDeps>(
  deps: D,
  run: QueryRun,
  q: ActorsQuery<D>,
  point: ActorsSql,
  groupTypeIndex: number,
): Promise<Record<string, unknown>> {
  const { project, signal } = run
  const tz = project.timezone || 'UTC'
  for (const [attr, group] of [
    ['properties', q.properties],
    ['fixedProperties', q.fixedProperties],
  ] as const)
    if (group.values.length) throw wrenError('unsupported', `${attr}: the actors are groups, which person filters do not apply to.`, attr)
  const params = new SqlParams()
  // As HogQL reads a property (null when missing).
  const property = (key: string) => jsonProperty('groups.properties', [key], params).sql
  const columns: Column[] = []
  for (const [i, name] of (q.selected ? q.select : ['group']).entries()) {
    const expr = columnExpr(name)
    const plain = (sql: string, special: Column['special'] = null) => columns.push({ name, sql, aggregate: false, special })
    if (expr === 'group' || expr === 'actor') plain('tuple(source.actor_id, groups.properties, groups.created_at)', 'group')
    else if (expr === 'key' || expr === 'id') plain('source.actor_id')
    else if (expr === 'created_at') plain('groups.created_at')
    else if (expr === 'event_count' || expr === 'event_distinct_ids') plain(`source.${expr}`)
    else if (point.columns && Object.hasOwn(point.columns, expr)) plain(point.columns[expr])
    else if (/^properties\.[^.]+$/.test(expr)) plain(property(expr.slice('properties.'.length)))
    else
      throw wrenError(
        'invalid_input',
        `select[${i}]: '${expr}' is not a column of a group: group, key, created_at, properties.<name>, event_count or the source's own.`,
        `select[${i}]`,
      )
  }
  const where: string[] = []
  if (q.search) {
    const s = params.add('String', `%${q.search}%`)
    where.push(`(source.actor_id ILIKE ${s} OR JSONExtractString(groups.properties, 'name') ILIKE ${s})`)
  }
  const latest = `SELECT group_key, argMax(properties, version) AS properties, argMax(created_at, version) AS created_at FROM groups
    WHERE team_id = ${params.add('Int64', project.id)} AND group_type_index = ${params.add('UInt8', groupTypeIndex)} GROUP BY group_key`
  // A key the events name with no $groupidentify yet is still an actor: its key, no properties.
  const from = `(${embedSql(point, params, 's_')}) AS source LEFT JOIN (${latest}) AS groups ON groups.group_key = source.actor_id`
  // By name, the unnamed last (then by key: the table's ties).
  const byName = `nullIf(JSONExtractString(groups.properties, 'name'), '')`
  const orderBy = orderBySql(q.orderBy, columns, {
    newest: 'created_at',
    own: (expr) => (expr === 'group' || expr === 'actor' ? byName : null),
    hogql: (expr, attr) => {
      throw wrenError('invalid_input', `${attr}: '${expr}' is not a column of a group to order by.`, attr)
    },
  })
  const table = {
    columns,
    from,
    where,
    having: [],
    orderBy: orderBy.length ? orderBy : [`${byName} ASC`],
    ties: ['source.actor_id'],
    settings: SESSION_JOIN_SETTINGS,
  }
  const page = await readTable(deps.clickhouse, { ...table, limit: q.limit, offset: q.offset }, params, { tz, signal })
  for (const [i, c] of columns.entries())
    if (c.special === 'group')
      for (const row of page.rows) {
        const [key, raw, created] = row[i] as [string, string, string]
        const properties = raw ? (JSON.parse(raw) as Record<string, unknown>) : {}
        row[i] = {
          id: key,
          type: 'group',
          properties,
          group_key: key,
          group_type_index: groupTypeIndex,
          group_properties: properties,
          created_at: raw ? presentValue(created, 'DateTime', tz) : null,
        }
      }
  return actorsAnswer(q, columns, page)
}

/** An ActorsQuery's answer: one page of rows, the columns asked, and whether there are more. */
function actorsAnswer<D>(
  q: ActorsQuery<D>,
  columns: Column[],
  page: { rows: unknown[][]; types: unknown; hasMore: boolean },
): Record<string, unknown> {
  return {
    results: page.rows,
    columns: columns.map((c) => c.name),
    types: page.types,
    hasMore: page.hasMore,
    limit: q.limit,
    offset: q.offset,
    missing_actors_count: 0,
  }
}

/** The project's cohorts when a filter names one (their definitions are the filter's SQL). */
async function usedCohorts<D extends ActorsQueryDeps>(deps: D, project: Project, q: ActorsQuery<D>): Promise<Cohort[]> {
  return cohortIdsIn(q.properties).length + cohortIdsIn(q.fixedProperties).length > 0 ? deps.cohorts.list(project.id) : []
}

function displayName(params: SqlParams): string {
  const props = DISPLAY_NAME_PROPERTIES.map((p) => `nullIf(JSONExtractString(persons.properties, ${params.add('String', p)}), '')`)
  return `coalesce(${props.join(', ')}, toString(persons.uuid))`
}
