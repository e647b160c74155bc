// Computing a trend: resolve dates, actions and cohorts, look in the cache (keyed on the project's data
// version), otherwise run the one query and shape its rows into PostHog's series.
import type { ClickHouseClient } from '../shared/clickhouse'
import { queryRows } from '../shared/clickhouse'
import type { Clock } from '../shared/time/clock'
import { wrenError } from '../shared/errors'
import { SqlParams } from '../shared/query/params'
import type { PersonalApiKey, Project } from '../shared/tenancy'
import { hiddenPersons, visibleEventsSql } from '../shared/query/hidden-persons'
import type { Action, ActionStore } from '../actions/store'
import { actionSql, cohortIdsOfAction } from '../actions/match'
import type { Cohort, CohortStore } from '../cohorts/store'
import { cohortIdsIn, cohortResolver } from '../cohorts/membership'
import { TrendCache } from './cache'
import { instantParam, isoInTz, previousRange, resolveRange, type DateRange, type DateRangeInput } from './dates'
import { compileHogql } from '../shared/query/hogql'
import { EventPersonId, hasPersonOverrides } from '../shared/query/persons-sql'
import { eventColumns, type FilterContext } from '../shared/property-filters/sql'
import type { PropertyColumnSource } from '../shared/query/materialized-properties'
import { parsePropertyGroup, type PropertyGroup } from '../shared/property-filters/parse'
import { breakdownExpr, buildTrendQuery, SessionColumns, type ResolvedSeries, type TrendRow } from './query'
import { isTotalValue, PROPERTY_MATHS, type TrendRequest } from './request'
import { shapeResults, type SeriesResult, type Shaped } from './shape'

export interface TrendResponse {
  is_cached: boolean
  last_refresh: string
  timezone: string
  result: SeriesResult[]
}

export interface TrendOutput {
  body: TrendResponse
  /** More breakdown values rank after this page (`next` pages to them). */
  hasMore: boolean
  /** Per result row: whether its numbers are floats (for CSV). */
  floats: boolean[]
  dateFrom: DateRange['from']
  dateTo: DateRange['to']
}

export interface TrendServiceDeps {
  clickhouse: ClickHouseClient
  clock: Clock
  actions: ActionStore
  cohorts: CohortStore
  /** Event properties stored as columns; the trends' reads from the JSON tell it which to add. */
  materialized?: PropertyColumnSource
}

export class TrendService {
  private readonly cache = new TrendCache()

  constructor(private readonly deps: TrendServiceDeps) {}

  /** `viewer`: the key asking; events of persons it may not see are left out. */
  async run(project: Project, request: TrendRequest, opts: { refresh: boolean; viewer?: PersonalApiKey }): Promise<TrendOutput> {
    const { clickhouse, clock } = this.deps
    const now = clock.now()
    const tz = project.timezone || 'UTC'
    const weekStartDay = Number(project.settings.week_start_day) === 1 ? 1 : 0
    const totalValue = isTotalValue(request.display)
    const cumulative = request.display === 'ActionsLineGraphCumulative'
    const testFilters = request.filterTestAccounts
      ? parsePropertyGroup(project.settings.test_account_filters ?? [], 'test_account_filters')
      : null
    const globalProperties: PropertyGroup =
      testFilters && testFilters.values.length ? { type: 'AND', values: [request.properties, testFilters] } : request.properties

    // Actions: one this project never had (another project's id) is a 400; a deleted one drops its series.
    const actionIds = request.series.filter((s) => s.kind === 'actions').map((s) => Number(s.id))
    const badId = request.series.find((s) => s.kind === 'actions' && !(Number.isSafeInteger(Number(s.id)) && Number(s.id) > 0))
    if (badId) throw wrenError('invalid_input', `Action id must be a positive integer, got '${String(badId.id)}'.`, 'actions')
    const found = actionIds.length
      ? await this.deps.actions.byIds(project.id, actionIds, { includeDeleted: true })
      : new Map<number, Action>()
    for (const id of actionIds)
      if (!found.has(id)) throw wrenError('invalid_input', `Action ${id} does not exist in this project.`, 'actions')
    const actions = new Map([...found].filter(([, a]) => !a.deleted))
    // And every cohort any filter could reach.
    const series = request.series.filter((s) => s.kind === 'events' || actions.has(Number(s.id)))
    const needsCohorts =
      cohortIdsIn(globalProperties).length > 0 ||
      series.some((s) => cohortIdsIn(s.properties).length > 0) ||
      request.breakdownType === 'cohort' ||
      [...actions.values()].some((a) => cohortIdsOfAction(a).length > 0)
    const cohorts = needsCohorts
      ? new Map((await this.deps.cohorts.list(project.id)).map((c) => [c.id, c] as const))
      : new Map<number, Cohort>()

    const earliest = request.dateFrom === 'all' ? await this.earliestEvent(project.id) : null
    const rangeInput: DateRangeInput = {
      dateFrom: request.dateFrom,
      dateTo: request.dateTo,
      interval: totalValue ? 'day' : request.interval,
      explicitDate: request.explicitDate,
      exact: request.display === 'BoldNumber',
      earliest,
    }
    const current = resolveRange(rangeInput, now, tz, weekStartDay)
    const periods = request.compare ? [current, previousRange(current, rangeInput, request.compareTo)] : [current]

    const params = new SqlParams()
    // Persons as the query reads them: the stored person_id, or with the merges since (only when a project has any).
    const personId = new EventPersonId(await hasPersonOverrides(clickhouse, project.id))
    const cohortMembers = cohortResolver(project.id, cohorts, params)
    const hogql = (expr: string) => compileHogql(expr, params, personId)
    const sessions = new SessionColumns()
    const filters: FilterContext = {
      params,
      session: (key) => sessions.value(key),
      columns: eventColumns(personId, this.deps.materialized),
      cohortMembers,
      hogql,
      dateParam: (v) => {
        const d = resolveRange({ ...rangeInput, dateFrom: v, dateTo: null, exact: true }, now, tz, weekStartDay)
        return params.add('String', instantParam(d.from, tz))
      },
    }
    const resolved: ResolvedSeries[] = series.map((entity) => ({
      entity,
      condition:
        entity.kind === 'actions'
          ? actionSql(actions.get(Number(entity.id))!, filters)
          : entity.id === null
            ? '1'
            : `event = ${params.add('String', entity.id)}`,
    }))
    const names = series.map((entity) => ({
      entity,
      name: entity.kind === 'actions' ? actions.get(Number(entity.id))!.name : entity.id === null ? 'All events' : String(entity.id),
    }))
    if (request.formula && series.length === 0) throw wrenError('invalid_formula', 'The formula has no series to combine.', 'formula')
    if (series.length === 0)
      return {
        body: { is_cached: false, last_refresh: now.toISOString(), timezone: tz, result: [] },
        hasMore: false,
        floats: [],
        dateFrom: current.from,
        dateTo: current.to,
      }

    const breakdown = breakdownExpr(request, {
      params,
      hogql,
      cohortMembers,
      sessions,
      personId,
      materialized: filters.columns.materialized,
    })
    const hidden = opts.viewer ? await hiddenPersons(clickhouse, opts.viewer, project.id) : null
    const visible = hidden ? visibleEventsSql(hidden, params) : '1'
    const sql = buildTrendQuery({
      teamId: project.id,
      request,
      series: resolved,
      periods,
      totalValue,
      cumulative,
      params,
      filters,
      globalProperties,
      visible,
      breakdown,
      hogql,
      sessions,
      personId,
    })

    const version = await this.dataVersion(project.id)
    const key = TrendCache.key({
      team: project.id,
      tz,
      weekStartDay,
      request,
      names,
      cohorts: [...cohorts.values()].map((c) => [c.id, c.name]),
      sql,
      params: params.values,
      version,
      ranges: periods.map((p) => [p.from, p.to]),
    })
    const floats = request.formula
      ? [true]
      : series.map(
          (s) => (PROPERTY_MATHS as readonly string[]).includes(s.math) || s.math.endsWith('_count_per_actor') || s.math === 'hogql',
        )
    const cached = opts.refresh ? undefined : this.cache.get(key)
    if (cached) {
      const { result, hasMore } = cached.result as Shaped
      return {
        body: { is_cached: true, last_refresh: cached.lastRefresh, timezone: tz, result },
        hasMore,
        floats: floatsFor(result, floats, request),
        dateFrom: current.from,
        dateTo: current.to,
      }
    }

    // A query ClickHouse refuses for the caller's input (a bad regex, mixed aggregates) is the caller's 400: the error handler's one rule (fromClickHouseError).
    const rows = (await queryRows<TrendRow>(clickhouse, sql, params.values)).map((r) => ({
      ...r,
      series: Number(r.series),
      period: Number(r.period),
      value: Number(r.value),
    }))
    const filter = filterObject(request, current)
    const shaped = shapeResults({
      request,
      series: names,
      periods,
      rows,
      totalValue,
      cumulative,
      filter,
      cohortNames: new Map([...cohorts.values()].map((c) => [c.id, c.name])),
    })
    const lastRefresh = now.toISOString().replace('.000Z', 'Z')
    this.cache.set(key, { result: shaped, lastRefresh })
    const { result, hasMore } = shaped
    return {
      body: { is_cached: false, last_refresh: lastRefresh, timezone: tz, result },
      hasMore,
      floats: floatsFor(result, floats, request),
      dateFrom: current.from,
      dateTo: current.to,
    }
  }

  private async earliestEvent(teamId: number): Promise<Date | null> {
    const [row] = await queryRows<{ first: string | null }>(
      this.deps.clickhouse,
      "SELECT if(count() = 0, NULL, min(timestamp)) AS first FROM events WHERE team_id = {team:Int64} AND timestamp > toDateTime64('1980-01-01 00:00:00', 6, 'UTC')",
      { team: teamId },
    )
    return row?.first ? new Date(row.first) : null
  }

  private localParts: Promise<boolean> | null = null

  /**
   * Changes whenever events or persons change (new batches, merges, deletions). When the tables are
   * local (embedded, single server) their parts tell it without reading rows; behind a Distributed
   * table (cluster) we read the project's own rows instead.
   */
  private async dataVersion(teamId: number): Promise<string> {
    const ch = this.deps.clickhouse
    this.localParts ??= queryRows<{ engine: string }>(
      ch,
      "SELECT engine FROM system.tables WHERE database = currentDatabase() AND name = 'events'",
    ).then(
      ([row]) => !!row && row.engine.endsWith('MergeTree'),
      () => false,
    )
    const query = (await this.localParts)
      ? `SELECT count() AS parts, sum(rows) AS total, max(modification_time) AS modified, groupBitXor(cityHash64(name)) AS names FROM system.parts
         WHERE active AND database = currentDatabase() AND table IN ('events', 'person', 'person_distinct_id', 'cohort_static_members')`
      : `SELECT (SELECT tuple(max(_offset), count()) FROM events WHERE team_id = {team:Int64}) AS e,
                (SELECT tuple(max(_offset), count()) FROM person WHERE team_id = {team:Int64}) AS p,
                (SELECT tuple(max(_offset), count()) FROM person_distinct_id WHERE team_id = {team:Int64}) AS d,
                (SELECT count() FROM cohort_static_members WHERE team_id = {team:Int64}) AS s`
    const [row] = await queryRows<Record<string, unknown>>(ch, query, { team: teamId })
    return JSON.stringify(row)
  }
}

function floatsFor(result: SeriesResult[], perSeries: boolean[], request: TrendRequest): boolean[] {
  return result.map((r) => (request.formula ? true : (perSeries[r.order] ?? false)))
}

function filterObject(request: TrendRequest, range: DateRange): Record<string, unknown> {
  const f: Record<string, unknown> = {
    insight: 'TRENDS',
    properties: request.rawProperties,
    filter_test_accounts: request.filterTestAccounts,
    date_from: isoInTz(range.from, range.tz),
    date_to: isoInTz(range.to, range.tz),
    entity_type: 'events',
    interval: request.interval,
    display: request.display,
    formula: request.formula,
    compare: request.compare || null,
    compare_to: request.compareTo,
    breakdown: request.breakdowns ? null : request.breakdown,
    breakdown_type: request.breakdown !== null && !request.breakdowns ? request.breakdownType : null,
    breakdowns: request.breakdowns?.map((b) => ({
      property: b.property,
      type: b.type,
      ...(b.groupTypeIndex !== null ? { group_type_index: b.groupTypeIndex } : {}),
    })),
    breakdown_limit: request.breakdown !== null ? request.breakdownLimit : null,
    breakdown_group_type_index: request.breakdownGroupTypeIndex,
    smoothing_intervals: request.smoothingIntervals > 1 ? request.smoothingIntervals : null,
  }
  for (const k of Object.keys(f)) if (f[k] === null || f[k] === undefined) delete f[k]
  return f
}
