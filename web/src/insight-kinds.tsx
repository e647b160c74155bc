// The insight kinds, as a table: each kind's section (its editor's page), its Query API kind and legacy
// `filters.insight` name, how a saved insight of it opens in its editor, and how its result is drawn (in the
// editor's result and on a dashboard tile) and whether it has anything to draw. The saved insights page, the
// dashboards' tiles and the switch between the editors read this table; nothing else tests an insight's kind.
import type { FunctionComponent } from 'preact'
import type { Insight, TrendSeries } from './answers'
import { TrendsPage } from './pages/trends'
import { FunnelsPage } from './pages/funnels'
import { LifecyclePage, StickinessPage } from './pages/lifecycle'
import { RetentionPage } from './pages/retention'
import { PathsPage } from './pages/paths'
import { TrendResult } from './components/trend-result'
import { FunnelResult, funnelHasData } from './components/funnel-result'
import { LifecycleResult, lifecycleHasData, stickinessHasData, StickinessResult } from './components/lifecycle-result'
import { RetentionResult, retentionHasData } from './components/retention-result'
import { PathsResult, pathsHasData } from './components/paths-result'
import { editorQuery, insightDisplay, insightQuery } from './insight-query'
import { encodeFunnel, funnelEditorQuery } from './funnel-query'
import { encodeQuery, isRecord } from './query'
import { encodeState } from './kind-state'
import {
  DEFAULT_LIFECYCLE,
  DEFAULT_PATHS,
  DEFAULT_RETENTION,
  DEFAULT_STICKINESS,
  lifecycleState,
  pathsState,
  retentionState,
  stickinessState,
} from './insight-queries'

type Json = Record<string, unknown>
type SavedInsight = Pick<Insight, 'query' | 'filters'>
type Range = { dateFrom: string; dateTo: string | null }

export interface InsightKind {
  /** The editor's section in the app's URLs (/project/:id/<section>), and its name on the switch. */
  section: string
  title: string
  /** PostHog's query kind, and its legacy `filters.insight`. */
  queryKind: string
  legacy: string
  /** A saved insight's editor state as the editor's URL search part (with its date range); null when the editor cannot read it. */
  open(insight: SavedInsight): { search: string; range: Range } | null
  Editor: FunctionComponent<{ search: string; insight?: Insight | null }>
  /**
   * Draws a saved insight's result (`compact`: a tile's size). `onPoint`: a click on a trend's point or bar, given
   * the InsightActorsQuery parts of the persons behind it (a trend without a formula only; other kinds ignore it).
   */
  Result: FunctionComponent<{ insight: Insight; compact?: boolean; onPoint?: (point: TrendPoint) => void }>
  hasData(insight: Insight): boolean
}

/** A kind whose editor state `state` reads from a saved insight and `encode` writes to the URL. */
function opener<Q extends Range>(state: (insight: SavedInsight) => Q | null, encode: (q: Q) => string) {
  return (insight: SavedInsight) => {
    const q = state(insight)
    return q ? { search: encode(q), range: { dateFrom: q.dateFrom, dateTo: q.dateTo } } : null
  }
}

/** A clicked point of a saved trend: its series and bucket, and the trend's query (the persons' source). */
export interface TrendPoint {
  series: TrendSeries
  bucket: number
  source: Record<string, unknown>
}

const trendSeries = (insight: Insight) =>
  ((insight.result ?? []) as Array<TrendSeries | unknown[]>).filter((s): s is TrendSeries => !Array.isArray(s))

export const INSIGHT_KINDS: InsightKind[] = [
  {
    section: 'trends',
    title: 'Trends',
    queryKind: 'TrendsQuery',
    legacy: 'TRENDS',
    open: opener(editorQuery, encodeQuery),
    Editor: TrendsPage,
    Result: ({ insight, compact, onPoint }) => {
      const asked = editorQuery(insight)
      const source = asked && !asked.formula ? (insightQuery(asked).source as Record<string, unknown>) : null
      return (
        <TrendResult
          result={trendSeries(insight)}
          display={insightDisplay(insight)}
          compact={compact}
          insightId={insight.id}
          onPoint={onPoint && source ? (i, bucket) => onPoint({ series: trendSeries(insight)[i], bucket, source }) : undefined}
        />
      )
    },
    hasData: (insight) => trendSeries(insight).some((s) => (s.aggregated_value ?? s.count) !== 0),
  },
  {
    section: 'funnels',
    title: 'Funnels',
    queryKind: 'FunnelsQuery',
    legacy: 'FUNNELS',
    open: opener(funnelEditorQuery, encodeFunnel),
    Editor: FunnelsPage,
    Result: ({ insight, compact }) => (
      <FunnelResult
        result={insight.result}
        vizType={funnelEditorQuery(insight)?.vizType ?? 'steps'}
        compact={compact}
        insightId={insight.id}
      />
    ),
    hasData: (insight) => funnelHasData(insight.result, funnelEditorQuery(insight)?.vizType ?? 'steps'),
  },
  {
    section: 'retention',
    title: 'Retention',
    queryKind: 'RetentionQuery',
    legacy: 'RETENTION',
    open: opener(retentionState, (q) => encodeState(q, DEFAULT_RETENTION)),
    Editor: RetentionPage,
    Result: ({ insight, compact }) => (
      <RetentionResult result={insight.result} state={retentionState(insight) ?? DEFAULT_RETENTION} compact={compact} />
    ),
    hasData: (insight) => retentionHasData(insight.result),
  },
  {
    section: 'paths',
    title: 'Paths',
    queryKind: 'PathsQuery',
    legacy: 'PATHS',
    open: opener(pathsState, (q) => encodeState(q, DEFAULT_PATHS)),
    Editor: PathsPage,
    Result: ({ insight, compact }) => <PathsResult result={insight.result} compact={compact} />,
    hasData: (insight) => pathsHasData(insight.result),
  },
  {
    section: 'stickiness',
    title: 'Stickiness',
    queryKind: 'StickinessQuery',
    legacy: 'STICKINESS',
    open: opener(stickinessState, (q) => encodeState(q, DEFAULT_STICKINESS)),
    Editor: StickinessPage,
    Result: ({ insight, compact }) => <StickinessResult result={insight.result} compact={compact} />,
    hasData: (insight) => stickinessHasData(insight.result),
  },
  {
    section: 'lifecycle',
    title: 'Lifecycle',
    queryKind: 'LifecycleQuery',
    legacy: 'LIFECYCLE',
    open: opener(lifecycleState, (q) => encodeState(q, DEFAULT_LIFECYCLE)),
    Editor: LifecyclePage,
    Result: ({ insight, compact }) => (
      <LifecycleResult result={insight.result} toggled={(lifecycleState(insight) ?? DEFAULT_LIFECYCLE).toggled} compact={compact} />
    ),
    hasData: (insight) => lifecycleHasData(insight.result),
  },
]

/** The kind of a saved insight: its query's kind (bare or in an InsightVizNode), else its legacy filters' (trends by default). */
export function insightKind(insight: SavedInsight): InsightKind | null {
  if (insight.query) {
    const query = insight.query as unknown
    const source = isRecord(query) && query.kind === 'InsightVizNode' && isRecord(query.source) ? query.source : query
    return INSIGHT_KINDS.find((k) => isRecord(source) && k.queryKind === source.kind) ?? null
  }
  const filters = insight.filters as Json
  const legacy = typeof filters.insight === 'string' ? filters.insight.toUpperCase() : 'TRENDS'
  return INSIGHT_KINDS.find((k) => k.legacy === legacy) ?? null
}
