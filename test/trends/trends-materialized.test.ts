// Hot event properties get columns of their own (analytics/sql/materialized-properties.ts): a property the
// trends read from the JSON gets a column, started in the background at its first read, trends read it from
// then on, and every answer stays what it was, for every operator and value kind, before and after the
// stored parts are rewritten.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../services/platform/clickhouse'
import { materializedColumnName } from '../../services/analytics/sql/materialized-properties'
import { api, captureBatch, drained, startWren, waitFor, type TestWren } from '../support/wren'
import { bothDoors } from '../support/trend-doors'

const NOW = '2026-03-15T12:00:00Z'
const QUOTED = `it's "a\\b"`

describe('materialized event properties', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  const week = { date_from: '2026-03-09', date_to: '2026-03-15' }
  const trend = async (body: Record<string, unknown>) => {
    const res = await call('POST', `/api/environments/${t.projectId}/insights/trend/?refresh=true`, { ...week, ...body })
    expect(res.status).toBe(200)
    return res.body.result.map((s: any) => [s.breakdown_value ?? null, s.data])
  }
  const filtered = (key: string, operator: string, value?: unknown) =>
    trend({ events: [{ id: '$pageview' }], properties: [{ key, operator, value, type: 'event' }] })
  // The same questions, asked before the columns exist, right after they are added, and after the backfill.
  const questions = () =>
    Promise.all([
      trend({ events: [{ id: '$pageview' }], breakdown: 'plan' }),
      trend({ events: [{ id: '$pageview' }], breakdown: QUOTED }),
      filtered('plan', 'exact', ['pro', '42']),
      filtered('plan', 'is_not', ['pro']),
      filtered('plan', 'icontains', 'R'),
      filtered('plan', 'regex', '^[0-9]+$'),
      filtered('plan', 'gt', 10),
      filtered('plan', 'is_set'),
      filtered('plan', 'is_not_set'),
      filtered(QUOTED, 'exact', ['x']),
      filtered(QUOTED, 'is_not_set'),
    ])
  const columnsOf = async () =>
    (
      await queryRows<{ name: string; type: string }>(
        t.wren.clickhouse,
        "SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = 'events' AND name LIKE 'pmat_%' ORDER BY name",
      )
    ).map((c) => [c.name, c.type])

  beforeAll(async () => {
    t = await startWren({ WREN_NOW: NOW })
    call = bothDoors(api(t))
    // The job runs only when the test says.
    await t.wren.materializer.stop()
    const ev = (day: string, properties: Record<string, unknown>) => ({
      event: '$pageview',
      distinct_id: 'u1',
      timestamp: `2026-03-${day}T10:00:00Z`,
      properties,
    })
    await captureBatch(t, [
      ev('09', { plan: 'pro', [QUOTED]: 'x', country: 'NZ' }),
      ev('09', { plan: 'free' }),
      ev('10', { plan: 42, country: 'US' }),
      ev('11', { plan: true }),
      ev('12', { plan: '' }),
      ev('13', { plan: null }),
      ev('14', {}),
      ev('15', { plan: { tier: 'gold' } }),
      ev('15', { plan: 7.5, [QUOTED]: 'y' }),
    ])
    await drained(t.wren)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('adds a column for properties read often, and answers the same from it', async () => {
    const before = await questions()
    expect(before[0]).toEqual([
      ['42', [0, 1, 0, 0, 0, 0, 0]],
      ['7.5', [0, 0, 0, 0, 0, 0, 1]],
      ['free', [1, 0, 0, 0, 0, 0, 0]],
      ['pro', [1, 0, 0, 0, 0, 0, 0]],
      ['true', [0, 0, 1, 0, 0, 0, 0]],
      ['{"tier":"gold"}', [0, 0, 0, 0, 0, 0, 1]],
      ['$$_posthog_breakdown_null_$$', [0, 0, 0, 1, 1, 1, 0]],
    ])
    expect(before[7]).toEqual([[null, [2, 1, 1, 1, 0, 0, 2]]]) // is_set: "" is set, null and missing are not
    expect(before[1].map(([value]: [string]) => value)).toEqual(['x', 'y', '$$_posthog_breakdown_null_$$'])
    expect(await columnsOf()).toEqual([])

    // Each property was read from the JSON (once earns a column); the migration's own columns ($browser)
    // are not added again.
    await trend({ events: [{ id: '$pageview' }], breakdown: '$browser' })
    expect((await t.wren.materializer.run()).sort()).toEqual([QUOTED, 'plan'].sort())
    expect(await columnsOf()).toEqual(
      [
        [materializedColumnName('plan'), 'LowCardinality(Nullable(String))'],
        [materializedColumnName(QUOTED), 'LowCardinality(Nullable(String))'],
      ].sort(),
    )
    expect(await questions()).toEqual(before)

    await waitFor(async () => {
      const [{ pending }] = await queryRows<{ pending: number }>(
        t.wren.clickhouse,
        "SELECT count() AS pending FROM system.mutations WHERE database = currentDatabase() AND table = 'events' AND NOT is_done",
      )
      return Number(pending) === 0
    })
    expect(await questions()).toEqual(before)
    // Nothing more to add: the next run finds the columns in place.
    expect(await t.wren.materializer.run()).toEqual([])
  })

  it('starts adding the column of a property at its first read from the JSON, not at the next run of the job', async () => {
    // The job runs again, on its timer (every 30 s: later than this test waits) and on first reads.
    await t.wren.materializer.start()
    const byCountry = () => trend({ events: [{ id: '$pageview' }], breakdown: 'country' })
    const before = await byCountry()
    expect(before.map(([value]: [string]) => value)).toEqual(['NZ', 'US', '$$_posthog_breakdown_null_$$'])
    await waitFor(async () => (await columnsOf()).some(([name]) => name === materializedColumnName('country')), {
      timeoutMs: 15_000,
      what: "the column of 'country'",
    })
    expect(await byCountry()).toEqual(before)
  })
})
