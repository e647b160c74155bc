// A TrendsQuery node (PostHog's schema: series, dateRange, interval, properties, filterTestAccounts,
// breakdownFilter, trendsFilter, compareFilter) read straight into the trend model, the one the legacy filter
// dialect (request.ts parseTrendRequest) reads into too. Bad input is a 400 naming the node's field.
import { wrenError } from '../../../platform/errors'
import { isRecord } from '../../../platform/json'
import { parsePropertyGroup } from '../../../analytics/property-filters/parse'
import type { DashboardFilter } from '../../kind'
import { breakdownOf } from '../../common/breakdown'
import { intervalOf } from '../../common/dates'
import { optInt, optString, truthy } from '../../common/fields'
import { seriesOfNodes, withAggregationGroup } from '../../common/series'
import { defaultBreakdownLimit, displayOf, formulaOf, type TrendRequest } from './request'

const record = (node: Record<string, unknown>, key: string): Record<string, unknown> => {
  const v = node[key]
  if (v === undefined || v === null) return {}
  if (!isRecord(v)) throw wrenError('invalid_input', `${key} must be an object.`, key)
  return v
}

export function parseTrendsQuery(node: Record<string, unknown>): TrendRequest {
  const series = seriesOfNodes(node.series)
  const dateRange = record(node, 'dateRange')
  const trendsFilter = record(node, 'trendsFilter')
  const compareFilter = record(node, 'compareFilter')
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
    ...breakdownOf(record(node, 'breakdownFilter'), defaultBreakdownLimit(display), 'breakdownFilter.'),
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

/** PostHog's apply_dashboard_filters for a trend: properties ANDed, the date range, breakdown, interval and test-account filter replaced. */
export function trendWithDashboardFilters(query: TrendRequest, filters: DashboardFilter): TrendRequest {
  const out = { ...query }
  if (filters.date_from || filters.date_to) {
    out.dateFrom = filters.date_from ?? null
    out.dateTo = filters.date_to ?? null
    out.explicitDate = filters.explicitDate === true
  }
  const extra = filters.properties
  if (extra !== undefined && extra !== null && !(Array.isArray(extra) && extra.length === 0)) {
    const added = parsePropertyGroup(extra, 'filters_override.properties')
    out.properties = query.properties.values.length ? { type: 'AND', values: [query.properties, added] } : added
    const group = (p: unknown) => (Array.isArray(p) ? { type: 'AND', values: p } : p)
    const own = query.rawProperties
    out.rawProperties = own && !(Array.isArray(own) && own.length === 0) ? { type: 'AND', values: [group(own), group(extra)] } : extra
  }
  if (filters.breakdown_filter)
    Object.assign(out, breakdownOf(filters.breakdown_filter, defaultBreakdownLimit(out.display), 'filters_override.breakdown_filter.'))
  if (filters.interval) out.interval = intervalOf(filters.interval, 'filters_override.interval')
  if (filters.filterTestAccounts !== undefined && filters.filterTestAccounts !== null) out.filterTestAccounts = filters.filterTestAccounts
  return out
}
