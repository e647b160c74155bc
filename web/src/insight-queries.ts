// The lifecycle, stickiness, retention and paths editors' queries: each one's state and defaults, the query the
// Query API takes (and a saved insight keeps, in an InsightVizNode), and a saved insight's query (or its legacy
// filters) read back into the editor. Incomplete parts (an event still being typed, a half-written filter) are left out of the query.
// No DOM here: the unit tests run it in Node.
import type { PropertyFilter } from './api'
import { entityComplete, entityName, entityNode, nodeEntity, sourceOf, type Entity } from './kind-state'
import {
  BREAKDOWN_TYPES,
  INTERVALS,
  breakdownFields,
  completeFilters,
  isRecord,
  propertyFilters,
  type BreakdownType,
  type Interval,
} from './query'

type Json = Record<string, unknown>

/** What every one of these editors holds: the date range, filters and the test-account filter. */
export interface CommonState {
  dateFrom: string
  /** null: up to now. */
  dateTo: string | null
  properties: PropertyFilter[]
  filterTestAccounts: boolean
}

const COMMON: CommonState = { dateFrom: '-7d', dateTo: null, properties: [], filterTestAccounts: false }

const commonQuery = (s: CommonState): Json => ({
  dateRange: { date_from: s.dateFrom, date_to: s.dateTo },
  properties: completeFilters(s.properties),
  filterTestAccounts: s.filterTestAccounts,
})

function commonState(source: Json): CommonState {
  const range = isRecord(source.dateRange) ? source.dateRange : {}
  return {
    dateFrom: typeof range.date_from === 'string' && range.date_from ? range.date_from : COMMON.dateFrom,
    dateTo: typeof range.date_to === 'string' && range.date_to ? range.date_to : null,
    properties: propertyFilters(source.properties),
    filterTestAccounts: source.filterTestAccounts === true,
  }
}

const oneOf = <T extends string | number>(choices: readonly T[], value: unknown, fallback: T): T =>
  (choices as readonly unknown[]).includes(value) ? (value as T) : fallback

const insightNode = (source: Json): Json => ({ kind: 'InsightVizNode', source })

/** A saved insight: its query, or its legacy filters. */
type Saved = { query: unknown; filters?: Json }

/** A JSON text's value (a legacy filter's entity may be one), or the value itself. */
function parsed(value: unknown): unknown {
  if (typeof value !== 'string') return value
  try {
    return JSON.parse(value)
  } catch {
    return undefined
  }
}

/**
 * The source node of `kind` a saved insight holds: its query's, or its legacy filters (`insight: LEGACY`) in the
 * query's words; null when it is another kind.
 */
function savedSource(insight: Saved, kind: string, legacy: string): Json | null {
  if (insight.query) return sourceOf(insight.query, kind)
  const f = insight.filters ?? {}
  if (typeof f.insight !== 'string' || f.insight.toUpperCase() !== legacy) return null
  const of = (list: unknown, type: string): Json[] => (Array.isArray(list) ? list.filter(isRecord).map((e) => ({ ...e, type })) : [])
  const series = [...of(f.events, 'events'), ...of(f.actions, 'actions')]
    .sort((a, b) => Number(a.order ?? 0) - Number(b.order ?? 0))
    .map((e) => (e.type === 'actions' ? { kind: 'ActionsNode', id: e.id } : { kind: 'EventsNode', event: e.id }))
  return {
    kind,
    series,
    interval: f.interval,
    dateRange: { date_from: f.date_from, date_to: f.date_to },
    properties: f.properties,
    filterTestAccounts: f.filter_test_accounts,
    lifecycleFilter: { toggledLifecycles: f.toggledLifecycles ?? f.toggled_lifecycles },
    compareFilter: { compare: f.compare === true || f.compare === 'true' },
    retentionFilter: {
      targetEntity: parsed(f.target_entity),
      returningEntity: parsed(f.returning_entity),
      retentionType: f.retention_type,
      period: f.period,
      totalIntervals: f.total_intervals,
      cumulative: f.cumulative,
      display: f.display,
    },
    breakdownFilter: { breakdown: f.breakdown, breakdown_type: f.breakdown_type, breakdown_group_type_index: f.breakdown_group_type_index },
    pathsFilter: {
      includeEventTypes: f.include_event_types,
      startPoint: f.start_point,
      endPoint: f.end_point,
      stepLimit: f.step_limit,
      edgeLimit: f.edge_limit,
      excludeEvents: f.exclude_events,
    },
  }
}

// Lifecycle ---------------------------------------------------------------------------------------------------

export const LIFECYCLE_STATUSES = ['new', 'returning', 'resurrecting', 'dormant'] as const
export type LifecycleStatus = (typeof LIFECYCLE_STATUSES)[number]

export interface LifecycleState extends CommonState {
  series: Entity
  interval: Interval
  /** The statuses drawn (the legend toggles them; Wren answers all four). */
  toggled: LifecycleStatus[]
}

export const DEFAULT_LIFECYCLE: LifecycleState = {
  ...COMMON,
  series: { kind: 'events', id: '$pageview' },
  interval: 'day',
  toggled: [...LIFECYCLE_STATUSES],
}

/** The LifecycleQuery the page asks (without the toggles: they change what is drawn, not the answer). */
export const lifecycleQuery = (s: LifecycleState): Json => ({
  kind: 'LifecycleQuery',
  series: entityComplete(s.series) ? [entityNode(s.series)] : [],
  interval: s.interval,
  ...commonQuery(s),
})

export const lifecycleInsight = (s: LifecycleState): Json =>
  insightNode({ ...lifecycleQuery(s), lifecycleFilter: { toggledLifecycles: s.toggled } })

export function lifecycleState(insight: Saved): LifecycleState | null {
  const source = savedSource(insight, 'LifecycleQuery', 'LIFECYCLE')
  if (!source) return null
  const filter = isRecord(source.lifecycleFilter) ? source.lifecycleFilter : {}
  const toggled = Array.isArray(filter.toggledLifecycles)
    ? LIFECYCLE_STATUSES.filter((s) => (filter.toggledLifecycles as unknown[]).includes(s))
    : DEFAULT_LIFECYCLE.toggled
  return {
    ...commonState(source),
    series: nodeEntity(Array.isArray(source.series) ? source.series[0] : undefined),
    interval: oneOf(INTERVALS, source.interval, DEFAULT_LIFECYCLE.interval),
    toggled,
  }
}

export const lifecycleName = (s: LifecycleState, actionName: (id: string) => string) =>
  `${entityName(s.series, actionName) || 'Untitled'} lifecycle`

// Stickiness --------------------------------------------------------------------------------------------------

export interface StickinessState extends CommonState {
  series: Entity[]
  interval: Interval
  compare: boolean
  /** N or more intervals, rather than exactly N. */
  cumulative: boolean
}

export const DEFAULT_STICKINESS: StickinessState = {
  ...COMMON,
  series: [{ kind: 'events', id: '$pageview' }],
  interval: 'day',
  compare: false,
  cumulative: false,
}

export const stickinessQuery = (s: StickinessState): Json => ({
  kind: 'StickinessQuery',
  series: s.series.filter(entityComplete).map((e) => entityNode(e)),
  interval: s.interval,
  ...commonQuery(s),
  stickinessFilter: { computedAs: s.cumulative ? 'cumulative' : 'non_cumulative' },
  compareFilter: { compare: s.compare },
})

export const stickinessInsight = (s: StickinessState): Json => insightNode(stickinessQuery(s))

export function stickinessState(insight: Saved): StickinessState | null {
  const source = savedSource(insight, 'StickinessQuery', 'STICKINESS')
  if (!source) return null
  const series = (Array.isArray(source.series) ? source.series : []).map(nodeEntity)
  const filter = isRecord(source.stickinessFilter) ? source.stickinessFilter : {}
  return {
    ...commonState(source),
    series: series.length ? series : DEFAULT_STICKINESS.series,
    interval: oneOf(INTERVALS, source.interval, DEFAULT_STICKINESS.interval),
    compare: isRecord(source.compareFilter) && source.compareFilter.compare === true,
    cumulative: filter.computedAs === 'cumulative',
  }
}

export const stickinessName = (s: StickinessState, actionName: (id: string) => string) =>
  `${
    s.series
      .filter(entityComplete)
      .map((e) => entityName(e, actionName))
      .join(' & ') || 'Untitled'
  } stickiness`

// Retention ---------------------------------------------------------------------------------------------------

export const RETENTION_PERIODS = ['Hour', 'Day', 'Week', 'Month'] as const
export type RetentionPeriod = (typeof RETENTION_PERIODS)[number]
export const RETENTION_TYPES = [
  { value: 'retention_first_time', label: 'for the first time' },
  { value: 'retention_recurring', label: 'recurringly' },
] as const
export type RetentionType = (typeof RETENTION_TYPES)[number]['value']

export interface RetentionState extends CommonState {
  target: Entity
  returning: Entity
  retentionType: RetentionType
  period: RetentionPeriod
  totalIntervals: number
  cumulative: boolean
  breakdown: string | null
  breakdownType: BreakdownType
  breakdownGroupTypeIndex: number | null
  display: 'table' | 'curve'
}

export const DEFAULT_RETENTION: RetentionState = {
  ...COMMON,
  target: { kind: 'events', id: '$pageview' },
  returning: { kind: 'events', id: '$pageview' },
  retentionType: 'retention_first_time',
  period: 'Day',
  totalIntervals: 8,
  cumulative: false,
  breakdown: null,
  breakdownType: 'person',
  breakdownGroupTypeIndex: null,
  display: 'table',
}

/** A retention entity (PostHog's RetentionEntity). */
const retentionEntity = (e: Entity): Json =>
  e.kind === 'actions' ? { id: Number(e.id), type: 'actions' } : { id: e.id.trim(), name: e.id.trim(), type: 'events' }

export const retentionReady = (s: RetentionState) => entityComplete(s.target) && entityComplete(s.returning)

export function retentionQuery(s: RetentionState): Json {
  const query: Json = {
    kind: 'RetentionQuery',
    ...commonQuery(s),
    retentionFilter: {
      targetEntity: retentionEntity(s.target),
      returningEntity: retentionEntity(s.returning),
      retentionType: s.retentionType,
      period: s.period,
      totalIntervals: s.totalIntervals,
      cumulative: s.cumulative,
      display: s.display === 'curve' ? 'ActionsLineGraph' : 'ActionsTable',
    },
  }
  const breakdown = breakdownFields(s)
  if (breakdown.breakdown !== undefined) query.breakdownFilter = breakdown
  return query
}

export const retentionInsight = (s: RetentionState): Json => insightNode(retentionQuery(s))

export function retentionState(insight: Saved): RetentionState | null {
  const source = savedSource(insight, 'RetentionQuery', 'RETENTION')
  if (!source) return null
  const d = DEFAULT_RETENTION
  const f = isRecord(source.retentionFilter) ? source.retentionFilter : {}
  const bf = isRecord(source.breakdownFilter) ? source.breakdownFilter : {}
  const breakdownType = oneOf(BREAKDOWN_TYPES, bf.breakdown_type, d.breakdownType)
  const rawBreakdown = Array.isArray(bf.breakdown) ? bf.breakdown[0] : bf.breakdown
  const total = Number(f.totalIntervals)
  return {
    ...commonState(source),
    target: isRecord(f.targetEntity) ? nodeEntity(f.targetEntity) : d.target,
    returning: isRecord(f.returningEntity) ? nodeEntity(f.returningEntity) : d.returning,
    retentionType: oneOf(
      RETENTION_TYPES.map((t) => t.value),
      f.retentionType,
      d.retentionType,
    ),
    period: oneOf(RETENTION_PERIODS, f.period, d.period),
    totalIntervals: Number.isInteger(total) && total > 0 ? total : d.totalIntervals,
    cumulative: f.cumulative === true,
    breakdown: rawBreakdown === null || rawBreakdown === undefined || rawBreakdown === '' ? null : String(rawBreakdown),
    breakdownType,
    breakdownGroupTypeIndex:
      breakdownType === 'group' ? (typeof bf.breakdown_group_type_index === 'number' ? bf.breakdown_group_type_index : 0) : null,
    display: f.display === 'ActionsLineGraph' ? 'curve' : 'table',
  }
}

export const retentionName = (s: RetentionState, actionName: (id: string) => string) =>
  `Retention: ${entityName(s.target, actionName)} → ${entityName(s.returning, actionName)}`

// Paths -------------------------------------------------------------------------------------------------------

export const PATH_TYPES = [
  { value: '$pageview', label: 'Page views' },
  { value: '$screen', label: 'Screen views' },
  { value: 'custom_event', label: 'Custom events' },
  { value: 'hogql', label: 'HogQL expression' },
] as const
export type PathType = (typeof PATH_TYPES)[number]['value']

export interface PathsState extends CommonState {
  types: PathType[]
  startPoint: string
  endPoint: string
  stepLimit: number
  edgeLimit: number
  excludeEvents: string[]
  /** Edges taken by fewer (more) persons are left out; null: no bound. */
  minEdgeWeight: number | null
  maxEdgeWeight: number | null
  /** Items matching a pattern (`*` any text) are one item, named by the pattern. */
  pathGroupings: string[]
  /** With the hogql type: the item of each event. */
  hogql: string
  /** Paths from a funnel's step: the FunnelPathsFilter as JSON text (kept whole in the URL); '' for none. */
  funnel: string
}

export const FUNNEL_PATH_TYPES = [
  { value: 'funnel_path_after_step', label: 'after' },
  { value: 'funnel_path_before_step', label: 'before' },
  { value: 'funnel_path_between_steps', label: 'between the step before and' },
] as const
export type FunnelPathType = (typeof FUNNEL_PATH_TYPES)[number]['value']

/** A paths query's funnel (PostHog's FunnelPathsFilter): which paths, around which step (1-based), of which funnel. */
export interface FunnelPaths {
  funnelPathType: FunnelPathType
  funnelStep: number
  funnelSource: Json
}

/** The funnel a paths state holds, read from its JSON text; null when none (or unreadable: a URL anyone wrote). */
export function funnelPaths(text: string): FunnelPaths | null {
  if (!text) return null
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch {
    return null
  }
  if (!isRecord(v) || !isRecord(v.funnelSource) || !Number.isSafeInteger(v.funnelStep)) return null
  const type = FUNNEL_PATH_TYPES.find((t) => t.value === v.funnelPathType)
  return type ? { funnelPathType: type.value, funnelStep: v.funnelStep as number, funnelSource: v.funnelSource } : null
}

export const DEFAULT_PATHS: PathsState = {
  ...COMMON,
  types: ['$pageview'],
  startPoint: '',
  endPoint: '',
  stepLimit: 5,
  edgeLimit: 50,
  excludeEvents: [],
  minEdgeWeight: null,
  maxEdgeWeight: null,
  pathGroupings: [],
  hogql: '',
  funnel: '',
}

export function pathsQuery(s: PathsState): Json {
  const filter: Json = {
    includeEventTypes: s.types,
    stepLimit: s.stepLimit,
    edgeLimit: s.edgeLimit,
    excludeEvents: texts(s.excludeEvents),
  }
  if (s.startPoint.trim()) filter.startPoint = s.startPoint.trim()
  if (s.endPoint.trim()) filter.endPoint = s.endPoint.trim()
  // The state may come from a URL anyone wrote: only whole numbers and strings are sent.
  if (Number.isInteger(s.minEdgeWeight)) filter.minEdgeWeight = s.minEdgeWeight
  if (Number.isInteger(s.maxEdgeWeight)) filter.maxEdgeWeight = s.maxEdgeWeight
  const groupings = texts(s.pathGroupings)
  if (groupings.length) filter.pathGroupings = groupings
  if (s.types.includes('hogql') && s.hogql.trim()) filter.pathsHogQLExpression = s.hogql.trim()
  const funnel = funnelPaths(s.funnel)
  return { kind: 'PathsQuery', ...commonQuery(s), pathsFilter: filter, ...(funnel ? { funnelPathsFilter: funnel } : {}) }
}

export const pathsInsight = (s: PathsState): Json => insightNode(pathsQuery(s))

export function pathsState(insight: Saved): PathsState | null {
  const source = savedSource(insight, 'PathsQuery', 'PATHS')
  if (!source) return null
  const d = DEFAULT_PATHS
  const f = isRecord(source.pathsFilter) ? source.pathsFilter : {}
  const int = (v: unknown, fallback: number) => (Number.isInteger(v) && (v as number) > 0 ? (v as number) : fallback)
  const types = Array.isArray(f.includeEventTypes)
    ? PATH_TYPES.map((t) => t.value).filter((t) => (f.includeEventTypes as unknown[]).includes(t))
    : d.types
  return {
    ...commonState(source),
    types,
    startPoint: typeof f.startPoint === 'string' ? f.startPoint : '',
    endPoint: typeof f.endPoint === 'string' ? f.endPoint : '',
    stepLimit: int(f.stepLimit, d.stepLimit),
    edgeLimit: int(f.edgeLimit, d.edgeLimit),
    excludeEvents: strings(f.excludeEvents),
    minEdgeWeight: Number.isInteger(f.minEdgeWeight) ? (f.minEdgeWeight as number) : null,
    maxEdgeWeight: Number.isInteger(f.maxEdgeWeight) ? (f.maxEdgeWeight as number) : null,
    pathGroupings: strings(f.pathGroupings),
    hogql: typeof f.pathsHogQLExpression === 'string' ? f.pathsHogQLExpression : '',
    funnel: isRecord(source.funnelPathsFilter) ? JSON.stringify(source.funnelPathsFilter) : '',
  }
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((e): e is string => typeof e === 'string') : [])
/** The list's strings, trimmed, without the empty ones (a comma-separated input's). */
const texts = (v: unknown): string[] =>
  strings(v)
    .map((e) => e.trim())
    .filter(Boolean)

export function pathsName(s: PathsState): string {
  const what = s.types.length ? s.types.map((t) => PATH_TYPES.find((p) => p.value === t)?.label ?? t).join(', ') : 'All events'
  const funnel = funnelPaths(s.funnel)
  const around = funnel ? ` ${funnelPathsLabel(funnel)}` : ''
  return `${what} paths${s.startPoint.trim() ? ` from ${s.startPoint.trim()}` : ''}${s.endPoint.trim() ? ` to ${s.endPoint.trim()}` : ''}${around}`
}

/** "after step 2 of the funnel", "before step 3 …", "between the step before and step 2 …". */
export function funnelPathsLabel(f: FunnelPaths): string {
  const type = FUNNEL_PATH_TYPES.find((t) => t.value === f.funnelPathType)!
  const step = f.funnelStep > 0 ? `step ${f.funnelStep}` : `the drop-off before step ${-f.funnelStep}`
  return `${type.label} ${step} of the funnel`
}
