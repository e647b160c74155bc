import { describe, expect, it } from 'vitest'
import {
  DEFAULT_FUNNEL,
  decodeFunnel,
  duration,
  encodeFunnel,
  funnelEditorQuery,
  funnelInsightQuery,
  funnelsQuery,
  stepLists,
  stepRows,
  type FunnelQuery,
} from './funnel-query'
import { createFunnelStore } from './funnel-store'

const step = (name: string, order: number, count: number) => ({
  action_id: name,
  name,
  custom_name: null,
  order,
  count,
  type: 'events',
  average_conversion_time: null,
  median_conversion_time: null,
})

describe('the funnels editor’s query', () => {
  it('edits steps and keeps each exclusion on the steps it names when one is removed', () => {
    const store = createFunnelStore()
    store.setStepEvent(1, 'signed_up')
    store.addStep()
    store.setStepEvent(2, 'purchase')
    store.addStep()
    store.setStepEvent(3, 'upgraded')
    store.addExclusion()
    store.setExclusion(0, { event: '$pageleave', from: 2, to: 3 })
    store.moveStep(3, -1)
    expect(store.get().steps.map((s) => s.id)).toEqual(['$pageview', 'signed_up', 'upgraded', 'purchase'])
    store.removeStep(0)
    expect(store.get().steps.map((s) => s.id)).toEqual(['signed_up', 'upgraded', 'purchase'])
    expect(store.get().exclusions).toEqual([{ event: '$pageleave', from: 1, to: 2 }])
    store.removeStep(2)
    // The exclusion ended on the removed step: it goes. Two steps stay, whatever is removed.
    expect(store.get().exclusions).toEqual([])
    store.removeStep(0)
    expect(store.get().steps).toHaveLength(2)
  })

  it('asks only for complete steps, and moves exclusions past the incomplete ones', () => {
    const q: FunnelQuery = {
      ...DEFAULT_FUNNEL,
      steps: [
        { kind: 'events', id: '$pageview', properties: [{ key: '', value: '' }] },
        { kind: 'events', id: '', properties: [] },
        { kind: 'actions', id: '7', properties: [] },
        { kind: 'events', id: 'purchase', properties: [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }] },
      ],
      exclusions: [
        { event: '$pageleave', from: 2, to: 3 },
        { event: 'refund', from: 0, to: 1 },
      ],
      breakdown: '$browser',
    }
    expect(funnelsQuery(q)).toMatchObject({
      kind: 'FunnelsQuery',
      series: [
        { kind: 'EventsNode', event: '$pageview' },
        { kind: 'ActionsNode', id: 7 },
        { kind: 'EventsNode', event: 'purchase', properties: [{ key: '$browser', value: 'Chrome' }] },
      ],
      funnelsFilter: { funnelOrderType: 'ordered', funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day', funnelVizType: 'steps' },
      breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' },
    })
    // The second exclusion ends on the step still being picked: it waits.
    expect((funnelsQuery(q).funnelsFilter as { exclusions: unknown[] }).exclusions).toEqual([
      { kind: 'EventsNode', event: '$pageleave', name: '$pageleave', funnelFromStep: 1, funnelToStep: 2 },
    ])
    expect((funnelsQuery(q).series as Array<{ properties?: unknown }>)[0].properties).toBeUndefined()
  })

  it('keeps the whole editor in the URL and in a saved insight', () => {
    const q: FunnelQuery = {
      ...DEFAULT_FUNNEL,
      steps: [
        { kind: 'events', id: '$pageview', properties: [] },
        { kind: 'events', id: 'signed_up', properties: [] },
      ],
      orderType: 'strict',
      windowInterval: 3,
      windowUnit: 'hour',
      exclusions: [{ event: '$pageleave', from: 0, to: 1 }],
      vizType: 'time_to_convert',
      breakdown: 'plan',
      breakdownType: 'person',
      dateFrom: '-30d',
    }
    expect(decodeFunnel(encodeFunnel(q))).toEqual(q)
    expect(funnelEditorQuery({ query: funnelInsightQuery(q), filters: {} })).toEqual(q)
    expect(decodeFunnel('steps=nonsense&order=sideways&window=-2')).toEqual(DEFAULT_FUNNEL)
    // A legacy FUNNELS insight opens too.
    expect(
      funnelEditorQuery({
        query: null,
        filters: {
          insight: 'FUNNELS',
          events: [
            { id: 'signed_up', order: 1 },
            { id: '$pageview', order: 0 },
          ],
          funnel_window_interval: 2,
          funnel_window_interval_unit: 'week',
        },
      }),
    ).toMatchObject({ steps: [{ id: '$pageview' }, { id: 'signed_up' }], windowInterval: 2, windowUnit: 'week' })
    expect(funnelEditorQuery({ query: { kind: 'InsightVizNode', source: { kind: 'TrendsQuery' } }, filters: {} })).toBeNull()
  })

  it('works out each step’s conversion and drop-off', () => {
    expect(stepRows([step('b', 1, 4), step('a', 0, 8), step('c', 2, 1)])).toEqual([
      { count: 8, fromFirst: 1, fromPrevious: 1, droppedOff: 0, dropOffRate: 0, median: null, average: null },
      { count: 4, fromFirst: 0.5, fromPrevious: 0.5, droppedOff: 4, dropOffRate: 0.5, median: null, average: null },
      { count: 1, fromFirst: 0.125, fromPrevious: 0.25, droppedOff: 3, dropOffRate: 0.75, median: null, average: null },
    ])
    expect(stepRows([step('a', 0, 0), step('b', 1, 0)])[1]).toMatchObject({ fromFirst: 0, fromPrevious: 0, dropOffRate: 0 })
    expect(stepLists([step('a', 0, 1)])).toHaveLength(1)
    expect(stepLists([[step('a', 0, 1)], [step('a', 0, 2)]])).toHaveLength(2)
    expect([45, 200, 7500, 3 * 86_400 + 4 * 3600].map(duration)).toEqual(['45s', '3m 20s', '2h 5m', '3d 4h'])
  })
})
