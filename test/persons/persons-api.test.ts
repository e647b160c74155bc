// The persons API (spec "Persons") over real HTTP on real chDB: every route, both path prefixes, bad
// input, scopes, other projects' keys, object access controls and ?format=csv.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'
import { createKey, createProject, expectAuthChecks } from '../support/management'

describe('persons API', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  let env: string // /api/environments/:id/persons
  let proj: string // /api/projects/:id/persons
  let other: { id: number; api_token: string }
  let keys: { read: string; write: string; activity: string; otherProject: string }

  const capture = async (events: Array<Record<string, unknown>>) => {
    await captureBatch(t, events)
    await drained(t.wren)
  }
  const personOf = async (distinctId: string) => {
    const res = await call('GET', `${env}/?distinct_id=${encodeURIComponent(distinctId)}`)
    expect(res.status).toBe(200)
    expect(res.body.results).toHaveLength(1)
    return res.body.results[0]
  }
  const q = (filters: unknown) => encodeURIComponent(JSON.stringify(filters))

  beforeAll(async () => {
    t = await startWren()
    call = api(t)
    env = `/api/environments/${t.projectId}/persons`
    proj = `/api/projects/${t.projectId}/persons`
    other = await createProject(t, 'Other')
    keys = {
      read: (await createKey(t, ['person:read'])).value,
      write: (await createKey(t, ['person:write'])).value,
      activity: (await createKey(t, ['activity_log:read'])).value,
      otherProject: (await createKey(t, ['*'], [other.id])).value,
    }
    // Four persons, created on four days; dee has two distinct ids.
    await capture([
      {
        event: 'signed_up',
        distinct_id: 'list-ada',
        timestamp: '2026-01-01T10:00:00Z',
        properties: { $set: { email: 'ada@example.com', plan: 'pro', age: 36 } },
      },
      {
        event: 'signed_up',
        distinct_id: 'list-bob',
        timestamp: '2026-01-02T10:00:00Z',
        properties: { $set: { email: 'Bob@Example.org', plan: 'free', age: 25 } },
      },
      {
        event: 'signed_up',
        distinct_id: 'list-cyd',
        timestamp: '2026-01-03T10:00:00Z',
        properties: { $set: { name: 'Cyd', plan: 'free' } },
      },
      { event: '$pageview', distinct_id: 'list-dee-anon', timestamp: '2026-01-04T10:00:00Z', properties: {} },
      {
        event: '$identify',
        distinct_id: 'list-dee',
        timestamp: '2026-01-04T10:01:00Z',
        properties: { $anon_distinct_id: 'list-dee-anon', $set: { email: 'dee@example.com', plan: 'team', age: 51 } },
      },
    ])
  })
  afterAll(async () => {
    await t?.close()
  })

  describe('list', () => {
    it('lists every person newest first with PostHog’s fields, the same under both prefixes', async () => {
      const res = await call('GET', `${env}/`)
      expect(res.status).toBe(200)
      expect(res.body.count).toBe(4)
      expect(res.body.next).toBeNull()
      expect(res.body.previous).toBeNull()
      expect(res.body.results.map((p: any) => p.name)).toEqual(['dee@example.com', 'Cyd', 'Bob@Example.org', 'ada@example.com'])
      const dee = res.body.results[0]
      expect(dee).toMatchObject({ properties: { email: 'dee@example.com', plan: 'team', age: 51 }, user_access_level: 'editor' })
      expect(Number.isInteger(dee.id)).toBe(true)
      expect(dee.uuid).toMatch(/^[0-9a-f-]{36}$/)
      expect([...dee.distinct_ids].sort()).toEqual(['list-dee', 'list-dee-anon'])
      expect(new Date(dee.created_at).toISOString()).toBe('2026-01-04T10:00:00.000Z')

      const viaProjects = await call('GET', `${proj}/`)
      expect(viaProjects.status).toBe(200)
      expect(viaProjects.body.results).toEqual(res.body.results)
    })

    it('pages with limit/offset, an exact count and absolute next/previous URLs', async () => {
      const first = await call('GET', `${env}/?limit=2`)
      expect(first.status).toBe(200)
      expect(first.body.count).toBe(4)
      expect(first.body.results.map((p: any) => p.name)).toEqual(['dee@example.com', 'Cyd'])
      expect(first.body.previous).toBeNull()
      const next = new URL(first.body.next)
      expect(next.origin).toBe(t.url)
      expect(next.pathname).toBe(`${env}/`)
      expect(Object.fromEntries(next.searchParams)).toEqual({ limit: '2', offset: '2' })

      const second = await call('GET', next.pathname + next.search)
      expect(second.body.count).toBe(4)
      expect(second.body.results.map((p: any) => p.name)).toEqual(['Bob@Example.org', 'ada@example.com'])
      expect(second.body.next).toBeNull()
      expect(Object.fromEntries(new URL(second.body.previous).searchParams)).toEqual({ limit: '2', offset: '0' })

      const beyond = await call('GET', `${env}/?limit=2&offset=10`)
      expect(beyond.body).toMatchObject({ count: 4, results: [], next: null })
    })

    it('filters by distinct_id, exact email, search and property filters', async () => {
      const names = async (query: string) => {
        const res = await call('GET', `${env}/?${query}`)
        expect(res.status, query).toBe(200)
        expect(res.body.count, query).toBe(res.body.results.length)
        return res.body.results.map((p: any) => p.name)
      }
      expect(await names('distinct_id=list-dee-anon')).toEqual(['dee@example.com'])
      expect(await names('distinct_id=nobody')).toEqual([])
      expect(await names('email=ada%40example.com')).toEqual(['ada@example.com'])
      expect(await names('email=ADA%40example.com')).toEqual([])
      expect(await names('search=EXAMPLE.ORG')).toEqual(['Bob@Example.org'])
      expect(await names('search=list-cyd')).toEqual(['Cyd'])
      expect(await names('search=list-cy')).toEqual([])
      const ada = await personOf('list-ada')
      expect(await names(`search=${ada.uuid}`)).toEqual(['ada@example.com'])
      expect(await names(`properties=${q([{ key: 'plan', value: 'free', operator: 'exact', type: 'person' }])}`)).toEqual([
        'Cyd',
        'Bob@Example.org',
      ])
      expect(await names(`properties=${q([{ key: 'age', value: 30, operator: 'gt', type: 'person' }])}`)).toEqual([
        'dee@example.com',
        'ada@example.com',
      ])
      expect(await names(`properties=${q([{ key: 'email', operator: 'is_not_set', type: 'person' }])}`)).toEqual(['Cyd'])
      expect(
        await names(
          `properties=${q([
            { key: 'email', value: 'EXAMPLE.COM', operator: 'icontains', type: 'person' },
            { key: 'plan', value: 'pro', type: 'person' },
          ])}`,
        ),
      ).toEqual(['ada@example.com'])
      expect(await names(`properties=${q([{ key: 'plan', value: 'free' }])}&search=bob`)).toEqual(['Bob@Example.org'])
    })

    it('rejects bad paging, filter and format parameters with 400 naming the parameter', async () => {
      const cases: Array<[string, string | null]> = [
        ['limit=abc', 'limit'],
        ['limit=0', 'limit'],
        ['offset=-1', 'offset'],
        ['properties=not-json', 'properties'],
        [`properties=${q({ key: 'plan' })}`, 'properties'],
        [`properties=${q([{ value: 'x' }])}`, 'properties'],
        [`properties=${q([{ key: 'plan', operator: 'sounds_like', value: 'x' }])}`, 'properties'],
        // ClickHouse compiles regexes (RE2), so only it can tell; still the caller's 400, not a 500.
        [`properties=${q([{ key: 'email', operator: 'regex', value: '(' }])}`, null],
        ['format=xml', 'format'],
      ]
      for (const [query, attr] of cases) {
        const res = await call('GET', `${env}/?${query}`)
        expect(res.status, query).toBe(400)
        expect(res.body, query).toMatchObject({ type: 'validation_error', attr })
        expect(typeof res.body.detail, query).toBe('string')
      }
    })

    it('answers POST with 405 and points to capture', async () => {
      const res = await call('POST', `${env}/`, { distinct_ids: ['new'], properties: { email: 'x@y.z' } })
      expect(res.status).toBe(405)
      expect(res.body.code).toBe('method_not_allowed')
      expect(res.body.detail).toMatch(/capture/)
      expect(res.body.detail).toMatch(/\$identify/)
      expect((await call('GET', `${env}/?distinct_id=new`)).body.count).toBe(0)
    })

    it('writes the list as CSV with flattened columns', async () => {
      const res = await call('GET', `${env}/?format=csv`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/^text\/csv/)
      const [header, ...rows] = res.text.trim().split('\n')
      const columns = header.split(',')
      expect(columns).toEqual(
        expect.arrayContaining([
          'id',
          'name',
          'distinct_ids.0',
          'distinct_ids.1',
          'properties.email',
          'properties.plan',
          'created_at',
          'uuid',
        ]),
      )
      expect(rows).toHaveLength(4)
      const email = columns.indexOf('properties.email')
      expect(rows.map((r) => r.split(',')[email])).toEqual(['dee@example.com', '', 'Bob@Example.org', 'ada@example.com'])
    })
  })

  describe('retrieve', () => {
    it('finds a person by integer id or by uuid', async () => {
      const ada = await personOf('list-ada')
      const byId = await call('GET', `${env}/${ada.id}/`)
      expect(byId.status).toBe(200)
      expect(byId.body).toEqual(ada)
      const byUuid = await call('GET', `${proj}/${ada.uuid.toUpperCase()}/`)
      expect(byUuid.status).toBe(200)
      expect(byUuid.body).toEqual(ada)
    })

    it('answers 400 for an id that is neither, and 404 for unknown ones or another project’s person', async () => {
      const bad = await call('GET', `${env}/list-ada/`)
      expect(bad.status).toBe(400)
      expect(bad.body).toMatchObject({ type: 'validation_error', attr: 'id' })
      expect(bad.body.detail).toContain('distinct_id=list-ada')

      for (const id of ['99999', '99999999999999999999999', '00000000-0000-0000-0000-000000000000']) {
        const res = await call('GET', `${env}/${id}/`)
        expect(res.status, id).toBe(404)
        expect(res.body.code, id).toBe('not_found')
      }
      const ada = await personOf('list-ada')
      const elsewhere = await call('GET', `/api/environments/${other.id}/persons/${ada.id}/`, undefined, keys.otherProject)
      expect(elsewhere.status).toBe(404)
    })

    it('writes one person as CSV', async () => {
      const ada = await personOf('list-ada')
      const res = await call('GET', `${env}/${ada.id}/?format=csv`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/^text\/csv/)
      const [header, row] = res.text.trim().split('\n')
      expect(header.split(',')).toContain('properties.email')
      expect(row).toContain('ada@example.com')
    })
  })

  describe('update (PATCH)', () => {
    it('merges the given properties and answers 200 with the person as it now is', async () => {
      await capture([
        { event: '$set', distinct_id: 'patch-1', properties: { $set: { email: 'pat@example.com', plan: 'free', keep: 'yes' } } },
      ])
      const before = await personOf('patch-1')
      const res = await call('PATCH', `${proj}/${before.id}/`, { properties: { plan: 'pro', seats: 3 } })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ id: before.id, uuid: before.uuid, distinct_ids: ['patch-1'], user_access_level: 'editor' })
      expect(res.body.properties).toEqual({ ...before.properties, plan: 'pro', seats: 3 })
      expect((await call('GET', `${env}/${before.id}/`)).body.properties).toEqual(res.body.properties)
    })

    it('answers 400 without a properties object and changes nothing', async () => {
      const person = await personOf('patch-1')
      for (const body of [{}, { properties: ['plan'] }, { properties: 'plan=pro' }, { email: 'x' }]) {
        const res = await call('PATCH', `${env}/${person.id}/`, body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.body, JSON.stringify(body)).toMatchObject({ type: 'validation_error', attr: 'properties' })
      }
      const notJson = await fetch(`${t.url}${env}/${person.id}/`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${t.personalKey}`, 'content-type': 'application/json' },
        body: '{"properties":',
      })
      expect(notJson.status).toBe(400)
      expect((await call('GET', `${env}/${person.id}/`)).body.properties).toEqual(person.properties)
    })

    it('answers 404 for an unknown person and honours ?format=csv', async () => {
      expect((await call('PATCH', `${env}/424242/`, { properties: { a: 1 } })).status).toBe(404)
      const person = await personOf('patch-1')
      const res = await call('PATCH', `${env}/${person.id}/?format=csv`, { properties: { tier: 'gold' } })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/^text\/csv/)
      expect(res.text.split('\n')[0].split(',')).toContain('properties.tier')
    })
  })

  describe('format', () => {
    it('rejects an unknown format before changing anything', async () => {
      await capture([{ event: '$set', distinct_id: 'fmt-1', properties: { $set: { plan: 'free' } } }])
      const person = await personOf('fmt-1')
      const attempts: Array<[string, string, unknown]> = [
        ['PATCH', `${env}/${person.id}/?format=xml`, { properties: { plan: 'pro' } }],
        ['POST', `${env}/${person.id}/delete_property/?format=xml&$unset=plan`, {}],
        ['POST', `${env}/${person.id}/split/?format=xml`, {}],
        ['DELETE', `${env}/${person.id}/?format=xml`, undefined],
        ['GET', `${env}/${person.id}/activity/?format=xml`, undefined],
        ['PUT', `${env}/${person.id}/access_controls/?format=xml`, { access_level: 'none' }],
      ]
      for (const [method, route, body] of attempts) {
        const res = await call(method, route, body)
        expect(res.status, `${method} ${route}`).toBe(400)
        expect(res.body, `${method} ${route}`).toMatchObject({ code: 'invalid_format', attr: 'format' })
      }
      expect(await personOf('fmt-1')).toEqual(person)
      expect((await call('GET', `${env}/${person.id}/access_controls/`)).body.access_controls).toEqual([])
    })
  })

  describe('delete_property', () => {
    it('removes the property named by $unset and answers 200', async () => {
      await capture([
        { event: '$set', distinct_id: 'unset-1', properties: { $set: { email: 'u@example.com', coupon: 'SPRING', plan: 'free' } } },
      ])
      const person = await personOf('unset-1')
      const res = await call('POST', `${env}/${person.id}/delete_property/?$unset=coupon`, {})
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ success: true })
      const after = await call('GET', `${env}/${person.id}/`)
      expect(after.body.properties).not.toHaveProperty('coupon')
      expect(after.body.properties).toMatchObject({ email: 'u@example.com', plan: 'free' })

      const viaBody = await call('POST', `${proj}/${person.id}/delete_property/?format=csv`, { $unset: 'plan' })
      expect(viaBody.status).toBe(200)
      expect(viaBody.headers.get('content-type')).toMatch(/^text\/csv/)
      expect(viaBody.text.trim()).toBe('success\ntrue')
      expect((await call('GET', `${env}/${person.id}/`)).body.properties).not.toHaveProperty('plan')
    })

    it('answers 400 without $unset', async () => {
      const person = await personOf('unset-1')
      const res = await call('POST', `${env}/${person.id}/delete_property/`, {})
      expect(res.status).toBe(400)
      expect(res.body).toMatchObject({ type: 'validation_error', attr: '$unset' })
    })
  })

  describe('split', () => {
    it('moves every distinct id but the first to a person of its own', async () => {
      await capture([
        { event: '$pageview', distinct_id: 'split-z-anon', properties: {} },
        {
          event: '$identify',
          distinct_id: 'split-user',
          properties: { $anon_distinct_id: 'split-z-anon', $set: { email: 'split@example.com' } },
        },
        { event: '$create_alias', distinct_id: 'split-user', properties: { alias: 'split-crm' } },
      ])
      const person = await personOf('split-user')
      expect(person.distinct_ids).toHaveLength(3)
      const [first, ...rest] = person.distinct_ids
      const res = await call('POST', `${env}/${person.id}/split/`, {})
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ success: true })

      const original = await call('GET', `${env}/${person.id}/`)
      expect(original.status).toBe(200)
      expect(original.body.distinct_ids).toEqual([first])
      expect(original.body.properties).toEqual({})
      const ids = new Set([person.id])
      for (const id of rest) {
        const own = await personOf(id)
        expect(own.distinct_ids).toEqual([id])
        ids.add(own.id)
      }
      expect(ids.size).toBe(3)
    })

    it('answers 400 for a main_distinct_id the person does not have, and honours ?format=csv', async () => {
      await capture([{ event: '$identify', distinct_id: 'split2-user', properties: { $anon_distinct_id: 'split2-anon' } }])
      const person = await personOf('split2-user')
      const bad = await call('POST', `${env}/${person.id}/split/`, { main_distinct_id: 'list-ada' })
      expect(bad.status).toBe(400)
      expect(bad.body.attr).toBe('main_distinct_id')
      expect((await personOf('split2-user')).distinct_ids).toHaveLength(2)

      const res = await call('POST', `${env}/${person.id}/split/?format=csv`, { main_distinct_id: 'split2-user' })
      expect(res.status).toBe(200)
      expect(res.text.trim()).toBe('success\ntrue')
      expect((await personOf('split2-user')).distinct_ids).toEqual(['split2-user'])
      expect((await personOf('split2-anon')).distinct_ids).toEqual(['split2-anon'])
    })
  })

  describe('delete', () => {
    it('answers 204 with no body; the person is gone from retrieve and list', async () => {
      await capture([{ event: 'signed_up', distinct_id: 'del-1', properties: { $set: { email: 'del@example.com' } } }])
      const person = await personOf('del-1')
      const res = await call('DELETE', `${env}/${person.id}/`)
      expect(res.status).toBe(204)
      expect(res.text).toBe('')
      expect((await call('GET', `${env}/${person.id}/`)).status).toBe(404)
      expect((await call('GET', `${env}/?distinct_id=del-1`)).body.count).toBe(0)
      expect((await call('DELETE', `${env}/${person.id}/`)).status).toBe(404)
      expect(await t.wren.deletions.queued(t.projectId)).toEqual([])
    })

    it('with delete_events=true queues a task for the person’s events; a bad value changes nothing', async () => {
      await capture([{ event: 'signed_up', distinct_id: 'del-2', properties: {} }])
      const person = await personOf('del-2')
      const bad = await call('DELETE', `${proj}/${person.id}/?delete_events=maybe`)
      expect(bad.status).toBe(400)
      expect(bad.body.attr).toBe('delete_events')
      expect((await call('GET', `${env}/${person.id}/`)).status).toBe(200)

      const res = await call('DELETE', `${proj}/${person.id}/?delete_events=true&format=csv`)
      expect(res.status).toBe(204)
      const queued = await t.wren.deletions.queued(t.projectId)
      expect(queued.map((task) => [task.kind, task.key, task.distinct_ids])).toEqual([['person_events', person.uuid, ['del-2']]])
      // Queued, not run: the events are still there until the Sunday batch.
      expect((await call('GET', `/api/projects/${t.projectId}/events/?distinct_id=del-2`)).body.results).toHaveLength(1)
    })
  })

  describe('activity', () => {
    it('records created, updated, merged, split and deleted entries, newest first', async () => {
      await capture([
        { event: 'signed_up', distinct_id: 'act-1', properties: { $set: { plan: 'free' } } },
        { event: 'visited', distinct_id: 'act-anon', properties: { $set: { source: 'ad' } } },
      ])
      await capture([{ event: '$set', distinct_id: 'act-1', properties: { $set: { plan: 'pro' } } }])
      await capture([{ event: '$identify', distinct_id: 'act-1', properties: { $anon_distinct_id: 'act-anon' } }])
      const person = await personOf('act-1')
      expect(person.distinct_ids.sort()).toEqual(['act-1', 'act-anon'])
      expect((await call('PATCH', `${env}/${person.id}/`, { properties: { seats: 5 } })).status).toBe(200)
      expect((await call('POST', `${env}/${person.id}/split/`, {})).status).toBe(200)

      const res = await call('GET', `${env}/${person.id}/activity/`, undefined, keys.activity)
      expect(res.status).toBe(200)
      const kinds = res.body.results.map((r: any) => r.activity)
      expect(new Set(kinds)).toEqual(new Set(['created', 'updated', 'merged', 'split']))
      expect(kinds[kinds.length - 1]).toBe('created')
      expect(res.body.total_count).toBe(kinds.length)
      for (const entry of res.body.results) expect(entry).toMatchObject({ scope: 'Person', item_id: String(person.id) })
      const updates = res.body.results.filter((r: any) => r.activity === 'updated').map((r: any) => r.detail.changes)
      expect(JSON.stringify(updates)).toContain('"pro"')
      expect(JSON.stringify(updates)).toContain('seats')

      const paged = await call('GET', `${env}/${person.id}/activity/?limit=2`)
      expect(paged.body.results).toHaveLength(2)
      expect(Object.fromEntries(new URL(paged.body.next).searchParams)).toEqual({ limit: '2', page: '2' })

      expect((await call('DELETE', `${env}/${person.id}/`)).status).toBe(204)
      const afterDelete = await call('GET', `${proj}/${person.id}/activity/`)
      expect(afterDelete.status).toBe(200)
      expect(afterDelete.body.results[0].activity).toBe('deleted')

      const csv = await call('GET', `${env}/${person.id}/activity/?format=csv`)
      expect(csv.status).toBe(200)
      expect(csv.headers.get('content-type')).toMatch(/^text\/csv/)
      expect(csv.text.split('\n')[0].split(',')).toEqual(expect.arrayContaining(['activity', 'scope', 'item_id', 'created_at']))
    })

    it('rejects bad paging', async () => {
      const person = await personOf('list-ada')
      expect((await call('GET', `${env}/${person.id}/activity/?page=0`)).status).toBe(400)
      expect((await call('GET', `${env}/${person.id}/activity/?limit=x`)).status).toBe(400)
    })
  })

  describe('properties_timeline', () => {
    it('starts a new point whenever the person’s properties change', async () => {
      await capture([
        { event: '$pageview', distinct_id: 'tl-1', timestamp: '2026-02-01T10:00:00Z', properties: { $set: { plan: 'free' } } },
        { event: '$pageview', distinct_id: 'tl-1', timestamp: '2026-02-01T11:00:00Z', properties: {} },
        { event: '$pageview', distinct_id: 'tl-1', timestamp: '2026-02-02T10:00:00Z', properties: { $set: { plan: 'pro' } } },
        { event: '$pageview', distinct_id: 'tl-1', timestamp: '2026-02-02T11:00:00Z', properties: {} },
      ])
      const person = await personOf('tl-1')
      const res = await call('GET', `${env}/${person.id}/properties_timeline/`, undefined, keys.read)
      expect(res.status).toBe(200)
      expect(res.body.points.map((p: any) => [p.properties.plan, p.relevant_event_count])).toEqual([
        ['free', 2],
        ['pro', 2],
      ])
      expect(new Date(res.body.points[1].timestamp).toISOString()).toBe('2026-02-02T10:00:00.000Z')

      const ranged = await call('GET', `${proj}/${person.id}/properties_timeline/?date_from=2026-02-02T00:00:00Z`)
      expect(ranged.body.points.map((p: any) => p.properties.plan)).toEqual(['pro'])

      const csv = await call('GET', `${env}/${person.id}/properties_timeline/?format=csv`)
      expect(csv.status).toBe(200)
      expect(csv.text.trim().split('\n')).toHaveLength(3)
      expect(csv.text.split('\n')[0].split(',')).toEqual(expect.arrayContaining(['timestamp', 'properties.plan', 'relevant_event_count']))
    })

    it('answers 400 for a date it cannot read', async () => {
      const person = await personOf('tl-1')
      const res = await call('GET', `${env}/${person.id}/properties_timeline/?date_from=yesterday-ish`)
      expect(res.status).toBe(400)
      expect(res.body.attr).toBe('date_from')
    })
  })

  describe('access_controls', () => {
    it('limits a key to viewer (read, no PATCH) or none (no read), and says so in user_access_level', async () => {
      await capture([{ event: '$set', distinct_id: 'acl-1', properties: { $set: { email: 'acl@example.com' } } }])
      const person = await personOf('acl-1')
      const limited = await createKey(t, ['person:write', 'access_control:read', 'access_control:write'])
      const as = (method: string, route: string, body?: unknown) => call(method, route, body, limited.value)

      const initial = await as('GET', `${env}/${person.id}/access_controls/`)
      expect(initial.status).toBe(200)
      expect(initial.body).toMatchObject({
        access_controls: [],
        default_access_level: 'editor',
        user_access_level: 'editor',
        user_can_edit_access_levels: false,
      })
      expect(initial.body.available_access_levels).toEqual(['none', 'viewer', 'editor'])

      const toViewer = await call('PUT', `${env}/${person.id}/access_controls/`, {
        access_level: 'viewer',
        organization_member: limited.id,
      })
      expect(toViewer.status).toBe(200)
      expect(toViewer.body.access_controls).toEqual([
        expect.objectContaining({
          access_level: 'viewer',
          resource: 'person',
          resource_id: String(person.id),
          organization_member: limited.id,
        }),
      ])
      expect(toViewer.body.user_access_level).toBe('editor')

      const read = await as('GET', `${env}/${person.id}/`)
      expect(read.status).toBe(200)
      expect(read.body.user_access_level).toBe('viewer')
      expect((await as('GET', `${env}/?distinct_id=acl-1`)).body.results[0].user_access_level).toBe('viewer')
      expect((await as('GET', `${env}/${person.id}/access_controls/`)).body.user_access_level).toBe('viewer')
      const patch = await as('PATCH', `${env}/${person.id}/`, { properties: { plan: 'x' } })
      expect(patch.status).toBe(403)
      expect(patch.body.detail).toMatch(/editor/)
      expect((await as('DELETE', `${env}/${person.id}/`)).status).toBe(403)
      expect((await as('POST', `${env}/${person.id}/split/`, {})).status).toBe(403)
      // A key without every scope cannot change the rules, even for itself.
      expect(
        (await as('PUT', `${env}/${person.id}/access_controls/`, { access_level: 'editor', organization_member: limited.id })).status,
      ).toBe(403)

      expect(
        (await call('PUT', `${env}/${person.id}/access_controls/`, { access_level: 'none', organization_member: limited.id })).status,
      ).toBe(200)
      expect((await as('GET', `${env}/${person.id}/`)).status).toBe(403)
      expect((await as('GET', `${env}/${person.id}/properties_timeline/`)).status).toBe(403)
      const hidden = await as('GET', `${env}/?distinct_id=acl-1`)
      expect(hidden.status).toBe(200)
      expect(hidden.body).toMatchObject({ count: 0, results: [] })
      // The rule is for that key only.
      expect((await call('GET', `${env}/${person.id}/`)).body.user_access_level).toBe('editor')

      const cleared = await call('PUT', `${proj}/${person.id}/access_controls/`, { access_level: null, organization_member: limited.id })
      expect(cleared.body.access_controls).toEqual([])
      expect((await as('GET', `${env}/${person.id}/`)).body.user_access_level).toBe('editor')

      // A rule for everyone (no organization_member), and a key's own rule that overrides it.
      const everyone = await call('PUT', `${env}/${person.id}/access_controls/`, { access_level: 'none' })
      expect(everyone.body.access_controls).toEqual([expect.objectContaining({ access_level: 'none', organization_member: null })])
      expect((await as('GET', `${env}/${person.id}/`)).status).toBe(403)
      expect((await as('GET', `${env}/?distinct_id=acl-1`)).body.count).toBe(0)
      expect((await as('GET', `${env}/?distinct_id=list-ada`)).body.count).toBe(1)
      await call('PUT', `${env}/${person.id}/access_controls/`, { access_level: 'viewer', organization_member: limited.id })
      expect((await as('GET', `${env}/?distinct_id=acl-1`)).body.results.map((p: any) => p.user_access_level)).toEqual(['viewer'])
      await call('PUT', `${env}/${person.id}/access_controls/`, { access_level: null })
      await call('PUT', `${env}/${person.id}/access_controls/`, { access_level: null, organization_member: limited.id })
      expect((await as('GET', `${env}/${person.id}/`)).body.user_access_level).toBe('editor')
    })

    it('rejects unknown access levels and roles, and honours ?format=csv', async () => {
      const person = await personOf('acl-1')
      const bad = await call('PUT', `${env}/${person.id}/access_controls/`, { access_level: 'owner' })
      expect(bad.status).toBe(400)
      expect(bad.body.attr).toBe('access_level')
      expect((await call('PUT', `${env}/${person.id}/access_controls/`, { access_level: 'viewer', role: 'r1' })).status).toBe(400)
      const csv = await call('GET', `${env}/${person.id}/access_controls/?format=csv`)
      expect(csv.status).toBe(200)
      expect(csv.headers.get('content-type')).toMatch(/^text\/csv/)
      expect(csv.text.split('\n')[0].split(',')).toEqual(expect.arrayContaining(['user_access_level', 'default_access_level']))
    })
  })

  describe('auth', () => {
    it('every route: 401 without or with an unknown key, 403 without the scope or for another project, 404 for an unknown project', async () => {
      const person = await personOf('list-ada')
      const id = person.id
      const routes = [
        { method: 'GET', route: '/api/environments/:project_id/persons/', scope: 'person:read', wrong: keys.activity },
        { method: 'POST', route: '/api/environments/:project_id/persons/', scope: 'person:write', wrong: keys.read, body: {} },
        { method: 'GET', route: `/api/environments/:project_id/persons/${id}/`, scope: 'person:read', wrong: keys.activity },
        {
          method: 'PATCH',
          route: `/api/environments/:project_id/persons/${id}/`,
          scope: 'person:write',
          wrong: keys.read,
          body: { properties: { hacked: true } },
        },
        { method: 'DELETE', route: `/api/environments/:project_id/persons/${id}/`, scope: 'person:write', wrong: keys.read },
        { method: 'GET', route: `/api/environments/:project_id/persons/${id}/activity/`, scope: 'activity_log:read', wrong: keys.read },
        {
          method: 'POST',
          route: `/api/environments/:project_id/persons/${id}/delete_property/?$unset=email`,
          scope: 'person:write',
          wrong: keys.read,
          body: {},
        },
        {
          method: 'GET',
          route: `/api/environments/:project_id/persons/${id}/properties_timeline/`,
          scope: 'person:read',
          wrong: keys.activity,
        },
        { method: 'POST', route: `/api/environments/:project_id/persons/${id}/split/`, scope: 'person:write', wrong: keys.read, body: {} },
        {
          method: 'GET',
          route: `/api/environments/:project_id/persons/${id}/access_controls/`,
          scope: 'access_control:read',
          wrong: keys.read,
        },
        {
          method: 'PUT',
          route: `/api/environments/:project_id/persons/${id}/access_controls/`,
          scope: 'access_control:write',
          wrong: keys.write,
          body: { access_level: 'none' },
        },
        { method: 'GET', route: `/api/projects/:project_id/persons/${id}/`, scope: 'person:read', wrong: keys.activity },
        {
          method: 'PATCH',
          route: `/api/projects/:project_id/persons/${id}/`,
          scope: 'person:write',
          wrong: keys.read,
          body: { properties: { hacked: true } },
        },
      ]
      for (const r of routes) await expectAuthChecks(t, r, { wrongScopeKey: r.wrong, otherProjectKey: keys.otherProject })
      // Nothing above changed the person.
      expect(await personOf('list-ada')).toEqual(person)
      // person:write implies person:read; the right key works.
      expect((await call('GET', `${env}/${id}/`, undefined, keys.write)).status).toBe(200)
      expect((await call('GET', `${env}/${id}/`, undefined, keys.read)).status).toBe(200)
    })
  })
})
