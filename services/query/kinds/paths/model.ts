// The paths model (PathsRequest), read from a PathsQuery node (its pathsFilter, dateRange, properties, …) or
// from the legacy filter dialect (a saved insight's `filters` with insight PATHS): one model, one SQL for both.
// PostHog's defaults (schema PathsFilter): 5 steps, 50 edges, every event type. Paths from a funnel's step
// (funnelPathsFilter) read the funnel through its own kind (FunnelActorsOf, wired by kinds.ts). Bad input is a
// 400 naming the field; an option Wren cannot apply (sampling, groups) is a 400 too.
import { wrenError } from '../../../platform/errors'
import { isRecord } from '../../../platform/json'
import { parsePropertyGroup, type PropertyGroup } from '../../../analytics/property-filters/parse'
import type { DashboardFilter, InsightActors } from '../../kind'
import { nestedAttrsSync } from '../../common/nested'
import { hasProperties } from '../../common/dashboard-filters'
import { listOf, optInt, optRecord, optString, truthy } from '../../common/fields'

/** PostHog's path types: page views (their URL), screens (their name), custom events (not `$…`), a HogQL expression. */
export const PATH_TYPES = ['$pageview', '$screen', 'custom_event', 'hogql'] as const
export type PathType = (typeof PATH_TYPES)[number]

/** PostHog's defaults: steps per session path, and edges answered. */
export const DEFAULT_STEP_LIMIT = 5
export const DEFAULT_EDGE_LIMIT = 50
/** Wren's bounds on them (PostHog's app offers up to 20 steps). */
export const MAX_STEP_LIMIT = 100
export const MAX_EDGE_LIMIT = 10_000
const MAX_LIST = 200

/** A path cleaning rule: every match of `regex` (RE2) in a path item is replaced by `alias`. */
export interface PathCleaning {
  regex: string
  alias: string
}

/** PostHog's funnel path types: the paths after, before, or between (from the step before to) a funnel's step. */
export const FUNNEL_PATH_TYPES = ['funnel_path_after_step', 'funnel_path_before_step', 'funnel_path_between_steps'] as const
export type FunnelPathType = (typeof FUNNEL_PATH_TYPES)[number]

/** A funnel as the paths' source: a FunnelsQuery node, or a saved insight's legacy FUNNELS filter. */
export type FunnelSource = { query: Record<string, unknown> } | { filters: Record<string, unknown> }
/** The funnel read by its own kind: the actors of one of its steps (kinds.ts wires it). */
export type FunnelActorsOf = (source: FunnelSource) => InsightActors<unknown>

/** Paths from a funnel's step (PostHog's FunnelPathsFilter): the events of the actors at `step` (1-based; negative: dropped off before it). */
export interface FunnelPaths {
  pathType: FunnelPathType
  step: number
  /** The funnel as sent (the cache key reads it). */
  source: FunnelSource
  read: InsightActors<unknown>
}

/** The field of the paths query that names the funnel or its step, in the dialect it was sent in. */
export function funnelField(funnel: FunnelPaths, field: 'source' | 'step'): string {
  if ('filters' in funnel.source) return field === 'source' ? 'funnel_filter' : 'funnel_filter.funnel_step'
  return field === 'source' ? 'funnelPathsFilter.funnelSource' : 'funnelPathsFilter.funnelStep'
}

/** A 400 about the funnel's own query (its kind names its fields from the FunnelsQuery up), named from the paths query. */
export const funnelAttr = (funnel: FunnelPaths) => (attr: string | null) =>
  attr ? `${funnelField(funnel, 'source')}.${attr}` : funnelField(funnel, 'source')

export interface PathsRequest {
  dateFrom: string | null
  dateTo: string | null
  explicitDate: boolean
  properties: PropertyGroup
  filterTestAccounts: boolean
  /** Empty: every event, page views as their URL, screens as their name. */
  includeEventTypes: PathType[]
  hogqlExpression: string | null
  startPoint: string | null
  endPoint: string | null
  stepLimit: number
  edgeLimit: number
  minEdgeWeight: number | null
  maxEdgeWeight: number | null
  excludeEvents: string[]
  /** Wildcard patterns (`*` any text): a path item matching one is that pattern. */
  pathGroupings: string[]
  /** Apply the project's path cleaning rules (its `path_cleaning_filters`). */
  pathReplacements: boolean
  localPathCleaning: PathCleaning[]
  /** The point an InsightActorsQuery asks for (PostHog reads them from pathsFilter). */
  pathStartKey: string | null
  pathEndKey: string | null
  pathDropoffKey: string | null
  /** Paths from a funnel's step; null: every person's. */
  funnel: FunnelPaths | null
}

const NODE_FIELDS = ['kind', 'dateRange', 'properties', 'filterTestAccounts', 'pathsFilter', 'funnelPathsFilter', 'samplingFactor']
const FUNNEL_FILTER_FIELDS = ['funnelPathType', 'funnelSource', 'funnelStep']
const NODE_IGNORED = ['response', 'modifiers', 'tags', 'version', 'dataColorTheme', 'aggregation_group_type_index']
const FILTER_FIELDS = [
  'includeEventTypes',
  'pathsHogQLExpression',
  'startPoint',
  'endPoint',
  'stepLimit',
  'edgeLimit',
  'minEdgeWeight',
  'maxEdgeWeight',
  'excludeEvents',
  'pathGroupings',
  'pathReplacements',
  'localPathCleaningFilters',
  'pathStartKey',
  'pathEndKey',
  'pathDropoffKey',
]

interface Names {
  types: string
  hogql: string
  start: string
  end: string
  steps: string
  edges: string
  min: string
  max: string
  exclude: string
  groupings: string
  replacements: string
  local: string
}

const NODE_NAMES: Names = {
  types: 'includeEventTypes',
  hogql: 'pathsHogQLExpression',
  start: 'startPoint',
  end: 'endPoint',
  steps: 'stepLimit',
  edges: 'edgeLimit',
  min: 'minEdgeWeight',
  max: 'maxEdgeWeight',
  exclude: 'excludeEvents',
  groupings: 'pathGroupings',
  replacements: 'pathReplacements',
  local: 'localPathCleaningFilters',
}

const LEGACY_NAMES: Names = {
  types: 'include_event_types',
  hogql: 'paths_hogql_expression',
  start: 'start_point',
  end: 'end_point',
  steps: 'step_limit',
  edges: 'edge_limit',
  min: 'min_edge_weight',
  max: 'max_edge_weight',
  exclude: 'exclude_events',
  groupings: 'path_groupings',
  replacements: 'path_replacements',
  local: 'local_path_cleaning_filters',
}

function strings(raw: unknown, attr: string): string[] {
  const list = listOf(raw, attr)
  if (list.length > MAX_LIST) throw wrenError('invalid_input', `${attr} lists at most ${MAX_LIST} values.`, attr)
  return list.map((v, i) => {
    if (typeof v !== 'string') throw wrenError('invalid_input', `${attr}[${i}] must be a string.`, `${attr}[${i}]`)
    return v
  })
}

/** A count option where PostHog reads 0 (or nothing) as its default. */
function count(filter: Record<string, unknown>, key: string, max: number, prefix: string): number | null {
  const n = optInt(filter, key, 0, max, prefix)
  return n === 0 ? null : n
}

/** The path options both dialects share once named alike. */
function pathOptions(filter: Record<string, unknown>, names: Names, prefix: string) {
  const at = (k: keyof Names) => prefix + names[k]
  const includeEventTypes = strings(filter[names.types], at('types')).map((t) => {
    if (!(PATH_TYPES as readonly string[]).includes(t))
      throw wrenError('invalid_choice', `${at('types')} takes ${PATH_TYPES.join(', ')}; got '${t}'.`, at('types'))
    return t as PathType
  })
  const hogqlExpression = optString(filter, names.hogql, prefix)
  if (includeEventTypes.includes('hogql') && !hogqlExpression)
    throw wrenError('required', `The hogql path type needs ${at('hogql')}, e.g. "event || properties.$current_url".`, at('hogql'))
  const minEdgeWeight = count(filter, names.min, 1_000_000_000, prefix)
  const maxEdgeWeight = count(filter, names.max, 1_000_000_000, prefix)
  const local = listOf(filter[names.local], at('local')).map((raw, i) => {
    const attr = `${at('local')}[${i}]`
    if (!isRecord(raw)) throw wrenError('invalid_input', `${attr} must be an object like {"regex": "/\\d+", "alias": "/:id"}.`, attr)
    // PostHog skips neither half: a missing one is an empty pattern or replacement.
    return { regex: optString(raw, 'regex', `${attr}.`) ?? '', alias: optString(raw, 'alias', `${attr}.`) ?? '' }
  })
  return {
    includeEventTypes: [...new Set(includeEventTypes)],
    hogqlExpression,
    startPoint: optString(filter, names.start, prefix),
    endPoint: optString(filter, names.end, prefix),
    stepLimit: count(filter, names.steps, MAX_STEP_LIMIT, prefix) ?? DEFAULT_STEP_LIMIT,
    edgeLimit: count(filter, names.edges, MAX_EDGE_LIMIT, prefix) ?? DEFAULT_EDGE_LIMIT,
    minEdgeWeight,
    maxEdgeWeight,
    excludeEvents: strings(filter[names.exclude], at('exclude')),
    pathGroupings: strings(filter[names.groupings], at('groupings')),
    pathReplacements: truthy(filter[names.replacements]),
    localPathCleaning: local,
  }
}

/**
 * A funnel as the paths' source, its fields named as the dialect names them: the funnel is read by its kind now,
 * so a bad one is a 400 naming the field; a step beyond the funnel's is found when it runs.
 */
function funnelPaths(
  raw: { pathType: unknown; source: unknown; step: unknown },
  attrs: { pathType: string; source: string; step: string },
  legacy: boolean,
  funnelOf: FunnelActorsOf,
): FunnelPaths {
  const { pathType, step } = raw
  if (typeof pathType !== 'string' || !(FUNNEL_PATH_TYPES as readonly string[]).includes(pathType))
    throw wrenError(
      pathType === undefined || pathType === null ? 'required' : 'invalid_choice',
      `${attrs.pathType} takes ${FUNNEL_PATH_TYPES.join(', ')}.`,
      attrs.pathType,
    )
  if (!isRecord(raw.source)) throw wrenError('required', `Paths from a funnel need the funnel: ${attrs.source}.`, attrs.source)
  if (!legacy && raw.source.kind !== undefined && raw.source.kind !== 'FunnelsQuery')
    throw wrenError('invalid_input', `${attrs.source} must be a FunnelsQuery.`, attrs.source)
  if (typeof step !== 'number' || !Number.isSafeInteger(step) || step === 0 || step === -1)
    throw wrenError(
      'invalid_input',
      `${attrs.step} must be a step of the funnel: 1 or more (those who reached it), or -2 or less (those who dropped off before it).`,
      attrs.step,
    )
  // Between steps starts at the step before: the first step has none.
  if (pathType === 'funnel_path_between_steps' && (step === 1 || step === -2))
    throw wrenError(
      'invalid_input',
      `Paths between steps end at a step after the first: ${attrs.step} 2 or more, or -3 or less.`,
      attrs.step,
    )
  const source: FunnelSource = legacy ? { filters: raw.source } : { query: { ...raw.source, kind: 'FunnelsQuery' } }
  const read = nestedAttrsSync(
    (attr) => (attr ? `${attrs.source}.${attr}` : attrs.source),
    () => funnelOf(source),
  )
  return { pathType: pathType as FunnelPathType, step, source, read }
}

function refuseGroups(raw: unknown, attr: string): void {
  if (raw === undefined || raw === null) return
  throw wrenError('unsupported', 'Paths follow persons: aggregating them by a group type is not computed.', attr)
}

/** A PathsQuery node read into the model. */
export function parsePathsQuery(node: Record<string, unknown>, funnelOf: FunnelActorsOf): PathsRequest {
  const unknown = Object.keys(node).find(
    (k) => !NODE_FIELDS.includes(k) && !NODE_IGNORED.includes(k) && node[k] !== undefined && node[k] !== null,
  )
  if (unknown) throw wrenError('unknown_field', `PathsQuery has no field '${unknown}'.`, unknown)
  const funnelFilter = node.funnelPathsFilter === undefined || node.funnelPathsFilter === null ? null : node.funnelPathsFilter
  if (funnelFilter !== null && !isRecord(funnelFilter))
    throw wrenError(
      'invalid_input',
      'funnelPathsFilter must be an object: {funnelPathType, funnelSource, funnelStep}.',
      'funnelPathsFilter',
    )
  const funnelExtra = funnelFilter
    ? Object.keys(funnelFilter).find((k) => !FUNNEL_FILTER_FIELDS.includes(k) && funnelFilter[k] !== undefined && funnelFilter[k] !== null)
    : undefined
  if (funnelExtra) throw wrenError('unknown_field', `funnelPathsFilter has no field '${funnelExtra}'.`, `funnelPathsFilter.${funnelExtra}`)
  refuseGroups(node.aggregation_group_type_index, 'aggregation_group_type_index')
  if (node.samplingFactor !== undefined && node.samplingFactor !== null && node.samplingFactor !== 1)
    throw wrenError('unsupported', 'Sampled paths (samplingFactor) are not computed: every event is read.', 'samplingFactor')
  const pathsFilter = optRecord(node, 'pathsFilter')
  const extra = Object.keys(pathsFilter).find((k) => !FILTER_FIELDS.includes(k) && pathsFilter[k] !== undefined && pathsFilter[k] !== null)
  if (extra) throw wrenError('unknown_field', `pathsFilter has no field '${extra}'.`, `pathsFilter.${extra}`)
  const dateRange = optRecord(node, 'dateRange')
  return {
    dateFrom: optString(dateRange, 'date_from', 'dateRange.'),
    dateTo: optString(dateRange, 'date_to', 'dateRange.'),
    explicitDate: truthy(dateRange.explicitDate),
    properties: parsePropertyGroup(node.properties, 'properties'),
    filterTestAccounts: truthy(node.filterTestAccounts),
    ...pathOptions(pathsFilter, NODE_NAMES, 'pathsFilter.'),
    pathStartKey: optString(pathsFilter, 'pathStartKey', 'pathsFilter.'),
    pathEndKey: optString(pathsFilter, 'pathEndKey', 'pathsFilter.'),
    pathDropoffKey: optString(pathsFilter, 'pathDropoffKey', 'pathsFilter.'),
    funnel: funnelFilter
      ? funnelPaths(
          { pathType: funnelFilter.funnelPathType, source: funnelFilter.funnelSource, step: funnelFilter.funnelStep },
          {
            pathType: 'funnelPathsFilter.funnelPathType',
            source: 'funnelPathsFilter.funnelSource',
            step: 'funnelPathsFilter.funnelStep',
          },
          false,
          funnelOf,
        )
      : null,
  }
}

/** The legacy filter dialect (a saved insight's `filters`, insight PATHS) read into the same model. */
export function parsePathsFilter(input: Record<string, unknown>, funnelOf: FunnelActorsOf): PathsRequest {
  // PostHog's filter_to_query makes a funnelPathsFilter only when both are there, its step the funnel filter's.
  const funnel =
    input.funnel_paths && input.funnel_filter
      ? funnelPaths(
          {
            pathType: input.funnel_paths,
            source: input.funnel_filter,
            step: isRecord(input.funnel_filter) ? input.funnel_filter.funnel_step : undefined,
          },
          { pathType: 'funnel_paths', source: 'funnel_filter', step: 'funnel_filter.funnel_step' },
          true,
          funnelOf,
        )
      : null
  refuseGroups(input.aggregation_group_type_index, 'aggregation_group_type_index')
  return {
    dateFrom: optString(input, 'date_from'),
    dateTo: optString(input, 'date_to'),
    explicitDate: truthy(input.explicit_date),
    properties: parsePropertyGroup(input.properties, 'properties'),
    filterTestAccounts: truthy(input.filter_test_accounts),
    ...pathOptions(input, LEGACY_NAMES, ''),
    pathStartKey: null,
    pathEndKey: null,
    pathDropoffKey: null,
    funnel,
  }
}

/** PostHog's apply_dashboard_filters for paths: the date range and the test-account filter replace the query's, properties are ANDed. */
export function pathsWithDashboardFilters(query: PathsRequest, filters: DashboardFilter): PathsRequest {
  const out = { ...query }
  if (filters.date_from || filters.date_to) {
    out.dateFrom = filters.date_from ?? null
    out.dateTo = filters.date_to ?? null
    out.explicitDate = filters.explicitDate === true
  }
  if (hasProperties(filters)) {
    const added = parsePropertyGroup(filters.properties, 'filters_override.properties')
    out.properties = query.properties.values.length ? { type: 'AND', values: [query.properties, added] } : added
  }
  if (filters.filterTestAccounts !== undefined && filters.filterTestAccounts !== null) out.filterTestAccounts = filters.filterTestAccounts
  return out
}
