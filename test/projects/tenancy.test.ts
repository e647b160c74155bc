// Projects that cannot be confused: objects of one project are not usable from another (flags naming
// another project's cohort, trends over another project's action); a person hidden from a key stays
// hidden in events, trends and the Query API's events and persons; management objects have size limits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'
import { createKey, createProject } from '../support/management'

describe('tenancy', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  let other: { id: number; api_token: string }
  beforeAll(async () => {
    t = await startWren()
    call = api(t)
    other = await createProject(t, 'Other')
  })
  afterAll(async () => {
    await t?.close()
  })

  describe('another project’s objects', () => {
    it('refuses a flag naming another project’s cohort, and decide stays error-free', async () => {
      const theirs = await call('POST', `/api/projects/${other.id}/cohorts/`, {
        name: 'Theirs',
        filters: { properties: { type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person' }] } },
      })
      expect(theirs.status).toBe(201)
      const flags = `/api/projects/${t.projectId}/feature_flags/`
      const withCohort = (id: number) => ({ groups: [{ properties: [{ key: 'id', type: 'cohort', value: id }], rollout_percentage: 100 }] })

      const created = await call('POST', flags, { key: 'borrowed-cohort', filters: withCohort(theirs.body.id) })
      expect(created.status).toBe(400)
      expect(created.body).toMatchObject({ type: 'validation_error', attr: 'filters' })
      expect(created.body.detail).toContain(`Cohort ${theirs.body.id} does not exist in this project`)

      // Its own cohort, made a moment ago, is fine; changing it to the other project's is not.
      const mine = await call('POST', `/api/projects/${t.projectId}/cohorts/`, {
        name: 'Mine',
        filters: { properties: { type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person' }] } },
      })
      const flag = await call('POST', flags, { key: 'own-cohort', filters: withCohort(mine.body.id) })
      expect(flag.status).toBe(201)
      const patched = await call('PATCH', `${flags}${flag.body.id}/`, { filters: withCohort(theirs.body.id) })
      expect(patched.status).toBe(400)
      expect(patched.body.detail).toContain(`Cohort ${theirs.body.id}`)

      const decide = await fetch(`${t.url}/decide/?v=3`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: t.projectKey, distinct_id: 'someone' }),
      })
      const answer = (await decide.json()) as { featureFlags: Record<string, unknown>; errorsWhileComputingFlags: boolean }
      expect(answer.errorsWhileComputingFlags).toBe(false)
      expect(answer.featureFlags).toEqual({ 'own-cohort': false })
    })

    it('refuses a trend over another project’s action, naming it', async () => {
      const theirs = await call('POST', `/api/projects/${other.id}/actions/`, { name: 'Their signup', steps: [{ event: 'signed_up' }] })
      expect(theirs.status).toBe(201)
      const trend = await call('POST', `/api/environments/${t.projectId}/insights/trend/`, {
        actions: [{ id: theirs.body.id }],
        events: [{ id: '$pageview' }],
      })
      expect(trend.status).toBe(400)
      expect(trend.body).toMatchObject({ type: 'validation_error', attr: 'actions' })
      expect(trend.body.detail).toContain(`Action ${theirs.body.id} does not exist in this project`)
      const bad = await call(
        'GET',
        `/api/environments/${t.projectId}/insights/trend/?actions=${encodeURIComponent(JSON.stringify([{ id: 'abc' }]))}`,
      )
      expect(bad.status).toBe(400)
      // The other project itself can use it.
      expect((await call('POST', `/api/environments/${other.id}/insights/trend/`, { actions: [{ id: theirs.body.id }] })).status).toBe(200)
    })
  })

  describe('a person hidden from a key (access level none)', () => {
    it('hides that person’s events from the events list and from trends, by distinct id, person id and breakdown', async () => {
      await captureBatch(t, [
        {
          event: '$pageview',
          distinct_id: 'hidden-user',
          timestamp: '2025-06-03T10:00:00Z',
          properties: { $set: { email: 'hidden@example.com', plan: 'secret-plan' }, $current_url: 'https://hidden.example/private' },
        },
        { event: '$pageview', distinct_id: 'hidden-user-device', timestamp: '2025-06-03T10:01:00Z', properties: {} },
        {
          event: '$identify',
          distinct_id: 'hidden-user',
          timestamp: '2025-06-03T10:02:00Z',
          properties: { $anon_distinct_id: 'hidden-user-device' },
        },
        {
          event: '$pageview',
          distinct_id: 'seen-user',
          timestamp: '2025-06-03T11:00:00Z',
          properties: { $set: { email: 'seen@example.com', plan: 'free' } },
        },
      ])
      await drained(t.wren)
      const persons = `/api/environments/${t.projectId}/persons`
      const hidden = (await call('GET', `${persons}/?distinct_id=hidden-user`)).body.results[0]
      const limited = await createKey(t, ['query:read', 'insight:read', 'person:read'])
      expect(
        (await call('PUT', `${persons}/${hidden.id}/access_controls/`, { access_level: 'none', organization_member: limited.id })).status,
      ).toBe(200)
      const as = (method: string, route: string, body?: unknown) => call(method, route, body, limited.value)
      const events = `/api/projects/${t.projectId}/events/`
      const trend = {
        events: [{ id: '$pageview' }],
        breakdown: 'plan',
        breakdown_type: 'person',
        date_from: '2025-06-01',
        date_to: '2025-06-07',
        refresh: true,
      }

      // The full key sees everything: the data is there.
      expect((await call('GET', `${events}?distinct_id=hidden-user`)).body.results.length).toBeGreaterThan(0)
      const all = (await call('POST', `/api/environments/${t.projectId}/insights/trend/`, trend)).body.result
      expect(all.map((s: any) => s.breakdown_value)).toContain('secret-plan')

      for (const query of [
        '?distinct_id=hidden-user',
        '?distinct_id=hidden-user-device',
        `?person_id=${hidden.uuid}`,
        '',
        '?event=$pageview',
      ]) {
        const res = await as('GET', `${events}${query}`)
        expect(res.status, query).toBe(200)
        expect(
          res.body.results.map((e: any) => e.distinct_id),
          query,
        ).not.toEqual(expect.arrayContaining(['hidden-user']))
        expect(res.text, query).not.toMatch(/hidden@example\.com|secret-plan|hidden\.example|hidden-user/)
      }
      expect((await as('GET', `${events}?distinct_id=seen-user`)).body.results).toHaveLength(1)

      // The Query API's events table and persons: the same person is left out, by person, search and display name.
      const query = `/api/environments/${t.projectId}/query/`
      const everything = { kind: 'EventsQuery', select: ['*', 'person', 'person_display_name'], after: 'all' }
      expect((await call('POST', query, { query: everything })).text).toContain('hidden@example.com')
      for (const q of [
        everything,
        { kind: 'EventsQuery', select: ['*'], personId: hidden.uuid, after: 'all' },
        { kind: 'ActorsQuery', select: ['person', 'properties.email', 'properties.plan'] },
        { kind: 'ActorsQuery', search: 'hidden' },
      ]) {
        const res = await as('POST', query, { query: q })
        expect(res.status, JSON.stringify(q)).toBe(200)
        expect(res.text, JSON.stringify(q)).not.toMatch(/hidden@example\.com|secret-plan|hidden\.example|hidden-user/)
      }

      const limitedTrend = await as('POST', `/api/environments/${t.projectId}/insights/trend/`, trend)
      expect(limitedTrend.status).toBe(200)
      expect(limitedTrend.body.result.map((s: any) => [s.breakdown_value, s.count])).toEqual([['free', 1]])
      expect(limitedTrend.text).not.toContain('secret-plan')
      const csv = await as(
        'GET',
        `/api/environments/${t.projectId}/insights/trend/?format=csv&events=${encodeURIComponent(JSON.stringify(trend.events))}&breakdown=plan&breakdown_type=person&date_from=2025-06-01&date_to=2025-06-07`,
      )
      expect(csv.status).toBe(200)
      expect(csv.text).not.toContain('secret-plan')

      // A saved insight of the same trend, read by each key (its result is computed for the reader).
      const { refresh: _refresh, ...filters } = trend
      const saved = await call('POST', `/api/projects/${t.projectId}/insights/`, { name: 'Plans', filters })
      expect(saved.status).toBe(201)
      const insight = `/api/projects/${t.projectId}/insights/${saved.body.id}/`
      expect((await call('GET', insight)).text).toContain('secret-plan')
      const limitedInsight = await as('GET', insight)
      expect(limitedInsight.status).toBe(200)
      expect(limitedInsight.body.result.map((s: any) => [s.breakdown_value, s.count])).toEqual([['free', 1]])
      expect(limitedInsight.text).not.toContain('secret-plan')
    })
  })

  describe('size limits', () => {
    it('refuses oversized names, descriptions, filters and settings of every management object with a 400 naming the field', async () => {
      const p = `/api/projects/${t.projectId}`
      const big = 'x'.repeat(1024 * 1024)
      const cases: Array<[string, string, unknown, string]> = [
        ['POST', `${p}/actions/`, { name: 'Huge', description: big, steps: [{ event: 'x' }] }, 'description'],
        ['POST', `${p}/actions/`, { name: 'Steps', steps: [{ event: 'x', url: big }] }, 'steps'],
        [
          'POST',
          `${p}/cohorts/`,
          { name: 'n'.repeat(401), filters: { properties: { type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person' }] } } },
          'name',
        ],
        [
          'POST',
          `${p}/cohorts/`,
          { name: 'Wide', filters: { properties: { type: 'AND', values: [{ key: 'plan', value: big, type: 'person' }] } } },
          'filters',
        ],
        [
          'POST',
          `${p}/feature_flags/`,
          { key: 'huge', filters: { groups: [{ properties: [{ key: 'email', value: big, type: 'person' }] }] } },
          'filters',
        ],
        ['POST', `${p}/feature_flags/`, { key: 'named', name: 'n'.repeat(401) }, 'name'],
        ['PATCH', `${p}/`, { app_urls: [big] }, 'app_urls'],
        ['PATCH', `${p}/`, { name: 'n'.repeat(401) }, 'name'],
        ['POST', '/api/projects/', { name: 'n'.repeat(401) }, 'name'],
        ['POST', '/api/personal_api_keys/', { label: 'l'.repeat(401), scopes: ['person:read'] }, 'label'],
        ['POST', `${p}/insights/`, { name: 'n'.repeat(401), filters: { events: [{ id: 'x' }] } }, 'name'],
        ['POST', `${p}/insights/`, { name: 'Wide', query: { kind: 'TrendsQuery', series: [{ event: big }] } }, 'query'],
        ['POST', `${p}/dashboards/`, { name: 'Huge', description: big }, 'description'],
      ]
      for (const [method, route, body, attr] of cases) {
        const res = await call(method, route, body)
        expect(res.status, `${method} ${route} ${attr}`).toBe(400)
        expect(res.body, `${method} ${route}`).toMatchObject({ type: 'validation_error', code: 'max_length', attr })
      }
      const action = await call('POST', `${p}/actions/`, { name: 'Small', description: 'd'.repeat(10_000), steps: [{ event: 'x' }] })
      expect(action.status).toBe(201)
      const patched = await call('PATCH', `${p}/actions/${action.body.id}/`, { description: big })
      expect(patched.status).toBe(400)
      expect(patched.body.attr).toBe('description')
      const list = await call('GET', `${p}/actions/`)
      expect(list.text.length).toBeLessThan(100_000)
    })
  })
})
