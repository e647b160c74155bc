// An insight's result: Wren computes trends (legacy `filters` with insight TRENDS, or a TrendsQuery, bare or
// in an InsightVizNode) through the trends service and its cache. Any other kind is stored and answered
// with `result: null` and the reason. A dashboard's filters override the insight's date range and add
// their property filters to the insight's.
import { isRecord } from '../platform/json'
import type { Project } from '../platform/tenancy'
import { parseTrendRequest } from '../query/kinds/trends/request'
import type { TrendRunOptions, TrendService } from '../query/kinds/trends/service'
import type { DashboardFilters } from './dashboard-store'
import type { Insight } from './store'

export interface InsightResult {
  result: unknown[] | null
  last_refresh: string | null
  is_cached: boolean
  timezone: string | null
  /** Why `result` is null (a kind Wren does not compute, or a query it could not run); null when there is one. */
  result_unavailable: string | null
}

/**
 * Whether PostHog's `?refresh=` value recomputes: true and the force_ values (but force_cache) do. The others
 * (false, blocking, async, lazy_async, force_cache) answer from the trends cache, computing on a miss: the
 * cache is keyed on the project's data, so a hit is never stale.
 */
export function refreshRequested(value: string | undefined): boolean {
  if (value === undefined) return false
  return ['true', '1', 'yes', '', 'force_blocking', 'force_async'].includes(value.toLowerCase())
}

type Kind = { trends: Record<string, unknown> } | { other: string }

/** The legacy trend filter an insight computes, or the kind it is when Wren does not compute it. */
export function insightKind(insight: Pick<Insight, 'query' | 'filters'>): Kind {
  const { query, filters } = insight
  if (query) {
    const source = query.kind === 'InsightVizNode' && isRecord(query.source) ? query.source : query
    if (source.kind === 'TrendsQuery') return { trends: trendsQueryFilter(source) }
    return { other: String(source.kind ?? 'unknown') }
  }
  const kind = typeof filters.insight === 'string' ? filters.insight.toUpperCase() : 'TRENDS'
  if (kind !== 'TRENDS') return { other: kind }
  if (!Array.isArray(filters.events) && !Array.isArray(filters.actions)) return { other: 'empty' }
  return { trends: filters }
}

/** A TrendsQuery's fields in the legacy filter's words, which parseTrendRequest reads. */
export function trendsQueryFilter(q: Record<string, unknown>): Record<string, unknown> {
  const series = Array.isArray(q.series) ? q.series.filter(isRecord) : []
  const entity = (s: Record<string, unknown>, order: number) => ({
    ...s,
    id: s.kind === 'ActionsNode' ? s.id : (s.event ?? null),
    type: s.kind === 'ActionsNode' ? 'actions' : 'events',
    order,
  })
  const indexed = series.map((s, i) => [s, i] as const)
  const dateRange = isRecord(q.dateRange) ? q.dateRange : {}
  const breakdown = isRecord(q.breakdownFilter) ? q.breakdownFilter : {}
  const trendsFilter = isRecord(q.trendsFilter) ? q.trendsFilter : {}
  const compare = isRecord(q.compareFilter) ? q.compareFilter : {}
  return {
    insight: 'TRENDS',
    events: indexed.filter(([s]) => s.kind !== 'ActionsNode').map(([s, i]) => entity(s, i)),
    actions: indexed.filter(([s]) => s.kind === 'ActionsNode').map(([s, i]) => entity(s, i)),
    date_from: dateRange.date_from ?? null,
    date_to: dateRange.date_to ?? null,
    explicit_date: dateRange.explicitDate ?? null,
    interval: q.interval ?? null,
    properties: q.properties ?? null,
    filter_test_accounts: q.filterTestAccounts ?? null,
    aggregation_group_type_index: q.aggregation_group_type_index ?? null,
    ...breakdown,
    display: trendsFilter.display ?? null,
    formula: trendsFilter.formula ?? null,
    smoothing_intervals: trendsFilter.smoothingIntervals ?? null,
    compare: compare.compare ?? null,
    compare_to: compare.compare_to ?? null,
  }
}

/** The filter with a dashboard's date range in place of its own, and the dashboard's properties added. */
export function withDashboardFilters(filter: Record<string, unknown>, dashboard: DashboardFilters | null): Record<string, unknown> {
  if (!dashboard) return filter
  const out = { ...filter }
  if (dashboard.date_from) {
    out.date_from = dashboard.date_from
    out.date_to = dashboard.date_to ?? null
    out.explicit_date = null
  }
  const extra = dashboard.properties
  if (extra !== undefined && extra !== null && !(Array.isArray(extra) && extra.length === 0)) {
    const group = (p: unknown) => (Array.isArray(p) ? { type: 'AND', values: p } : p)
    const own = out.properties
    out.properties = own && !(Array.isArray(own) && own.length === 0) ? { type: 'AND', values: [group(own), group(extra)] } : extra
  }
  return out
}

export class InsightResults {
  constructor(private readonly trends: TrendService) {}

  /**
   * Throws the trends' 400 when a trends insight's filter or query cannot be computed in `project` (checked on
   * save): a filter it cannot read, or a series naming an action the project does not have.
   */
  async check(project: Project, insight: Pick<Insight, 'query' | 'filters'>): Promise<void> {
    const kind = insightKind(insight)
    if ('trends' in kind) await this.trends.check(project, parseTrendRequest(kind.trends))
  }

  async of(project: Project, insight: Insight, opts: TrendRunOptions & { dashboard: DashboardFilters | null }): Promise<InsightResult> {
    const kind = insightKind(insight)
    if ('other' in kind) return unavailable(`Wren computes trends insights only; this insight is ${kind.other}.`)
    const out = await this.trends.run(project, parseTrendRequest(withDashboardFilters(kind.trends, opts.dashboard)), opts)
    return answer(out.body)
  }
}

function answer(body: { result: unknown[]; last_refresh: string; is_cached: boolean; timezone: string }): InsightResult {
  return {
    result: body.result,
    last_refresh: body.last_refresh,
    is_cached: body.is_cached,
    timezone: body.timezone,
    result_unavailable: null,
  }
}

function unavailable(reason: string): InsightResult {
  return { result: null, last_refresh: null, is_cached: false, timezone: null, result_unavailable: reason }
}
