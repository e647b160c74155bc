// The lifecycle model (LifecycleRequest), read from a LifecycleQuery node (series, dateRange, interval,
// properties, filterTestAccounts, lifecycleFilter, aggregation_group_type_index) or from the legacy filter
// dialect (a saved insight's `filters` with insight LIFECYCLE): one model, one plan, one SQL for both.
import { wrenError } from '../../../platform/errors'
import type { DashboardFilter } from '../../kind'
import { refuseUnknownFields } from '../../common/columns'
import { withDashboardDates } from '../../common/dashboard-filters'
import { intervalOf, type Interval } from '../../common/dates'
import { legacyFilters, listOf, nodeFilters, optInt, optRecord, optString, type InsightFilters } from '../../common/fields'
import { legacySeries, seriesOfNodes, type SeriesEntity } from '../../common/series'

/** PostHog's statuses, in the order its answer lists them. */
export const STATUSES = ['new', 'returning', 'resurrecting', 'dormant'] as const
export type LifecycleStatus = (typeof STATUSES)[number]

export interface LifecycleRequest extends InsightFilters {
  /** The one series whose events make a person active. */
  series: SeriesEntity
  interval: Interval
  /** Groups of this type are the actors (their creation makes them new); null: persons. */
  aggregationGroup: number | null
}

const NODE_FIELDS = [
  'series',
  'dateRange',
  'interval',
  'properties',
  'filterTestAccounts',
  'lifecycleFilter',
  'aggregation_group_type_index',
  'samplingFactor',
]

function oneSeries(series: SeriesEntity[], attr: string): SeriesEntity {
  if (series.length === 0) throw wrenError('required', 'Lifecycle insights require at least one series.', attr)
  if (series.length > 1) throw wrenError('invalid_input', 'A lifecycle insight has one series.', attr)
  return series[0]
}

/** A lifecycleFilter's (or legacy filter's) toggledLifecycles: only PostHog's statuses (the app shows those; every status is answered). */
function checkToggled(raw: unknown, attr: string): void {
  for (const s of listOf(raw, attr))
    if (!(STATUSES as readonly unknown[]).includes(s))
      throw wrenError('invalid_input', `${attr} lists statuses among ${STATUSES.join(', ')}; got ${JSON.stringify(s)}.`, attr)
}

/** Sampling reads every event here: a factor other than 1 cannot be applied. */
function checkSampling(raw: unknown, attr: string): void {
  if (raw !== undefined && raw !== null && raw !== 1)
    throw wrenError('unsupported', 'Wren reads every event: samplingFactor can only be 1.', attr)
}

/** A LifecycleQuery node read into the model. */
export function parseLifecycleQuery(node: Record<string, unknown>): LifecycleRequest {
  refuseUnknownFields(node, 'LifecycleQuery', NODE_FIELDS)
  checkSampling(node.samplingFactor, 'samplingFactor')
  const dateRange = optRecord(node, 'dateRange')
  const lifecycleFilter = optRecord(node, 'lifecycleFilter')
  checkToggled(lifecycleFilter.toggledLifecycles, 'lifecycleFilter.toggledLifecycles')
  return {
    series: oneSeries(seriesOfNodes(node.series), 'series'),
    ...nodeFilters(node, dateRange),
    interval: intervalOf(optString(node, 'interval'), 'interval'),
    aggregationGroup: optInt(node, 'aggregation_group_type_index', 0, 4),
  }
}

/** The legacy filter dialect (a saved insight's `filters`, insight LIFECYCLE) read into the same model. */
export function parseLifecycleFilter(input: Record<string, unknown>): LifecycleRequest {
  checkToggled(input.toggledLifecycles, 'toggledLifecycles')
  checkSampling(input.sampling_factor, 'sampling_factor')
  return {
    series: oneSeries(legacySeries(input), 'events'),
    ...legacyFilters(input),
    interval: intervalOf(optString(input, 'interval'), 'interval'),
    aggregationGroup: optInt(input, 'aggregation_group_type_index', 0, 4),
  }
}

/** PostHog's apply_dashboard_filters for a lifecycle: dates, properties, interval, test accounts; no breakdown to take. */
export const lifecycleWithDashboardFilters = (query: LifecycleRequest, filters: DashboardFilter): LifecycleRequest =>
  withDashboardDates(query, filters)
