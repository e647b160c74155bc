// The funnels editor's query: its state, that state in the page's URL (so a view can be shared and
// reloaded), the FunnelsQuery the Query API takes, the saved insight's query both ways, and the steps'
// conversion arithmetic the charts show. No DOM here: the unit tests run it in Node.
import type { PropertyFilter } from './api'
import { BREAKDOWN_NULL, breakdownLabel } from './chart-data'

export { breakdownLabel }
import {
  BREAKDOWN_TYPES,
  INTERVALS,
  breakdownFields,
  completeFilters,
  decodeInsightFields,
  encodeInsightFields,
  isRecord,
  parseJson,
  propertyFilters,
  type BreakdownType,
  type Interval,
} from './query'

type Json = Record<string, unknown>

export interface FunnelStep {
  kind: 'events' | 'actions'
  /** The event's name (empty: any event… once chosen; while empty the step is still being picked), or the action's id. */
  id: string
  properties: PropertyFilter[]
}

/** An event that, between two steps (0-based), takes a person out of the funnel. */
export interface Exclusion {
  event: string
  from: number
  to: number
}

export const ORDER_TYPES = [
  { value: 'ordered', label: 'Sequential' },
  { value: 'strict', label: 'Strict order' },
  { value: 'unordered', label: 'Any order' },
] as const
export type OrderType = (typeof ORDER_TYPES)[number]['value']

export const WINDOW_UNITS = ['second', 'minute', 'hour', 'day', 'week', 'month'] as const
export type WindowUnit = (typeof WINDOW_UNITS)[number]

export const VIZ_TYPES = [
  { value: 'steps', label: 'Conversion steps' },
  { value: 'trends', label: 'Historical trends' },
  { value: 'time_to_convert', label: 'Time to convert' },
] as const
export type VizType = (typeof VIZ_TYPES)[number]['value']

export interface FunnelQuery {
  steps: FunnelStep[]
  properties: PropertyFilter[]
  filterTestAccounts: boolean
  dateFrom: string
  dateTo: string | null
  /** The buckets of the conversion-over-time line. */
  interval: Interval
  breakdown: string | null
  breakdownType: BreakdownType
  breakdownGroupTypeIndex: number | null
  orderType: OrderType
  windowInterval: number
  windowUnit: WindowUnit
  exclusions: Exclusion[]
  vizType: VizType
}

export const emptyStep = (): FunnelStep => ({ kind: 'events', id: '', properties: [] })

/** PostHog's defaults (a 14-day window, sequential steps), starting from a pageview. */
export const DEFAULT_FUNNEL: FunnelQuery = {
  steps: [{ kind: 'events', id: '$pageview', properties: [] }, emptyStep()],
  properties: [],
  filterTestAccounts: false,
  dateFrom: '-7d',
  dateTo: null,
  interval: 'day',
  breakdown: null,
  breakdownType: 'event',
  breakdownGroupTypeIndex: null,
  orderType: 'ordered',
  windowInterval: 14,
  windowUnit: 'day',
  exclusions: [],
  vizType: 'steps',
}

/** A step the API can answer: its event or action chosen. */
export const stepComplete = (s: FunnelStep) => s.id.trim() !== ''

/** An exclusion the API can answer: an event, between two distinct steps that exist. */
const exclusionComplete = (e: Exclusion, steps: number) => e.event.trim() !== '' && e.from >= 0 && e.to > e.from && e.to < steps

/** The query as URL search parameters: only what differs from the defaults. Lossless (an incomplete step stays). */
export function encodeFunnel(q: FunnelQuery): string {
  const params = new URLSearchParams()
  const d = DEFAULT_FUNNEL
  if (JSON.stringify(q.steps) !== JSON.stringify(d.steps))
    params.set(
      'steps',
      JSON.stringify(q.steps.map((s) => ({ kind: s.kind, id: s.id, ...(s.properties.length ? { properties: s.properties } : {}) }))),
    )
  encodeInsightFields(params, q, d)
  if (q.orderType !== d.orderType) params.set('order', q.orderType)
  if (q.windowInterval !== d.windowInterval) params.set('window', String(q.windowInterval))
  if (q.windowUnit !== d.windowUnit) params.set('window_unit', q.windowUnit)
  if (q.exclusions.length) params.set('exclusions', JSON.stringify(q.exclusions))
  if (q.vizType !== d.vizType) params.set('viz', q.vizType)
  return params.toString()
}

const oneOf = <T extends string>(choices: readonly T[], value: unknown, fallback: T): T =>
  typeof value === 'string' && (choices as readonly string[]).includes(value) ? (value as T) : fallback

const ORDER_VALUES = ORDER_TYPES.map((o) => o.value)
const VIZ_VALUES = VIZ_TYPES.map((v) => v.value)

function readSteps(raw: unknown): FunnelStep[] {
  if (!Array.isArray(raw)) return []
  return raw.filter(isRecord).map((s) => ({
    kind: s.kind === 'actions' ? 'actions' : 'events',
    id: typeof s.id === 'string' || typeof s.id === 'number' ? String(s.id) : '',
    properties: propertyFilters(s.properties),
  }))
}

function readExclusions(raw: unknown): Exclusion[] {
  if (!Array.isArray(raw)) return []
  return raw
    .filter(isRecord)
    .map((e) => ({ event: typeof e.event === 'string' ? e.event : '', from: Number(e.from) || 0, to: Number(e.to) || 1 }))
}

const windowOf = (value: unknown, fallback: number) => {
  const n = Number(value)
  return Number.isInteger(n) && n > 0 ? n : fallback
}

/** The query a URL's search part holds; anything missing or malformed takes its default (a bad link still opens). */
export function decodeFunnel(search: string): FunnelQuery {
  const params = new URLSearchParams(search)
  const d = DEFAULT_FUNNEL
  const steps = readSteps(parseJson(params.get('steps')))
  return {
    steps: steps.length ? steps : d.steps,
    ...decodeInsightFields(params, d),
    orderType: oneOf(ORDER_VALUES, params.get('order'), d.orderType),
    windowInterval: windowOf(params.get('window'), d.windowInterval),
    windowUnit: oneOf(WINDOW_UNITS, params.get('window_unit'), d.windowUnit),
    exclusions: readExclusions(parseJson(params.get('exclusions'))),
    vizType: oneOf(VIZ_VALUES, params.get('viz'), d.vizType),
  }
}

/** The steps the API is asked about: the complete ones, in order. A funnel needs two. */
export const readySteps = (q: FunnelQuery) => q.steps.filter(stepComplete)

/**
 * The FunnelsQuery for the Query API (and a saved insight's source). Incomplete parts are left out until
 * complete, so typing never fails the request: steps, filters, exclusions, the breakdown.
 */
export function funnelsQuery(q: FunnelQuery, vizType: VizType = q.vizType): Json {
  const steps = readySteps(q)
  const series = steps.map((s) => {
    const filters = completeFilters(s.properties)
    return {
      ...(s.kind === 'actions' ? { kind: 'ActionsNode', id: Number(s.id) } : { kind: 'EventsNode', event: s.id.trim(), name: s.id.trim() }),
      ...(filters.length ? { properties: filters } : {}),
    }
  })
  // An exclusion names steps as the editor shows them; the incomplete steps the query leaves out shift them.
  const position = q.steps.map((s, i) => (stepComplete(s) ? q.steps.slice(0, i).filter(stepComplete).length : -1))
  const exclusions = q.exclusions
    .map((e) => ({ ...e, from: position[e.from] ?? -1, to: position[e.to] ?? -1 }))
    .filter((e) => exclusionComplete(e, steps.length))
    .map((e) => ({ kind: 'EventsNode', event: e.event.trim(), name: e.event.trim(), funnelFromStep: e.from, funnelToStep: e.to }))
  const query: Json = {
    kind: 'FunnelsQuery',
    series,
    dateRange: { date_from: q.dateFrom, date_to: q.dateTo },
    interval: q.interval,
    properties: completeFilters(q.properties),
    filterTestAccounts: q.filterTestAccounts,
    funnelsFilter: {
      funnelVizType: vizType,
      funnelOrderType: q.orderType,
      funnelWindowInterval: q.windowInterval,
      funnelWindowIntervalUnit: q.windowUnit,
      exclusions,
    },
  }
  const breakdown = breakdownFields(q)
  if (breakdown.breakdown !== undefined) query.breakdownFilter = breakdown
  return query
}

/** The FunnelsQuery an insight's query holds (bare or in an InsightVizNode), or null. */
export function funnelsSource(query: unknown): Json | null {
  if (!isRecord(query)) return null
  const source = query.kind === 'InsightVizNode' && isRecord(query.source) ? query.source : query
  return source.kind === 'FunnelsQuery' ? source : null
}

/** Whether a saved insight is a funnel (its query, or its legacy filters' `insight`). */
export function isFunnelInsight(insight: { query: unknown; filters: Json }): boolean {
  if (insight.query) return funnelsSource(insight.query) !== null
  return typeof insight.filters.insight === 'string' && insight.filters.insight.toUpperCase() === 'FUNNELS'
}

/** The editor's state for a saved funnel: its FunnelsQuery, or its legacy FUNNELS filters; null when it is no funnel. */
export function funnelEditorQuery(insight: { query: unknown; filters: Json }): FunnelQuery | null {
  if (!isFunnelInsight(insight)) return null
  const d = DEFAULT_FUNNEL
  const source = insight.query ? funnelsSource(insight.query)! : legacyFunnel(insight.filters)
  const ff = isRecord(source.funnelsFilter) ? source.funnelsFilter : {}
  const range = isRecord(source.dateRange) ? source.dateRange : {}
  const bf = isRecord(source.breakdownFilter) ? source.breakdownFilter : {}
  const steps = (Array.isArray(source.series) ? source.series.filter(isRecord) : []).map((s): FunnelStep => ({
    kind: s.kind === 'ActionsNode' ? 'actions' : 'events',
    id: String((s.kind === 'ActionsNode' ? s.id : s.event) ?? ''),
    properties: propertyFilters(s.properties),
  }))
  const breakdownType = oneOf(BREAKDOWN_TYPES, bf.breakdown_type, d.breakdownType)
  const rawBreakdown = Array.isArray(bf.breakdown) ? bf.breakdown[0] : bf.breakdown
  const groupIndex = typeof bf.breakdown_group_type_index === 'number' ? bf.breakdown_group_type_index : null
  return {
    steps: steps.length ? steps : d.steps,
    properties: propertyFilters(source.properties),
    filterTestAccounts: source.filterTestAccounts === true,
    dateFrom: typeof range.date_from === 'string' && range.date_from ? range.date_from : d.dateFrom,
    dateTo: typeof range.date_to === 'string' && range.date_to ? range.date_to : null,
    interval: oneOf(INTERVALS, source.interval, d.interval),
    breakdown: rawBreakdown === null || rawBreakdown === undefined || rawBreakdown === '' ? null : String(rawBreakdown),
    breakdownType,
    breakdownGroupTypeIndex: breakdownType === 'group' ? (groupIndex ?? 0) : null,
    orderType: oneOf(ORDER_VALUES, ff.funnelOrderType, d.orderType),
    windowInterval: windowOf(ff.funnelWindowInterval, d.windowInterval),
    windowUnit: oneOf(WINDOW_UNITS, ff.funnelWindowIntervalUnit, d.windowUnit),
    exclusions: (Array.isArray(ff.exclusions) ? ff.exclusions.filter(isRecord) : []).map((e) => ({
      event: typeof e.event === 'string' ? e.event : '',
      from: Number(e.funnelFromStep) || 0,
      to: Number(e.funnelToStep) || 1,
    })),
    vizType: oneOf(VIZ_VALUES, ff.funnelVizType, d.vizType),
  }
}

/** Legacy FUNNELS filters in the FunnelsQuery's words, which funnelEditorQuery reads. */
function legacyFunnel(f: Json): Json {
  const of = (list: unknown, kind: string): Json[] => (Array.isArray(list) ? list.filter(isRecord).map((e) => ({ ...e, kind })) : [])
  const entities = [...of(f.events, 'EventsNode'), ...of(f.actions, 'ActionsNode')].sort(
    (a, b) => Number(a.order ?? 0) - Number(b.order ?? 0),
  )
  return {
    series: entities.map((e) => (e.kind === 'ActionsNode' ? e : { ...e, event: e.id })),
    dateRange: { date_from: f.date_from, date_to: f.date_to },
    interval: f.interval,
    properties: f.properties,
    filterTestAccounts: f.filter_test_accounts,
    breakdownFilter: { breakdown: f.breakdown, breakdown_type: f.breakdown_type, breakdown_group_type_index: f.breakdown_group_type_index },
    funnelsFilter: {
      funnelVizType: f.funnel_viz_type,
      funnelOrderType: f.funnel_order_type,
      funnelWindowInterval: f.funnel_window_interval,
      funnelWindowIntervalUnit: f.funnel_window_interval_unit,
      exclusions: Array.isArray(f.exclusions)
        ? f.exclusions.filter(isRecord).map((e) => ({ event: e.id, funnelFromStep: e.funnel_from_step, funnelToStep: e.funnel_to_step }))
        : [],
    },
  }
}

/** The editor's query as a saved insight's `query`. */
export const funnelInsightQuery = (q: FunnelQuery): Json => ({ kind: 'InsightVizNode', source: funnelsQuery(q) })

/** A name for an unnamed funnel: its steps, as PostHog derives one ("$pageview → signed_up"). */
export function funnelName(q: FunnelQuery, actionName: (id: string) => string = (id) => `Action ${id}`): string {
  const parts = readySteps(q).map((s) => (s.kind === 'actions' ? actionName(s.id) : s.id.trim()))
  const name = parts.length ? parts.join(' → ') : 'Untitled funnel'
  return q.breakdown ? `${name} by ${q.breakdown}` : name
}

/** One step of a FunnelsQuery's steps answer (posthog/hogql_queries/insights/funnels/base.py). */
export interface FunnelStepAnswer {
  action_id: string | number | null
  name: string
  custom_name: string | null
  order: number
  count: number
  type: string
  average_conversion_time: number | null
  median_conversion_time: number | null
  breakdown?: unknown
  breakdown_value?: unknown
}

/** The time-to-convert answer. */
export interface TimeToConvertAnswer {
  bins: Array<[number, number]>
  average_conversion_time: number | null
}

/** One row of the steps chart: a step (of one breakdown value) and its share of the first and previous steps. */
export interface StepRow {
  count: number
  /** Of the first step's count (1 on the first step). */
  fromFirst: number
  /** Of the previous step's count (1 on the first step). */
  fromPrevious: number
  /** The previous step's people who did not reach this one. */
  droppedOff: number
  /** Their share of the previous step's (0 on the first step). */
  dropOffRate: number
  median: number | null
  average: number | null
}

const share = (part: number, whole: number) => (whole > 0 ? part / whole : 0)

/** The rows of one list of steps (one breakdown value's, or the whole funnel's), in order. */
export function stepRows(steps: FunnelStepAnswer[]): StepRow[] {
  const ordered = [...steps].sort((a, b) => a.order - b.order)
  const first = ordered[0]?.count ?? 0
  return ordered.map((s, i) => {
    const previous = i === 0 ? s.count : ordered[i - 1].count
    return {
      count: s.count,
      fromFirst: i === 0 ? 1 : share(s.count, first),
      fromPrevious: i === 0 ? 1 : share(s.count, previous),
      droppedOff: previous - s.count,
      dropOffRate: i === 0 ? 0 : share(previous - s.count, previous),
      median: s.median_conversion_time,
      average: s.average_conversion_time,
    }
  })
}

/** The steps answer as lists of steps, one per breakdown value (one list without a breakdown). */
export function stepLists(result: unknown): FunnelStepAnswer[][] {
  if (!Array.isArray(result) || !result.length) return []
  return Array.isArray(result[0]) ? (result as FunnelStepAnswer[][]) : [result as FunnelStepAnswer[]]
}

/** A share as the page shows it: a percentage to at most one decimal. */
export const percent = (value: number) => `${(Math.round(value * 1000) / 10).toLocaleString('en-US')}%`

/** A duration in seconds as the page shows it: "45s", "3m 20s", "2h 5m", "3d 4h". */
export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || Number.isNaN(seconds)) return '–'
  const s = Math.round(seconds)
  if (s < 60) return `${s}s`
  const units: Array<[number, string]> = [
    [86_400, 'd'],
    [3_600, 'h'],
    [60, 'm'],
    [1, 's'],
  ]
  const i = units.findIndex(([size]) => s >= size)
  const [big, bigName] = units[i]
  const [small, smallName] = units[i + 1]
  const rest = Math.floor((s % big) / small)
  return `${Math.floor(s / big)}${bigName}${rest ? ` ${rest}${smallName}` : ''}`
}
