// The trends page's query: its state, that state in the page's URL (so a view can be shared and reloaded),
// and the body Wren's /insights/trend/ takes. No DOM here: the unit tests run it in Node.
import type { PropertyFilter } from './api'

export const MATHS = [
  { value: 'total', label: 'Total count' },
  { value: 'dau', label: 'Unique users' },
  { value: 'weekly_active', label: 'Weekly active users' },
  { value: 'monthly_active', label: 'Monthly active users' },
  { value: 'unique_session', label: 'Unique sessions' },
  { value: 'sum', label: 'Sum of a property' },
  { value: 'avg', label: 'Average of a property' },
  { value: 'min', label: 'Minimum of a property' },
  { value: 'max', label: 'Maximum of a property' },
  { value: 'median', label: 'Median of a property' },
  { value: 'p75', label: '75th percentile of a property' },
  { value: 'p90', label: '90th percentile of a property' },
  { value: 'p95', label: '95th percentile of a property' },
  { value: 'p99', label: '99th percentile of a property' },
] as const
export const PROPERTY_MATHS = new Set(['sum', 'avg', 'min', 'max', 'median', 'p75', 'p90', 'p95', 'p99'])

export const INTERVALS = ['hour', 'day', 'week', 'month'] as const
export type Interval = (typeof INTERVALS)[number]

/**
 * How the page draws the result, and the display Wren is asked for (number and table take totals). Bars over time
 * as PostHog names them: ActionsBar stacked ("Stacked bar chart"), ActionsUnstackedBar side by side ("Bar chart").
 */
export const DISPLAYS = {
  line: 'ActionsLineGraph',
  bar: 'ActionsBar',
  grouped: 'ActionsUnstackedBar',
  area: 'ActionsAreaGraph',
  number: 'BoldNumber',
  table: 'ActionsTable',
} as const
export type DisplayName = keyof typeof DISPLAYS
/** Each display as the page's picker names it. */
export const DISPLAY_LABELS: Record<DisplayName, string> = {
  line: 'Line',
  bar: 'Stacked bars',
  grouped: 'Grouped bars',
  area: 'Area',
  number: 'Number',
  table: 'Table',
}

/** Every breakdown type Wren's trends take (services/query/kinds/trends/request.ts), as the page names them. */
export const BREAKDOWN_TYPES = ['event', 'person', 'cohort', 'group', 'session', 'hogql'] as const
export type BreakdownType = (typeof BREAKDOWN_TYPES)[number]
export const BREAKDOWN_LABELS: Record<BreakdownType, string> = {
  event: 'event property',
  person: 'person property',
  cohort: 'cohort',
  group: 'group property',
  session: 'session property',
  hogql: 'HogQL expression',
}

export const DATE_PRESETS = [
  { value: '-24h', label: 'Last 24 hours' },
  { value: '-7d', label: 'Last 7 days' },
  { value: '-14d', label: 'Last 14 days' },
  { value: '-30d', label: 'Last 30 days' },
  { value: '-90d', label: 'Last 90 days' },
  { value: 'mStart', label: 'This month' },
  { value: 'yStart', label: 'Year to date' },
  { value: 'all', label: 'All time' },
] as const

export interface Series {
  kind: 'events' | 'actions'
  /** The event's name, or the action's id. */
  id: string
  math: string
  mathProperty: string | null
  properties: PropertyFilter[]
}

export interface TrendQuery {
  series: Series[]
  properties: PropertyFilter[]
  filterTestAccounts: boolean
  dateFrom: string
  /** null: up to now. */
  dateTo: string | null
  interval: Interval
  breakdown: string | null
  breakdownType: BreakdownType
  /** A group breakdown's group type (0-4); null until chosen. */
  breakdownGroupTypeIndex: number | null
  compare: boolean
  formula: string
  display: DisplayName
}

export const DEFAULT_QUERY: TrendQuery = {
  series: [{ kind: 'events', id: '$pageview', math: 'total', mathProperty: null, properties: [] }],
  properties: [],
  filterTestAccounts: false,
  dateFrom: '-7d',
  dateTo: null,
  interval: 'day',
  breakdown: null,
  breakdownType: 'event',
  breakdownGroupTypeIndex: null,
  compare: false,
  formula: '',
  display: 'line',
}

const SERIES_LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
export const seriesLetter = (index: number) => SERIES_LETTERS[index] ?? `#${index + 1}`

/** The query as URL search parameters: only what differs from the defaults, so links stay short. Lossless:
 * an incomplete edit (a series without its event yet, a breakdown type without its value) is kept, so the
 * URL written while typing reopens the same editor. */
export function encodeQuery(query: TrendQuery): string {
  const params = new URLSearchParams()
  const d = DEFAULT_QUERY
  const series = query.series.map((s) => ({
    kind: s.kind,
    id: s.id,
    ...(s.math !== 'total' ? { math: s.math } : {}),
    ...(s.mathProperty ? { math_property: s.mathProperty } : {}),
    ...(s.properties.length ? { properties: s.properties } : {}),
  }))
  if (JSON.stringify(query.series) !== JSON.stringify(d.series)) params.set('series', JSON.stringify(series))
  encodeInsightFields(params, query, d)
  if (query.compare) params.set('compare', 'true')
  if (query.formula) params.set('formula', query.formula)
  if (query.display !== d.display) params.set('display', query.display)
  return params.toString()
}

/** What a trend and a funnel hold alike: filters, test accounts, dates, interval, breakdown. */
export type InsightFields = Pick<
  TrendQuery,
  'properties' | 'filterTestAccounts' | 'dateFrom' | 'dateTo' | 'interval' | 'breakdown' | 'breakdownType' | 'breakdownGroupTypeIndex'
>

/** Writes `query`'s InsightFields into the URL's `params`, each only where it differs from `d`. */
export function encodeInsightFields(params: URLSearchParams, query: InsightFields, d: InsightFields): void {
  if (query.properties.length) params.set('properties', JSON.stringify(query.properties))
  if (query.filterTestAccounts) params.set('filter_test_accounts', 'true')
  if (query.dateFrom !== d.dateFrom) params.set('date_from', query.dateFrom)
  if (query.dateTo) params.set('date_to', query.dateTo)
  if (query.interval !== d.interval) params.set('interval', query.interval)
  if (query.breakdown) params.set('breakdown', query.breakdown)
  if (query.breakdown || query.breakdownType !== d.breakdownType) params.set('breakdown_type', query.breakdownType)
  if (query.breakdownGroupTypeIndex !== null) params.set('breakdown_group_type_index', String(query.breakdownGroupTypeIndex))
}

/** The InsightFields a URL's `params` hold; missing or malformed ones take `d`'s. */
export function decodeInsightFields(params: URLSearchParams, d: InsightFields): InsightFields {
  const groupIndex = Number(params.get('breakdown_group_type_index') ?? NaN)
  return {
    properties: propertyFilters(parseJson(params.get('properties'))),
    filterTestAccounts: params.get('filter_test_accounts') === 'true',
    dateFrom: params.get('date_from') || d.dateFrom,
    dateTo: params.get('date_to') || null,
    interval: oneOf(INTERVALS, params.get('interval'), d.interval),
    breakdown: params.get('breakdown') || null,
    breakdownType: oneOf(BREAKDOWN_TYPES, params.get('breakdown_type'), d.breakdownType),
    breakdownGroupTypeIndex: Number.isInteger(groupIndex) && groupIndex >= 0 && groupIndex <= 4 ? groupIndex : null,
  }
}

/** A URL parameter's JSON; undefined when absent or malformed. */
export const parseJson = (text: string | null): unknown => {
  if (!text) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The well-formed property filters in a list read from outside (a URL, a saved insight); others are left out. */
export function propertyFilters(value: unknown): PropertyFilter[] {
  if (!Array.isArray(value)) return []
  return value.filter((f): f is PropertyFilter => isRecord(f) && typeof f.key === 'string')
}

const oneOf = <T extends string>(choices: readonly T[], value: string | null, fallback: T): T =>
  value !== null && (choices as readonly string[]).includes(value) ? (value as T) : fallback

/** The query a URL's search part holds; anything missing or malformed takes its default (a bad link still opens). */
export function decodeQuery(search: string): TrendQuery {
  const params = new URLSearchParams(search)
  const d = DEFAULT_QUERY
  const rawSeries = parseJson(params.get('series'))
  const series = Array.isArray(rawSeries)
    ? rawSeries.filter(isRecord).map((s): Series => ({
        kind: s.kind === 'actions' ? 'actions' : 'events',
        // An empty id is a series still being chosen: it stays in the editor.
        id: typeof s.id === 'string' || typeof s.id === 'number' ? String(s.id) : '',
        math: typeof s.math === 'string' && MATHS.some((m) => m.value === s.math) ? s.math : 'total',
        mathProperty: typeof s.math_property === 'string' && s.math_property ? s.math_property : null,
        properties: propertyFilters(s.properties),
      }))
    : []
  return {
    series: series.length ? series : d.series,
    ...decodeInsightFields(params, d),
    compare: params.get('compare') === 'true',
    formula: params.get('formula') ?? '',
    display: oneOf(Object.keys(DISPLAYS) as DisplayName[], params.get('display'), d.display),
  }
}

/** Only filters that say something: a key (or a cohort), so a half-typed row does not fail the request. */
export const completeFilters = (filters: PropertyFilter[]) =>
  filters.filter((f) => (f.type === 'cohort' ? f.value !== '' && f.value !== undefined : f.key.trim() !== ''))

/** A series the API can answer: its event or action chosen, and the property a property math needs. */
export const seriesComplete = (s: Series) => s.id.trim() !== '' && (!PROPERTY_MATHS.has(s.math) || !!s.mathProperty?.trim())

/** An editor's breakdown (the trends' and the funnels' editors have the same). */
export type BreakdownChoice = Pick<TrendQuery, 'breakdown' | 'breakdownType' | 'breakdownGroupTypeIndex'>

/** Whether the breakdown is complete: its value, and a group breakdown's group type. */
export const breakdownComplete = (q: BreakdownChoice) =>
  !!q.breakdown?.trim() && (q.breakdownType !== 'group' || q.breakdownGroupTypeIndex !== null)

/** A complete breakdown in the API's words (`breakdown_type`, `breakdown`, a group's index); none while incomplete. */
export function breakdownFields(q: BreakdownChoice): Record<string, unknown> {
  if (!breakdownComplete(q)) return {}
  const value = q.breakdown!.trim()
  return {
    breakdown_type: q.breakdownType,
    breakdown: q.breakdownType === 'cohort' ? [value === 'all' ? 'all' : Number(value)] : value,
    ...(q.breakdownType === 'group' ? { breakdown_group_type_index: q.breakdownGroupTypeIndex } : {}),
  }
}

/**
 * The body for POST /api/projects/:id/insights/trend/ (also what its ?format=csv takes). Incomplete parts
 * are left out until complete (so typing never fails the request): series, filters, the breakdown, and the
 * formula while any series is incomplete (its letters would name other series).
 */
export function trendBody(query: TrendQuery): Record<string, unknown> {
  const entity = (s: Series, order: number) => ({
    id: s.kind === 'actions' ? Number(s.id) : s.id.trim(),
    type: s.kind,
    // Wren sorts series by order, a zero counting as -1: one-based keeps the page's order (and the formula's letters).
    order: order + 1,
    math: s.math,
    ...(PROPERTY_MATHS.has(s.math) ? { math_property: s.mathProperty!.trim() } : {}),
    ...(completeFilters(s.properties).length ? { properties: completeFilters(s.properties) } : {}),
  })
  const ready = (kind: Series['kind']) => query.series.flatMap((s, i) => (s.kind === kind && seriesComplete(s) ? [entity(s, i)] : []))
  const body: Record<string, unknown> = {
    events: ready('events'),
    actions: ready('actions'),
    date_from: query.dateFrom,
    interval: query.interval,
    display: DISPLAYS[query.display],
  }
  if (query.dateTo) body.date_to = query.dateTo
  const properties = completeFilters(query.properties)
  if (properties.length) body.properties = properties
  if (query.filterTestAccounts) body.filter_test_accounts = true
  Object.assign(body, breakdownFields(query))
  if (query.compare) body.compare = true
  if (query.formula.trim() && query.series.every(seriesComplete)) body.formula = query.formula.trim()
  return body
}
