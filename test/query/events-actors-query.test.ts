// EventsQuery and ActorsQuery through the Query API (POST /api/environments/:id/query/), as PostHog's app and
// tools read its events table and the persons behind an insight's point: PostHog's answer shapes (columns,
// types, results rows with `*` as the event and `person` as the person object, hasMore), paging by offset that
// reads every row once, a filter Wren cannot apply refused by name, another project's rows never in the answer,
// and a trend's point whose persons are as many as the trend counts there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'

const HOUR = 3_600_000
const USERS = ['ana', 'ben', 'cai', 'dov', 'eli']
const BROWSERS = ['Chrome', 'Firefox']

describe('EventsQuery and ActorsQuery', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  let other: { id: number; api_token: string }
  const now = Date.now()
  const query = (q: Record<string, unknown>, project = t.projectId) => call('POST', `/api/environments/${project}/query/`, { query: q })
  const ok = async (q: Record<string, unknown>, project?: number) => {
    const res = await query(q, project)
    expect(res.status, res.text.slice(0, 300)).toBe(200)
    return res.body
  }

  beforeAll(async () => {
    t = await startWren()
    call = api(t)
    // 60 events over the last 50 hours: a pageview or a purchase, each user always on one browser.
    const events = Array.from({ length: 60 }, (_, n) => {
      const user = USERS[n % USERS.length]
      return {
        event: n % 4 === 0 ? 'purchase' : '$pageview',
        distinct_id: user,
        timestamp: new Date(now - n * (50 / 60) * HOUR - 60_000).toISOString(),
        properties: { n, $browser: BROWSERS[USERS.indexOf(user) % 2], $set: { email: `${user}@example.com` } },
      }
    })
    await captureBatch(t, events)
    other = (await call('POST', '/api/projects/', { name: 'Other shop' })).body
    await captureBatch({ url: t.url, projectKey: other.api_token }, [
      {
        event: '$pageview',
        distinct_id: 'zed',
        timestamp: new Date(now - HOUR).toISOString(),
        properties: { $set: { email: 'ana-lookalike@example.com' } },
      },
    ])
    await drained(t.wren)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('answers an EventsQuery in PostHog’s shape: the event object, the person object, typed columns, aggregates grouped', async () => {
    const page = await ok({ kind: 'EventsQuery', select: ['*', 'person', 'event', 'properties.$browser', 'timestamp'], limit: 2 })
    expect(page).toMatchObject({
      columns: ['*', 'person', 'event', 'properties.$browser', 'timestamp'],
      hasMore: true,
      limit: 2,
      offset: 0,
    })
    expect(page.types.slice(1)).toEqual(['String', 'String', 'Nullable(String)', "DateTime64(6, 'UTC')"])
    expect(page.types[0]).toMatch(/^Tuple\(UUID, String, String, DateTime64/)
    const [star, person, event, browser, timestamp] = page.results[0]
    expect(Object.keys(star).sort()).toEqual(
      [
        'created_at',
        'distinct_id',
        'elements',
        'elements_chain',
        'event',
        'person_mode',
        'properties',
        'team_id',
        'timestamp',
        'uuid',
      ].sort(),
    )
    expect(star).toMatchObject({ event: 'purchase', distinct_id: 'ana', team_id: t.projectId, properties: { n: 0, $browser: 'Chrome' } })
    expect(person).toEqual({
      uuid: expect.any(String),
      created_at: expect.any(String),
      properties: expect.objectContaining({ email: 'ana@example.com' }),
      distinct_id: 'ana',
    })
    expect([event, browser, timestamp]).toEqual(['purchase', 'Chrome', star.timestamp])
    // Newest first when `timestamp` is selected; the default after is the last 24 hours.
    expect(new Date(timestamp).getTime()).toBeGreaterThan(new Date(page.results[1][4]).getTime())

    const counts = await ok({ kind: 'EventsQuery', select: ['event', 'count()'], after: 'all' })
    expect(counts).toMatchObject({
      columns: ['event', 'count()'],
      types: ['String', 'UInt64'],
      results: [
        ['$pageview', 45],
        ['purchase', 15],
      ],
      hasMore: false,
    })
    const lastDay = await ok({ kind: 'EventsQuery', select: ['count()'] })
    expect(lastDay.results).toEqual([[29]])
  })

  it('pages by offset through every row once, in one order', async () => {
    const all = await ok({
      kind: 'EventsQuery',
      select: ['properties.n'],
      where: ["event = '$pageview'"],
      after: 'all',
      orderBy: ['timestamp DESC'],
      limit: 1000,
    })
    expect(all.results).toHaveLength(45)
    const seen: unknown[] = []
    for (let offset = 0, more = true; more; offset += 7) {
      const page = await ok({
        kind: 'EventsQuery',
        select: ['properties.n'],
        where: ["event = '$pageview'"],
        after: 'all',
        orderBy: ['timestamp DESC'],
        limit: 7,
        offset,
      })
      expect(page.offset).toBe(offset)
      seen.push(...page.results)
      more = page.hasMore
      expect(page.results.length, `page at ${offset}`).toBe(more ? 7 : 45 - offset)
    }
    expect(seen).toEqual(all.results)

    const persons = await ok({ kind: 'ActorsQuery', select: ['id'], limit: 2 })
    const rest = await ok({ kind: 'ActorsQuery', select: ['id'], limit: 2, offset: 2 })
    const last = await ok({ kind: 'ActorsQuery', select: ['id'], limit: 2, offset: 4 })
    expect([persons.hasMore, rest.hasMore, last.hasMore]).toEqual([true, true, false])
    expect(new Set([...persons.results, ...rest.results, ...last.results].map((r) => r[0])).size).toBe(USERS.length)
  })

  it('refuses by name what it cannot apply, with a 400', async () => {
    const warehouse = await query({
      kind: 'EventsQuery',
      select: ['*'],
      properties: [{ type: 'data_warehouse_person_property', key: 'plan', value: 'pro', operator: 'exact' }],
    })
    expect(warehouse.status).toBe(400)
    expect(warehouse.body.attr).toMatch(/^properties/)
    const funnel = await query({
      kind: 'ActorsQuery',
      source: { kind: 'FunnelCorrelationActorsQuery', source: { kind: 'FunnelCorrelationQuery' } },
    })
    expect(funnel.status).toBe(400)
    expect(funnel.body).toMatchObject({ attr: 'source', detail: expect.stringContaining('FunnelCorrelationActorsQuery') })
    const field = await query({ kind: 'EventsQuery', select: ['*'], actionSteps: [{ event: 'x' }] })
    expect(field.status).toBe(400)
    expect(field.body.attr).toBe('actionSteps')
  })

  it('never answers another project’s rows', async () => {
    const events = await ok({ kind: 'EventsQuery', select: ['distinct_id', 'count()'], after: 'all' })
    expect(events.results.map((r: unknown[]) => r[0]).sort()).toEqual(USERS)
    const zed = (await ok({ kind: 'EventsQuery', select: ['person'], after: 'all' }, other.id)).results[0][0]
    expect(zed.distinct_id).toBe('zed')
    expect((await ok({ kind: 'EventsQuery', select: ['*'], personId: zed.uuid, after: 'all' })).results).toEqual([])
    const persons = await ok({ kind: 'ActorsQuery', select: ['properties.email'], search: 'ana' })
    expect(persons.results).toEqual([['ana@example.com']])
  })

  it('lists the persons behind a trend’s point, as many as the trend counts there', async () => {
    const trend = {
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }],
      dateRange: { date_from: '-3d' },
      interval: 'day',
      breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
    }
    const answer = await ok(trend)
    let points = 0
    for (const series of answer.results)
      for (const [i, day] of series.days.entries()) {
        if (series.data[i] === 0) continue
        points++
        const actors = await ok({
          kind: 'ActorsQuery',
          select: ['person', 'event_count'],
          source: { kind: 'InsightActorsQuery', day, series: 0, breakdown: series.breakdown_value, source: trend },
        })
        expect(actors.results, `${series.breakdown_value} on ${day}`).toHaveLength(series.data[i])
        expect(actors.hasMore).toBe(false)
        for (const [person, eventCount] of actors.results) {
          expect(BROWSERS[USERS.indexOf(person.distinct_ids[0]) % 2]).toBe(series.breakdown_value)
          expect(eventCount).toBeGreaterThan(0)
        }
      }
    expect(points).toBeGreaterThanOrEqual(4)
  })

  it('lists the persons behind weekly-active, compared and cumulative points, as the trend counts them', async () => {
    const series = (math: string) => [{ kind: 'EventsNode', event: '$pageview', math }]
    const trends = [
      { kind: 'TrendsQuery', series: series('weekly_active'), dateRange: { date_from: '-3d' }, interval: 'day' },
      { kind: 'TrendsQuery', series: series('dau'), dateRange: { date_from: '-1d' }, interval: 'day', compareFilter: { compare: true } },
      {
        kind: 'TrendsQuery',
        series: series('total'),
        dateRange: { date_from: '-3d' },
        trendsFilter: { display: 'ActionsLineGraphCumulative' },
      },
    ]
    for (const trend of trends)
      for (const line of (await ok(trend)).results)
        for (const [i, day] of line.days.entries()) {
          const source = { kind: 'InsightActorsQuery', day, series: 0, compare: line.compare_label ?? null, source: trend }
          const actors = (await ok({ kind: 'ActorsQuery', select: ['id', 'event_count'], source })).results
          // dau and weekly active count persons; a cumulative total counts their events up to the day.
          const counted = line.action.math === 'total' ? actors.reduce((sum: number, row: number[]) => sum + row[1], 0) : actors.length
          expect(counted, `${line.action.math} ${line.compare_label ?? ''} ${day}`).toBe(line.data[i])
        }
  })
})
