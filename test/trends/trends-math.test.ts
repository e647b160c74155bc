// The rest of the math (active users, counts per actor, first time, groups, hogql), hogql breakdowns
// and filters with their restrictions, and a project in a non-UTC timezone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'
import { bothDoors } from '../support/trend-doors'

describe('trend math, hogql and timezones', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  const range = { date_from: '2026-03-09', date_to: '2026-03-15' }
  const post = (body: Record<string, unknown>, projectId = t.projectId) =>
    call('POST', `/api/environments/${projectId}/insights/trend/`, body)
  const trend = async (body: Record<string, unknown>, projectId?: number) => {
    const res = await post({ ...range, ...body }, projectId)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body.result
  }
  const pv = (distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}) => ({
    event: '$pageview',
    distinct_id,
    timestamp,
    properties,
  })

  beforeAll(async () => {
    t = await startWren({ WREN_NOW: '2026-03-15T12:00:00Z' })
    call = bothDoors(api(t))
    await captureBatch(t, [
      {
        event: '$groupidentify',
        distinct_id: 'u1',
        timestamp: '2026-02-01T00:00:00Z',
        properties: { $group_type: 'company', $group_key: 'acme', $group_set: { industry: 'retail' } },
      },
      pv('u1', '2026-03-01T10:00:00Z'),
      pv('u2', '2026-03-02T10:00:00Z'),
      pv('u1', '2026-03-09T10:00:00Z', { amount: 3, $groups: { company: 'acme' } }),
      pv('u1', '2026-03-10T10:00:00Z', { amount: 5, $groups: { company: 'acme' } }),
      pv('u1', '2026-03-10T11:00:00Z', { amount: 7 }),
      pv('u2', '2026-03-12T10:00:00Z', { amount: 1, $groups: { company: 'beta' } }),
      pv('u3', '2026-03-14T10:00:00Z', { $groups: { company: 'acme' } }),
      pv('u1', '2026-03-15T10:00:00Z'),
      {
        event: 'step',
        distinct_id: 'u1',
        timestamp: '2026-03-10T10:00:00Z',
        properties: { $session_id: 'sA', $current_url: '/a', due: '2026-03-05' },
      },
      { event: 'step', distinct_id: 'u1', timestamp: '2026-03-10T10:00:30Z', properties: { $session_id: 'sA', $current_url: '/b' } },
      {
        event: 'step',
        distinct_id: 'u2',
        timestamp: '2026-03-11T10:00:00Z',
        properties: { $session_id: 'sB', $current_url: '/c', due: '2026-03-20T08:00:00Z' },
      },
      { event: 'step', distinct_id: 'u2', timestamp: '2026-03-11T10:02:00Z', properties: { $session_id: 'sB' } },
      { event: 'step', distinct_id: 'u3', timestamp: '2026-03-12T10:00:00Z', properties: {} },
      { event: 'visit', distinct_id: 'anon-m', timestamp: '2026-03-11T01:00:00Z', properties: {} },
      { event: 'visit', distinct_id: 'user-m', timestamp: '2026-03-11T02:00:00Z', properties: {} },
      { event: '$identify', distinct_id: 'user-m', timestamp: '2026-03-11T03:00:00Z', properties: { $anon_distinct_id: 'anon-m' } },
    ])
    await drained(t.wren)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('counts weekly and monthly active users over sliding windows', async () => {
    const [wau, mau] = await trend({
      events: [
        { id: '$pageview', math: 'weekly_active' },
        { id: '$pageview', math: 'monthly_active' },
      ],
    })
    expect(wau.data).toEqual([1, 1, 1, 2, 2, 3, 3])
    expect(mau.data).toEqual([2, 2, 2, 2, 2, 3, 3])
    const [total] = await trend({ events: [{ id: '$pageview', math: 'weekly_active' }], display: 'ActionsPie' })
    expect(total.aggregated_value).toBe(3)
    // With a weekly interval, weekly_active is plain dau per week.
    const [weekly] = await trend({ events: [{ id: '$pageview', math: 'weekly_active' }], interval: 'week', date_from: '2026-03-01' })
    expect(weekly.data).toEqual([2, 3, 1])
  })

  it('aggregates counts per person, first-time users, groups and property quantiles', async () => {
    const [avg, max] = await trend({
      events: [
        { id: '$pageview', math: 'avg_count_per_actor' },
        { id: '$pageview', math: 'max_count_per_actor' },
      ],
    })
    expect(avg.data).toEqual([1, 2, 0, 1, 0, 1, 1])
    expect(max.data).toEqual([1, 2, 0, 1, 0, 1, 1])
    const [avgTotal] = await trend({ events: [{ id: '$pageview', math: 'avg_count_per_actor' }], display: 'BoldNumber' })
    expect(avgTotal.aggregated_value).toBe(2)
    const [first] = await trend({ events: [{ id: '$pageview', math: 'first_time_for_user' }] })
    expect(first.data).toEqual([0, 0, 0, 0, 0, 1, 0])
    const [groups] = await trend({ events: [{ id: '$pageview', math: 'unique_group', math_group_type_index: 0 }] })
    expect(groups.data).toEqual([1, 1, 0, 1, 0, 1, 0])
    // The companies behind a day (PostHog's GroupStrategy), with acme's properties from its $groupidentify.
    const companiesOn = async (day: string) => {
      const res = await api(t)('POST', `/api/environments/${t.projectId}/query/`, {
        query: {
          kind: 'ActorsQuery',
          source: {
            kind: 'InsightActorsQuery',
            day,
            source: {
              kind: 'TrendsQuery',
              series: [{ kind: 'EventsNode', event: '$pageview', math: 'unique_group', math_group_type_index: 0 }],
              dateRange: range,
            },
          },
        },
      })
      expect(res.status, res.text).toBe(200)
      return res.body.results.map((r: Array<{ group_key: string; properties: unknown }>) => [r[0].group_key, r[0].properties])
    }
    expect(await companiesOn('2026-03-09')).toEqual([['acme', { industry: 'retail' }]])
    expect(await companiesOn('2026-03-12')).toEqual([['beta', {}]])
    expect(await companiesOn('2026-03-11')).toEqual([])
    const [companies] = await trend({ events: [{ id: '$pageview', math: 'dau' }], aggregation_group_type_index: 0, display: 'BoldNumber' })
    expect(companies.aggregated_value).toBe(2)
    const [p90, min, max2] = await trend({
      events: ['p90', 'min', 'max'].map((math) => ({ id: '$pageview', math, math_property: 'amount' })),
    })
    expect(p90.data[1]).toBeCloseTo(6.8)
    expect(min.data).toEqual([3, 5, 0, 1, 0, 0, 0])
    expect(max2.data).toEqual([3, 7, 0, 1, 0, 0, 0])
  })

  it('covers every quantile and per-person aggregate', async () => {
    const quantiles = await trend({
      events: ['median', 'p75', 'p95', 'p99'].map((math) => ({ id: '$pageview', math, math_property: 'amount' })),
      display: 'BoldNumber',
    })
    // amounts in range: 3, 5, 7, 1 -> interpolated quantiles
    expect(quantiles.map((s: any) => s.aggregated_value)).toEqual([4, 5.5, 6.7, 6.94].map((v) => expect.closeTo(v, 5)))
    const perPerson = await trend({
      events: [
        'min_count_per_actor',
        'median_count_per_actor',
        'p75_count_per_actor',
        'p90_count_per_actor',
        'p95_count_per_actor',
        'p99_count_per_actor',
      ].map((math) => ({ id: '$pageview', math })),
      display: 'BoldNumber',
    })
    // events per person in range: u1 4, u2 1, u3 1
    expect(perPerson.map((s: any) => s.aggregated_value)).toEqual([1, 1, 2.5, 3.4, 3.7, 3.94].map((v) => expect.closeTo(v, 5)))
  })

  it('tells first-time users from first matching events', async () => {
    const withAmount = [{ key: 'amount', operator: 'is_set' }]
    const [firstEver] = await trend({ events: [{ id: '$pageview', math: 'first_time_for_user', properties: withAmount }] })
    expect(firstEver.data).toEqual([0, 0, 0, 0, 0, 0, 0])
    const [firstMatching] = await trend({ events: [{ id: '$pageview', math: 'first_matching_event_for_user', properties: withAmount }] })
    expect(firstMatching.data).toEqual([1, 0, 0, 1, 0, 0, 0])
  })

  it('compares total values of the current and previous period', async () => {
    const [current, previous] = await trend({ events: [{ id: '$pageview', math: 'dau' }], display: 'BoldNumber', compare: true })
    expect(current).toMatchObject({ compare_label: 'current', aggregated_value: 3 })
    expect(previous).toMatchObject({ compare_label: 'previous', aggregated_value: 1 })
  })

  it('breaks down, filters and aggregates by hogql expressions', async () => {
    const result = await trend({
      events: [{ id: '$pageview' }],
      breakdown_type: 'hogql',
      breakdown: "if(properties.amount > 4, 'big', 'small')",
    })
    expect(result.map((s: any) => [s.breakdown_value, s.data])).toEqual([
      ['small', [1, 0, 0, 1, 0, 1, 1]],
      ['big', [0, 2, 0, 0, 0, 0, 0]],
    ])
    const [filtered] = await trend({ events: [{ id: '$pageview' }], properties: [{ type: 'hogql', key: 'properties.amount >= 5' }] })
    expect(filtered.data).toEqual([0, 2, 0, 0, 0, 0, 0])
    const [math] = await trend({ events: [{ id: '$pageview', math: 'hogql', math_hogql: 'sum(properties.amount) * 2' }] })
    expect(math.data).toEqual([6, 24, 0, 2, 0, 0, 0])
    for (const breakdown of ['(SELECT 1 FROM person)', 'team_id', 'properties.x FROM events', "file('/etc/passwd')", 'person.uuid']) {
      const res = await post({ ...range, events: [{ id: '$pageview' }], breakdown_type: 'hogql', breakdown })
      expect(res.status, breakdown).toBe(400)
      expect(res.body.code).toBe('invalid_hogql')
    }
    const aggregateBreakdown = await post({ ...range, events: [{ id: '$pageview' }], breakdown_type: 'hogql', breakdown: 'count()' })
    expect(aggregateBreakdown.status).toBe(400)
    const plainMath = await post({ ...range, events: [{ id: '$pageview', math: 'hogql', math_hogql: 'properties.amount' }] })
    expect(plainMath.status).toBe(400)
  })

  it('filters, breaks down and aggregates by session properties', async () => {
    const [long] = await trend({
      events: [{ id: 'step' }],
      properties: [{ type: 'session', key: '$session_duration', value: 60, operator: 'gt' }],
    })
    expect(long.data).toEqual([0, 0, 2, 0, 0, 0, 0])
    const entry = await trend({ events: [{ id: 'step' }], breakdown_type: 'session', breakdown: '$entry_current_url' })
    expect(entry.map((s: any) => [s.breakdown_value, s.count])).toEqual([
      ['/a', 2],
      ['/c', 2],
      ['$$_posthog_breakdown_null_$$', 1],
    ])
    const [duration] = await trend({ events: [{ id: 'step', math: 'avg', math_property: '$session_duration' }] })
    expect(duration.data).toEqual([0, 30, 120, 0, 0, 0, 0])
    const [sessions] = await trend({ events: [{ id: 'step', math: 'unique_session' }] })
    expect(sessions.data).toEqual([0, 1, 1, 0, 0, 0, 0])
  })

  it('breaks down and filters by group properties', async () => {
    const result = await trend({
      events: [{ id: '$pageview' }],
      breakdown_type: 'group',
      breakdown: 'industry',
      breakdown_group_type_index: 0,
    })
    expect(result.map((s: any) => [s.breakdown_value, s.data])).toEqual([
      ['retail', [1, 1, 0, 0, 0, 1, 0]],
      ['$$_posthog_breakdown_null_$$', [0, 1, 0, 1, 0, 0, 1]],
    ])
    const [retail] = await trend({
      events: [{ id: '$pageview' }],
      properties: [{ type: 'group', group_type_index: 0, key: 'industry', value: 'retail' }],
    })
    expect(retail.data).toEqual([1, 1, 0, 0, 0, 1, 0])
    const [others] = await trend({
      events: [{ id: '$pageview' }],
      properties: [{ type: 'group', group_type_index: 0, key: 'industry', value: 'retail', operator: 'is_not' }],
    })
    expect(others.data).toEqual([0, 1, 0, 1, 0, 0, 1])
    const missing = await post({ ...range, events: [{ id: '$pageview' }], breakdown_type: 'group', breakdown: 'industry' })
    expect(missing.status).toBe(400)
  })

  it('counts a merged person once, through the distinct id overrides', async () => {
    const [dau] = await trend({ events: [{ id: 'visit', math: 'dau' }] })
    expect(dau.data).toEqual([0, 0, 1, 0, 0, 0, 0])
    const [total] = await trend({ events: [{ id: 'visit' }] })
    expect(total.data).toEqual([0, 0, 2, 0, 0, 0, 0])
  })

  it('filters by date properties', async () => {
    const data = async (operator: string, value: string) =>
      (await trend({ events: [{ id: 'step' }], properties: [{ key: 'due', operator, value }] }))[0].data
    expect(await data('is_date_before', '2026-03-10')).toEqual([0, 1, 0, 0, 0, 0, 0])
    expect(await data('is_date_after', '-7d')).toEqual([0, 0, 1, 0, 0, 0, 0])
    expect(await data('is_date_exact', '2026-03-05')).toEqual([0, 1, 0, 0, 0, 0, 0])
  })

  it('smooths over the last N intervals', async () => {
    const [smoothed] = await trend({ events: [{ id: '$pageview' }], smoothing_intervals: 2 })
    expect(smoothed.data).toEqual([1, 1, 1, 0, 0, 0, 1])
  })

  it('buckets and labels in the project timezone', async () => {
    const created = await call('POST', '/api/projects/', { name: 'Phoenix' })
    expect(created.status).toBe(201)
    const project = created.body
    expect((await call('PATCH', `/api/projects/${project.id}/`, { timezone: 'America/Phoenix' })).status).toBe(200)
    await captureBatch({ url: t.url, projectKey: project.api_token }, [
      pv('a', '2026-03-10T03:00:00Z'),
      pv('a', '2026-03-10T08:00:00Z'),
      pv('b', '2026-03-15T06:00:00Z'),
    ])
    await drained(t.wren)
    const res = await post({ events: [{ id: '$pageview' }], date_from: '-7d' }, project.id)
    expect(res.status).toBe(200)
    expect(res.body.timezone).toBe('America/Phoenix')
    const [s] = res.body.result
    expect(s.days).toEqual(['2026-03-08', '2026-03-09', '2026-03-10', '2026-03-11', '2026-03-12', '2026-03-13', '2026-03-14', '2026-03-15'])
    expect(s.data).toEqual([0, 1, 1, 0, 0, 0, 1, 0])
    const [hours] = (
      await post(
        { events: [{ id: '$pageview' }], interval: 'hour', date_from: '2026-03-09T19:00:00', date_to: '2026-03-09T21:00:00' },
        project.id,
      )
    ).body.result
    expect(hours.labels).toEqual(['9-Mar 19:00', '9-Mar 20:00', '9-Mar 21:00'])
    expect(hours.data).toEqual([0, 1, 0])
    // The other project's events are not visible here.
    const [mine] = await trend({ events: [{ id: '$pageview' }] })
    expect(mine.count).toBe(6)
  })
})
