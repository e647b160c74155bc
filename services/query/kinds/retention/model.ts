// The retention model (RetentionRequest), read from a RetentionQuery node (its retentionFilter, breakdownFilter,
// …) or from the legacy filter dialect (a saved insight's `filters` with insight RETENTION): one model, one plan,
// one SQL for both. PostHog's defaults (schema RetentionFilter and retention_query_runner.py): a $pageview
// target and return, recurring retention, Day periods, 11 intervals. Bad input is a 400 naming the field; an
// option Wren cannot apply (a sum of a property with cumulative retention, …) is a 400 too.
import { wrenError } from '../../../platform/errors'
import { isRecord } from '../../../platform/json'
import type { DashboardFilter } from '../../kind'
import { breakdownOf, type BreakdownFields } from '../../common/breakdown'
import { withDashboardFilters } from '../../common/dashboard-filters'
import type { Interval } from '../../common/dates'
import { legacyFilters, nodeFilters, optInt, optRecord, optString, truthy, type InsightFilters } from '../../common/fields'
import { entity, type SeriesEntity } from '../../common/series'

export const RETENTION_TYPES = ['retention_recurring', 'retention_first_time', 'retention_first_ever_occurrence'] as const
export type RetentionType = (typeof RETENTION_TYPES)[number]
const PERIODS: Record<string, Interval> = { Hour: 'hour', Day: 'day', Week: 'week', Month: 'month' }

/** PostHog's default number of breakdown values (then "Other"). */
export const DEFAULT_BREAKDOWN_LIMIT = 25
/** PostHog's schema default for totalIntervals. */
export const DEFAULT_TOTAL_INTERVALS = 11
/** The most return intervals Wren computes (each cohort row has this many values). */
export const MAX_TOTAL_INTERVALS = 1000

export interface RetentionRequest extends BreakdownFields, InsightFilters {
  /** What puts an actor into a cohort; `id` null: any event. */
  targetEntity: SeriesEntity
  /** What counts as coming back. */
  returningEntity: SeriesEntity
  retentionType: RetentionType
  period: Interval
  /** Return intervals per cohort row (interval 0 included): PostHog's lookahead. */
  totalIntervals: number
  cumulative: boolean
  /**
   * PostHog's custom brackets: the return intervals grouped into brackets of these many intervals ("Day 1-3",
   * "Day 4-10"); each cohort row then has one value per bracket after its own. Null: one value per interval.
   */
  customBrackets: number[] | null
  /**
   * PostHog's timeWindowMode: periods of the calendar ('strict_calendar_dates'), or '24_hour_windows': each actor's
   * periods counted from its first target event (24 hours for Day, 1 hour, 7 days, 30 days).
   */
  timeWindowMode: 'strict_calendar_dates' | '24_hour_windows'
  /**
   * PostHog's aggregationType sum / avg: besides each cell's actors, the sum (or the sum per actor) of this event
   * or person property over the cohort's target events (interval 0) and its return events (later intervals).
   */
  aggregation: { type: 'sum' | 'avg'; property: string; propertyType: 'event' | 'person' } | null
  /** A return interval counts only with at least this many return events in it. */
  minimumOccurrences: number
  /** The app's percentages: of the cohort ('total') or of the interval before ('previous'); the counts are the same. */
  retentionReference: 'total' | 'previous'
  /** The model's interval for the dashboard filters (common/dashboard-filters.ts): the period. */
  interval: Interval
  /** Aggregate by this group type instead of persons. */
  aggregationGroup: number | null
}

/** Fields of a retentionFilter the counts do not depend on (the app's display choices), accepted as they are. */
const DISPLAY_ONLY = ['showMean', 'meanRetentionCalculation', 'display', 'dashboardDisplay', 'selectedInterval', 'showTrendLines']

interface Names {
  target: string
  returning: string
  type: string
  period: string
  total: string
  cumulative: string
  minimum: string
  reference: string
  brackets: string
  mode: string
}

const NODE_NAMES: Names = {
  target: 'targetEntity',
  returning: 'returningEntity',
  type: 'retentionType',
  period: 'period',
  total: 'totalIntervals',
  cumulative: 'cumulative',
  minimum: 'minimumOccurrences',
  reference: 'retentionReference',
  brackets: 'retentionCustomBrackets',
  mode: 'timeWindowMode',
}

const LEGACY_NAMES: Names = {
  target: 'target_entity',
  returning: 'returning_entity',
  type: 'retention_type',
  period: 'period',
  total: 'total_intervals',
  cumulative: 'cumulative',
  minimum: 'minimum_occurrences',
  reference: 'retention_reference',
  brackets: 'retention_custom_brackets',
  mode: 'time_window_mode',
}

/** A retention entity (PostHog's RetentionEntity): `{id, type: events | actions}`, or an EventsNode / ActionsNode. */
function retentionEntity(raw: unknown, attr: string): SeriesEntity {
  let value = raw
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value)
    } catch {
      throw wrenError('invalid_input', `${attr} must be an object like {"id": "$pageview", "type": "events"}.`, attr)
    }
  }
  if (value === undefined || value === null) return entity({ id: '$pageview' }, 'events', attr)
  if (!isRecord(value)) throw wrenError('invalid_input', `${attr} must be an object like {"id": "$pageview", "type": "events"}.`, attr)
  const type = value.type ?? (value.kind === 'ActionsNode' ? 'actions' : 'events')
  if (type !== 'events' && type !== 'actions')
    throw wrenError('invalid_input', `${attr}.type must be 'events' or 'actions'; got '${String(type)}'.`, `${attr}.type`)
  const idKey = value.id === undefined && value.kind === 'EventsNode' ? 'event' : 'id'
  const e = entity(value, type, attr, idKey)
  if (e.kind === 'actions' && e.id === null) throw wrenError('required', `${attr}: an action entity needs the action's id.`, `${attr}.id`)
  return e
}

function retentionOptions(filter: Record<string, unknown>, names: Names, prefix: string) {
  const at = (k: keyof Names) => prefix + names[k]
  const type = optString(filter, names.type, prefix) ?? 'retention_recurring'
  if (!(RETENTION_TYPES as readonly string[]).includes(type))
    throw wrenError('invalid_input', `${at('type')} must be one of ${RETENTION_TYPES.join(', ')}; got '${type}'.`, at('type'))
  const periodRaw = optString(filter, names.period, prefix) ?? 'Day'
  const period = PERIODS[periodRaw] ?? PERIODS[periodRaw.charAt(0).toUpperCase() + periodRaw.slice(1).toLowerCase()]
  if (!period) throw wrenError('invalid_input', `${at('period')} must be one of Hour, Day, Week, Month; got '${periodRaw}'.`, at('period'))
  const reference = optString(filter, names.reference, prefix) ?? 'total'
  if (reference !== 'total' && reference !== 'previous')
    throw wrenError('invalid_input', `${at('reference')} must be 'total' or 'previous'.`, at('reference'))
  const customBrackets = brackets(filter[names.brackets], at('brackets'))
  const mode = optString(filter, names.mode, prefix) ?? 'strict_calendar_dates'
  if (mode !== 'strict_calendar_dates' && mode !== '24_hour_windows')
    throw wrenError('invalid_input', `${at('mode')} must be 'strict_calendar_dates' or '24_hour_windows'.`, at('mode'))
  const timeWindowMode = mode as RetentionRequest['timeWindowMode']
  if (timeWindowMode === '24_hour_windows' && truthy(filter[names.cumulative]))
    throw wrenError('invalid_input', 'Cumulative retention is not supported for 24 hour windows.', at('cumulative'))
  if (timeWindowMode === '24_hour_windows' && customBrackets)
    throw wrenError('unsupported', 'Custom brackets are not computed with 24 hour windows yet.', at('brackets'))
  return {
    targetEntity: retentionEntity(filter[names.target], at('target')),
    returningEntity: retentionEntity(filter[names.returning], at('returning')),
    retentionType: type as RetentionType,
    period,
    interval: period,
    totalIntervals: optInt(filter, names.total, 1, MAX_TOTAL_INTERVALS, prefix) ?? DEFAULT_TOTAL_INTERVALS,
    cumulative: truthy(filter[names.cumulative]),
    minimumOccurrences: optInt(filter, names.minimum, 1, 1_000_000, prefix) ?? 1,
    retentionReference: reference as 'total' | 'previous',
    customBrackets,
    timeWindowMode,
  }
}

function brackets(raw: unknown, attr: string): number[] | null {
  if (raw === undefined || raw === null || (Array.isArray(raw) && raw.length === 0)) return null
  if (
    !Array.isArray(raw) ||
    raw.length > 100 ||
    !raw.every((n) => Number.isSafeInteger(Number(n)) && Number(n) >= 1 && Number(n) <= 10_000)
  )
    throw wrenError('invalid_input', `${attr} must be a list of at most 100 bracket sizes (whole intervals, 1 or more).`, attr)
  return raw.map(Number)
}

/** The labels of a cohort row's values: "Day 0", then one per interval ("Day 1") or per bracket ("Day 1-3"). */
export function valueLabels(request: RetentionRequest): string[] {
  const unit = request.period.charAt(0).toUpperCase() + request.period.slice(1)
  if (!request.customBrackets) return Array.from({ length: request.totalIntervals }, (_, k) => `${unit} ${k}`)
  const labels = [`${unit} 0`]
  let first = 1
  for (const size of request.customBrackets) {
    const last = first + size - 1
    labels.push(first === last ? `${unit} ${first}` : `${unit} ${first}-${last}`)
    first = last + 1
  }
  return labels
}

/** PostHog's aggregationType with its property (sum and avg without a property count actors, as PostHog's). */
function aggregationOf(filter: Record<string, unknown>, prefix: string): RetentionRequest['aggregation'] {
  const type = optString(filter, 'aggregationType', prefix) ?? 'count'
  if (type !== 'count' && type !== 'sum' && type !== 'avg')
    throw wrenError('invalid_input', `${prefix}aggregationType must be count, sum or avg.`, `${prefix}aggregationType`)
  const property = optString(filter, 'aggregationProperty', prefix)
  const propertyType = optString(filter, 'aggregationPropertyType', prefix) ?? 'event'
  if (propertyType !== 'event' && propertyType !== 'person')
    throw wrenError('invalid_input', `${prefix}aggregationPropertyType must be event or person.`, `${prefix}aggregationPropertyType`)
  if (type === 'count' || !property) return null
  const conflict = truthy(filter.cumulative)
    ? 'cumulative'
    : filter.timeWindowMode === '24_hour_windows'
      ? 'timeWindowMode'
      : Array.isArray(filter.retentionCustomBrackets) && filter.retentionCustomBrackets.length > 0
        ? 'retentionCustomBrackets'
        : Number(filter.minimumOccurrences ?? 1) > 1
          ? 'minimumOccurrences'
          : null
  if (conflict)
    throw wrenError('unsupported', `${prefix}${conflict} is not computed with a ${type} of a property yet.`, `${prefix}${conflict}`)
  return { type, property, propertyType }
}

const NODE_FILTER_FIELDS = [
  ...Object.values(NODE_NAMES),
  ...DISPLAY_ONLY,
  'aggregationType',
  'aggregationProperty',
  'aggregationPropertyType',
]

/** A RetentionQuery node read into the model. */
export function parseRetentionQuery(node: Record<string, unknown>): RetentionRequest {
  if (node.retentionFilter === undefined || node.retentionFilter === null)
    throw wrenError('required', 'A RetentionQuery needs its retentionFilter (it may be {}).', 'retentionFilter')
  const filter = optRecord(node, 'retentionFilter')
  const unknown = Object.keys(filter).find((k) => !NODE_FILTER_FIELDS.includes(k))
  if (unknown) throw wrenError('unknown_field', `retentionFilter has no field '${unknown}'.`, `retentionFilter.${unknown}`)
  if (node.samplingFactor !== undefined && node.samplingFactor !== null && node.samplingFactor !== 1)
    throw wrenError('unsupported', 'samplingFactor is not applied by Wren: leave it out.', 'samplingFactor')
  const dateRange = optRecord(node, 'dateRange')
  return {
    ...retentionOptions(filter, NODE_NAMES, 'retentionFilter.'),
    aggregation: aggregationOf(filter, 'retentionFilter.'),
    ...nodeFilters(node, dateRange),
    ...breakdownOf(optRecord(node, 'breakdownFilter'), DEFAULT_BREAKDOWN_LIMIT, 'breakdownFilter.'),
    aggregationGroup: optInt(node, 'aggregation_group_type_index', 0, 4),
  }
}

/** The legacy filter dialect (a saved insight's `filters`, insight RETENTION) read into the same model. */
export function parseRetentionFilter(input: Record<string, unknown>): RetentionRequest {
  return {
    ...retentionOptions(input, LEGACY_NAMES, ''),
    aggregation: null,
    ...legacyFilters(input),
    ...breakdownOf(input, DEFAULT_BREAKDOWN_LIMIT, ''),
    aggregationGroup: optInt(input, 'aggregation_group_type_index', 0, 4),
  }
}

/** PostHog's apply_dashboard_filters for retention (common/dashboard-filters.ts); an interval keeps the period. */
export function retentionWithDashboardFilters(query: RetentionRequest, filters: DashboardFilter): RetentionRequest {
  const out = withDashboardFilters(query, { ...filters, interval: null }, DEFAULT_BREAKDOWN_LIMIT)
  return { ...out, interval: out.period }
}
