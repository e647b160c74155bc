// The stickiness model (StickinessRequest), read from a StickinessQuery node (series, dateRange, interval,
// intervalCount, properties, filterTestAccounts, stickinessFilter, compareFilter) or from the legacy filter
// dialect (a saved insight's `filters` with insight STICKINESS): one model, one plan, one SQL for both.
import { wrenError } from '../../../platform/errors'
import type { DashboardFilter } from '../../kind'
import { refuseUnknownFields } from '../../common/columns'
import { withDashboardDates } from '../../common/dashboard-filters'
import { intervalOf, type Interval } from '../../common/dates'
import { legacyFilters, nodeFilters, optInt, optRecord, optString, truthy, type InsightFilters } from '../../common/fields'
import { legacySeries, seriesOfNodes, type SeriesEntity } from '../../common/series'

export const OPERATORS = ['gte', 'lte', 'exact'] as const
export type CountOperator = (typeof OPERATORS)[number]
/** The maths stickiness counts actors by: persons (total, dau), a group type's groups, or a HogQL value. */
const MATHS = ['total', 'dau', 'unique_group', 'hogql']

export interface StickinessRequest extends InsightFilters {
  series: SeriesEntity[]
  interval: Interval
  /** Intervals counted as one, back from the range's end (PostHog's intervalCount); null: the interval's own periods. */
  intervalCount: number | null
  /** `N or more` rather than exactly N (stickinessFilter.computedAs cumulative). */
  cumulative: boolean
  /** An interval counts when the actor did the series this many times in it (stickinessCriteria); null: once. */
  criteria: { operator: CountOperator; value: number } | null
  compare: boolean
  compareTo: string | null
}

const NODE_FIELDS = [
  'series',
  'dateRange',
  'interval',
  'intervalCount',
  'properties',
  'filterTestAccounts',
  'stickinessFilter',
  'compareFilter',
  'samplingFactor',
]

function checkSeries(series: SeriesEntity[], attr: string): SeriesEntity[] {
  if (series.length === 0) throw wrenError('required', 'Stickiness insights require at least one series.', attr)
  series.forEach((s, i) => {
    if (!MATHS.includes(s.math))
      throw wrenError(
        'unsupported',
        `${attr}[${i}]: stickiness counts actors; math must be one of ${MATHS.join(', ')}, got '${s.math}'.`,
        `${attr}[${i}].math`,
      )
  })
  return series
}

function criteriaOf(raw: unknown, attr: string): StickinessRequest['criteria'] {
  if (raw === undefined || raw === null) return null
  if (typeof raw !== 'object' || Array.isArray(raw)) throw wrenError('invalid_input', `${attr} must be {operator, value}.`, attr)
  const c = raw as Record<string, unknown>
  if (!(OPERATORS as readonly unknown[]).includes(c.operator))
    throw wrenError('invalid_input', `${attr}.operator must be one of ${OPERATORS.join(', ')}.`, `${attr}.operator`)
  const value = optInt(c, 'value', 0, 1_000_000, `${attr}.`)
  if (value === null) throw wrenError('required', `${attr}.value is required: the times an actor did it in an interval.`, `${attr}.value`)
  return { operator: c.operator as CountOperator, value }
}

function computedAs(raw: string | null, attr: string): boolean {
  if (raw === null || raw === 'non_cumulative') return false
  if (raw === 'cumulative') return true
  throw wrenError('invalid_input', `${attr} must be cumulative or non_cumulative; got '${raw}'.`, attr)
}

/** A StickinessQuery node read into the model. */
export function parseStickinessQuery(node: Record<string, unknown>): StickinessRequest {
  refuseUnknownFields(node, 'StickinessQuery', NODE_FIELDS)
  if (node.samplingFactor !== undefined && node.samplingFactor !== null && node.samplingFactor !== 1)
    throw wrenError('unsupported', 'Wren reads every event: samplingFactor can only be 1.', 'samplingFactor')
  const dateRange = optRecord(node, 'dateRange')
  const filter = optRecord(node, 'stickinessFilter')
  const compareFilter = optRecord(node, 'compareFilter')
  return {
    series: checkSeries(seriesOfNodes(node.series), 'series'),
    ...nodeFilters(node, dateRange),
    interval: intervalOf(optString(node, 'interval'), 'interval'),
    intervalCount: optInt(node, 'intervalCount', 1, 1000),
    cumulative: computedAs(optString(filter, 'computedAs', 'stickinessFilter.'), 'stickinessFilter.computedAs'),
    criteria: criteriaOf(filter.stickinessCriteria, 'stickinessFilter.stickinessCriteria'),
    compare: truthy(compareFilter.compare),
    compareTo: optString(compareFilter, 'compare_to', 'compareFilter.'),
  }
}

/** The legacy filter dialect (a saved insight's `filters`, insight STICKINESS) read into the same model. */
export function parseStickinessFilter(input: Record<string, unknown>): StickinessRequest {
  return {
    series: checkSeries(legacySeries(input), 'events'),
    ...legacyFilters(input),
    interval: intervalOf(optString(input, 'interval'), 'interval'),
    intervalCount: null,
    cumulative: false,
    criteria: null,
    compare: truthy(input.compare),
    compareTo: optString(input, 'compare_to'),
  }
}

/** PostHog's apply_dashboard_filters for a stickiness: dates, properties, interval, test accounts; no breakdown to take. */
export const stickinessWithDashboardFilters = (query: StickinessRequest, filters: DashboardFilter): StickinessRequest =>
  withDashboardDates(query, filters)
