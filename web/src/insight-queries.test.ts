import { describe, expect, it } from 'vitest'
import { createPatchStore, decodeState, encodeState } from './kind-state'
import {
  DEFAULT_LIFECYCLE,
  DEFAULT_PATHS,
  DEFAULT_RETENTION,
  DEFAULT_STICKINESS,
  lifecycleInsight,
  lifecycleQuery,
  lifecycleState,
  pathsInsight,
  pathsQuery,
  pathsName,
  pathsState,
  type PathsState,
  retentionInsight,
  retentionQuery,
  retentionState,
  stickinessInsight,
  stickinessQuery,
  stickinessState,
  type RetentionState,
} from './insight-queries'
import { meanRetention } from './components/retention-result'
import { layoutPaths, splitKey } from './components/paths-result'

describe('the new kinds’ editor state in the URL', () => {
  it('writes only what differs from the defaults, and reads it back as it was', () => {
    expect(encodeState(DEFAULT_RETENTION, DEFAULT_RETENTION)).toBe('')
    const edited: RetentionState = {
      ...DEFAULT_RETENTION,
      period: 'Week',
      totalIntervals: 4,
      returning: { kind: 'actions', id: '7' },
      breakdown: '$browser',
      breakdownType: 'event',
      dateTo: '2026-11-01',
    }
    const search = encodeState(edited, DEFAULT_RETENTION)
    expect(new URLSearchParams(search).get('period')).toBe('Week')
    expect(decodeState(search, DEFAULT_RETENTION)).toEqual(edited)
  })

  it('opens a malformed link with the defaults for what it cannot read', () => {
    expect(decodeState('totalIntervals=many&types=%7Bx&stepLimit=8', DEFAULT_PATHS)).toEqual({ ...DEFAULT_PATHS, stepLimit: 8 })
    expect(decodeState('totalIntervals="7"', DEFAULT_RETENTION).totalIntervals).toBe(DEFAULT_RETENTION.totalIntervals)
  })

  it('keeps an edit in the store and tells its listeners', () => {
    const store = createPatchStore(DEFAULT_STICKINESS)
    const seen: boolean[] = []
    store.subscribe((q) => seen.push(q.compare))
    store.set({ compare: true })
    expect(store.get().compare).toBe(true)
    expect(seen).toEqual([true])
  })
})

describe('the new kinds’ queries and saved insights', () => {
  it('saves each kind as an InsightVizNode that reopens in its editor as it was', () => {
    const lifecycle = { ...DEFAULT_LIFECYCLE, interval: 'week' as const, toggled: ['new' as const, 'dormant' as const] }
    expect(lifecycleState({ query: lifecycleInsight(lifecycle) })).toEqual(lifecycle)
    const stickiness = {
      ...DEFAULT_STICKINESS,
      series: [DEFAULT_STICKINESS.series[0], { kind: 'actions' as const, id: '3' }],
      compare: true,
    }
    expect(stickinessState({ query: stickinessInsight(stickiness) })).toEqual(stickiness)
    const retention: RetentionState = { ...DEFAULT_RETENTION, breakdown: 'plan', breakdownType: 'person', display: 'curve' }
    expect(retentionState({ query: retentionInsight(retention) })).toEqual(retention)
    const paths = {
      ...DEFAULT_PATHS,
      types: ['$pageview', 'hogql'] as PathsState['types'],
      startPoint: '/',
      stepLimit: 8,
      excludeEvents: ['$pageleave'],
      minEdgeWeight: 2,
      maxEdgeWeight: 9,
      pathGroupings: ['/product/*'],
      hogql: 'properties.$screen_name',
    }
    expect(pathsQuery(paths).pathsFilter).toMatchObject({
      minEdgeWeight: 2,
      maxEdgeWeight: 9,
      pathGroupings: ['/product/*'],
      pathsHogQLExpression: 'properties.$screen_name',
    })
    expect(pathsState({ query: pathsInsight(paths) })).toEqual(paths)
    // A URL anyone wrote (the editor's state is read from it by shape only): what is not a string or a whole number is
    // not sent, and the page does not break on it.
    const written = decodeState('?pathGroupings=[1,"/p*",null]&excludeEvents=[{}]&minEdgeWeight="two"&maxEdgeWeight=2.5', DEFAULT_PATHS)
    const filter = pathsQuery(written).pathsFilter as Record<string, unknown>
    expect(filter).toMatchObject({ pathGroupings: ['/p*'], excludeEvents: [] })
    expect(filter).not.toHaveProperty('minEdgeWeight')
    expect(filter).not.toHaveProperty('maxEdgeWeight')
    // Paths from a funnel's step: kept whole, sent as funnelPathsFilter, named in the insight's name; a funnel the
    // URL mangled is not sent.
    const funnel = { funnelPathType: 'funnel_path_before_step', funnelStep: 3, funnelSource: { kind: 'FunnelsQuery', series: [] } }
    const fromFunnel = { ...DEFAULT_PATHS, funnel: JSON.stringify(funnel) }
    expect(pathsQuery(fromFunnel).funnelPathsFilter).toEqual(funnel)
    expect(pathsState({ query: pathsInsight(fromFunnel) })).toEqual(fromFunnel)
    expect(pathsName(fromFunnel)).toBe('Page views paths before step 3 of the funnel')
    for (const mangled of ['{', JSON.stringify({ ...funnel, funnelStep: 'x' }), JSON.stringify({ ...funnel, funnelPathType: 'around' })])
      expect(pathsQuery({ ...DEFAULT_PATHS, funnel: mangled })).not.toHaveProperty('funnelPathsFilter')
    // Another kind's query is no state of this one.
    expect(lifecycleState({ query: pathsInsight(paths) })).toBeNull()
  })

  it('opens a saved insight’s legacy filters of each kind in its editor', () => {
    const lifecycle = lifecycleState({
      query: null,
      filters: {
        insight: 'LIFECYCLE',
        events: [{ id: 'signed_up', order: 0 }],
        interval: 'week',
        date_from: '-30d',
        toggledLifecycles: ['new'],
      },
    })
    expect(lifecycle).toMatchObject({ series: { kind: 'events', id: 'signed_up' }, interval: 'week', dateFrom: '-30d', toggled: ['new'] })
    const stickiness = stickinessState({
      query: null,
      filters: { insight: 'STICKINESS', events: [{ id: 'b', order: 1 }], actions: [{ id: 4, order: 0 }], compare: true },
    })
    expect(stickiness).toMatchObject({
      series: [
        { kind: 'actions', id: '4' },
        { kind: 'events', id: 'b' },
      ],
      compare: true,
    })
    const retention = retentionState({
      query: null,
      filters: {
        insight: 'RETENTION',
        target_entity: '{"id": "signed_up", "type": "events"}',
        returning_entity: { id: 3, type: 'actions' },
        period: 'Week',
        total_intervals: 5,
        breakdown: 'plan',
        breakdown_type: 'person',
      },
    })
    expect(retention).toMatchObject({
      target: { kind: 'events', id: 'signed_up' },
      returning: { kind: 'actions', id: '3' },
      period: 'Week',
      totalIntervals: 5,
      breakdown: 'plan',
    })
    const paths = pathsState({
      query: null,
      filters: { insight: 'PATHS', start_point: '/', step_limit: 7, include_event_types: ['$screen'] },
    })
    expect(paths).toMatchObject({ startPoint: '/', stepLimit: 7, types: ['$screen'] })
    expect(pathsState({ query: null, filters: { insight: 'TRENDS' } })).toBeNull()
  })

  it('leaves out what is incomplete: an event still being typed, a half-written filter', () => {
    expect(lifecycleQuery({ ...DEFAULT_LIFECYCLE, series: { kind: 'events', id: ' ' } }).series).toEqual([])
    expect(
      stickinessQuery({ ...DEFAULT_STICKINESS, series: [...DEFAULT_STICKINESS.series, { kind: 'events', id: '' }] }).series,
    ).toHaveLength(1)
    const retention = retentionQuery({ ...DEFAULT_RETENTION, properties: [{ key: '', value: 'x' }], breakdown: null })
    expect(retention.properties).toEqual([])
    expect(retention.breakdownFilter).toBeUndefined()
    expect((pathsQuery({ ...DEFAULT_PATHS, startPoint: '  ' }).pathsFilter as Record<string, unknown>).startPoint).toBeUndefined()
  })
})

describe('the charts’ arithmetic', () => {
  it('averages each interval’s share back over the cohorts that have it', () => {
    const row = (counts: number[]) => ({ date: '', label: '', values: counts.map((count) => ({ count, label: '' })) })
    // Of three daily cohorts the second has not reached the third interval, the third (nobody) not the second:
    // their values there are not counted.
    expect(meanRetention([row([4, 2, 1]), row([2, 2, 9]), row([0, 5, 5])])).toEqual([100, 75, 25])
    // An interval only cohorts of nobody have reached has no mean.
    expect(meanRetention([row([0, 0]), row([3, 1])])).toEqual([100, null])
  })

  it('lays out paths by step, a node as tall as the sessions through it, and keeps columns readable', () => {
    const layout = layoutPaths(
      [
        { source: '1_/', target: '2_/pricing', value: 3, average_conversion_time: 0 },
        { source: '1_/', target: '2_/blog', value: 1, average_conversion_time: 0 },
        { source: '2_/pricing', target: '3_/signup', value: 1, average_conversion_time: 0 },
      ],
      200,
      false,
    )
    expect(splitKey('2_/a_b')).toEqual({ step: 2, name: '/a_b' })
    const node = (key: string) => layout.nodes.find((n) => n.key === key)!
    expect(node('1_/').value).toBe(4)
    expect(node('2_/pricing').h).toBeCloseTo(node('1_/').h * 0.75)
    expect(node('3_/signup').x).toBeGreaterThan(node('2_/pricing').x)
    // Three steps never squeeze below a readable column width, whatever the screen.
    expect(layout.width).toBeGreaterThanOrEqual(3 * 170)
  })
})
