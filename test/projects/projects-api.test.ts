// Projects and personal API keys over real HTTP: what a key can see and create, limited scopes and
// limited projects, and the auth answers of the project routes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, startWren, type TestWren } from '../support/wren'
import { createKey, createProject, expectAuthChecks } from '../support/management'
import { queryRows } from '../../services/platform/clickhouse'

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

    it('gives ten concurrent creations ten distinct projects, each with a working project API key', async () => {
      const created = await Promise.all(Array.from({ length: 10 }, (_, i) => call('POST', '/api/projects/', { name: `Concurrent ${i}` })))
      expect(created.map((r) => r.status)).toEqual(Array(10).fill(201))
      const ids = created.map((r) => r.body.id)
      expect(new Set(ids).size).toBe(10)
      for (const r of created) {
        const read = await call('GET', `/api/projects/${r.body.id}/`)
        expect(read.body).toMatchObject({ id: r.body.id, name: r.body.name, api_token: r.body.api_token })
        const capture = await fetch(`${t.url}/capture/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ api_key: r.body.api_token, event: 'created', distinct_id: 'u1' }),
        })
        expect(capture.status, r.body.name).toBe(200)
      }
      // Still ten after a reload from storage: no creation overwrote another's row.
      await t.wren.projects.refresh()
      const listed = (await call('GET', '/api/projects/')).body.results.filter((p: any) => p.name.startsWith('Concurrent '))
      expect(listed.map((p: any) => p.id).sort((a: number, b: number) => a - b)).toEqual([...ids].sort((a, b) => a - b))
    })
  })

  describe('GET /api/projects/', () => {
    it('lists only the projects the key reaches', async () => {
      const all = await call('GET', '/api/projects/')
      expect(all.status).toBe(200)
      expect(all.body.results.map((p: any) => p.id)).toEqual(expect.arrayContaining([t.projectId, second.id]))
      expect(all.body.count).toBe(all.body.results.length)
      expect(all.body.results.find((p: any) => p.id === t.projectId).api_token).toBe(t.projectKey)
      // Each names its organization by uuid, as PostHog's TeamSerializer does (PostHog's agent toolkit requires it).
      const org = (await call('GET', '/api/organizations/@current/')).body.id
      expect(org).toMatch(/^[0-9a-f-]{36}$/)
      expect(all.body.results.map((p: any) => p.organization)).toEqual(all.body.results.map(() => org))
      expect((await call('GET', `/api/organizations/${org}/projects/`)).body.results[0].organization).toBe(org)

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
      await expectAuthChecks(
        t,
        { method: 'GET', route: '/api/projects/:project_id/', scope: 'project:read' },
        { wrongScopeKey, otherProjectKey },
      )
      await expectAuthChecks(
        t,
        { method: 'PATCH', route: '/api/environments/:project_id/', scope: 'project:write', body: { name: 'Hijacked' } },
        { wrongScopeKey, otherProjectKey },
      )

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

  describe('project settings', () => {
    it('refuses to overwrite id or api_token, and unknown settings or wrong types, naming the key', async () => {
      const route = `/api/projects/${second.id}/`
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ id: 999, api_token: 'phc_spoofed' }, 'id'],
        [{ api_token: 'phc_spoofed' }, 'api_token'],
        [{ created_at: '2020-01-01T00:00:00Z' }, 'created_at'],
        [{ favourite_colour: 'blue' }, 'favourite_colour'],
        [{ name: 'Fine', constructor: {} }, 'constructor'],
        [{ session_recording_opt_in: 'yes' }, 'session_recording_opt_in'],
        [{ week_start_day: 3 }, 'week_start_day'],
        [{ app_urls: 'https://shop.example' }, 'app_urls'],
        [{ test_account_filters: { email: 'x' } }, 'test_account_filters'],
        [{ remote_config: [1, 2] }, 'remote_config'],
      ]
      for (const [body, attr] of cases) {
        const res = await call('PATCH', route, body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.body.attr, JSON.stringify(body)).toBe(attr)
        expect(res.body.detail).toContain(attr)
      }
      const listed = (await call('GET', '/api/projects/')).body.results.find((p: any) => p.api_token === second.api_token)
      expect(listed).toMatchObject({ id: second.id, api_token: second.api_token })
      expect(listed.favourite_colour).toBeUndefined()
      expect((await call('GET', route)).body.name).not.toBe('Fine')
    })

    it('stores known settings with their types, takes a read-modify-write back, and resets with null', async () => {
      const route = `/api/projects/${second.id}/`
      const res = await call('PATCH', route, {
        session_recording_opt_in: true,
        app_urls: ['https://shop.example'],
        week_start_day: 1,
        test_account_filters: [{ key: 'email', operator: 'not_icontains', value: '@test.dev', type: 'person' }],
      })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({
        id: second.id,
        api_token: second.api_token,
        session_recording_opt_in: true,
        app_urls: ['https://shop.example'],
        week_start_day: 1,
      })
      const config = await fetch(`${t.url}/array/${second.api_token}/config`)
      expect(((await config.json()) as any).sessionRecording).toMatchObject({ endpoint: '/s/' })

      const roundTrip = await call('PATCH', route, { ...res.body, name: 'Second, round trip' })
      expect(roundTrip.status).toBe(200)
      expect(roundTrip.body).toMatchObject({ id: second.id, name: 'Second, round trip', api_token: second.api_token, week_start_day: 1 })

      const reset = await call('PATCH', route, { week_start_day: null })
      expect(reset.status).toBe(200)
      expect(reset.body.week_start_day).toBeUndefined()
      expect(reset.body.session_recording_opt_in).toBe(true)
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

    it('mints only keys whose scopes and projects are within the caller’s own', async () => {
      // A * key limited to the default project.
      const onlyFirst = await createKey(t, ['*'], [t.projectId])
      const mint = (body: unknown, key: string) => call('POST', '/api/personal_api_keys/', body, key)
      for (const scopedTeams of [[], [second.id], [t.projectId, second.id]]) {
        const res = await mint({ scopes: ['*'], scoped_teams: scopedTeams }, onlyFirst.value)
        expect(res.status, JSON.stringify(scopedTeams)).toBe(403)
        expect(res.body).toMatchObject({ type: 'authentication_error', code: 'permission_denied' })
        expect(res.body.value).toBeUndefined()
      }
      const within = await mint({ scopes: ['person:read'], scoped_teams: [t.projectId] }, onlyFirst.value)
      expect(within.status).toBe(201)
      expect((await call('GET', `/api/environments/${t.projectId}/persons/`, undefined, within.body.value)).status).toBe(200)
      expect((await call('GET', `/api/environments/${second.id}/persons/`, undefined, within.body.value)).status).toBe(403)
      expect((await call('POST', '/api/projects/', { name: 'Escalated' }, within.body.value)).status).toBe(403)

      // A key without `*` mints nothing, not even a copy of itself or less.
      const writer = await createKey(t, ['person:write', 'insight:read'])
      for (const scopes of [['person:read'], ['person:write', 'insight:read'], ['*']]) {
        const res = await mint({ scopes }, writer.value)
        expect(res.status, JSON.stringify(scopes)).toBe(403)
        expect(res.body.detail).toContain("'*'")
        expect(res.body.value).toBeUndefined()
      }
    })
  })

  describe('keys without *', () => {
    it('cannot list, mint, read or revoke other keys, but read themselves and revoke themselves', async () => {
      const reader = await createKey(t, ['person:read'])
      const peer = await createKey(t, ['person:read'])
      const asReader = (method: string, url: string, body?: unknown) => call(method, url, body, reader.value)
      const refusals = [
        await asReader('GET', '/api/personal_api_keys/'),
        await asReader('POST', '/api/personal_api_keys/', { label: 'copy', scopes: ['person:read'] }),
        await asReader('GET', `/api/personal_api_keys/${peer.id}/`),
        await asReader('DELETE', `/api/personal_api_keys/${peer.id}/`),
        await asReader('GET', '/api/personal_api_keys/no-such-key/'),
      ]
      for (const res of refusals) {
        expect(res.status, res.text).toBe(403)
        expect(res.body).toMatchObject({ type: 'authentication_error', code: 'permission_denied' })
        expect(res.body.detail).toContain("'*'")
        expect(res.text).not.toContain(peer.id)
      }
      // The peer is untouched and no copy was made.
      expect((await call('GET', `/api/environments/${t.projectId}/persons/`, undefined, peer.value)).status).toBe(200)
      expect((await call('GET', '/api/personal_api_keys/')).body.results.map((k: any) => k.label)).not.toContain('copy')

      // PostHog's self-inspection: `@current`, or its own id.
      for (const url of ['/api/personal_api_keys/@current/', `/api/personal_api_keys/${reader.id}/`]) {
        const self = await asReader('GET', url)
        expect(self.status, url).toBe(200)
        expect(self.body).toMatchObject({ id: reader.id, scopes: ['person:read'], scoped_teams: [] })
        expect(self.body.value).toBeUndefined()
      }
      expect((await call('GET', '/api/personal_api_keys/@current/', undefined, null)).status).toBe(401)
      expect((await asReader('DELETE', '/api/personal_api_keys/@current/')).status).toBe(204)
      expect((await asReader('GET', '/api/personal_api_keys/@current/')).status).toBe(401)
    })

    it('a * key reads itself at @current and manages the others as before', async () => {
      const self = await call('GET', '/api/personal_api_keys/@current/')
      expect(self.status).toBe(200)
      expect(self.body).toMatchObject({ label: 'bootstrap', scopes: ['*'] })
      const minted = await call('POST', '/api/personal_api_keys/', { label: 'minted', scopes: ['person:read'] })
      expect(minted.status).toBe(201)
      expect((await call('GET', `/api/personal_api_keys/${minted.body.id}/`)).body.label).toBe('minted')
      expect((await call('DELETE', `/api/personal_api_keys/${minted.body.id}/`)).status).toBe(204)
    })
  })

  describe('listing and revoking keys', () => {
    it('lists keys masked, with label, scopes, projects, created and last used; a use is not a write', async () => {
      const created = await call('POST', '/api/personal_api_keys/', {
        label: 'reporting',
        scopes: ['person:read'],
        scoped_teams: [second.id],
      })
      const value: string = created.body.value
      const before = await call('GET', '/api/personal_api_keys/')
      expect(before.status).toBe(200)
      expect(before.body.results.find((k: any) => k.id === created.body.id)).toEqual({
        id: created.body.id,
        label: 'reporting',
        mask_value: `phx_...${value.slice(-4)}`,
        scopes: ['person:read'],
        scoped_teams: [second.id],
        scoped_organizations: [],
        created_at: created.body.created_at,
        last_used_at: null,
      })
      expect(before.body.count).toBe(before.body.results.length)
      for (const k of before.body.results) {
        expect(k.value).toBeUndefined()
        expect(k.mask_value).toMatch(/^phx_\.\.\.\w{4}$/)
      }
      expect(before.text).not.toContain(value)
      expect(before.text).not.toContain(t.personalKey)

      for (let i = 0; i < 5; i++) expect((await call('GET', `/api/environments/${second.id}/persons/`, undefined, value)).status).toBe(200)
      const used = (await call('GET', '/api/personal_api_keys/')).body.results.find((k: any) => k.id === created.body.id)
      expect(new Date(used.last_used_at).getTime()).toBeGreaterThanOrEqual(new Date(created.body.created_at).getTime())
      // Uses gather in memory and are written together, not one insert per request.
      const usageRows = async () =>
        (
          await queryRows<{ id: string }>(t.wren.clickhouse, 'SELECT id FROM personal_api_key_usage WHERE id = {id:String}', {
            id: created.body.id,
          })
        ).length
      expect(await usageRows()).toBe(0)
      await t.wren.projects.flushUsage()
      expect(await usageRows()).toBe(1)
      await t.wren.projects.refresh()
      expect((await call('GET', '/api/personal_api_keys/')).body.results.find((k: any) => k.id === created.body.id).last_used_at).toBe(
        used.last_used_at,
      )
    })

    it('shows and revokes only keys within the caller’s own reach', async () => {
      const limited = await createKey(t, ['*'], [second.id])
      const inside = await createKey(t, ['person:read'], [second.id])
      const outside = await createKey(t, ['person:read'], [t.projectId])
      const listed = (await call('GET', '/api/personal_api_keys/', undefined, limited.value)).body.results.map((k: any) => k.id)
      expect(listed).toEqual(expect.arrayContaining([limited.id, inside.id]))
      expect(listed).not.toContain(outside.id)
      const bootstrap = (await call('GET', '/api/personal_api_keys/')).body.results.find((k: any) => k.label === 'bootstrap')
      expect(listed).not.toContain(bootstrap.id)

      for (const id of [outside.id, bootstrap.id, 'no-such-key']) {
        const res = await call('DELETE', `/api/personal_api_keys/${id}/`, undefined, limited.value)
        expect(res.status, id).toBe(404)
        expect(res.text).not.toContain('person:read')
      }
      expect((await call('GET', `/api/environments/${t.projectId}/persons/`, undefined, outside.value)).status).toBe(200)
      expect((await call('GET', '/api/personal_api_keys/', undefined, null)).status).toBe(401)
      expect((await call('DELETE', `/api/personal_api_keys/${inside.id}/`, undefined, 'phx_unknown')).status).toBe(401)
    })

    it('refuses a revoked key at once, and after a reload from storage', async () => {
      const created = await call('POST', '/api/personal_api_keys/', { label: 'leaked', scopes: ['person:read', 'project:read'] })
      const value: string = created.body.value
      expect((await call('GET', `/api/projects/${t.projectId}/`, undefined, value)).status).toBe(200)
      const revoke = await call('DELETE', `/api/personal_api_keys/${created.body.id}/`)
      expect(revoke.status).toBe(204)
      const refused = await call('GET', `/api/projects/${t.projectId}/`, undefined, value)
      expect(refused.status).toBe(401)
      expect(refused.body.code).toBe('authentication_failed')
      expect((await call('GET', '/api/personal_api_keys/')).body.results.map((k: any) => k.id)).not.toContain(created.body.id)
      expect((await call('DELETE', `/api/personal_api_keys/${created.body.id}/`)).status).toBe(404)
      // What every other process does each second in cluster mode: re-read keys from ClickHouse.
      await t.wren.projects.refresh()
      expect((await call('GET', `/api/projects/${t.projectId}/`, undefined, value)).status).toBe(401)
      // A key can revoke itself.
      const self = await createKey(t, ['project:read'])
      expect((await call('DELETE', `/api/personal_api_keys/${self.id}/`, undefined, self.value)).status).toBe(204)
      expect((await call('GET', '/api/projects/', undefined, self.value)).status).toBe(401)
    })
  })
})
