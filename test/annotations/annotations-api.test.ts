// Annotations through the API on real chDB, in PostHog's shapes: create (by a signed-in user and by a key),
// list with search, the marker's date range, scope and insight filters and paging, retrieve, PATCH, soft delete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, startWren, type TestWren } from '../support/wren'
import { queryRows } from '../../services/platform/clickhouse'

describe('annotations', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  const base = () => `/api/projects/${t.projectId}/annotations/`

  beforeAll(async () => {
    t = await startWren({ WREN_OWNER_EMAIL: 'notes@example.com', WREN_OWNER_PASSWORD: 'notes passphrase' })
    call = api(t)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('creates annotations in PostHog’s shape, with the user who made them', async () => {
    const made = await call('POST', base(), { content: 'Launch day', date_marker: '2026-11-20T09:30:00Z' })
    expect(made.status, made.text).toBe(201)
    expect(made.body).toMatchObject({
      id: expect.any(Number),
      content: 'Launch day',
      date_marker: '2026-11-20T09:30:00.000Z',
      creation_type: 'USR',
      dashboard_item: null,
      scope: 'project',
      deleted: false,
      created_by: { email: 'notes@example.com' },
    })
    expect((await call('GET', `${base()}${made.body.id}/`)).body).toEqual(made.body)
    // A naive date is the project's timezone (UTC here); a bad one is a 400 naming the field.
    const naive = await call('POST', base(), { content: 'Pricing change', date_marker: '2026-11-25 12:00' })
    expect(naive.body.date_marker).toBe('2026-11-25T12:00:00.000Z')
    const bad = await call('POST', base(), { content: 'x', date_marker: 'not a date' })
    expect(bad.status).toBe(400)
    expect(bad.body.attr).toBe('date_marker')
    // An insight's annotation names the insight.
    const insight = await call('POST', `/api/projects/${t.projectId}/insights/`, { name: 'Signups' })
    const missing = await call('POST', base(), { content: 'On a chart', date_marker: '2026-11-26', scope: 'dashboard_item' })
    expect(missing.status).toBe(400)
    const onChart = await call('POST', base(), { content: 'On a chart', date_marker: '2026-11-26', dashboard_item: insight.body.id })
    expect(onChart.body).toMatchObject({
      scope: 'dashboard_item',
      dashboard_item: insight.body.id,
      insight_short_id: insight.body.short_id,
      insight_name: 'Signups',
      dashboard_id: null,
      dashboard_name: null,
    })
    // An insight or a dashboard that does not exist is a 400 naming the field, never an annotation of nothing.
    for (const [field, scope] of [
      ['dashboard_item', 'dashboard_item'],
      ['dashboard_id', 'dashboard'],
    ]) {
      const nothing = await call('POST', base(), { content: 'Nowhere', date_marker: '2026-11-26', scope, [field]: 999_999 })
      expect(nothing.status, nothing.text).toBe(400)
      expect(nothing.body.attr).toBe(field)
    }
  })

  it('answers every field PostHog’s agent toolkit validates, with its types: the insight’s and the dashboard’s names, the user’s id', async () => {
    // The toolkit's AnnotationSchema (zod, posthog's MCP server): these fields, these JSON types, created_by an object.
    const board = await call('POST', `/api/projects/${t.projectId}/dashboards/`, { name: 'Launch board' })
    const made = await call('POST', base(), { content: 'On a board', date_marker: '2026-11-19T08:00:00Z', dashboard_id: board.body.id })
    expect(made.status, made.text).toBe(201)
    const types = Object.fromEntries(Object.entries(made.body).map(([k, v]) => [k, v === null ? 'null' : typeof v]))
    expect(types).toEqual({
      id: 'number',
      content: 'string',
      date_marker: 'string',
      creation_type: 'string',
      dashboard_item: 'null',
      dashboard_id: 'number',
      dashboard_name: 'string',
      insight_short_id: 'null',
      insight_name: 'null',
      insight_derived_name: 'null',
      created_by: 'object',
      created_at: 'string',
      updated_at: 'string',
      deleted: 'boolean',
      scope: 'string',
    })
    expect(made.body).toMatchObject({ scope: 'dashboard', dashboard_id: board.body.id, dashboard_name: 'Launch board' })
    expect(made.body.created_by).toMatchObject({ id: expect.any(Number), uuid: expect.any(String), email: 'notes@example.com' })
    expect(Number.isSafeInteger(made.body.created_by.id)).toBe(true)
    // The same user has the same id in @me's organization members.
    const members = (await call('GET', '/api/organizations/@current/members/')).body.results as Array<{
      user: { id: number; uuid: string }
    }>
    expect(members.find((m) => m.user.uuid === made.body.created_by.uuid)!.user.id).toBe(made.body.created_by.id)
    // Moved to the project: no dashboard any more.
    const moved = await call('PATCH', `${base()}${made.body.id}/`, { scope: 'project' })
    expect(moved.body).toMatchObject({ scope: 'project', dashboard_id: null, dashboard_name: null })
    expect((await call('DELETE', `${base()}${made.body.id}/`)).status).toBe(204)
  })

  it('lists the latest marker first, filtered by search, date range, scope and insight, a page at a time', async () => {
    const list = async (query: string) => (await call('GET', `${base()}?${query}`)).body
    const contents = (page: { results: Array<{ content: string }> }) => page.results.map((a) => a.content)
    expect(contents(await list(''))).toEqual(['On a chart', 'Pricing change', 'Launch day'])
    expect(contents(await list('search=LAUNCH'))).toEqual(['Launch day'])
    expect(contents(await list('date_from=2026-11-21&date_to=2026-11-25T23:59:59Z'))).toEqual(['Pricing change'])
    expect(contents(await list('scope=project'))).toEqual(['Pricing change', 'Launch day'])
    const chart = (await list('scope=dashboard_item')).results[0]
    expect(contents(await list(`dashboardItemId=${chart.dashboard_item}`))).toEqual(['On a chart'])
    const first = await list('limit=2')
    expect(first).toMatchObject({ count: 3, previous: null })
    expect(contents(first)).toEqual(['On a chart', 'Pricing change'])
    const next = new URL(first.next)
    expect(contents((await call('GET', next.pathname + next.search)).body)).toEqual(['Launch day'])
    expect((await call('GET', `${base()}?date_from=yesterday-ish`)).status).toBe(400)
  })

  it('takes PostHog’s other list filters: when made, deleted, apply_all, order, and the toolkit’s dashboard_item', async () => {
    const list = async (query: string) => (await call('GET', `${base()}?${query}`)).body
    const contents = (page: { results: Array<{ content: string }> }) => page.results.map((a) => a.content)
    const all = (await list('order=created_at')).results as Array<{ content: string; created_at: string; dashboard_item: number | null }>
    expect(contents({ results: all })).toEqual(['Launch day', 'Pricing change', 'On a chart'])
    expect(contents(await list('order=-id'))).toEqual(['On a chart', 'Pricing change', 'Launch day'])
    expect(contents(await list(`after=${all[0].created_at}`))).toEqual(['On a chart', 'Pricing change'])
    expect(contents(await list(`before=${all[2].created_at}`))).toEqual(['Pricing change', 'Launch day'])
    // PostHog's apply_all: true leaves out an insight's own annotations, false keeps only those.
    expect(contents(await list('apply_all=true'))).toEqual(['Pricing change', 'Launch day'])
    expect(contents(await list('apply_all=false'))).toEqual(['On a chart'])
    expect(contents(await list(`dashboard_item=${all[2].dashboard_item}`))).toEqual(['On a chart'])
    expect(contents(await list('dashboard_item=999999'))).toEqual([])
    // The deleted ones, asked for: the dashboard's annotation deleted by the toolkit-fields test.
    expect(contents(await list('deleted=true'))).toEqual(['On a board'])
    expect(contents(await list('dashboard_id=999999'))).toEqual([])
    // An order it cannot apply is a 400, never ignored.
    const bad = await call('GET', `${base()}?order=content`)
    expect(bad.status).toBe(400)
    expect(bad.body.attr).toBe('order')
  })

  it('updates one, and deletes softly: gone from the list and the address, kept in storage', async () => {
    const [launch] = (await call('GET', `${base()}?search=Launch`)).body.results
    const patched = await call('PATCH', `${base()}${launch.id}/`, { content: 'Launch day (v2)', date_marker: '2026-11-20T10:00:00Z' })
    expect(patched.body).toMatchObject({
      content: 'Launch day (v2)',
      date_marker: '2026-11-20T10:00:00.000Z',
      created_at: launch.created_at,
    })
    expect(patched.body.updated_at >= launch.updated_at).toBe(true)
    expect((await call('PATCH', `${base()}${launch.id}/`, { deleted: true })).body.deleted).toBe(true)
    expect((await call('GET', `${base()}${launch.id}/`)).status).toBe(404)
    const [pricing] = (await call('GET', `${base()}?search=Pricing`)).body.results
    expect((await call('DELETE', `${base()}${pricing.id}/`)).status).toBe(204)
    expect((await call('GET', base())).body.results.map((a: { content: string }) => a.content)).toEqual(['On a chart'])
    expect((await call('DELETE', `${base()}${pricing.id}/`)).status).toBe(404)
    const kept = await queryRows<{ n: number }>(
      t.wren.clickhouse,
      'SELECT count() AS n FROM annotations FINAL WHERE team_id = {team:Int64} AND deleted = 1',
      { team: t.projectId },
    )
    // These two, and the dashboard's deleted before.
    expect(Number(kept[0].n)).toBe(3)
  })

  it('needs annotation:read to list and annotation:write to change', async () => {
    const reader = await call('POST', '/api/personal_api_keys/', { label: 'reader', scopes: ['annotation:read'] })
    expect((await call('GET', base(), undefined, reader.body.value)).status).toBe(200)
    const refused = await call('POST', base(), { content: 'nope', date_marker: '2026-11-01' }, reader.body.value)
    expect(refused.status).toBe(403)
  })
})
