// A saved insight and the trends editor's state, both ways: the editor saves its query as PostHog's
// InsightVizNode with a TrendsQuery source (what the home dashboard's insights are, services/insights/home.ts),
// and opens a saved insight's TrendsQuery, or its legacy `filters`, in the editor. A tile draws an insight with
// the display the editor has that is closest to the insight's. No DOM here: the unit tests run it in Node.
import {
  BREAKDOWN_TYPES,
  DEFAULT_QUERY,
  DISPLAYS,
  INTERVALS,
  MATHS,
  isRecord,
  propertyFilters,
  trendBody,
  type DisplayName,
  type Series,
  type TrendQuery,
} from './query'

type Json = Record<string, unknown>

/** PostHog's displays, as the editor's (and a tile's) nearest: totals displays are tables, cumulative lines are lines. */
const DISPLAY_OF: Record<string, DisplayName> = {
  ActionsLineGraph: 'line',
  ActionsLineGraphCumulative: 'line',
  ActionsBar: 'bar',
  ActionsStackedBar: 'bar',
  ActionsUnstackedBar: 'grouped',
  ActionsAreaGraph: 'area',
  BoldNumber: 'number',
  ActionsTable: 'table',
  ActionsPie: 'table',
  ActionsBarValue: 'table',
  WorldMap: 'table',
}
export const displayName = (display: unknown): DisplayName => (typeof display === 'string' ? (DISPLAY_OF[display] ?? 'line') : 'line')

/** The editor's query as a saved insight's `query`: the parts trendBody sends (complete ones only), as a TrendsQuery. */
export function insightQuery(query: TrendQuery): Json {
  const body = trendBody(query)
  const entities = [...(body.events as Json[]), ...(body.actions as Json[])].sort((a, b) => Number(a.order) - Number(b.order))
  const series = entities.map((e) => ({
    ...(e.type === 'actions' ? { kind: 'ActionsNode', id: e.id } : { kind: 'EventsNode', event: e.id, name: e.id }),
    math: e.math,
    ...(e.math_property ? { math_property: e.math_property } : {}),
    ...(e.properties ? { properties: e.properties } : {}),
  }))
  const source: Json = {
    kind: 'TrendsQuery',
    series,
    interval: query.interval,
    dateRange: { date_from: query.dateFrom, date_to: query.dateTo },
    properties: body.properties ?? [],
    filterTestAccounts: query.filterTestAccounts,
    trendsFilter: { display: DISPLAYS[query.display], ...(body.formula ? { formula: body.formula } : {}) },
  }
  if (body.breakdown !== undefined)
    source.breakdownFilter = {
      breakdown: body.breakdown,
      breakdown_type: body.breakdown_type,
      ...(body.breakdown_group_type_index !== undefined ? { breakdown_group_type_index: body.breakdown_group_type_index } : {}),
    }
  if (query.compare) source.compareFilter = { compare: true }
  return { kind: 'InsightVizNode', source }
}

/** The TrendsQuery an insight's query holds (bare or in an InsightVizNode), or null. */
function trendsSource(query: unknown): Json | null {
  if (!isRecord(query)) return null
  const source = query.kind === 'InsightVizNode' && isRecord(query.source) ? query.source : query
  return source.kind === 'TrendsQuery' ? source : null
}

/** A TrendsQuery in the legacy filter's words, which `fromFilters` reads. */
function trendsQueryFilters(q: Json): Json {
  const series = Array.isArray(q.series) ? q.series.filter(isRecord) : []
  const dateRange = isRecord(q.dateRange) ? q.dateRange : {}
  const trendsFilter = isRecord(q.trendsFilter) ? q.trendsFilter : {}
  return {
    events: series.flatMap((s, i) => (s.kind === 'ActionsNode' ? [] : [{ ...s, id: s.event, order: i }])),
    actions: series.flatMap((s, i) => (s.kind === 'ActionsNode' ? [{ ...s, order: i }] : [])),
    date_from: dateRange.date_from,
    date_to: dateRange.date_to,
    interval: q.interval,
    properties: q.properties,
    filter_test_accounts: q.filterTestAccounts,
    ...(isRecord(q.breakdownFilter) ? q.breakdownFilter : {}),
    display: trendsFilter.display,
    formula: trendsFilter.formula,
    compare: isRecord(q.compareFilter) ? q.compareFilter.compare : false,
  }
}

/** A legacy trends filter as the editor's state; what the editor has no control for takes its default. */
function fromFilters(f: Json): TrendQuery {
  const d = DEFAULT_QUERY
  const of = (list: unknown, kind: Series['kind']): Array<Json & { kind: Series['kind'] }> =>
    Array.isArray(list) ? list.filter(isRecord).map((e) => ({ ...e, kind })) : []
  const entities = [...of(f.events, 'events'), ...of(f.actions, 'actions')].sort((a, b) => Number(a.order ?? 0) - Number(b.order ?? 0))
  const series = entities.map((e): Series => ({
    kind: e.kind,
    id: e.id === null || e.id === undefined ? '' : String(e.id),
    math: typeof e.math === 'string' && MATHS.some((m) => m.value === e.math) ? e.math : 'total',
    mathProperty: typeof e.math_property === 'string' ? e.math_property : null,
    properties: propertyFilters(e.properties),
  }))
  const breakdownType = BREAKDOWN_TYPES.find((t) => t === f.breakdown_type) ?? d.breakdownType
  const rawBreakdown = Array.isArray(f.breakdown) ? f.breakdown[0] : f.breakdown
  const groupIndex = typeof f.breakdown_group_type_index === 'number' ? f.breakdown_group_type_index : null
  return {
    series: series.length ? series : d.series,
    properties: propertyFilters(f.properties),
    filterTestAccounts: f.filter_test_accounts === true,
    dateFrom: typeof f.date_from === 'string' && f.date_from ? f.date_from : d.dateFrom,
    dateTo: typeof f.date_to === 'string' && f.date_to ? f.date_to : null,
    interval: INTERVALS.find((i) => i === f.interval) ?? d.interval,
    breakdown: rawBreakdown === null || rawBreakdown === undefined || rawBreakdown === '' ? null : String(rawBreakdown),
    breakdownType,
    breakdownGroupTypeIndex: breakdownType === 'group' ? (groupIndex ?? 0) : null,
    compare: f.compare === true,
    formula: typeof f.formula === 'string' ? f.formula : '',
    display: displayName(f.display),
  }
}

/** The editor's state for a saved insight, or null when it is no trend (Wren computes trends only). */
export function editorQuery(insight: { query: unknown; filters: Json }): TrendQuery | null {
  if (insight.query) {
    const source = trendsSource(insight.query)
    return source ? fromFilters(trendsQueryFilters(source)) : null
  }
  const kind = typeof insight.filters.insight === 'string' ? insight.filters.insight.toUpperCase() : 'TRENDS'
  return kind === 'TRENDS' ? fromFilters(insight.filters) : null
}

/** How a tile draws an insight: its own display, as the nearest the editor has. */
export function insightDisplay(insight: { query: unknown; filters: Json }): DisplayName {
  const source = trendsSource(insight.query)
  if (source) return displayName(isRecord(source.trendsFilter) ? source.trendsFilter.display : undefined)
  return displayName(insight.filters.display)
}

/** A name for an unnamed insight: its series, as PostHog derives one ("$pageview count & signed_up unique users"). */
export function derivedName(query: TrendQuery, actionName: (id: string) => string = (id) => `Action ${id}`): string {
  const parts = query.series
    .filter((s) => s.id.trim())
    .map((s) => {
      const math = MATHS.find((m) => m.value === s.math)
      const what = s.kind === 'actions' ? actionName(s.id) : s.id.trim()
      return s.math === 'total' ? `${what} count` : `${what} ${math?.label.toLowerCase() ?? s.math}`
    })
  const name = parts.join(' & ') || 'Untitled insight'
  return query.breakdown ? `${name} by ${query.breakdown}` : name
}
