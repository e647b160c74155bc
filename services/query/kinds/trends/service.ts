// Executing a trend's plan (plan.ts): look in the cache (keyed on the plan and the project's data
// version), otherwise run the one query and shape its rows into PostHog's series.
import { queryRows } from '../../../platform/clickhouse'
import type { Clock } from '../../../platform/clock'
import type { PersonalApiKey, Project } from '../../../platform/tenancy'
import { TrendCache } from '../../cache'
import { isoInTz, type DateRange } from '../../common/dates'
import type { TrendRow } from './query'
import type { TrendRequest } from './request'
import { shapeResults, type SeriesResult, type Shaped } from './shape'
import { planTrend, seriesActions, type TrendPlan, type TrendPlanDeps } from './plan'
import type { Metrics } from '../../../platform/metrics'
import { SharedWork } from '../../../platform/work'

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

export interface TrendServiceDeps extends TrendPlanDeps {
  clock: Clock
  metrics?: Metrics
}

export interface TrendRunOptions {
  refresh: boolean
  /** The key asking; events of persons it may not see are left out. */
  viewer?: PersonalApiKey
  /** The caller's (platform/http/caller-gone.ts): once it aborts, the trend's query stops unless another caller waits for it too. */
  signal?: AbortSignal
}

export class TrendService {
  private readonly cache = new TrendCache()
  /** Trends being computed, by cache key: identical requests at the same moment run one query. */
  private readonly computing = new SharedWork<{ shaped: Shaped; lastRefresh: string; isCached: boolean }>()

  constructor(private readonly deps: TrendServiceDeps) {}

  async run(project: Project, request: TrendRequest, opts: TrendRunOptions): Promise<TrendOutput> {
    const plan = await planTrend(this.deps, project, request, { now: this.deps.clock.now(), viewer: opts.viewer })
    return this.execute(plan, opts)
  }

  /** Throws the 400 a request naming what the project does not have (another project's action) gets, without running it. */
  async check(project: Project, request: TrendRequest): Promise<void> {
    await seriesActions(this.deps, project, request)
  }

  /** The plan's rows shaped into PostHog's series, from the cache while the project's data is unchanged (unless `refresh`). */
  async execute(plan: TrendPlan, opts: TrendRunOptions): Promise<TrendOutput> {
    const { request, tz, now, periods, cohorts } = plan
    const current = periods[0]
    if (plan.query === null)
      return {
        body: { is_cached: false, last_refresh: now.toISOString(), timezone: tz, result: [] },
        hasMore: false,
        floats: [],
        dateFrom: current.from,
        dateTo: current.to,
      }
    const { sql, params } = plan.query
    const parts = {
      team: plan.teamId,
      tz,
      weekStartDay: plan.weekStartDay,
      request,
      names: plan.names,
      cohorts: [...cohorts.values()].map((c) => [c.id, c.name]),
      sql,
      params: params.values,
      ranges: periods.map((p) => [p.from, p.to]),
    }
    // Identical requests at the same moment share the reading of the data's version, the cache and the query.
    const { shaped, lastRefresh, isCached } = await this.computing.run(
      TrendCache.key({ ...parts, refresh: opts.refresh }),
      opts.signal,
      async (signal) => {
        const key = TrendCache.key({ ...parts, version: await this.dataVersion(plan.teamId, signal) })
        const cached = opts.refresh ? undefined : this.cache.get(key)
        if (cached) return { shaped: cached.result as Shaped, lastRefresh: cached.lastRefresh, isCached: true }
        // A query ClickHouse refuses for the caller's input (a bad regex, mixed aggregates) is the caller's 400: the error handler's one rule (fromClickHouseError).
        this.deps.metrics?.inc('wren_trend_queries_total')
        const rows = (await queryRows<TrendRow>(this.deps.clickhouse, sql, params.values, { signal })).map((r) => ({
          ...r,
          series: Number(r.series),
          period: Number(r.period),
          value: Number(r.value),
        }))
        const computed = {
          shaped: shapeResults({
            request,
            series: plan.names,
            periods,
            rows,
            totalValue: plan.totalValue,
            cumulative: plan.cumulative,
            filter: filterObject(request, current),
            cohortNames: new Map([...cohorts.values()].map((c) => [c.id, c.name])),
          }),
          lastRefresh: now.toISOString().replace('.000Z', 'Z'),
        }
        this.cache.set(key, { result: computed.shaped, lastRefresh: computed.lastRefresh })
        return { ...computed, isCached: false }
      },
    )
    const { result, hasMore } = shaped
    return {
      body: { is_cached: isCached, last_refresh: lastRefresh, timezone: tz, result },
      hasMore,
      floats: floatsFor(result, plan.floats, request),
      dateFrom: current.from,
      dateTo: current.to,
    }
  }

  private localParts: Promise<boolean> | null = null

  /**
   * Changes whenever events or persons change (new batches, merges, deletions). When the tables are
   * local (embedded, single server) their parts tell it without reading rows; behind a Distributed
   * table (cluster) we read the project's own rows instead.
   */
  private async dataVersion(teamId: number, signal?: AbortSignal): Promise<string> {
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
    const [row] = await queryRows<Record<string, unknown>>(ch, query, { team: teamId }, { signal })
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
