// Which of a person's paths a funnel times, as PostHog's funnel UDF (funnel-udf/src/steps.rs) picks it: each
// first-step event restarts the path (so the latest entry before step two is the one timed), and the furthest
// step is kept from the first path that reached it (so a person who never went past step one is timed from their
// first entry). Wren reads ordered funnels without exclusions as chains of events rather than a fold; these cases
// tell the two readings apart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'

describe('the path a funnel times', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  const query = (query: Record<string, unknown>) =>
    call('POST', `/api/environments/${t.projectId}/query/`, { query, refresh: 'force_blocking' })
  const funnel = {
    kind: 'FunnelsQuery',
    series: ['opened', 'upgraded'].map((event) => ({ kind: 'EventsNode', event })),
    dateRange: { date_from: '2026-03-01', date_to: '2026-03-14' },
  }

  beforeAll(async () => {
    t = await startWren({ WREN_NOW: '2026-03-15T12:00:00Z' })
    call = api(t)
    const ev = (event: string, distinct_id: string, timestamp: string) => ({ event, distinct_id, timestamp, properties: {} })
    await captureBatch(t, [
      // Opened twice, then upgraded 20 minutes after the second opening.
      ev('opened', 'twice', '2026-03-09T10:00:00Z'),
      ev('opened', 'twice', '2026-03-09T10:10:00Z'),
      ev('upgraded', 'twice', '2026-03-09T10:30:00Z'),
      // Browsed, opened, read, opened again (one session: minutes apart), and never upgraded.
      ev('browsed', 'browser', '2026-03-10T09:50:00Z'),
      ev('opened', 'browser', '2026-03-10T10:00:00Z'),
      ev('read', 'browser', '2026-03-10T10:05:00Z'),
      ev('opened', 'browser', '2026-03-10T10:10:00Z'),
      // Viewed, then viewed twice at one instant (the same event, twice), then again.
      ev('viewed', 'twins', '2026-03-11T10:00:00Z'),
      ev('viewed', 'twins', '2026-03-11T10:05:00.123456Z'),
      ev('viewed', 'twins', '2026-03-11T10:05:00.123456Z'),
      ev('viewed', 'twins', '2026-03-11T10:20:00Z'),
    ])
    await drained(t.wren)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('times the latest entry before the next step, twice', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await query(funnel)
      expect(res.status).toBe(200)
      expect(res.body.results.map((s: { count: number }) => s.count)).toEqual([2, 1])
      expect(res.body.results[1].average_conversion_time).toBe(1200)
      expect(res.body.results[1].median_conversion_time).toBe(1200)
    }
  })

  it('takes two identical events at one instant as two steps, and times them as the fold does', async () => {
    const viewed = (steps: number) => ({
      ...funnel,
      series: Array.from({ length: steps }, () => ({ kind: 'EventsNode', event: 'viewed' })),
    })
    // An exclusion that never happens makes Wren fold the events instead of reading chains: both must agree.
    const folded = (steps: number) => ({
      ...viewed(steps),
      funnelsFilter: { exclusions: [{ kind: 'EventsNode', event: 'never', funnelFromStep: 0, funnelToStep: steps - 1 }] },
    })
    const answer = async (q: Record<string, unknown>) => {
      const res = await query(q)
      expect(res.status).toBe(200)
      return res.body.results.map((s: Record<string, unknown>) => [s.count, s.average_conversion_time, s.median_conversion_time])
    }
    // The path is timed from the first view to the first twin (the first twin starts a chain too, but it
    // ends at the second twin, not before it), then to the second twin (0 s, which PostHog does not average). Timestamps
    // are kept to the millisecond.
    const two = [
      [1, null, null],
      [1, 300.123, 300.123],
    ]
    for (const q of [viewed(2), folded(2), viewed(2)]) expect(await answer(q)).toEqual(two)
    for (const q of [viewed(3), folded(3), viewed(3)]) expect(await answer(q)).toEqual([...two, [1, null, null]])
  })

  it('cuts the paths before step one at the first entry of a person who went no further', async () => {
    const res = await query({
      kind: 'PathsQuery',
      dateRange: funnel.dateRange,
      pathsFilter: { includeEventTypes: ['custom_event'] },
      funnelPathsFilter: { funnelPathType: 'funnel_path_before_step', funnelStep: -2, funnelSource: funnel },
    })
    expect(res.status).toBe(200)
    expect(res.body.results.map((l: { source: string; target: string; value: number }) => [l.source, l.target, l.value])).toEqual([
      ['1_browsed', '2_opened', 1],
    ])
  })
})
