// A TrendsQuery node (PostHog's schema: series, dateRange, interval, properties, filterTestAccounts,
// breakdownFilter, trendsFilter, compareFilter) read straight into the trend model, the one the legacy filter
// dialect (request.ts parseTrendRequest) reads into too. Bad input is a 400 naming the node's field.
import { wrenError } from '../../../platform/errors'
import { isRecord } from '../../../platform/json'
import { parsePropertyGroup } from '../../../analytics/property-filters/parse'
import type { DashboardFilter } from '../../kind'
import { breakdownOf } from '../../common/breakdown'
import { hasProperties, withDashboardFilters } from '../../common/dashboard-filters'
import { intervalOf } from '../../common/dates'
import { optInt, optRecord, optString, truthy } from '../../common/fields'
import { seriesOfNodes, withAggregationGroup } from '../../common/series'
import { defaultBreakdownLimit, displayOf, formulaOf, type TrendRequest } from './request'

export function parseTrendsQuery(node: Record<string, unknown>): TrendRequest {
  const series = seriesOfNodes(node.series)
  const dateRange = optRecord(node, 'dateRange')
  const trendsFilter = optRecord(node, 'trendsFilter')
  const compareFilter = optRecord(node, 'compareFilter')
  const display = displayOf(optString(trendsFilter, 'display', 'trendsFilter.'))
  return {
    series: withAggregationGroup(series, optInt(node, 'aggregation_group_type_index', 0, 4)),
    properties: parsePropertyGroup(node.properties, 'properties'),
    rawProperties: node.properties ?? [],
    filterTestAccounts: truthy(node.filterTestAccounts),
    dateFrom: optString(dateRange, 'date_from', 'dateRange.'),
    dateTo: optString(dateRange, 'date_to', 'dateRange.'),
    explicitDate: truthy(dateRange.explicitDate),
    interval: intervalOf(optString(node, 'interval'), 'interval'),
    display,
    ...breakdownOf(optRecord(node, 'breakdownFilter'), defaultBreakdownLimit(display), 'breakdownFilter.'),
    breakdownOffset: 0,
    compare: truthy(compareFilter.compare),
    compareTo: optString(compareFilter, 'compare_to', 'compareFilter.'),
    formula: formulaOf(formulaText(trendsFilter)),
    smoothingIntervals: optInt(trendsFilter, 'smoothingIntervals', 1, 1000, 'trendsFilter.') ?? 1,
  }
}

/** `formula`, or the one of `formulas` / `formulaNodes` (newer PostHog): several formulas are refused, not dropped. */
function formulaText(trendsFilter: Record<string, unknown>): string | null {
  const listed = Array.isArray(trendsFilter.formulaNodes)
    ? trendsFilter.formulaNodes.map((n) => (isRecord(n) ? n.formula : n))
    : Array.isArray(trendsFilter.formulas)
      ? trendsFilter.formulas
      : []
  if (listed.length > 1) throw wrenError('unsupported', 'Wren computes one formula per trend.', 'trendsFilter.formulas')
  const text = trendsFilter.formula ?? listed[0] ?? null
  if (text !== null && typeof text !== 'string')
    throw wrenError('invalid_input', 'trendsFilter.formula must be a string.', 'trendsFilter.formula')
  return text || null
}

/** PostHog's apply_dashboard_filters for a trend (common/dashboard-filters.ts), and its properties as sent kept beside. */
export function trendWithDashboardFilters(query: TrendRequest, filters: DashboardFilter): TrendRequest {
  const out = withDashboardFilters(query, filters, defaultBreakdownLimit(query.display))
  if (hasProperties(filters)) {
    const group = (p: unknown) => (Array.isArray(p) ? { type: 'AND', values: p } : p)
    const own = query.rawProperties
    out.rawProperties =
      own && !(Array.isArray(own) && own.length === 0)
        ? { type: 'AND', values: [group(own), group(filters.properties)] }
        : filters.properties
  }
  return out
}
