// The funnel model (FunnelRequest), read from a FunnelsQuery node (its series, funnelsFilter, breakdownFilter, …)
// or from the legacy filter dialect (a saved insight's `filters` with insight FUNNELS): one model, one plan,
// one SQL for both. PostHog's defaults (schema FunnelsFilter): steps, ordered, a 14-day window, first-touch
// attribution, step reference total. Bad input is a 400 naming the field.
import { wrenError } from '../../../platform/errors'
import { isRecord } from '../../../platform/json'
import type { DashboardFilter } from '../../kind'
import { breakdownOf, type BreakdownFields } from '../../common/breakdown'
import { withDashboardFilters } from '../../common/dashboard-filters'
import { intervalOf, type Interval } from '../../common/dates'
import { legacyFilters, listOf, nodeFilters, optInt, optRecord, optString, type InsightFilters } from '../../common/fields'
import { entity, seriesOfNodes, type SeriesEntity } from '../../common/series'

export const VIZ_TYPES = ['steps', 'time_to_convert', 'trends'] as const
export const ORDER_TYPES = ['ordered', 'strict', 'unordered'] as const
export const WINDOW_UNITS = ['second', 'minute', 'hour', 'day', 'week', 'month'] as const
export const ATTRIBUTIONS = ['first_touch', 'last_touch', 'all_events', 'step'] as const
export type VizType = (typeof VIZ_TYPES)[number]
export type OrderType = (typeof ORDER_TYPES)[number]
export type WindowUnit = (typeof WINDOW_UNITS)[number]
export type Attribution = (typeof ATTRIBUTIONS)[number]

/** Seconds per window unit, as PostHog counts them (a month is 30 days). */
export const UNIT_SECONDS: Record<WindowUnit, number> = {
  second: 1,
  minute: 60,
  hour: 3600,
  day: 86_400,
  week: 604_800,
  month: 2_592_000,
}

/** PostHog's cap on a funnel's steps (conversion trends excepted). */
export const MAX_STEPS = 32
/** Conversion trends may have more steps: as many as an event's step bits hold, without exclusions. */
export const MAX_TREND_STEPS = 64
/** The longest conversion window, in seconds (about 3,000 years): PostHog sets none, its microseconds must fit 64 bits. */
const MAX_WINDOW_SECONDS = 100_000_000_000
/** PostHog's default number of breakdown values (then "Other"). */
export const DEFAULT_BREAKDOWN_LIMIT = 25
/** A funnel's list `breakdown` names several properties (PostHog's multi-property funnel breakdown). */
const LISTS = { propertyLists: true }

export interface FunnelExclusion {
  entity: SeriesEntity
  /** The steps (0-based) between which the event disqualifies: from < step <= to. */
  fromStep: number
  toStep: number
}

export interface FunnelRequest extends BreakdownFields, InsightFilters {
  series: SeriesEntity[]
  interval: Interval
  vizType: VizType
  orderType: OrderType
  windowInterval: number
  windowUnit: WindowUnit
  exclusions: FunnelExclusion[]
  /** 0-based; time to convert and conversion trends measure from this step to `toStep`. */
  fromStep: number | null
  toStep: number | null
  stepReference: 'total' | 'previous'
  binCount: number | null
  attribution: Attribution
  /** The step whose value a `step` attribution takes (0-based). */
  attributionValue: number | null
  /** HogQL naming the actor (funnelAggregateByHogQL); null: persons, or the group of `aggregationGroup`. */
  aggregateByHogql: string | null
  aggregationGroup: number | null
}

function oneOf<T extends string>(raw: string | null, allowed: readonly T[], fallback: T, attr: string): T {
  if (raw === null) return fallback
  if (!(allowed as readonly string[]).includes(raw))
    throw wrenError('invalid_input', `${attr} must be one of ${allowed.join(', ')}; got '${raw}'.`, attr)
  return raw as T
}

interface Fields {
  series: SeriesEntity[]
  exclusions: Array<{ entity: SeriesEntity; from: unknown; to: unknown; attr: string }>
  filter: Record<string, unknown>
  names: Record<string, string>
  prefix: string
}

/** The fields both dialects share once named alike: validated into the model. */
function build(f: Fields, common: Omit<FunnelRequest, keyof ReturnType<typeof funnelOptions>>): FunnelRequest {
  return { ...common, ...funnelOptions(f, common.series.length) }
}

function funnelOptions(f: Fields, steps: number) {
  const { filter, names, prefix } = f
  const at = (k: string) => prefix + names[k]
  const str = (k: string) => optString(filter, names[k], prefix)
  const vizType = oneOf(str('viz'), VIZ_TYPES, 'steps', at('viz'))
  const orderType = oneOf(str('order'), ORDER_TYPES, 'ordered', at('order'))
  const windowUnit = oneOf(str('unit'), WINDOW_UNITS, 'day', at('unit'))
  // No window, or one below 1, is PostHog's 14 (its `funnelWindowInterval or 14`, and the app's minimum of 1).
  const window = (k: string) => optInt(filter, k, -MAX_WINDOW_SECONDS, MAX_WINDOW_SECONDS, prefix)
  const asked = window(names.window) ?? (names.days ? window(names.days) : null)
  const windowInterval = asked === null || asked < 1 ? 14 : asked
  if (windowInterval * UNIT_SECONDS[windowUnit] > MAX_WINDOW_SECONDS)
    throw wrenError('invalid_input', `${at('window')}: the conversion window is at most ${MAX_WINDOW_SECONDS} seconds.`, at('window'))
  const last = steps - 1
  const fromStep = optInt(filter, names.from, 0, MAX_TREND_STEPS, prefix)
  const toStep = optInt(filter, names.to, 0, MAX_TREND_STEPS, prefix)
  if (fromStep !== null && fromStep > last - 1)
    throw wrenError('invalid_input', `${at('from')} must be a step before the last (0 to ${last - 1}).`, at('from'))
  if (toStep !== null && (toStep > last || toStep < 1 || (fromStep !== null && toStep <= fromStep)))
    throw wrenError('invalid_input', `${at('to')} must be a step after ${at('from')} (1 to ${last}).`, at('to'))
  const stepReference = oneOf(str('reference'), ['total', 'previous'] as const, 'total', at('reference'))
  const attribution = oneOf(str('attribution'), ATTRIBUTIONS, 'first_touch', at('attribution'))
  const attributionValue = optInt(filter, names.attributionValue, 0, MAX_TREND_STEPS, prefix)
  if (attribution === 'step') {
    if (attributionValue === null || attributionValue > last)
      throw wrenError(
        'invalid_input',
        `A step attribution needs ${at('attributionValue')}: a step of the funnel (0 to ${last}).`,
        at('attributionValue'),
      )
    if (orderType === 'unordered' && attributionValue !== 0)
      throw wrenError(
        'invalid_input',
        'Only the first step can be used for breakdown attribution in unordered funnels.',
        at('attributionValue'),
      )
  }
  const exclusions = f.exclusions.map(({ entity: e, from, to, attr }) => {
    const fromN = Number(from ?? 0)
    const toN = Number(to ?? 1)
    if (!Number.isInteger(fromN) || !Number.isInteger(toN) || fromN < 0 || toN > last || fromN >= toN)
      throw wrenError('invalid_input', `${attr}: the exclusion's steps must satisfy 0 <= from < to <= ${last}.`, attr)
    if (orderType === 'unordered' && (fromN !== 0 || toN !== last))
      throw wrenError('invalid_input', 'Partial exclusions are not allowed in unordered funnels.', attr)
    for (let s = fromN; s <= toN; s++) {
      const step = f.series[s]
      if (step && step.kind === e.kind && step.id === e.id && step.properties.values.length === 0 && e.properties.values.length === 0)
        throw wrenError('invalid_input', `${attr}: an exclusion cannot be the same event as a funnel step it spans.`, attr)
    }
    return { entity: e, fromStep: fromN, toStep: toN }
  })
  // An event's step bits: one per step, then one per step an exclusion may precede (sql.ts), 64 in all.
  if (exclusions.length > 0 && steps > MAX_STEPS - 1)
    throw wrenError('invalid_input', `A funnel with exclusions has at most ${MAX_STEPS - 1} steps.`, f.prefix ? 'series' : 'events')
  if (steps > MAX_STEPS && (vizType !== 'trends' || orderType === 'unordered'))
    throw wrenError(
      'invalid_input',
      `A funnel has at most ${MAX_STEPS} steps; only ordered or strict conversion trends take up to ${MAX_TREND_STEPS}.`,
      f.prefix ? 'series' : 'events',
    )
  const binCount = optInt(filter, names.bins, 1, 90, prefix)
  const aggregateByHogql = str('hogql')
  return {
    vizType,
    orderType,
    windowInterval,
    windowUnit,
    exclusions,
    fromStep,
    toStep,
    stepReference,
    binCount,
    attribution,
    attributionValue: attribution === 'step' ? attributionValue : null,
    aggregateByHogql: aggregateByHogql && aggregateByHogql.trim() !== 'person_id' ? aggregateByHogql : null,
  }
}

const NODE_NAMES = {
  viz: 'funnelVizType',
  order: 'funnelOrderType',
  unit: 'funnelWindowIntervalUnit',
  window: 'funnelWindowInterval',
  days: '',
  from: 'funnelFromStep',
  to: 'funnelToStep',
  reference: 'funnelStepReference',
  attribution: 'breakdownAttributionType',
  attributionValue: 'breakdownAttributionValue',
  bins: 'binCount',
  hogql: 'funnelAggregateByHogQL',
}

const LEGACY_NAMES = {
  viz: 'funnel_viz_type',
  order: 'funnel_order_type',
  unit: 'funnel_window_interval_unit',
  window: 'funnel_window_interval',
  days: 'funnel_window_days',
  from: 'funnel_from_step',
  to: 'funnel_to_step',
  reference: 'funnel_step_reference',
  attribution: 'breakdown_attribution_type',
  attributionValue: 'breakdown_attribution_value',
  bins: 'bin_count',
  hogql: 'funnel_aggregate_by_hogql',
}

function checkSteps(series: SeriesEntity[], attr: string): SeriesEntity[] {
  if (series.length < 2) throw wrenError('required', 'A funnel needs at least two steps.', attr)
  if (series.length > MAX_TREND_STEPS) throw wrenError('invalid_input', `A funnel has at most ${MAX_TREND_STEPS} steps.`, attr)
  return series
}

/** A FunnelsQuery node read into the model. */
export function parseFunnelsQuery(node: Record<string, unknown>): FunnelRequest {
  const series = checkSteps(seriesOfNodes(node.series), 'series')
  const dateRange = optRecord(node, 'dateRange')
  const funnelsFilter = optRecord(node, 'funnelsFilter')
  const exclusions = listOf(funnelsFilter.exclusions, 'funnelsFilter.exclusions').map((raw, i) => {
    const attr = `funnelsFilter.exclusions[${i}]`
    if (!isRecord(raw)) throw wrenError('invalid_input', `${attr} must be an EventsNode or ActionsNode.`, attr)
    const e =
      raw.kind === 'ActionsNode'
        ? entity(raw, 'actions', attr, 'id')
        : raw.kind === 'EventsNode' || raw.kind === undefined
          ? entity(raw, 'events', attr, 'event')
          : null
    if (!e) throw wrenError('unsupported', `${attr}: Wren does not compute ${String(raw.kind)} exclusions.`, attr)
    return { entity: e, from: raw.funnelFromStep, to: raw.funnelToStep, attr }
  })
  return build(
    { series, exclusions, filter: funnelsFilter, names: NODE_NAMES, prefix: 'funnelsFilter.' },
    {
      series,
      ...nodeFilters(node, dateRange),
      interval: intervalOf(optString(node, 'interval'), 'interval'),
      ...breakdownOf(optRecord(node, 'breakdownFilter'), DEFAULT_BREAKDOWN_LIMIT, 'breakdownFilter.', LISTS),
      aggregationGroup: optInt(node, 'aggregation_group_type_index', 0, 4),
    },
  )
}

/** The legacy filter dialect (a saved insight's `filters`, insight FUNNELS) read into the same model. */
export function parseFunnelFilter(input: Record<string, unknown>): FunnelRequest {
  const listed = (raw: unknown, kind: 'events' | 'actions', attr: string) =>
    listOf(raw, attr)
      .filter((e) => typeof e !== 'string')
      .map((e, i) => entity(e, kind, `${attr}[${i}]`))
  const entities = [...listed(input.actions, 'actions', 'actions'), ...listed(input.events, 'events', 'events')]
  const series = checkSteps(
    entities
      .map((e, i) => ({ e, i, o: e.order ?? i }))
      .sort((a, b) => a.o - b.o || a.i - b.i)
      .map((x, i) => ({ ...x.e, order: i })),
    'events',
  )
  const exclusions = listOf(input.exclusions, 'exclusions').map((raw, i) => {
    const attr = `exclusions[${i}]`
    if (!isRecord(raw)) throw wrenError('invalid_input', `${attr} must be an object like {"id": "$pageview"}.`, attr)
    const e = entity(raw, raw.type === 'actions' ? 'actions' : 'events', attr)
    return { entity: e, from: raw.funnel_from_step, to: raw.funnel_to_step, attr }
  })
  return build(
    { series, exclusions, filter: input, names: LEGACY_NAMES, prefix: '' },
    {
      series,
      ...legacyFilters(input),
      interval: intervalOf(optString(input, 'interval'), 'interval'),
      ...breakdownOf(input, DEFAULT_BREAKDOWN_LIMIT, '', LISTS),
      aggregationGroup: optInt(input, 'aggregation_group_type_index', 0, 4),
    },
  )
}

/** PostHog's apply_dashboard_filters for a funnel (common/dashboard-filters.ts). */
export const funnelWithDashboardFilters = (query: FunnelRequest, filters: DashboardFilter): FunnelRequest =>
  withDashboardFilters(query, filters, DEFAULT_BREAKDOWN_LIMIT, LISTS)
