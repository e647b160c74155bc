// Projects and personal API keys over real HTTP: what a key can see and create, limited scopes and
// limited projects, and the auth answers of the project routes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, startWren, type TestWren } from './support/wren'
import { createKey, createProject, expectAuthChecks } from './support/management'
import { queryRows } from '../services/shared/clickhouse'

describe('projects and keys API', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  let second: { id: number; api_token: string }
  beforeAll(async () => {
    t = await startWren()
    call = api(t)
    second = await createProject(t, 'Second')
  })
  afterAll(async () => {
    await t?.close()
  })

  describe('POST /api/projects/', () => {
    it('creates a project with its own project API key', async () => {
      const res = await call('POST', '/api/projects/', { name: '  Marketing site ' })
      expect(res.status).toBe(201)
      expect(res.body).toMatchObject({ name: 'Marketing site', timezone: 'UTC' })
      expect(res.body.id).toBeGreaterThan(second.id)
      expect(res.body.api_token).toMatch(/^phc_\w{20,}$/)
      expect(res.body.api_token).not.toBe(second.api_token)
      const read = await call('GET', `/api/projects/${res.body.id}/`)
      expect(read.status).toBe(200)
      expect(read.body).toEqual(res.body)
    })

    it('needs a name, the project:write scope and a key not limited to some projects', async () => {
      for (const body of [{}, { name: '' }, { name: '   ' }, { name: 42 }]) {
        const res = await call('POST', '/api/projects/', body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.body.attr).toBe('name')
      }
      expect((await call('POST', '/api/projects/', { name: 'x' }, null)).status).toBe(401)
      expect((await call('POST', '/api/projects/', { name: 'x' }, 'phx_unknown')).status).toBe(401)
      const reader = await createKey(t, ['project:read'])
      const denied = await call('POST', '/api/projects/', { name: 'x' }, reader.value)
      expect(denied.status).toBe(403)
      expect(denied.body.detail).toContain("'project:write'")
      const scoped = await createKey(t, ['project:write'], [second.id])
      expect((await call('POST', '/api/projects/', { name: 'x' }, scoped.value)).status).toBe(403)
      const before = (await call('GET', '/api/projects/')).body.count
      const writer = await createKey(t, ['project:write'])
      expect((await call('POST', '/api/projects/', { name: 'By writer' }, writer.value)).status).toBe(201)
      expect((await call('GET', '/api/projects/')).body.count).toBe(before + 1)
    })
  })

  describe('GET /api/projects/', () => {
    it('lists only the projects the key reaches', async () => {
      const all = await call('GET', '/api/projects/')
      expect(all.status).toBe(200)
      expect(all.body.results.map((p: any) => p.id)).toEqual(expect.arrayContaining([t.projectId, second.id]))
      expect(all.body.count).toBe(all.body.results.length)
      expect(all.body.results.find((p: any) => p.id === t.projectId).api_token).toBe(t.projectKey)

      const onlySecond = await createKey(t, ['project:read', 'person:read'], [second.id])
      const limited = await call('GET', '/api/projects/', undefined, onlySecond.value)
      expect(limited.status).toBe(200)
      expect(limited.body).toMatchObject({ count: 1, next: null, previous: null })
      expect(limited.body.results.map((p: any) => [p.id, p.name])).toEqual([[second.id, 'Second']])

      const csv = await call('GET', '/api/projects/?format=csv', undefined, onlySecond.value)
      expect(csv.status).toBe(200)
      expect(csv.text.trim().split('\n')).toHaveLength(2)
    })

    it('answers 401 without or with an unknown key and 403 without project:read', async () => {
      expect((await call('GET', '/api/projects/', undefined, null)).status).toBe(401)
      expect((await call('GET', '/api/projects/', undefined, 'phx_unknown')).status).toBe(401)
      const personOnly = await createKey(t, ['person:read'])
      const res = await call('GET', '/api/projects/', undefined, personOnly.value)
      expect(res.status).toBe(403)
      expect(res.body.detail).toContain("'project:read'")
    })
  })

  describe('one project', () => {
    it('reads and updates a project under both prefixes, with auth checks', async () => {
      const wrongScopeKey = (await createKey(t, ['person:read'])).value
      const otherProjectKey = (await createKey(t, ['*'], [second.id])).value
      await expectAuthChecks(t, { method: 'GET', route: '/api/projects/:project_id/', scope: 'project:read' }, { wrongScopeKey, otherProjectKey })
      await expectAuthChecks(t, { method: 'PATCH', route: '/api/environments/:project_id/', scope: 'project:write', body: { name: 'Hijacked' } }, { wrongScopeKey, otherProjectKey })

      const res = await call('PATCH', `/api/environments/${second.id}/`, { name: 'Second, renamed', timezone: 'Europe/Berlin' })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ id: second.id, name: 'Second, renamed', timezone: 'Europe/Berlin', api_token: second.api_token })
      expect((await call('GET', `/api/environments/${second.id}/`)).body.name).toBe('Second, renamed')
      expect((await call('GET', `/api/projects/${t.projectId}/`)).body.name).toBe('Default project')

      const badZone = await call('PATCH', `/api/projects/${second.id}/`, { timezone: 'Mars/Olympus' })
      expect(badZone.status).toBe(400)
      expect(badZone.body.attr).toBe('timezone')
      expect((await call('PATCH', `/api/projects/${second.id}/`, { name: '' })).status).toBe(400)
      expect((await call('GET', `/api/projects/not-a-number/`)).status).toBe(400)
    })
  })

  describe('POST /api/personal_api_keys/', () => {
    it('creates a key with limited scopes and projects that works only within them', async () => {
      const res = await call('POST', '/api/personal_api_keys/', { label: 'ci', scopes: ['person:read'], scoped_teams: [second.id] })
      expect(res.status).toBe(201)
      expect(res.body).toMatchObject({ label: 'ci', scopes: ['person:read'], scoped_teams: [second.id] })
      expect(res.body.value).toMatch(/^phx_\w{20,}$/)
      expect(res.body.mask_value).toBe(`${res.body.value.slice(0, 4)}...${res.body.value.slice(-4)}`)
      const key = res.body.value

      expect((await call('GET', `/api/environments/${second.id}/persons/`, undefined, key)).status).toBe(200)
      expect((await call('GET', `/api/environments/${t.projectId}/persons/`, undefined, key)).status).toBe(403)
      const write = await call('PATCH', `/api/environments/${second.id}/persons/1/`, { properties: {} }, key)
      expect(write.status).toBe(403)
      expect(write.body.detail).toContain("'person:write'")

      // Stored hashed: the value appears nowhere in ClickHouse.
      const rows = await queryRows<Record<string, unknown>>(t.wren.clickhouse, 'SELECT * FROM personal_api_keys')
      expect(JSON.stringify(rows)).not.toContain(key)
    })

    it('rejects bad scopes and projects, and callers without every scope', async () => {
      const cases: Array<[unknown, number, string | null]> = [
        [{ scopes: [] }, 400, 'scopes'],
        [{}, 400, 'scopes'],
        [{ scopes: ['person:delete'] }, 400, 'scopes'],
        [{ scopes: ['spaceship:read'] }, 400, 'scopes'],
        [{ scopes: 'person:read' }, 400, 'scopes'],
        [{ scopes: ['person:read'], scoped_teams: ['one'] }, 400, 'scoped_teams'],
        [{ scopes: ['person:read'], scoped_teams: [98765] }, 404, null],
      ]
      for (const [body, status, attr] of cases) {
        const res = await call('POST', '/api/personal_api_keys/', body)
        expect(res.status, JSON.stringify(body)).toBe(status)
        if (attr) expect(res.body.attr, JSON.stringify(body)).toBe(attr)
      }
      expect((await call('POST', '/api/personal_api_keys/', { scopes: ['*'] }, null)).status).toBe(401)
      expect((await call('POST', '/api/personal_api_keys/', { scopes: ['*'] }, 'phx_unknown')).status).toBe(401)
      const limited = await createKey(t, ['person:write', 'project:write'])
      const escalate = await call('POST', '/api/personal_api_keys/', { scopes: ['*'] }, limited.value)
      expect(escalate.status).toBe(403)
      expect(escalate.body.type).toBe('authentication_error')
    })
  })
})
