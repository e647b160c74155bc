// An insight's result: its query (bare or in an InsightVizNode) or its legacy `filters` (a dialect of
// a kind's query: insight TRENDS, FUNNELS, PATHS, LIFECYCLE, STICKINESS, RETENTION) run through the Query API's
// runner, with the endpoint's cache and `refresh` rules. A kind Wren does not compute yet (a legacy USER_SQL
// filter, …) is stored and answered with `result: null` and the reason. A dashboard's filters apply as the endpoint's `filters_override`.
import type { PersonalApiKey, Project } from '../platform/tenancy'
import { isRecord } from '../platform/json'
import type { DashboardFilter } from '../query/kind'
import { kindOfNode, pathsKind, unwrapNode, type AnyKind } from '../query/kinds'
import { trendsKind, parseTrendRequest } from '../query/kinds/trends'
import { funnelsKind, parseFunnelFilter } from '../query/kinds/funnels'
import { lifecycleKind, parseLifecycleFilter } from '../query/kinds/lifecycle'
import { stickinessKind, parseStickinessFilter } from '../query/kinds/stickiness'
import { retentionKind, parseRetentionFilter } from '../query/kinds/retention'
import type { QueryRunner, RefreshMode } from '../query/runner'
import type { DashboardFilters } from './dashboard-store'
import type { Insight } from './store'

export interface InsightResult {
  /** A list (trends, funnel steps) or, for a funnel's time to convert, one object. */
  result: unknown[] | Record<string, unknown> | null
  last_refresh: string | null
  is_cached: boolean
  timezone: string | null
  /** Why `result` is null (a kind Wren does not compute, or a query it could not run); null when there is one. */
  result_unavailable: string | null
  /** The answer's other envelope fields, where PostHog's insight carries them. */
  cache_target_age?: string | null
  next_allowed_client_refresh?: string | null
  query_status?: unknown
  hasMore?: boolean | null
  hogql?: string | null
  columns?: unknown[] | null
  types?: unknown[] | null
}

export interface InsightRunOptions {
  mode: RefreshMode
  /** The key asking; events of persons it may not see are left out. */
  viewer?: PersonalApiKey
  /** The caller's (platform/http/caller-gone.ts): once it aborts, the query stops unless another caller waits for it too. */
  signal: AbortSignal
}

/**
 * PostHog's `?refresh=` of an insight or dashboard as a runner mode: true (and a bare ?refresh), force_blocking
 * and force_async recompute now; async, lazy_async and async_except_on_cache_miss compute a stale answer in the
 * background (the insight then carries query_status); anything else (false, blocking, force_cache, absent)
 * answers from the cache unless stale, computing what is missing or stale.
 */
export function insightRefresh(value: string | undefined): RefreshMode {
  if (value === undefined) return 'blocking'
  const v = value.toLowerCase()
  if (['true', '1', 'yes', '', 'force_blocking', 'force_async'].includes(v)) return 'force_blocking'
  if (v === 'async' || v === 'lazy_async' || v === 'async_except_on_cache_miss') return v
  return 'blocking'
}

type Computed = { kind: AnyKind; query: unknown } | { other: string }

/** The legacy `filters.insight` values Wren computes: each kind's reading of the filter dialect. */
const LEGACY_KINDS: Record<string, { kind: AnyKind; parse(filters: Record<string, unknown>): unknown }> = {
  TRENDS: { kind: trendsKind, parse: parseTrendRequest },
  FUNNELS: { kind: funnelsKind, parse: parseFunnelFilter },
  LIFECYCLE: { kind: lifecycleKind, parse: parseLifecycleFilter },
  STICKINESS: { kind: stickinessKind, parse: parseStickinessFilter },
}

export class InsightResults {
  constructor(private readonly runner: QueryRunner) {}

  /** What an insight computes: its kind's model, or the kind it is when Wren does not compute it. Throws the 400 of a bad query. */
  computed(insight: Pick<Insight, 'query' | 'filters'>): Computed {
    const { query, filters } = insight
    if (query) {
      const found = kindOfNode(unwrapNode(query))
      if ('notComputed' in found) return { other: found.notComputed }
      return this.runner.parse(query)
    }
    const kind = typeof filters.insight === 'string' ? filters.insight.toUpperCase() : 'TRENDS'
    if (kind === 'PATHS') return { kind: pathsKind, query: pathsKind.parseFilter(filters) }
    // A legacy retention filter names its entities in target_entity / returning_entity ($pageview without).
    if (kind === 'RETENTION') return { kind: retentionKind, query: parseRetentionFilter(filters) }
    const legacy = Object.hasOwn(LEGACY_KINDS, kind) ? LEGACY_KINDS[kind] : undefined
    if (!legacy) return { other: kind }
    if (!Array.isArray(filters.events) && !Array.isArray(filters.actions)) return { other: 'empty' }
    return { kind: legacy.kind, query: legacy.parse(filters) }
  }

  /**
   * Throws the 400 an insight whose query or filters cannot be computed in `project` gets (checked on save):
   * an unknown kind, a query its kind cannot read, a series naming an action the project does not have.
   */
  async check(project: Project, insight: Pick<Insight, 'query' | 'filters'>): Promise<void> {
    const computed = this.computed(insight)
    if ('kind' in computed) await this.runner.check(computed.kind, project, computed.query)
  }

  async of(project: Project, insight: Insight, opts: InsightRunOptions & { dashboard: DashboardFilters | null }): Promise<InsightResult> {
    const computed = this.computed(insight)
    if ('other' in computed) return unavailable(`Wren does not compute ${computed.other} insights yet.`)
    const { kind } = computed
    const query = opts.dashboard ? this.runner.withFilters(kind, computed.query, dashboardFilter(opts.dashboard)) : computed.query
    const { body } = await this.runner.execute(kind, query, {
      project,
      viewer: opts.viewer,
      signal: opts.signal,
      mode: opts.mode,
      insightId: insight.id,
    })
    return answer(body)
  }
}

const dashboardFilter = (filters: DashboardFilters): DashboardFilter => ({
  date_from: filters.date_from ?? null,
  date_to: filters.date_to ?? null,
  properties: filters.properties,
})

function answer(body: Record<string, unknown>): InsightResult {
  const results = Array.isArray(body.results) || isRecord(body.results) ? body.results : null
  return {
    result: results,
    last_refresh: typeof body.last_refresh === 'string' ? body.last_refresh : null,
    is_cached: body.is_cached === true,
    timezone: typeof body.timezone === 'string' ? body.timezone : null,
    result_unavailable: null,
    cache_target_age: (body.cache_target_age as string | undefined) ?? null,
    next_allowed_client_refresh: (body.next_allowed_client_refresh as string | undefined) ?? null,
    query_status: body.query_status ?? null,
    hasMore: typeof body.hasMore === 'boolean' ? body.hasMore : null,
    hogql: typeof body.hogql === 'string' ? body.hogql : null,
    columns: Array.isArray(body.columns) ? body.columns : null,
    types: Array.isArray(body.types) ? body.types : null,
  }
}

function unavailable(reason: string): InsightResult {
  return { result: null, last_refresh: null, is_cached: false, timezone: null, result_unavailable: reason }
}
