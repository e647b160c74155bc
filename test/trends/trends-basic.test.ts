// Trends over HTTP on events ingested through capture with historical timestamps: series, math, dates,
// intervals, displays, compare, formula, caching, CSV and bad input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'
import { bothDoors } from '../support/trend-doors'

const NOW = '2026-03-15T12:00:00Z'

describe('insights trend', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  const trend = (body: Record<string, unknown>, query = '') =>
    call('POST', `/api/environments/${t.projectId}/insights/trend/${query}`, body)

  beforeAll(async () => {
    t = await startWren({ WREN_NOW: NOW })
    call = bothDoors(api(t))
    const ev = (event: string, distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}) => ({
      event,
      distinct_id,
      timestamp,
      properties,
    })
    await captureBatch(t, [
      ev('$pageview', 'u1', '2026-03-09T10:00:00Z', {
        $browser: 'Chrome',
        price: 10,
        $session_id: 's1',
        $set: { email: 'a@example.com', plan: 'pro' },
      }),
      ev('$pageview', 'u1', '2026-03-09T11:00:00Z', { $browser: 'Chrome', price: 20, $session_id: 's1' }),
      ev('$pageview', 'u2', '2026-03-10T09:00:00Z', {
        $browser: 'Safari',
        price: 5,
        $session_id: 's2',
        $set: { email: 'b@test.dev', plan: 'free' },
      }),
      ev('$pageview', 'u3', '2026-03-12T23:30:00Z', { $browser: 'Firefox', $session_id: 's3' }),
      ev('$pageview', 'u1', '2026-03-15T08:00:00Z', { $browser: 'Chrome', price: 'x', $session_id: 's4' }),
      ev('signed_up', 'u2', '2026-03-10T09:05:00Z', { plan: 'free' }),
      ev('signed_up', 'u3', '2026-03-13T00:30:00Z', { plan: 'pro' }),
      ev('$pageview', 'u4', '2026-03-01T12:00:00Z', { $browser: 'Chrome' }),
    ])
    await drained(t.wren)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('counts a daily series over the default range (-7d: 8 buckets, today included)', async () => {
    const res = await trend({ events: [{ id: '$pageview' }] })
    expect(res.status).toBe(200)
    expect(res.body.is_cached).toBe(false)
    expect(res.body.timezone).toBe('UTC')
    const [s] = res.body.result
    expect(s.days).toEqual(['2026-03-08', '2026-03-09', '2026-03-10', '2026-03-11', '2026-03-12', '2026-03-13', '2026-03-14', '2026-03-15'])
    expect(s.labels).toEqual([
      '8-Mar-2026',
      '9-Mar-2026',
      '10-Mar-2026',
      '11-Mar-2026',
      '12-Mar-2026',
      '13-Mar-2026',
      '14-Mar-2026',
      '15-Mar-2026',
    ])
    expect(s.data).toEqual([0, 2, 1, 0, 1, 0, 0, 1])
    expect(s.count).toBe(5)
    expect(s.label).toBe('$pageview')
    expect(s.action).toMatchObject({ id: '$pageview', type: 'events', order: 0, math: 'total' })
  })

  it('takes GET with JSON-encoded lists in the query string and caches until new data arrives', async () => {
    const q = `?events=${encodeURIComponent(JSON.stringify([{ id: 'signed_up' }]))}&date_from=-7d`
    const first = await call('GET', `/api/projects/${t.projectId}/insights/trend/${q}`)
    expect(first.status).toBe(200)
    expect(first.body.result[0].data).toEqual([0, 0, 1, 0, 0, 1, 0, 0])
    const second = await call('GET', `/api/projects/${t.projectId}/insights/trend/${q}`)
    expect(second.body.is_cached).toBe(true)
    expect(second.body.last_refresh).toBe(first.body.last_refresh)
    const refreshed = await call('GET', `/api/projects/${t.projectId}/insights/trend/${q}&refresh=true`)
    expect(refreshed.body.is_cached).toBe(false)
    await captureBatch(t, [{ event: 'signed_up', distinct_id: 'u9', timestamp: '2026-03-14T10:00:00Z', properties: {} }])
    await drained(t.wren)
    const after = await call('GET', `/api/projects/${t.projectId}/insights/trend/${q}`)
    expect(after.body.is_cached).toBe(false)
    expect(after.body.result[0].data).toEqual([0, 0, 1, 0, 0, 1, 1, 0])
  })

  it('computes dau, unique_session and property math', async () => {
    const res = await trend({
      date_from: '2026-03-09',
      date_to: '2026-03-15',
      events: [
        { id: '$pageview', math: 'dau' },
        { id: '$pageview', math: 'unique_session' },
        { id: '$pageview', math: 'sum', math_property: 'price' },
        { id: '$pageview', math: 'avg', math_property: 'price' },
        { id: '$pageview', math: 'median', math_property: 'price' },
      ],
    })
    expect(res.status).toBe(200)
    const data = res.body.result.map((s: any) => s.data)
    expect(data[0]).toEqual([1, 1, 0, 1, 0, 0, 1])
    expect(data[1]).toEqual([1, 1, 0, 1, 0, 0, 1])
    expect(data[2]).toEqual([30, 5, 0, 0, 0, 0, 0])
    expect(data[3]).toEqual([15, 5, 0, 0, 0, 0, 0])
    expect(data[4]).toEqual([15, 5, 0, 0, 0, 0, 0])
  })

  const week = { date_from: '2026-03-09', date_to: '2026-03-15' }
  const dataOf = async (body: Record<string, unknown>) => {
    const res = await trend({ ...week, ...body })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body.result
  }

  it('breaks down by event property, ranked by total then value, with limit and other', async () => {
    const result = await dataOf({ events: [{ id: '$pageview' }], breakdown: '$browser' })
    expect(result.map((s: any) => [s.breakdown_value, s.label, s.data, s.count])).toEqual([
      ['Chrome', 'Chrome', [2, 0, 0, 0, 0, 0, 1], 3],
      ['Firefox', 'Firefox', [0, 0, 0, 1, 0, 0, 0], 1],
      ['Safari', 'Safari', [0, 1, 0, 0, 0, 0, 0], 1],
    ])
    const limited = await dataOf({ events: [{ id: '$pageview' }], breakdown: '$browser', breakdown_limit: 2 })
    expect(limited.map((s: any) => [s.breakdown_value, s.data])).toEqual([
      ['Chrome', [2, 0, 0, 0, 0, 0, 1]],
      ['Firefox', [0, 0, 0, 1, 0, 0, 0]],
      ['$$_posthog_breakdown_other_$$', [0, 1, 0, 0, 0, 0, 0]],
    ])
  })

  it('puts the null bucket after values and labels multi-series breakdowns with the series name', async () => {
    const result = await dataOf({ events: [{ id: '$pageview' }], breakdown: 'price' })
    expect(result.map((s: any) => s.breakdown_value)).toEqual(['10', '20', '5', 'x', '$$_posthog_breakdown_null_$$'])
    const two = await dataOf({ events: [{ id: '$pageview' }, { id: 'signed_up' }], breakdown: 'plan', breakdown_type: 'person' })
    expect(two.map((s: any) => [s.label, s.data])).toEqual([
      ['$pageview - pro', [2, 0, 0, 0, 0, 0, 1]],
      ['$pageview - free', [0, 1, 0, 0, 0, 0, 0]],
      ['$pageview - $$_posthog_breakdown_null_$$', [0, 0, 0, 1, 0, 0, 0]],
      ['signed_up - free', [0, 1, 0, 0, 0, 0, 0]],
      ['signed_up - $$_posthog_breakdown_null_$$', [0, 0, 0, 0, 1, 1, 0]],
    ])
  })

  it('breaks down by up to three properties at once', async () => {
    const breakdowns = [{ property: '$browser' }, { property: 'plan', type: 'person' }]
    const result = await dataOf({ events: [{ id: '$pageview' }], breakdowns })
    expect(result.map((s: any) => [s.breakdown_value, s.label, s.count])).toEqual([
      [['Chrome', 'pro'], 'Chrome::pro', 3],
      // A value with a null part ranks after the real values (as PostHog ranks it).
      [['Safari', 'free'], 'Safari::free', 1],
      [['Firefox', '$$_posthog_breakdown_null_$$'], 'Firefox::$$_posthog_breakdown_null_$$', 1],
    ])
    const limited = await dataOf({ events: [{ id: '$pageview' }], breakdowns, breakdown_limit: 1 })
    expect(limited.map((s: any) => s.label)).toEqual(['Chrome::pro', '$$_posthog_breakdown_other_$$::$$_posthog_breakdown_other_$$'])
  })

  it('compares with the previous period (-7d keeps weekdays aligned)', async () => {
    const res = await trend({ events: [{ id: '$pageview' }], date_from: '-7d', compare: true })
    expect(res.status).toBe(200)
    const [current, previous] = res.body.result
    expect(current).toMatchObject({ compare: true, compare_label: 'current', data: [0, 2, 1, 0, 1, 0, 0, 1], count: 5 })
    expect(current.days[0]).toBe('2026-03-08')
    expect(previous).toMatchObject({ compare: true, compare_label: 'previous', data: [1, 0, 0, 0, 0, 0, 0, 0], count: 1 })
    expect(previous.days).toEqual([
      '2026-03-01',
      '2026-03-02',
      '2026-03-03',
      '2026-03-04',
      '2026-03-05',
      '2026-03-06',
      '2026-03-07',
      '2026-03-08',
    ])
  })

  it('applies formulas bucket by bucket, with division by zero as 0', async () => {
    const events = [{ id: '$pageview' }, { id: 'signed_up' }]
    const [sum] = await dataOf({ events, formula: 'A + B' })
    expect(sum).toMatchObject({ label: 'Formula (A + B)', data: [2, 2, 0, 1, 1, 1, 1], count: 8, action: null })
    const [ratio] = await dataOf({ events, formula: 'a/B' })
    expect(ratio.data).toEqual([0, 1, 0, 0, 0, 0, 0])
  })

  it('draws cumulative lines (dau counts each person once) and total-value displays', async () => {
    const [cumulative] = await dataOf({ events: [{ id: '$pageview' }], display: 'ActionsLineGraphCumulative' })
    expect(cumulative.data).toEqual([2, 3, 3, 4, 4, 4, 5])
    expect(cumulative.count).toBe(5)
    const [dau] = await dataOf({ events: [{ id: '$pageview', math: 'dau' }], display: 'ActionsLineGraphCumulative' })
    expect(dau.data).toEqual([1, 2, 2, 3, 3, 3, 3])
    for (const display of ['ActionsPie', 'ActionsTable', 'ActionsBarValue', 'WorldMap', 'BoldNumber']) {
      const [total] = await dataOf({ events: [{ id: '$pageview' }], display })
      expect(total).toMatchObject({ data: [], days: [], count: 0, aggregated_value: 5 })
      expect(total).not.toHaveProperty('labels')
    }
    const [people] = await dataOf({ events: [{ id: '$pageview', math: 'dau' }], display: 'ActionsPie' })
    expect(people.aggregated_value).toBe(3)
    // Bars over time, stacked (ActionsBar) or side by side (ActionsUnstackedBar): the buckets, and the display echoed.
    for (const display of ['ActionsBar', 'ActionsUnstackedBar']) {
      const [bar] = await dataOf({ events: [{ id: '$pageview' }], display })
      expect(bar.data).toEqual([2, 1, 0, 1, 0, 0, 1])
      expect(bar.filter.display).toBe(display)
    }
    const pie = await dataOf({ events: [{ id: '$pageview' }], display: 'ActionsPie', breakdown: '$browser' })
    expect(pie.map((s: any) => [s.breakdown_value, s.aggregated_value])).toEqual([
      ['Chrome', 3],
      ['Firefox', 1],
      ['Safari', 1],
    ])
  })

  it('buckets by hour, week and month with PostHog labels', async () => {
    const [hour] = await dataOf({
      events: [{ id: '$pageview' }],
      interval: 'hour',
      date_from: '2026-03-09T09:00:00Z',
      date_to: '2026-03-09T12:00:00Z',
    })
    expect(hour.days).toEqual(['2026-03-09 09:00:00', '2026-03-09 10:00:00', '2026-03-09 11:00:00', '2026-03-09 12:00:00'])
    expect(hour.labels).toEqual(['9-Mar 09:00', '9-Mar 10:00', '9-Mar 11:00', '9-Mar 12:00'])
    expect(hour.data).toEqual([0, 1, 1, 0])
    const [weekly] = await dataOf({ events: [{ id: '$pageview' }], interval: 'week', date_from: '2026-03-01', date_to: '2026-03-15' })
    expect(weekly.days).toEqual(['2026-03-01', '2026-03-08', '2026-03-15'])
    expect(weekly.labels).toEqual(['1–7 Mar', '8–14 Mar', '15-Mar-2026'])
    expect(weekly.data).toEqual([1, 4, 1])
    const [monthly] = await dataOf({ events: [{ id: '$pageview' }], interval: 'month', date_from: '2026-01-01', date_to: '2026-03-15' })
    expect(monthly.days).toEqual(['2026-01-01', '2026-02-01', '2026-03-01'])
    expect(monthly.labels).toEqual(['Jan 2026', 'Feb 2026', 'Mar 2026'])
    expect(monthly.data).toEqual([0, 0, 6])
  })

  it('resolves relative and special date forms against WREN_NOW', async () => {
    const days = async (date_from: string, date_to?: string) =>
      (await dataOf({ events: [{ id: '$pageview' }], date_from, ...(date_to ? { date_to } : {}) }))[0].days
    expect(await days('mStart')).toHaveLength(15)
    expect((await days('mStart'))[0]).toBe('2026-03-01')
    expect((await days('-1mStart', '-1mEnd')).slice(0, 1).concat((await days('-1mStart', '-1mEnd')).slice(-1))).toEqual([
      '2026-02-01',
      '2026-02-28',
    ])
    expect(await days('dStart')).toEqual(['2026-03-15'])
    expect((await days('-2w'))[0]).toBe('2026-03-01')
    expect((await days('yStart'))[0]).toBe('2026-01-01')
    expect((await days('-1y'))[0]).toBe('2025-03-15')
    expect((await days('-1q'))[0]).toBe('2025-12-14')
    expect((await days('all'))[0]).toBe('2026-03-01')
    const [h] = await dataOf({ events: [{ id: '$pageview' }], date_from: '-6h', date_to: null, interval: 'hour' })
    expect(h.days[0]).toBe('2026-03-15 06:00:00')
    expect(h.days.at(-1)).toBe('2026-03-15 12:00:00')
    expect(h.data).toEqual([0, 0, 1, 0, 0, 0, 0])
  })

  it('filters by event and person properties with every operator and nested groups', async () => {
    const data = async (properties: unknown) => (await dataOf({ events: [{ id: '$pageview' }], properties }))[0].data
    expect(await data([{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }])).toEqual([2, 0, 0, 0, 0, 0, 1])
    expect(await data([{ key: '$browser', value: ['Safari', 'Firefox'] }])).toEqual([0, 1, 0, 1, 0, 0, 0])
    expect(await data([{ key: '$browser', value: 'Chrome', operator: 'is_not' }])).toEqual([0, 1, 0, 1, 0, 0, 0])
    expect(await data([{ key: '$browser', value: 'FIRE', operator: 'icontains' }])).toEqual([0, 0, 0, 1, 0, 0, 0])
    expect(await data([{ key: '$browser', value: 'fire', operator: 'not_icontains' }])).toEqual([2, 1, 0, 0, 0, 0, 1])
    expect(await data([{ key: '$browser', value: '^(Saf|Fire)', operator: 'regex' }])).toEqual([0, 1, 0, 1, 0, 0, 0])
    expect(await data([{ key: '$browser', value: '^(Saf|Fire)', operator: 'not_regex' }])).toEqual([2, 0, 0, 0, 0, 0, 1])
    expect(await data([{ key: 'price', value: 6, operator: 'gt' }])).toEqual([2, 0, 0, 0, 0, 0, 0])
    expect(await data([{ key: 'price', value: '10', operator: 'gte' }])).toEqual([2, 0, 0, 0, 0, 0, 0])
    expect(await data([{ key: 'price', value: 10, operator: 'lt' }])).toEqual([0, 1, 0, 0, 0, 0, 0])
    expect(await data([{ key: 'price', value: 10, operator: 'lte' }])).toEqual([1, 1, 0, 0, 0, 0, 0])
    expect(await data([{ key: 'price', value: [5, 10], operator: 'between' }])).toEqual([1, 1, 0, 0, 0, 0, 0])
    expect(await data([{ key: 'price', operator: 'is_set' }])).toEqual([2, 1, 0, 0, 0, 0, 1])
    expect(await data([{ key: 'price', operator: 'is_not_set' }])).toEqual([0, 0, 0, 1, 0, 0, 0])
    expect(await data([{ key: 'email', value: 'example.com', operator: 'icontains', type: 'person' }])).toEqual([2, 0, 0, 0, 0, 0, 1])
    expect(
      await data({
        type: 'OR',
        values: [
          { type: 'AND', values: [{ key: '$browser', value: 'Safari' }] },
          {
            type: 'AND',
            values: [
              { key: 'plan', value: 'pro', type: 'person' },
              { key: 'price', value: 15, operator: 'gt' },
            ],
          },
        ],
      }),
    ).toEqual([1, 1, 0, 0, 0, 0, 0])
    const [perSeries, global] = await dataOf({
      events: [{ id: '$pageview', properties: [{ key: '$browser', value: 'Safari' }] }, { id: '$pageview' }],
      properties: [{ key: 'price', operator: 'is_set' }],
    })
    expect(perSeries.data).toEqual([0, 1, 0, 0, 0, 0, 0])
    expect(global.data).toEqual([2, 1, 0, 0, 0, 0, 1])
  })

  it("filters out test accounts using the project's test_account_filters", async () => {
    const patch = await call('PATCH', `/api/projects/${t.projectId}/`, {
      test_account_filters: [{ key: 'email', operator: 'not_icontains', value: '@test.dev', type: 'person' }],
    })
    expect(patch.status).toBe(200)
    const [on] = await dataOf({ events: [{ id: '$pageview' }], filter_test_accounts: true })
    expect(on.data).toEqual([2, 0, 0, 1, 0, 0, 1])
    const [off] = await dataOf({ events: [{ id: '$pageview' }], filter_test_accounts: false })
    expect(off.data).toEqual([2, 1, 0, 1, 0, 0, 1])
  })

  it('answers ?format=csv with one row per series under the first series labels', async () => {
    const res = await call('POST', `/api/environments/${t.projectId}/insights/trend/?format=csv`, {
      ...week,
      events: [{ id: '$pageview', custom_name: 'Views' }, { id: 'signed_up' }],
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/text\/csv/)
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="export (2026-03-09 - 2026-03-15) from PostHog.csv"')
    expect(res.text).toBe(
      'series,9-Mar-2026,10-Mar-2026,11-Mar-2026,12-Mar-2026,13-Mar-2026,14-Mar-2026,15-Mar-2026\r\nViews,2,1,0,1,0,0,1\r\nsigned_up,0,1,0,0,1,1,0\r\n',
    )
    const formula = await call('POST', `/api/environments/${t.projectId}/insights/trend/?format=csv`, {
      ...week,
      events: [{ id: '$pageview' }],
      formula: 'A*0.5',
    })
    expect(formula.text.split('\r\n')[1]).toBe('Formula (A*0.5),1.0,0.5,0.0,0.5,0.0,0.0,0.5')
  })

  it('compares against compare_to and applies formulas to each period', async () => {
    const [current, previous] = await dataOf({ events: [{ id: '$pageview' }], compare: true, compare_to: '-1w' })
    expect(current).toMatchObject({ compare_label: 'current', data: [2, 1, 0, 1, 0, 0, 1] })
    expect(previous).toMatchObject({ compare_label: 'previous', data: [0, 0, 0, 0, 0, 0, 0] })
    expect(previous.days).toEqual(['2026-03-02', '2026-03-03', '2026-03-04', '2026-03-05', '2026-03-06', '2026-03-07', '2026-03-08'])
    const formula = await dataOf({
      events: [{ id: '$pageview' }, { id: 'signed_up' }],
      formula: 'A + B',
      compare: true,
      date_from: '2026-03-02',
    })
    expect(formula.map((s: any) => [s.compare_label, s.label, s.data])).toEqual([
      ['current', 'Formula (A + B)', [0, 0, 0, 0, 0, 0, 0, 2, 2, 0, 1, 1, 1, 1]],
      ['previous', 'Formula (A + B)', [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]],
    ])
  })

  it("starts weeks on the project's week_start_day", async () => {
    await call('PATCH', `/api/projects/${t.projectId}/`, { week_start_day: 1 })
    const [weekly] = await dataOf({ events: [{ id: '$pageview' }], interval: 'week', date_from: '2026-03-01', date_to: '2026-03-15' })
    await call('PATCH', `/api/projects/${t.projectId}/`, { week_start_day: 0 })
    expect(weekly.days).toEqual(['2026-02-23', '2026-03-02', '2026-03-09'])
    expect(weekly.labels).toEqual(['1-Mar-2026', '2–8 Mar', '9–15 Mar'])
    expect(weekly.data).toEqual([1, 0, 5])
  })

  it('rejects bad input with 400 and a message', async () => {
    // No series at all is not an error: an empty result (the spec's 200).
    const none = await trend({})
    expect(none.status).toBe(200)
    expect(none.body.result).toEqual([])
    const math = await trend({ events: [{ id: '$pageview', math: 'bogus' }] })
    expect(math.status).toBe(400)
    expect(math.body.detail).toMatch(/unknown math 'bogus'/)
    const date = await trend({ events: [{ id: '$pageview' }], date_from: 'yesterday-ish' })
    expect(date.status).toBe(400)
    expect(date.body.attr).toBe('date_from')
    const formula = await trend({ events: [{ id: '$pageview' }], formula: 'A + B' })
    expect(formula.status).toBe(400)
    expect(formula.body.detail).toMatch(/references series B/)
    const interval = await trend({ events: [{ id: '$pageview' }], interval: 'decade' })
    expect(interval.status).toBe(400)
    const noKey = await call('POST', `/api/environments/${t.projectId}/insights/trend/`, { events: [{ id: '$pageview' }] }, null)
    expect(noKey.status).toBe(401)
  })
})
