// The table of kinds: every kind PostHog's Query API names that Wren computes, one row each (its folder
// under kinds/ exports the QueryKind). Adding a kind: a folder, a row here, and its dependencies in QueryDeps.
// A kind PostHog has that is not in the table is refused with a 400 saying Wren does not compute it yet.
import { wrenError } from '../platform/errors'
import { isRecord } from '../platform/json'
import type { InsightActors, QueryKind } from './kind'
import { hogqlQueryKind, type HogqlDeps } from './kinds/hogql'
import { trendsKind, type TrendDeps } from './kinds/trends'
import { funnelsKind, parseFunnelFilter, type FunnelDeps } from './kinds/funnels'
import { pathsQueryKind, type FunnelSource, type PathsDeps } from './kinds/paths'
import { lifecycleKind, type LifecycleDeps } from './kinds/lifecycle'
import { stickinessKind, type StickinessDeps } from './kinds/stickiness'
import { retentionKind, type RetentionDeps } from './kinds/retention'
import { eventsQueryKind, type EventsQueryDeps } from './kinds/events'
import { actorsQueryKind, type ActorsQueryDeps } from './kinds/actors'
import { experimentExposureKind, experimentKind, type ExperimentDeps } from './kinds/experiments'

/** What the kinds are built with: the union of every row's dependencies (services.ts builds it). */
export type QueryDeps = TrendDeps &
  FunnelDeps &
  PathsDeps &
  LifecycleDeps &
  StickinessDeps &
  RetentionDeps &
  EventsQueryDeps &
  ActorsQueryDeps &
  HogqlDeps &
  ExperimentDeps

/** A kind as the runner holds it: its model is opaque to the runner. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyKind = QueryKind<any, QueryDeps>

/** PathsQuery, with the funnel its paths may start from read by the funnel's row (also for saved insights' legacy filters). */
export const pathsKind = pathsQueryKind<QueryDeps>(funnelActors)

export const KINDS: Readonly<Record<string, AnyKind>> = {
  TrendsQuery: trendsKind,
  FunnelsQuery: funnelsKind,
  PathsQuery: pathsKind,
  LifecycleQuery: lifecycleKind,
  StickinessQuery: stickinessKind,
  RetentionQuery: retentionKind,
  EventsQuery: eventsQueryKind,
  ActorsQuery: actorsQueryKind<QueryDeps>(insightActors),
  HogQLQuery: hogqlQueryKind,
  ExperimentQuery: experimentKind,
  ExperimentExposureQuery: experimentExposureKind,
}

/**
 * An InsightActorsQuery's insight, parsed by its own row: how to find the actors behind one of its points
 * (the row's `actors`), and what its answer depends on. A kind without `actors` is a 400 naming the source.
 */
function insightActors(insight: Record<string, unknown>): InsightActors<QueryDeps> {
  const kind = computedKind(insight)
  const { actors } = kind
  if (!actors) throw wrenError('unsupported', `The actors behind a point of a ${kind.kind} are not computed yet.`, 'source.source')
  const query: unknown = kind.parse(insight)
  return {
    actors: (deps, run, point) => actors(deps, run, query, point),
    definitions: (deps, project) => kind.definitions?.(deps, project, query) ?? Promise.resolve(null),
  }
}

/** A funnel as paths read it (a FunnelsQuery node or a legacy FUNNELS filter), parsed by the funnel's row. */
function funnelActors(source: FunnelSource): InsightActors<QueryDeps> {
  const query = 'filters' in source ? parseFunnelFilter(source.filters) : funnelsKind.parse(source.query)
  return {
    actors: (deps, run, point) => funnelsKind.actors!(deps, run, query, point),
    definitions: (deps, project) => funnelsKind.definitions!(deps, project, query),
  }
}

/** The query kinds of PostHog's schema (NodeKind) that run a query: those not in KINDS are refused as not computed yet. */
const POSTHOG_KINDS = [
  'HogQLQuery',
  'HogQLMetadata',
  'HogQLAutocomplete',
  'HogQuery',
  'EventsQuery',
  'ActorsQuery',
  'GroupsQuery',
  'InsightActorsQuery',
  'InsightActorsQueryOptions',
  'FunnelsActorsQuery',
  'FunnelCorrelationActorsQuery',
  'StickinessActorsQuery',
  'SessionsTimelineQuery',
  'SessionAttributionExplorerQuery',
  'RevenueAnalyticsOverviewQuery',
  'TrendsQuery',
  'FunnelsQuery',
  'RetentionQuery',
  'PathsQuery',
  'StickinessQuery',
  'LifecycleQuery',
  'FunnelCorrelationQuery',
  'CalendarHeatmapQuery',
  'DatabaseSchemaQuery',
  'WebOverviewQuery',
  'WebStatsTableQuery',
  'WebGoalsQuery',
  'WebExternalClicksTableQuery',
  'WebVitalsQuery',
  'WebVitalsPathBreakdownQuery',
  'WebPageURLSearchQuery',
  'ExperimentQuery',
  'ExperimentFunnelsQuery',
  'ExperimentTrendsQuery',
  'ErrorTrackingQuery',
  'RecordingsQuery',
  'TracesQuery',
  'TraceQuery',
  'TeamTaxonomyQuery',
  'EventTaxonomyQuery',
  'ActorsPropertyTaxonomyQuery',
  'SuggestedQuestionsQuery',
  'VectorSearchQuery',
  'MarketingAnalyticsTableQuery',
  'LogsQuery',
  'SavedInsightNode',
]

/** Nodes that wrap a query in their `source` (PostHog's process_query_model runs the source). */
const WRAPPERS = ['DataTableNode', 'DataVisualizationNode', 'InsightVizNode']

/** The query a node asks, its wrappers taken off. */
export function unwrapNode(node: Record<string, unknown>): Record<string, unknown> {
  let current = node
  for (let depth = 0; WRAPPERS.includes(String(current.kind)) && depth < 4; depth++) {
    if (!isRecord(current.source)) throw wrenError('required', `A ${String(current.kind)} needs its source query.`, 'query.source')
    current = current.source
  }
  return current
}

export type KindLookup = { computed: AnyKind } | { notComputed: string }

/** The row of a node's kind; an unknown kind is a 400 naming it. */
export function kindOfNode(node: Record<string, unknown>): KindLookup {
  const name = node.kind
  if (typeof name !== 'string' || name === '') throw wrenError('required', 'The query needs a kind, e.g. "HogQLQuery".', 'query.kind')
  const row = Object.hasOwn(KINDS, name) ? KINDS[name] : undefined
  if (row) return { computed: row }
  if (POSTHOG_KINDS.includes(name)) return { notComputed: name }
  throw wrenError('parse_error', `Unknown query kind '${name}'. Wren computes: ${Object.keys(KINDS).join(', ')}.`, 'query.kind')
}

/** The row of a node's kind, or the 400 of a kind Wren does not compute. */
export function computedKind(node: Record<string, unknown>): AnyKind {
  const found = kindOfNode(node)
  if ('notComputed' in found) throw notComputed(found.notComputed)
  return found.computed
}

export const notComputed = (name: string) =>
  wrenError('unsupported', `Wren does not compute ${name} yet. It computes: ${Object.keys(KINDS).join(', ')}.`, 'query.kind')
