// Series: what an insight counts. PostHog's EventsNode and ActionsNode (or a legacy filter's events and
// actions) with their math, validated into one SeriesEntity every insight kind shares.
import { wrenError } from '../../platform/errors'
import { isRecord } from '../../platform/json'
import { parsePropertyGroup, type PropertyGroup } from '../../analytics/property-filters/parse'
import { listOf } from './fields'

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

/** Aggregating the whole insight by a group type: unique-actor math counts groups instead of persons. */
export function withAggregationGroup(series: SeriesEntity[], aggregationGroup: number | null): SeriesEntity[] {
  if (aggregationGroup !== null)
    for (const s of series)
      if (s.mathGroupTypeIndex === null && ['dau', 'weekly_active', 'monthly_active'].includes(s.math))
        s.mathGroupTypeIndex = aggregationGroup
  return series
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
  let math = (raw.math === undefined || raw.math === null || raw.math === '' ? 'total' : raw.math) as MathType
  // A funnel step's name for the first event matching its filters.
  if ((math as string) === 'first_time_for_user_with_filters') math = 'first_matching_event_for_user'
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

/**
 * An EventsNode or ActionsNode (at `attr`) as a series; any other node is refused as not computed yet (`what`: what
 * Wren would have computed over it, for the message).
 */
export function nodeEntity(node: unknown, attr: string, what: (kind: string) => string): SeriesEntity {
  if (!isRecord(node)) throw wrenError('invalid_input', `${attr} must be an EventsNode or an ActionsNode.`, attr)
  const s =
    node.kind === 'EventsNode'
      ? entity(node, 'events', attr, 'event')
      : node.kind === 'ActionsNode'
        ? entity(node, 'actions', attr, 'id')
        : null
  if (!s) throw wrenError('unsupported', `${attr}: Wren does not compute ${what(String(node.kind ?? 'untyped'))} yet.`, attr)
  if (s.kind === 'actions' && s.id === null) throw wrenError('required', `${attr}: an ActionsNode needs the action's id.`, attr)
  return s
}

/** A query node's `series`: EventsNode and ActionsNode in their order; any other node is refused as not computed yet. */
export function seriesOfNodes(raw: unknown): SeriesEntity[] {
  if (!Array.isArray(raw)) throw wrenError('required', 'The query needs series: a list of EventsNode or ActionsNode.', 'series')
  return raw.map((node, i): SeriesEntity => ({ ...nodeEntity(node, `series[${i}]`, (kind) => `${kind} series`), order: i }))
}

/**
 * A legacy filter's `actions` and `events` (a saved insight's `filters`) as series: actions first, then events,
 * stably sorted by `order` with a missing or zero order counting as -1 (as PostHog does); an action without an id is dropped.
 */
export function legacySeries(input: Record<string, unknown>): SeriesEntity[] {
  const events = listOf(input.events, 'events').filter((e) => typeof e !== 'string')
  const actions = listOf(input.actions, 'actions').filter((e) => typeof e !== 'string')
  const entities: SeriesEntity[] = [
    ...actions.map((a, i) => entity(a, 'actions', `actions[${i}]`)).filter((a) => a.id !== null),
    ...events.map((e, i) => entity(e, 'events', `events[${i}]`)),
  ]
  return entities
    .map((e, i) => ({ e, i, o: e.order || -1 }))
    .sort((a, b) => a.o - b.o || a.i - b.i)
    .map((x) => x.e)
}
