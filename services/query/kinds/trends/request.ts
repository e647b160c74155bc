// The trend request: PostHog's legacy filter fields, from the query string (lists JSON-encoded) and the
// JSON body (the body wins), validated into one typed TrendRequest. Bad input is a 400 naming the field.
import { wrenError } from '../../../platform/errors'
import { INTERVALS, type Interval } from '../../common/dates'
import { parsePropertyGroup, type PropertyGroup } from '../../../analytics/property-filters/parse'
import { isRecord, jsonTooDeep, jsonTooDeepIn } from '../../../platform/json'

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
] as const
export type Display = (typeof DISPLAYS)[number]
const TOTAL_VALUE_DISPLAYS = new Set<Display>(['ActionsTable', 'ActionsPie', 'ActionsBarValue', 'WorldMap', 'BoldNumber'])
export const isTotalValue = (d: Display) => TOTAL_VALUE_DISPLAYS.has(d)

export const PROPERTY_MATHS = ['sum', 'avg', 'min', 'max', 'median', 'p75', 'p90', 'p95', 'p99'] as const
export const COUNT_PER_ACTOR_MATHS = [
  'avg_count_per_actor',
  'min_count_per_actor',
  'max_count_per_actor',
  'median_count_per_actor',
  'p75_count_per_actor',
  'p90_count_per_actor',
  'p95_count_per_actor',
  'p99_count_per_actor',
] as const
export const MATHS = [
  'total',
  'dau',
  'weekly_active',
  'monthly_active',
  'unique_session',
  'unique_group',
  'first_time_for_user',
  'first_matching_event_for_user',
  'hogql',
  ...PROPERTY_MATHS,
  ...COUNT_PER_ACTOR_MATHS,
] as const
export type MathType = (typeof MATHS)[number]

export const BREAKDOWN_TYPES = ['event', 'person', 'cohort', 'group', 'session', 'hogql', 'event_metadata'] as const
export type BreakdownType = (typeof BREAKDOWN_TYPES)[number]

export interface BreakdownSpec {
  property: string
  type: Exclude<BreakdownType, 'cohort'>
  normalizeUrl: boolean
  groupTypeIndex: number | null
}

export interface SeriesEntity {
  kind: 'events' | 'actions'
  /** Event name (null: all events) or action id. */
  id: string | number | null
  name: string | null
  customName: string | null
  order: number | null
  math: MathType
  mathProperty: string | null
  mathPropertyType: string | null
  mathHogql: string | null
  mathGroupTypeIndex: number | null
  properties: PropertyGroup
}

export interface TrendRequest {
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
  breakdown: string | number | Array<string | number> | null
  breakdownType: BreakdownType
  breakdownLimit: number
  /** `offset`: the page of breakdown values (with `next`), in ranking order. */
  breakdownOffset: number
  breakdownGroupTypeIndex: number | null
  breakdownNormalizeUrl: boolean
  breakdownHideOtherAggregation: boolean
  /** `breakdowns`: up to three properties at once; `breakdown` then names the first. */
  breakdowns: BreakdownSpec[] | null
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

export const truthy = (v: unknown) => v === true || (typeof v === 'string' && ['true', '1', 'yes'].includes(v.toLowerCase()))

export function optString(input: Record<string, unknown>, key: string, prefix = ''): string | null {
  const v = input[key]
  if (v === undefined || v === null || v === '') return null
  if (typeof v !== 'string') throw wrenError('invalid_input', `${prefix}${key} must be a string.`, prefix + key)
  return v
}

export function optInt(input: Record<string, unknown>, key: string, min: number, max: number, prefix = ''): number | null {
  const v = input[key]
  if (v === undefined || v === null || v === '') return null
  const n = Number(v)
  if (!Number.isInteger(n) || n < min || n > max)
    throw wrenError('invalid_input', `${prefix}${key} must be an integer between ${min} and ${max}.`, prefix + key)
  return n
}

/** The legacy filter dialect (insights/trend/, a saved insight's `filters`) read into the trend model. */
export function parseTrendRequest(input: Record<string, unknown>): TrendRequest {
  const events = listOf(input.events, 'events').filter((e) => typeof e !== 'string')
  const actions = listOf(input.actions, 'actions').filter((e) => typeof e !== 'string')
  const entities: SeriesEntity[] = [
    ...actions.map((a, i) => entity(a, 'actions', `actions[${i}]`)).filter((a) => a.id !== null),
    ...events.map((e, i) => entity(e, 'events', `events[${i}]`)),
  ]
  // Stable sort by `order`, with a missing or zero order counting as -1 (as PostHog does).
  const series = entities
    .map((e, i) => ({ e, i, o: e.order || -1 }))
    .sort((a, b) => a.o - b.o || a.i - b.i)
    .map((x) => x.e)
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
    ...breakdownOf(input, display, ''),
    breakdownOffset: optInt(input, 'offset', 0, 1_000_000) ?? 0,
    compare: truthy(input.compare),
    compareTo: optString(input, 'compare_to'),
    formula: formulaOf(optString(input, 'formula')),
    smoothingIntervals: optInt(input, 'smoothing_intervals', 1, 1000) ?? 1,
  }
}

/** Aggregating the whole insight by a group type: unique-actor math counts groups instead of persons. */
export function withAggregationGroup(series: SeriesEntity[], aggregationGroup: number | null): SeriesEntity[] {
  if (aggregationGroup !== null)
    for (const s of series)
      if (s.mathGroupTypeIndex === null && ['dau', 'weekly_active', 'monthly_active'].includes(s.math))
        s.mathGroupTypeIndex = aggregationGroup
  return series
}

export function intervalOf(raw: string | null, attr: string): Interval {
  const intervalRaw = raw ?? 'day'
  const interval = (intervalRaw === 'minute' ? 'hour' : intervalRaw) as Interval
  if (!INTERVALS.includes(interval))
    throw wrenError('invalid_input', `${attr} must be one of hour, day, week, month; got '${intervalRaw}'.`, attr)
  return interval
}

export const displayOf = (raw: string | null): Display =>
  raw && (DISPLAYS as readonly string[]).includes(raw) ? (raw as Display) : 'ActionsLineGraph'

export const formulaOf = (raw: string | null): string | null => (raw ? raw.replace(/[^a-zA-Z \-*^0-9+/().%]/g, '').trim() || null : null)

type BreakdownFields = Pick<
  TrendRequest,
  | 'breakdown'
  | 'breakdownType'
  | 'breakdownLimit'
  | 'breakdownGroupTypeIndex'
  | 'breakdownNormalizeUrl'
  | 'breakdownHideOtherAggregation'
  | 'breakdowns'
>

/**
 * The breakdown fields, which both dialects name alike (the legacy filter at its top level, a TrendsQuery in
 * its `breakdownFilter`); `prefix` is where they sit, for the 400's attr.
 */
export function breakdownOf(input: Record<string, unknown>, display: Display, prefix: string): BreakdownFields {
  let breakdown = input.breakdown as TrendRequest['breakdown'] | undefined
  if (breakdown === undefined || breakdown === '' || (Array.isArray(breakdown) && breakdown.length === 0)) breakdown = null
  if (Array.isArray(breakdown)) breakdown = breakdown.filter((b) => b !== null)
  if (breakdown !== null && typeof breakdown !== 'string' && typeof breakdown !== 'number' && !Array.isArray(breakdown))
    throw wrenError('invalid_input', 'breakdown must be a property key, a cohort id or a list of cohort ids.', `${prefix}breakdown`)
  let breakdownType = (optString(input, 'breakdown_type', prefix) ?? 'event') as BreakdownType
  if ((breakdownType as string) === 'events') breakdownType = 'event'
  if (!BREAKDOWN_TYPES.includes(breakdownType))
    throw wrenError(
      'invalid_input',
      `breakdown_type must be one of ${BREAKDOWN_TYPES.join(', ')}; got '${breakdownType}'.`,
      `${prefix}breakdown_type`,
    )
  if (breakdown !== null && breakdownType !== 'cohort' && typeof breakdown !== 'string') {
    if (typeof breakdown === 'number') breakdown = String(breakdown)
    else throw wrenError('invalid_input', `A ${breakdownType} breakdown takes one property key as a string.`, `${prefix}breakdown`)
  }
  const breakdowns = parseBreakdowns(input.breakdowns, `${prefix}breakdowns`)
  if (breakdowns) {
    breakdown = breakdowns[0].property
    breakdownType = breakdowns[0].type
  }
  const breakdownGroupTypeIndex = optInt(input, 'breakdown_group_type_index', 0, 4, prefix)
  if (breakdown !== null && breakdownType === 'group' && breakdownGroupTypeIndex === null)
    throw wrenError('required', 'A group breakdown needs breakdown_group_type_index.', `${prefix}breakdown_group_type_index`)
  return {
    breakdown,
    breakdownType,
    breakdownLimit: optInt(input, 'breakdown_limit', 1, 10_000, prefix) ?? (display === 'WorldMap' ? 250 : 25),
    breakdownGroupTypeIndex,
    breakdownNormalizeUrl: truthy(input.breakdown_normalize_url),
    breakdownHideOtherAggregation: truthy(input.breakdown_hide_other_aggregation),
    breakdowns,
  }
}

function parseBreakdowns(raw: unknown, attr: string): BreakdownSpec[] | null {
  let value = raw
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw)
    } catch {
      throw wrenError('invalid_input', 'breakdowns must be a JSON list like [{"property": "$browser", "type": "event"}].', attr)
    }
    if (jsonTooDeepIn(value)) throw jsonTooDeep('breakdowns')
  }
  if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) return null
  if (!Array.isArray(value)) throw wrenError('invalid_input', 'breakdowns must be a list of {property, type}.', attr)
  return value.slice(0, 3).map((b, i) => {
    if (!isRecord(b) || typeof b.property !== 'string' || !b.property)
      throw wrenError('invalid_input', `breakdowns[${i}] needs a string property.`, attr)
    const type = (b.type ?? 'event') as BreakdownType
    if (!BREAKDOWN_TYPES.includes(type) || type === 'cohort')
      throw wrenError(
        'invalid_input',
        `breakdowns[${i}].type must be one of ${BREAKDOWN_TYPES.filter((t) => t !== 'cohort').join(', ')}.`,
        attr,
      )
    const idx = b.group_type_index === undefined || b.group_type_index === null ? null : Number(b.group_type_index)
    if (type === 'group' && (idx === null || !Number.isInteger(idx) || idx < 0 || idx > 4))
      throw wrenError('required', `breakdowns[${i}]: a group breakdown needs group_type_index 0-4.`, attr)
    return { property: b.property, type: type as BreakdownSpec['type'], normalizeUrl: truthy(b.normalize_url), groupTypeIndex: idx }
  })
}

function listOf(raw: unknown, attr: string): unknown[] {
  if (raw === undefined || raw === null) return []
  if (!Array.isArray(raw)) throw wrenError('invalid_input', `${attr} must be a list.`, attr)
  return raw
}

/** One series entity; `idKey`: where its event name or action id is (`id` in the legacy filter, `event` in an EventsNode). */
export function entity(raw: unknown, kind: 'events' | 'actions', attr: string, idKey = 'id'): SeriesEntity {
  if (!isRecord(raw)) throw wrenError('invalid_input', `${attr} must be an object like {"id": "$pageview"}.`, attr)
  let id = raw[idKey] as string | number | null | undefined
  if (id === undefined) id = null
  if (kind === 'events' && id !== null && typeof id !== 'string') id = String(id)
  if (kind === 'actions' && id !== null) {
    const n = Number(id)
    if (!Number.isInteger(n) || n <= 0) throw wrenError('invalid_input', `${attr}.id must be an action id.`, attr)
    id = n
  }
  const math = (raw.math === undefined || raw.math === null || raw.math === '' ? 'total' : raw.math) as MathType
  if (!(MATHS as readonly string[]).includes(math as string))
    throw wrenError('invalid_input', `${attr}: unknown math '${String(math)}'. Use one of ${MATHS.join(', ')}.`, attr)
  const mathProperty = typeof raw.math_property === 'string' && raw.math_property ? raw.math_property : null
  if ((PROPERTY_MATHS as readonly string[]).includes(math) && !mathProperty)
    throw wrenError('required', `${attr}: math '${math}' needs math_property.`, attr)
  const mathHogql = typeof raw.math_hogql === 'string' && raw.math_hogql.trim() ? raw.math_hogql : null
  if (math === 'hogql' && !mathHogql) throw wrenError('required', `${attr}: math 'hogql' needs math_hogql.`, attr)
  const groupIdx = raw.math_group_type_index
  const mathGroupTypeIndex = groupIdx === undefined || groupIdx === null ? null : Number(groupIdx)
  if (mathGroupTypeIndex !== null && (!Number.isInteger(mathGroupTypeIndex) || mathGroupTypeIndex < 0 || mathGroupTypeIndex > 4))
    throw wrenError('invalid_input', `${attr}.math_group_type_index must be 0-4.`, attr)
  if (math === 'unique_group' && mathGroupTypeIndex === null)
    throw wrenError('required', `${attr}: math 'unique_group' needs math_group_type_index.`, attr)
  const order = raw.order === undefined || raw.order === null ? null : Number(raw.order)
  return {
    kind,
    id,
    name: typeof raw.name === 'string' ? raw.name : null,
    customName: typeof raw.custom_name === 'string' ? raw.custom_name : null,
    order: order !== null && Number.isFinite(order) ? order : null,
    math,
    mathProperty,
    mathPropertyType: typeof raw.math_property_type === 'string' ? raw.math_property_type : null,
    mathHogql,
    mathGroupTypeIndex,
    properties: parsePropertyGroup(raw.properties, `${attr}.properties`),
  }
}
