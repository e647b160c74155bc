// What a trend may cost (issue 30): a breakdown's values are ranked and summed into "Other" in ClickHouse,
// so that at most breakdown_limit + 1 values per series reach Wren however many the events hold; and a
// query past its memory bound is refused with a 400 naming the bound, rather than taking the machine's
// memory. On chDB, in this process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../services/platform/clickhouse'
import { planTrend } from '../../services/query/kinds/trends/plan'
import type { TrendRow } from '../../services/query/kinds/trends/query'
import { OTHER_LABEL } from '../../services/query/common/breakdown-sql'
import { parseTrendRequest } from '../../services/query/kinds/trends/request'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'
import { bothDoors } from '../support/trend-doors'

const NOW = '2026-03-15T12:00:00Z'
const VALUES = 200
/** The seven nested replaceAll of the issue: each level turns every 'e' into ten ('$pageview' has two). */
const BOMB = `length(${'replaceAll('.repeat(7)}event${", 'e', 'eeeeeeeeee')".repeat(7)}) > 0`

describe('trend bounds', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  const trend = (body: Record<string, unknown>) => call('POST', `/api/projects/${t.projectId}/insights/trend/`, body)

  beforeAll(async () => {
    t = await startWren({ WREN_NOW: NOW, WREN_QUERY_MAX_MEMORY_BYTES: String(256 << 20) })
    call = bothDoors(api(t))
    // VALUES emails, the i-th on i + 1 events (so their ranking is known), over two days.
    const events = []
    for (let i = 0; i < VALUES; i++)
      for (let n = 0; n <= i % 20; n++)
        events.push({
          event: '$pageview',
          distinct_id: `u${i}`,
          timestamp: `2026-03-1${3 + (n % 2)}T10:00:00Z`,
          properties: { email: `user${String(i).padStart(3, '0')}@example.com` },
        })
    await captureBatch(t, events)
    await drained(t.wren)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('ranks a breakdown in ClickHouse: at most breakdown_limit + 1 values per series reach Wren', async () => {
    const input = { events: [{ id: '$pageview' }, { id: '$pageview', math: 'dau' }], breakdown: 'email', breakdown_limit: 5 }
    const project = t.wren.projects.byId(t.projectId)!
    const plan = await planTrend(
      { clickhouse: t.wren.clickhouse, actions: { list: async () => [] }, cohorts: { list: async () => [] } },
      project,
      parseTrendRequest(input),
      { now: new Date(NOW) },
    )
    const rows = await queryRows<TrendRow>(t.wren.clickhouse, plan.query!.sql, plan.query!.params.values)
    for (const series of [0, 1]) {
      const values = new Set(rows.filter((r) => Number(r.series) === series).map((r) => r.breakdown))
      expect(values.size).toBe(6)
      expect(values.has(OTHER_LABEL)).toBe(true)
    }

    // And the answer: the five largest (19 events each: 19, 39, 59, …; then by value), then Other with the rest.
    const res = await trend(input)
    expect(res.status).toBe(200)
    const counts = res.body.result.filter((s: { action: { math: string } }) => s.action.math === 'total')
    expect(counts.map((s: { breakdown_value: string }) => s.breakdown_value)).toEqual([
      'user019@example.com',
      'user039@example.com',
      'user059@example.com',
      'user079@example.com',
      'user099@example.com',
      OTHER_LABEL,
    ])
    const all = (await trend({ events: [{ id: '$pageview' }] })).body.result[0].count
    expect(counts.reduce((sum: number, s: { count: number }) => sum + s.count, 0)).toBe(all)
    expect(res.body.next).toContain('offset=5')

    // The persons behind "Other" on a day: everyone active that day but the five kept.
    const other = await api(t)('POST', `/api/environments/${t.projectId}/query/`, {
      query: {
        kind: 'ActorsQuery',
        select: ['person'],
        limit: 1000,
        source: {
          kind: 'InsightActorsQuery',
          day: '2026-03-13',
          breakdown: OTHER_LABEL,
          source: {
            kind: 'TrendsQuery',
            series: [{ kind: 'EventsNode', event: '$pageview' }],
            breakdownFilter: { breakdown: 'email', breakdown_limit: 5 },
            dateRange: { date_from: '-7d' },
          },
        },
      },
    })
    expect(other.status, other.text).toBe(200)
    const ids = new Set(other.body.results.map((r: Array<{ distinct_ids: string[] }>) => r[0].distinct_ids[0]))
    expect(ids.size).toBe(VALUES - 5)
    for (const kept of ['u19', 'u39', 'u59', 'u79', 'u99']) expect(ids.has(kept), kept).toBe(false)
  })

  it('answers a HogQL string bomb with 400 query_too_large, holding memory to its bound', async () => {
    await captureBatch(
      t,
      Array.from({ length: 100 }, (_, i) => ({ event: '$pageview', distinct_id: `b${i}`, timestamp: '2026-03-14T11:00:00Z' })),
    )
    await drained(t.wren)
    const before = process.memoryUsage().rss
    const res = await trend({ events: [{ id: '$pageview' }], properties: [{ type: 'hogql', key: BOMB }], refresh: true })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ type: 'validation_error', code: 'query_too_large' })
    expect(res.body.detail).toContain('WREN_QUERY_MAX_MEMORY_BYTES')
    expect(process.memoryUsage().rss - before).toBeLessThan(1 << 30)
  })
})
