// Saved insights and dashboards over HTTP: CRUD under both prefixes, scopes, an insight on a dashboard,
// a dashboard's date filter overriding its tiles' range (checked against the trends API), results from the
// trends cache until ?refresh=true, kinds Wren does not compute, and a new project's home dashboard.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'
import { createKey, createProject } from '../support/management'

const DAY = 86_400_000
const daysAgo = (n: number) => new Date(Date.now() - n * DAY).toISOString()

describe('saved insights and dashboards', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  const at = (path: string, prefix = 'projects') => `/api/${prefix}/${t.projectId}${path}`
  const pageviews = (dateFrom: string) => ({ insight: 'TRENDS', events: [{ id: '$pageview', math: 'total' }], date_from: dateFrom })

  beforeAll(async () => {
    t = await startWren()
    call = api(t)
    const pv = (distinct_id: string, ago: number, $browser: string) => ({
      event: '$pageview',
      distinct_id,
      timestamp: daysAgo(ago),
      properties: { $browser, $current_url: `https://example.com/${ago}` },
    })
    // Three pageviews in the last week, two more three weeks ago.
    await captureBatch(t, [
      pv('u1', 1, 'Chrome'),
      pv('u2', 2, 'Safari'),
      pv('u1', 3, 'Chrome'),
      pv('u3', 20, 'Firefox'),
      pv('u3', 21, 'Chrome'),
    ])
    await drained(t.wren)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('creates, reads, lists and updates an insight under both prefixes, and deletes it with PATCH deleted', async () => {
    const created = await call('POST', at('/insights/'), { name: 'Weekly views', filters: pageviews('-7d'), saved: true })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ name: 'Weekly views', saved: true, favorited: false, deleted: false, dashboards: [] })
    expect(created.body.short_id).toMatch(/^[A-Za-z0-9]{8}$/)
    const id = created.body.id

    const read = await call('GET', at(`/insights/${id}/`, 'environments'))
    expect(read.status).toBe(200)
    expect(read.body.result[0].count).toBe(3)
    expect(read.body.last_refresh).toEqual(expect.any(String))

    const patched = await call('PATCH', at(`/insights/${id}/`, 'environments'), { favorited: true, description: 'views' })
    expect(patched.body).toMatchObject({ name: 'Weekly views', favorited: true, description: 'views' })
    const listed = await call('GET', at('/insights/?favorited=true'))
    expect(listed.body.results.map((i: any) => i.id)).toContain(id)
    const byShortId = await call('GET', at(`/insights/?short_id=${created.body.short_id}`))
    expect(byShortId.body.results.map((i: any) => i.id)).toEqual([id])

    expect((await call('DELETE', at(`/insights/${id}/`))).status).toBe(405)
    expect((await call('PATCH', at(`/insights/${id}/`), { deleted: true })).body.deleted).toBe(true)
    expect((await call('GET', at(`/insights/${id}/`))).status).toBe(404)
    expect((await call('GET', at('/insights/'))).body.results.map((i: any) => i.id)).not.toContain(id)
  })

  it('refuses an insight whose trend filter is not valid, naming the field', async () => {
    const res = await call('POST', at('/insights/'), { filters: { events: [{ id: '$pageview', math: 'nonsense' }] } })
    expect(res.status).toBe(400)
    expect(res.body.attr).toBe('events[0]')
  })

  it('refuses an insight naming another project’s action, on save and on update, as the trends API does', async () => {
    const other = await createProject(t, 'Action owner')
    const theirs = await call('POST', `/api/projects/${other.id}/actions/`, { name: 'their signup', steps: [{ event: '$pageview' }] })
    const ours = await call('POST', at('/actions/'), { name: 'our views', steps: [{ event: '$pageview' }] })
    const withAction = (id: number) => ({ insight: 'TRENDS', actions: [{ id, type: 'actions' }], date_from: '-7d' })
    const refused = {
      status: 400,
      code: 'invalid_input',
      attr: 'actions',
      detail: `Action ${theirs.body.id} does not exist in this project.`,
    }
    const answer = (res: { status: number; body: any }) => ({ status: res.status, ...res.body })

    const before = (await call('GET', at('/insights/'))).body.count
    expect(answer(await call('POST', at('/insights/'), { filters: withAction(theirs.body.id) }))).toMatchObject(refused)
    const query = { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'ActionsNode', id: theirs.body.id }] } }
    expect(answer(await call('POST', at('/insights/'), { query }))).toMatchObject(refused)
    expect((await call('GET', at('/insights/'))).body.count).toBe(before)

    const saved = await call('POST', at('/insights/'), { name: 'our action', filters: withAction(ours.body.id) })
    expect(saved.status, saved.text).toBe(201)
    expect(answer(await call('PATCH', at(`/insights/${saved.body.id}/`), { filters: withAction(theirs.body.id) }))).toMatchObject(refused)
    const read = await call('GET', at(`/insights/${saved.body.id}/`))
    expect(read.body.result[0]).toMatchObject({ label: 'our views', count: 3 })
    expect((await call('PATCH', at(`/insights/${saved.body.id}/`), { deleted: true })).status).toBe(200)
  })

  it('answers the second read from the cache with the same last_refresh; refresh=true recomputes', async () => {
    const { body } = await call('POST', at('/insights/'), { name: 'cached', filters: pageviews('-14d') })
    const first = await call('GET', at(`/insights/${body.id}/`))
    const second = await call('GET', at(`/insights/${body.id}/`))
    expect(second.body.is_cached).toBe(true)
    expect(second.body.last_refresh).toBe(first.body.last_refresh)
    await new Promise((r) => setTimeout(r, 5))
    const refreshed = await call('GET', at(`/insights/${body.id}/?refresh=true`))
    expect(refreshed.body.is_cached).toBe(false)
    expect(refreshed.body.last_refresh).not.toBe(first.body.last_refresh)
    expect(refreshed.body.result).toEqual(first.body.result)
  })

  it('computes a TrendsQuery insight as the trends API computes its filter', async () => {
    const query = {
      kind: 'InsightVizNode',
      source: {
        kind: 'TrendsQuery',
        series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }],
        dateRange: { date_from: '-30d' },
        breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
      },
    }
    const { body } = await call('POST', at('/insights/'), { name: 'by browser', query })
    const insight = await call('GET', at(`/insights/${body.id}/`))
    const trend = await call('POST', at('/insights/trend/'), {
      events: [{ id: '$pageview', math: 'dau' }],
      date_from: '-30d',
      breakdown: '$browser',
    })
    expect(insight.body.query).toEqual(query)
    const counts = (r: any[]) => Object.fromEntries(r.map((s) => [s.breakdown_value, s.count]))
    expect(counts(insight.body.result)).toEqual(counts(trend.body.result))
    // Daily uniques summed: u1 on two days and u3 on one in Chrome.
    expect(counts(insight.body.result)).toEqual({ Chrome: 3, Safari: 1, Firefox: 1 })
  })

  it('stores an insight of a kind Wren does not compute and answers result null, saying why', async () => {
    const funnel = await call('POST', at('/insights/'), {
      name: 'funnel',
      query: { kind: 'InsightVizNode', source: { kind: 'WebOverviewQuery' } },
    })
    expect(funnel.status).toBe(201)
    const read = await call('GET', at(`/insights/${funnel.body.id}/`))
    expect(read.status).toBe(200)
    expect(read.body).toMatchObject({ result: null, last_refresh: null })
    expect(read.body.result_unavailable).toContain('WebOverviewQuery')
    const legacy = await call('POST', at('/insights/'), { filters: { insight: 'USER_SQL' } })
    expect((await call('GET', at(`/insights/${legacy.body.id}/`))).body.result_unavailable).toContain('USER_SQL')
  })

  it('puts an insight on a dashboard (shown on both); the dashboard’s date filter overrides the tile’s range', async () => {
    const dashboard = await call('POST', at('/dashboards/', 'environments'), { name: 'Traffic', tiles: [{ text: { body: 'hello' } }] })
    expect(dashboard.status).toBe(201)
    const insight = await call('POST', at('/insights/'), { name: 'Views', filters: pageviews('-7d') })
    const placed = await call('PATCH', at(`/insights/${insight.body.id}/`), { dashboards: [dashboard.body.id] })
    expect(placed.body.dashboards).toEqual([dashboard.body.id])
    expect(placed.body.dashboard_tiles).toEqual([{ id: expect.any(Number), dashboard_id: dashboard.body.id, deleted: false }])

    const board = await call('GET', at(`/dashboards/${dashboard.body.id}/`))
    expect(board.status).toBe(200)
    expect(board.body.tiles.map((tile: any) => tile.text?.body ?? tile.insight.name)).toEqual(['hello', 'Views'])
    expect(board.body.tiles[1].insight.result[0].count).toBe(3)

    // The dashboard's last 30 days replace the insight's last 7, on the dashboard and with ?from_dashboard.
    const filtered = await call('PATCH', at(`/dashboards/${dashboard.body.id}/`), { filters: { date_from: '-30d' } })
    expect(filtered.status).toBe(200)
    const trend = await call('POST', at('/insights/trend/'), { events: [{ id: '$pageview', math: 'total' }], date_from: '-30d' })
    const tile = filtered.body.tiles.find((x: any) => x.insight).insight
    expect(tile.result[0].count).toBe(5)
    expect(tile.result[0].data).toEqual(trend.body.result[0].data)
    expect(tile.result[0].days).toEqual(trend.body.result[0].days)
    const fromDashboard = await call('GET', at(`/insights/${insight.body.id}/?from_dashboard=${dashboard.body.id}`))
    expect(fromDashboard.body.result[0].count).toBe(5)
    expect((await call('GET', at(`/insights/${insight.body.id}/`))).body.result[0].count).toBe(3)

    // A view's filters_override: the tiles (and the insight) computed with it, the saved filters untouched.
    const week = encodeURIComponent(JSON.stringify({ date_from: '-7d' }))
    const viewed = await call('GET', at(`/dashboards/${dashboard.body.id}/?filters_override=${week}`))
    expect(viewed.status, viewed.text).toBe(200)
    expect([viewed.body.filters.date_from, viewed.body.persisted_filters.date_from]).toEqual(['-7d', '-30d'])
    expect(viewed.body.tiles.find((x: any) => x.insight).insight.result[0].count).toBe(3)
    const insightViewed = await call(
      'GET',
      at(`/insights/${insight.body.id}/?from_dashboard=${dashboard.body.id}&filters_override=${week}`),
    )
    expect(insightViewed.body.result[0].count).toBe(3)
    expect((await call('GET', at(`/dashboards/${dashboard.body.id}/`))).body.filters.date_from).toBe('-30d')
    for (const [raw, attr] of [
      ['{', 'filters_override'],
      [JSON.stringify({ date_from: 7 }), 'filters_override.date_from'],
      [JSON.stringify({ interval: 'week' }), 'filters_override.interval'],
    ]) {
      const bad = await call('GET', at(`/dashboards/${dashboard.body.id}/?filters_override=${encodeURIComponent(raw)}`))
      expect([bad.status, bad.body.attr], bad.text).toEqual([400, attr])
    }

    // Tiles move; the insight comes off the dashboard when it is taken off.
    const tileId = tile && filtered.body.tiles.find((x: any) => x.insight).id
    const moved = await call('PATCH', at(`/dashboards/${dashboard.body.id}/`), {
      tiles: [{ id: tileId, layouts: { sm: { x: 6, y: 0, w: 6, h: 5 } } }],
    })
    expect(moved.body.tiles.find((x: any) => x.id === tileId).layouts.sm.x).toBe(6)
    await call('PATCH', at(`/insights/${insight.body.id}/`), { dashboards: [] })
    const after = await call('GET', at(`/dashboards/${dashboard.body.id}/`))
    expect(after.body.tiles.map((x: any) => x.insight?.id ?? null)).toEqual([null])
    expect((await call('GET', at('/dashboards/'))).body.results.map((d: any) => d.name)).toContain('Traffic')
    expect((await call('PATCH', at(`/insights/${insight.body.id}/`), { dashboards: [999999] })).status).toBe(400)
  })

  it('duplicates a dashboard with use_dashboard: its tiles on the same insights, its filters and description', async () => {
    const original = await call('POST', at('/dashboards/'), {
      name: 'Original',
      description: 'The launch',
      filters: { date_from: '-30d' },
      tiles: [{ text: { body: 'notes' } }],
    })
    const insight = await call('POST', at('/insights/'), { name: 'Views', filters: pageviews('-7d'), dashboards: [original.body.id] })
    expect(insight.status, insight.text).toBe(201)
    const copy = await call('POST', at('/dashboards/', 'environments'), { name: 'Original (copy)', use_dashboard: original.body.id })
    expect(copy.status, copy.text).toBe(201)
    expect([copy.body.name, copy.body.description, copy.body.filters.date_from]).toEqual(['Original (copy)', 'The launch', '-30d'])
    expect(copy.body.tiles.map((x: any) => x.text?.body ?? x.insight.id)).toEqual(['notes', insight.body.id])
    expect(copy.body.tiles[1].insight.result[0].count).toBe(5)
    // The insight is on both; the copy changes apart from the original.
    expect((await call('GET', at(`/insights/${insight.body.id}/`))).body.dashboards.sort()).toEqual([original.body.id, copy.body.id].sort())
    await call('PATCH', at(`/dashboards/${copy.body.id}/`), { tiles: [{ id: copy.body.tiles[0].id, deleted: true }] })
    expect((await call('GET', at(`/dashboards/${original.body.id}/`))).body.tiles).toHaveLength(2)
    // What cannot be copied is a 400 naming it.
    for (const [body, attr] of [
      [{ name: 'x', use_dashboard: 999999 }, 'use_dashboard'],
      [{ name: 'x', use_dashboard: 2 ** 60 }, 'use_dashboard'],
      [{ name: 'x', use_dashboard: -1 }, 'use_dashboard'],
      [{ name: 'x', use_dashboard: original.body.id, duplicate_tiles: true }, 'duplicate_tiles'],
    ] as const) {
      const res = await call('POST', at('/dashboards/'), body)
      expect([res.status, res.body.attr], res.text).toEqual([400, attr])
    }
  })

  it('gives a new project a home dashboard, its primary_dashboard, whose tiles compute', async () => {
    for (const projectId of [t.projectId, (await createProject(t, 'Fresh')).id]) {
      const project = await call('GET', `/api/projects/${projectId}/`)
      const home = await call('GET', `/api/projects/${projectId}/dashboards/${project.body.primary_dashboard}/`)
      expect(home.status).toBe(200)
      expect(home.body.name).toBe('Home')
      const names = home.body.tiles.map((tile: any) => tile.insight?.name ?? 'text')
      expect(names).toEqual(['Pageviews', 'Unique users', 'Top pages', 'Browsers', 'Flag usage', 'text'])
      expect(home.body.tiles.at(-1).text.body).toContain('Recordings')
      for (const tile of home.body.tiles.filter((x: any) => x.insight))
        expect(tile.insight.result, tile.insight.name).toEqual(expect.any(Array))
      if (projectId === t.projectId) {
        const [views, users, pages, browsers] = home.body.tiles.map((x: any) => x.insight?.result)
        expect(views[0].count).toBe(5)
        expect(users[0].count).toBe(5) // daily uniques summed: one user a day
        expect(pages.map((s: any) => s.aggregated_value).reduce((a: number, b: number) => a + b, 0)).toBe(5)
        expect(Object.fromEntries(browsers.map((s: any) => [s.breakdown_value, s.aggregated_value]))).toEqual({
          Chrome: 3,
          Safari: 1,
          Firefox: 1,
        })
      }
    }
  })

  it('needs insight:write to write insights, dashboard:* for dashboards, and answers 404 for another project’s ids', async () => {
    const reader = await createKey(t, ['insight:read'])
    const as = (key: string) => (method: string, path: string, body?: unknown) => call(method, path, body, key)
    const insight = (await call('POST', at('/insights/'), { name: 'scoped', filters: pageviews('-7d') })).body
    expect((await as(reader.value)('GET', at(`/insights/${insight.id}/`))).status).toBe(200)
    expect((await as(reader.value)('PATCH', at(`/insights/${insight.id}/`), { name: 'x' })).status).toBe(403)
    expect((await as(reader.value)('POST', at('/insights/'), { name: 'x' })).status).toBe(403)
    expect((await as(reader.value)('GET', at('/dashboards/'))).status).toBe(403)
    const boards = await createKey(t, ['dashboard:read'])
    expect((await as(boards.value)('GET', at('/dashboards/'))).status).toBe(200)
    expect((await as(boards.value)('POST', at('/dashboards/'), { name: 'x' })).status).toBe(403)

    const other = await createProject(t, 'Other')
    expect((await call('GET', `/api/projects/${other.id}/insights/${insight.id}/`)).status).toBe(404)
    const home = (await call('GET', `/api/projects/${t.projectId}/`)).body.primary_dashboard
    expect((await call('GET', `/api/projects/${other.id}/dashboards/${home}/`)).status).toBe(404)
  })
})
