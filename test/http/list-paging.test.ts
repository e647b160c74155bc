// Every list pages one way: `?limit` and `?offset` (an activity log also PostHog's `?page`), and `next` /
// `previous` links that keep the request's filters. The walk below reads the OpenAPI document, finds every
// GET route that answers a `results` array, and reads each list whole three ways — by offset, by following
// `next`, and back by `previous` — expecting every item exactly once, in the list's order. A list route
// added without items seeded here fails the walk until it is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, waitFor, type TestWren } from '../support/wren'
import { recordingsProcessed, sendSnapshots } from '../support/recordings'
import { createKey, createProject } from '../support/management'

type Parameter = { in: string; name: string; schema: { maximum?: number } }
type Operation = { parameters?: Parameter[]; responses: Record<string, { content?: Record<string, { schema?: any }> }> }
type Page = { count?: number; total_count?: number; next?: string | null; previous?: string | null; results: any[] }

/** How many items each list holds at least, so that a walk at PAGE crosses three pages. */
const SEEDED = 7
const PAGE = 3

describe('paging every list route', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  /** Each list route of the document (its template) and the URL it is read at. */
  let lists: Array<{ template: string; url: string; maxLimit: number }>

  /** A page, asserting the status; `url` may be absolute (a `next` link), on this server. */
  const get = async (url: string): Promise<Page> => {
    const at = new URL(url, t.url)
    expect(at.origin, url).toBe(t.url)
    const res = await call('GET', at.pathname + at.search)
    expect(res.status, `${url}: ${res.text.slice(0, 300)}`).toBe(200)
    return res.body as Page
  }
  /** What names an item: its id, or (activity entries have none) the whole entry. */
  const identity = (item: any): string => (item.id !== undefined ? String(item.id) : JSON.stringify(item))
  const withQuery = (url: string, query: string) => `${url}${url.includes('?') ? '&' : '?'}${query}`

  beforeAll(async () => {
    t = await startWren({ WREN_RECORDINGS_WAIT_MS: '20', WREN_INGEST_MAX_RETRIES: '1', WREN_FAILPOINTS: 'ingest-poison-event=poison' })
    call = api(t)
    const project = `/api/projects/${t.projectId}`
    const created = async (path: string, body: object) => {
      const res = await call('POST', path, body)
      expect(res.status, `${path}: ${res.text}`).toBe(201)
      return res.body as { id: number }
    }

    // Events, persons, event and property definitions: SEEDED of each.
    await captureBatch(
      t,
      Array.from({ length: SEEDED * 3 }, (_, n) => ({
        event: `event-${n % SEEDED}`,
        distinct_id: `person-${n % SEEDED}`,
        properties: { [`prop-${n % SEEDED}`]: n, $set: { n } },
      })),
    )
    // Dead letters: events ingestion cannot write (the failpoint refuses them).
    await captureBatch(
      t,
      Array.from({ length: SEEDED }, (_, n) => ({ event: 'poison', distinct_id: 'poisoner', properties: { n } })),
    )
    for (let n = 1; n < SEEDED; n++) await createProject(t, `Project ${n}`)
    for (let n = 0; n < SEEDED; n++) await createKey(t, ['query:read'])
    for (let n = 0; n < SEEDED; n++) {
      const name = `Item ${n}`
      await created(`${project}/insights/`, { name, saved: true, filters: { insight: 'TRENDS', events: [{ id: 'event-0' }] } })
      await created(`${project}/dashboards/`, { name })
      await created(`${project}/actions/`, { name, steps: [{ event: `event-${n}` }] })
      await created(`${project}/cohorts/`, { name, groups: [{ properties: [{ key: 'n', value: n, type: 'person' }] }] })
      await created(`${project}/annotations/`, { content: name, date_marker: `2026-11-0${n + 1}` })
      await created(`${project}/experiments/`, { name, feature_flag_key: `paged-experiment-${n}` })
      await created(`${project}/surveys/`, { name, type: 'api' })
    }
    // Members and invitations: SEEDED of each (the members accepted invitations of their own).
    for (let n = 0; n < SEEDED * 2; n++) {
      const invite = (await created('/api/organizations/@current/invites/', { target_email: `member-${n}@example.com` })) as unknown as {
        invite_url: string
      }
      if (n >= SEEDED)
        expect(
          (await call('POST', `/api/signup/${invite.invite_url.split('/').at(-1)}/`, { password: `passphrase ${n}` }, null)).status,
        ).toBe(201)
    }
    const flags = []
    for (let n = 0; n < SEEDED; n++)
      flags.push(await created(`${project}/feature_flags/`, { key: `flag-${n}`, filters: { groups: [{ rollout_percentage: 50 }] } }))
    // One flag's activity: its creation and SEEDED changes.
    for (let n = 0; n < SEEDED; n++)
      expect((await call('PATCH', `${project}/feature_flags/${flags[0].id}/`, { name: `Renamed ${n}` })).status).toBe(200)
    // Recordings: SEEDED sessions.
    expect((await call('PATCH', project + '/', { session_recording_opt_in: true })).status).toBe(200)
    const start = Date.now() - 60_000
    for (let n = 0; n < SEEDED; n++)
      await sendSnapshots(t, {
        sessionId: `session-${n}`,
        distinctId: `person-${n}`,
        events: [
          { type: 4, timestamp: start + n * 1000, data: { href: 'https://example.com/', width: 800, height: 600 } },
          { type: 3, timestamp: start + n * 1000 + 500, data: { source: 2, type: 2, id: 1, x: 1, y: 1 } },
        ],
      })
    await drained(t.wren)
    await recordingsProcessed(t.wren)
    await waitFor(async () => ((await call('GET', '/api/dead_letters/')).body?.count ?? 0) >= SEEDED, { what: 'the dead letters' })
    // One person's activity: its creation and SEEDED changes.
    const person = (await call('GET', `${project}/persons/?distinct_id=person-0`)).body.results[0]
    for (let n = 0; n < SEEDED; n++)
      expect((await call('PATCH', `${project}/persons/${person.id}/`, { properties: { seats: n } })).status).toBe(200)
    await drained(t.wren)

    const ids: Record<string, number> = {
      '/api/projects/{project_id}/persons/{id}/activity/': person.id,
      '/api/projects/{project_id}/feature_flags/{id}/activity/': flags[0].id,
    }
    const doc = (await call('GET', '/api/schema/')).body as { paths: Record<string, Record<string, Operation>> }
    lists = Object.entries(doc.paths)
      .filter(([template, ops]) => {
        const schema = ops.get?.responses['200']?.content?.['application/json']?.schema
        // Wren has one organization: its list holds one item, and cannot be seeded more.
        return (
          !template.startsWith('/api/environments/') && template !== '/api/organizations/' && schema?.properties?.results?.type === 'array'
        )
      })
      .map(([template, ops]) => ({
        template,
        url: template
          .replace('{project_id}', String(t.projectId))
          .replace('{organization_id}', '@current')
          .replace('{id}', String(ids[template] ?? '{id}')),
        maxLimit: ops.get.parameters?.find((p) => p.in === 'query' && p.name === 'limit')?.schema.maximum ?? 0,
      }))
  }, 120_000)
  afterAll(async () => {
    await t?.close()
  })

  it('finds every list route in the document, each taking limit and offset', () => {
    expect(lists.length).toBeGreaterThanOrEqual(16)
    for (const { template, url, maxLimit } of lists) {
      expect(url, `${template}: a path parameter this test cannot fill`).not.toContain('{')
      expect(maxLimit, `${template}: no ?limit with a maximum`).toBeGreaterThanOrEqual(SEEDED)
    }
  })

  it('reads every item of every list exactly once, in order, by offset, by next and back by previous', async () => {
    const failures: string[] = []
    for (const { template, url, maxLimit } of lists) {
      const whole = await get(withQuery(url, `limit=${maxLimit}`))
      const all = whole.results.map(identity)
      if (all.length < SEEDED) failures.push(`${template}: ${all.length} items seeded, not ${SEEDED}`)
      if (new Set(all).size !== all.length) failures.push(`${template}: the whole list repeats an item`)
      for (const total of [whole.count, whole.total_count])
        if (total !== undefined && total !== all.length) failures.push(`${template}: count ${total}`)

      const byOffset: string[] = []
      for (let offset = 0; offset <= all.length; offset += PAGE) {
        const page = await get(withQuery(url, `limit=${PAGE}&offset=${offset}`))
        byOffset.push(...page.results.map(identity))
        if (page.results.length < PAGE) break
      }
      if (JSON.stringify(byOffset) !== JSON.stringify(all))
        failures.push(`${template} by offset: ${byOffset.length} of ${all.length}, ${byOffset.join(' ')}`)

      const byNext: string[] = []
      const pages: Page[] = []
      for (let next: string | null | undefined = withQuery(url, `limit=${PAGE}`); next && pages.length <= all.length;) {
        const page = await get(next)
        pages.push(page)
        byNext.push(...page.results.map(identity))
        next = page.next
      }
      if (JSON.stringify(byNext) !== JSON.stringify(all))
        failures.push(`${template} by next: ${byNext.length} of ${all.length}, ${byNext.join(' ')}`)

      // Back from the last page by `previous` (lists that have it), to the first page and no further.
      if ('previous' in pages[0]) {
        const back: string[] = []
        for (let previous = pages[pages.length - 1].previous, steps = 0; previous && steps <= all.length; steps++) {
          const page = await get(previous)
          back.unshift(...page.results.map(identity))
          previous = page.previous
        }
        const expected = all.slice(0, all.length - pages[pages.length - 1].results.length)
        if (JSON.stringify(back) !== JSON.stringify(expected)) failures.push(`${template} by previous: ${back.join(' ')}`)
      }
    }
    expect(failures).toEqual([])
  }, 60_000)

  it('pages the projects and keys lists by limit and offset, with count and links', async () => {
    for (const path of ['/api/projects/', '/api/personal_api_keys/']) {
      const all = await get(path)
      expect(all.count, path).toBe(all.results.length)
      expect(all.results.length, path).toBeGreaterThanOrEqual(SEEDED)
      const page = await get(`${path}?limit=2&offset=3`)
      expect(page.results.map(identity), path).toEqual(all.results.slice(3, 5).map(identity))
      expect(page.count, path).toBe(all.count)
      const next = new URL(page.next!)
      expect([next.pathname, next.searchParams.get('limit'), next.searchParams.get('offset')], path).toEqual([path, '2', '5'])
      expect(new URL(page.previous!).searchParams.get('offset'), path).toBe('1')
      expect((await get(`${path}?offset=${all.results.length}`)).results, path).toEqual([])
    }
  })

  it('links a flag’s activity log page by page, as PostHog does, and takes an offset as well', async () => {
    const url = lists.find((l) => l.template.endsWith('/feature_flags/{id}/activity/'))!.url
    const names = (page: Page) => page.results.map((r) => r.detail.changes?.find((c: any) => c.field === 'name')?.after ?? r.activity)
    const first = await get(`${url}?limit=3`)
    expect(first.total_count).toBe(SEEDED + 1)
    expect(first.previous).toBeNull()
    const next = new URL(first.next!)
    expect([next.searchParams.get('limit'), next.searchParams.get('page'), next.searchParams.get('offset')]).toEqual(['3', '2', null])
    const second = await get(first.next!)
    expect(names(second)).toEqual(['Renamed 3', 'Renamed 2', 'Renamed 1'])
    expect(new URL(second.previous!).searchParams.get('page')).toBe('1')
    const last = await get(`${url}?limit=3&page=3`)
    expect([names(last), last.next]).toEqual([['Renamed 0', 'created'], null])
    // An offset need not fall on a page: the links count from it.
    const shifted = await get(`${url}?limit=3&offset=1`)
    expect(names(shifted)).toEqual(['Renamed 5', 'Renamed 4', 'Renamed 3'])
    expect(new URL(shifted.next!).searchParams.get('offset')).toBe('4')
  })

  it('refuses an offset past its bound, page and offset together, or a page past the bound, with a 400 naming it', async () => {
    const project = `/api/projects/${t.projectId}`
    const cases: Array<[string, string]> = [
      [`${project}/persons/?offset=10000001`, 'offset'],
      [`${project}/event_definitions/?offset=4294967296`, 'offset'],
      [`${project}/insights/?offset=10000001`, 'offset'],
      ['/api/projects/?offset=-1', 'offset'],
      ['/api/personal_api_keys/?offset=abc', 'offset'],
      [`${project}/events/?offset=100001`, 'offset'],
      [`${project}/events/?offset=1.5`, 'offset'],
      [`${project}/feature_flags/activity/?page=2&offset=3`, 'offset'],
      [`${project}/feature_flags/activity/?page=9007199254740991`, 'page'],
      [`${project}/feature_flags/activity/?page=0`, 'page'],
    ]
    const failures: string[] = []
    for (const [url, attr] of cases) {
      const res = await call('GET', url)
      if (res.status !== 400 || res.body?.attr !== attr || res.body?.type !== 'validation_error')
        failures.push(`${url}: ${res.status} ${res.text.slice(0, 200)}`)
    }
    expect(failures).toEqual([])
    // The bound itself is served (an empty page past the end), and a repeated offset takes its first value.
    expect((await get(`${project}/persons/?offset=10000000`)).results).toEqual([])
    const persons = await get(`${project}/persons/`)
    expect((await get(`${project}/persons/?offset=2&offset=5&limit=1`)).results.map(identity)).toEqual([identity(persons.results[2])])
  })
})
