// The trend model (TrendRequest), and its legacy filter dialect: PostHog's legacy filter fields, from the
// query string (lists JSON-encoded) and the JSON body (the body wins). A TrendsQuery node is read into the
// same model by node.ts. Bad input is a 400 naming the field.
import { wrenError } from '../../../platform/errors'
import { intervalOf, type Interval } from '../../common/dates'
import { parsePropertyGroup, type PropertyGroup } from '../../../analytics/property-filters/parse'
import { isRecord, jsonTooDeep, jsonTooDeepIn } from '../../../platform/json'
import { optInt, optString, truthy } from '../../common/fields'
import { legacySeries, withAggregationGroup, type SeriesEntity } from '../../common/series'
import { breakdownOf, type BreakdownFields } from '../../common/breakdown'

export const DISPLAYS = [
  'ActionsLineGraph',
  'ActionsLineGraphCumulative',
  'ActionsTable',
  'ActionsPie',
  'ActionsBar',
  'ActionsBarValue',
  'WorldMap',
  'BoldNumber',
  'ActionsAreaGraph',
  'ActionsStackedBar',
  'ActionsUnstackedBar',
] as const
export type Display = (typeof DISPLAYS)[number]
const TOTAL_VALUE_DISPLAYS = new Set<Display>(['ActionsTable', 'ActionsPie', 'ActionsBarValue', 'WorldMap', 'BoldNumber'])
export const isTotalValue = (d: Display) => TOTAL_VALUE_DISPLAYS.has(d)

export interface TrendRequest extends BreakdownFields {
  series: SeriesEntity[]
  properties: PropertyGroup
  /** The global filter as the caller sent it, echoed back in each series' `filter`. */
  rawProperties: unknown
  filterTestAccounts: boolean
  dateFrom: string | null
  dateTo: string | null
  explicitDate: boolean
  interval: Interval
  display: Display
  /** `offset`: the page of breakdown values (with `next`), in ranking order. */
  breakdownOffset: number
  compare: boolean
  compareTo: string | null
  formula: string | null
  smoothingIntervals: number
}

const JSON_FIELDS = ['events', 'actions', 'properties', 'breakdown']

/** Query-string values (lists JSON-encoded) overlaid by the JSON body. */
export function mergeInput(query: Record<string, unknown>, body: unknown): Record<string, unknown> {
  const merged: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(query)) {
    if (typeof v === 'string' && JSON_FIELDS.includes(k)) {
      try {
        merged[k] = JSON.parse(v)
        if (jsonTooDeepIn(merged[k])) throw jsonTooDeep(k)
      } catch {
        if (k !== 'breakdown') throw wrenError('invalid_input', `${k} must be JSON-encoded in the query string.`, k)
        merged[k] = v
      }
    } else merged[k] = v
  }
  if (body !== undefined && body !== null && !isRecord(body)) throw wrenError('invalid_input', 'The request body must be a JSON object.')
  return { ...merged, ...(body ?? {}) }
}

/** The legacy filter dialect (insights/trend/, a saved insight's `filters`) read into the trend model. */
export function parseTrendRequest(input: Record<string, unknown>): TrendRequest {
  const series = legacySeries(input)
  const display = displayOf(optString(input, 'display'))
  return {
    series: withAggregationGroup(series, optInt(input, 'aggregation_group_type_index', 0, 4)),
    properties: parsePropertyGroup(input.properties, 'properties'),
    rawProperties: input.properties ?? [],
    filterTestAccounts: truthy(input.filter_test_accounts),
    dateFrom: optString(input, 'date_from'),
    dateTo: optString(input, 'date_to'),
    explicitDate: truthy(input.explicit_date),
    interval: intervalOf(optString(input, 'interval'), 'interval'),
    display,
    ...breakdownOf(input, defaultBreakdownLimit(display), ''),
    breakdownOffset: optInt(input, 'offset', 0, 1_000_000) ?? 0,
    compare: truthy(input.compare),
    compareTo: optString(input, 'compare_to'),
    formula: formulaOf(optString(input, 'formula')),
    smoothingIntervals: optInt(input, 'smoothing_intervals', 1, 1000) ?? 1,
  }
}

/** PostHog's breakdown limit: 25 values, 250 for a world map. */
export const defaultBreakdownLimit = (display: Display): number => (display === 'WorldMap' ? 250 : 25)

export const displayOf = (raw: string | null): Display =>
  raw && (DISPLAYS as readonly string[]).includes(raw) ? (raw as Display) : 'ActionsLineGraph'

export const formulaOf = (raw: string | null): string | null => (raw ? raw.replace(/[^a-zA-Z \-*^0-9+/().%]/g, '').trim() || null : null)
