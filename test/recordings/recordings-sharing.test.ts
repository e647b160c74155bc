// Sharing a recording, marking it viewed and deleting it, over HTTP on real chDB: the sharing routes and
// their scopes; a token that opens its one recording (retrieve, snapshots, /shared/:token) and nothing
// else; disabling and rotating that hold at once; viewed in retrieve and list; a delete that removes the
// rows from ClickHouse and is not undone by blocks of the session that arrive later.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, startWren, type TestWren } from '../support/wren'
import { recordingsProcessed, sendSnapshots } from '../support/recordings'
import { createKey, createProject, expectAuthChecks } from '../support/management'
import { queryRows } from '../../services/platform/clickhouse'

describe('session recording sharing, viewed and delete', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  let other: { id: number; api_token: string }
  const start = Date.now() - 60_000
  const meta = (at: number) => ({ type: 4, timestamp: start + at, data: { href: 'https://example.com/shared', width: 800, height: 600 } })
  const click = (at: number) => ({ type: 3, timestamp: start + at, data: { source: 2, type: 2, id: 1, x: 10, y: 10 } })

  const send = (projectKey: string, sessionId: string, events: unknown[]) =>
    sendSnapshots({ url: t.url, projectKey }, { sessionId, distinctId: `user-${sessionId}`, events, properties: { $lib: 'web' } })
  const processed = () => recordingsProcessed(t.wren)
  const recording = (id: string, projectId = t.projectId) => `/api/projects/${projectId}/session_recordings/${id}/`
  /** A request with only a sharing token (no key). */
  const withToken = (method: string, path: string, token: string, body?: unknown) =>
    call(method, `${path}${path.includes('?') ? '&' : '?'}sharing_access_token=${encodeURIComponent(token)}`, body, null)
  const share = async (id: string): Promise<string> => {
    const res = await call('PATCH', `${recording(id)}sharing/`, { enabled: true })
    expect(res.status).toBe(200)
    expect(res.body.enabled).toBe(true)
    return res.body.access_token
  }
  const rowsOf = async (table: string, sessionId: string) =>
    Number(
      (
        await queryRows<{ n: number }>(t.wren.clickhouse, `SELECT count() AS n FROM ${table} WHERE session_id = {s:String}`, {
          s: sessionId,
        })
      )[0].n,
    )

  beforeAll(async () => {
    // Many refused requests from one address on purpose: the failure limit is tested on its own.
    t = await startWren({ WREN_RECORDINGS_WAIT_MS: '20', WREN_AUTH_FAILURE_LIMIT: '0' })
    call = api(t)
    other = await createProject(t, 'Other project')
    for (const id of [t.projectId, other.id])
      expect((await call('PATCH', `/api/projects/${id}/`, { session_recording_opt_in: true })).status).toBe(200)
    await send(t.projectKey, 'share-1', [meta(0), click(1_000), click(2_000)])
    await send(t.projectKey, 'share-2', [meta(5_000), click(6_000)])
    await send(t.projectKey, 'share-del', [meta(10_000), click(11_000)])
    await send(other.api_token, 'share-other', [meta(0), click(1_000)])
    await processed()
  })
  afterAll(async () => {
    await t?.close()
  })

  it('checks the key, scope and project of every sharing route and of PATCH and DELETE', async () => {
    const noSharing = await createKey(t, ['session_recording:write'])
    const readOnly = await createKey(t, ['session_recording:read', 'sharing_configuration:read'])
    const otherProjectKey = (await createKey(t, ['*'], [other.id])).value
    const path = '/api/projects/:project_id/session_recordings/share-2/'
    for (const [method, suffix, scope, body] of [
      ['GET', 'sharing/', 'sharing_configuration:read', undefined],
      ['PATCH', 'sharing/', 'sharing_configuration:write', { enabled: true }],
      ['POST', 'sharing/refresh/', 'sharing_configuration:write', undefined],
    ] as const)
      await expectAuthChecks(t, { method, route: path + suffix, scope, body }, { wrongScopeKey: noSharing.value, otherProjectKey })
    for (const [method, body] of [
      ['PATCH', { viewed: true }],
      ['DELETE', undefined],
    ] as const)
      await expectAuthChecks(
        t,
        { method, route: path, scope: 'session_recording:write', body },
        { wrongScopeKey: readOnly.value, otherProjectKey },
      )
    // Reading the configuration is not changing it.
    const sharing = `${recording('share-2')}sharing/`
    expect((await call('GET', sharing, undefined, readOnly.value)).status).toBe(200)
    const refused = await call('PATCH', sharing, { enabled: true }, readOnly.value)
    expect(refused.status).toBe(403)
    expect(refused.body.detail).toContain('sharing_configuration:write')
    // Nothing above changed anything: share-2 is neither shared, viewed nor deleted.
    expect((await call('GET', sharing)).body).toMatchObject({ enabled: false, created_at: null })
    expect((await call('GET', recording('share-2'))).body.viewed).toBe(false)
  })

  it('builds a configuration without saving it until PATCH, and answers 404 for a recording the project lacks', async () => {
    const sharing = `${recording('share-1')}sharing/`
    const first = await call('GET', sharing)
    expect(first.status).toBe(200)
    expect(first.body).toEqual({
      created_at: null,
      enabled: false,
      access_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      settings: null,
      password_required: false,
      share_passwords: [],
    })
    // Not saved: each GET builds another, and its token opens nothing.
    const second = await call('GET', sharing)
    expect(second.body.access_token).not.toBe(first.body.access_token)
    expect((await withToken('GET', recording('share-1'), first.body.access_token)).status).toBe(401)
    expect((await fetch(`${t.url}/shared/${first.body.access_token}`)).status).toBe(404)

    const saved = await call('PATCH', sharing, { enabled: true, settings: { noHeader: true, showInspector: false, madeUp: 1 } })
    expect(saved.status).toBe(200)
    expect(saved.body).toMatchObject({ enabled: true, settings: { noHeader: true, showInspector: false }, password_required: false })
    expect(saved.body.settings).not.toHaveProperty('madeUp')
    expect(new Date(saved.body.created_at).getTime()).toBeGreaterThan(0)
    expect((await call('GET', `/api/environments/${t.projectId}/session_recordings/share-1/sharing/`)).body).toEqual(saved.body)

    for (const id of ['no-such-session', 'share-other']) {
      for (const [method, suffix] of [
        ['GET', 'sharing/'],
        ['PATCH', 'sharing/'],
        ['POST', 'sharing/refresh/'],
      ]) {
        const res = await call(method, recording(id) + suffix, method === 'PATCH' ? { enabled: true } : undefined)
        expect(res.status, `${method} ${id} ${suffix}`).toBe(404)
        expect(res.body).toMatchObject({ type: 'invalid_request', code: 'not_found' })
      }
    }
    const badSetting = await call('PATCH', sharing, { settings: { noHeader: 'yes' } })
    expect(badSetting.status).toBe(400)
    expect(badSetting.body).toMatchObject({ type: 'validation_error', attr: 'settings.noHeader' })
    expect((await call('PATCH', sharing, { enabled: 'yes' })).body).toMatchObject({ type: 'validation_error', attr: 'enabled' })
    expect((await call('PATCH', sharing, { password_required: true })).body).toMatchObject({
      code: 'unsupported',
      attr: 'password_required',
    })
  })

  it('opens the shared recording’s retrieve, snapshots and page with the token alone', async () => {
    const token = await share('share-1')
    const retrieved = await withToken('GET', recording('share-1'), token)
    expect(retrieved.status).toBe(200)
    expect(retrieved.body).toEqual({
      id: 'share-1',
      recording_duration: 2,
      start_time: new Date(start).toISOString(),
      end_time: new Date(start + 2_000).toISOString(),
    })
    expect((await withToken('GET', `/api/environments/${t.projectId}/session_recordings/share-1/`, token)).status).toBe(200)
    const head = await fetch(`${t.url}${recording('share-1')}?sharing_access_token=${token}`, { method: 'HEAD' })
    expect(head.status).toBe(200)

    const sources = await withToken('GET', `${recording('share-1')}snapshots`, token)
    expect(sources.status).toBe(200)
    expect(sources.body.sources).toHaveLength(1)
    const blocks = await withToken('GET', `${recording('share-1')}snapshots?source=blob_v2&start_blob_key=0&end_blob_key=0`, token)
    expect(blocks.status).toBe(200)
    expect(blocks.headers.get('content-type')).toMatch(/^application\/jsonl/)
    // Kept by no cache: once sharing is off, nobody reads the recording again.
    expect(blocks.headers.get('cache-control')).toBe('private, no-store')
    expect(
      blocks.text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)[1].type),
    ).toEqual([4, 3, 3])

    const page = await fetch(`${t.url}/shared/${token}`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    expect(page.headers.get('cache-control')).toBe('no-store')
    expect(page.headers.get('referrer-policy')).toBe('no-referrer')
    // Embeddable anywhere (it holds only its token); its scripts and calls are Wren's own.
    const policy = page.headers.get('content-security-policy') ?? ''
    expect(policy).toContain('frame-ancestors *')
    expect(policy).toContain("script-src 'self'")
    expect(policy).toContain("connect-src 'self'")
    const html = await page.text()
    expect(html).toContain('id="wren-replay"')
    expect(html).toContain('"sessionId":"share-1"')
    expect(html).toContain(token)

    // A key still sees the whole recording (and a key with a token is judged by the token, as in PostHog).
    expect((await call('GET', recording('share-1'))).body).toHaveProperty('click_count', 2)
  })

  it('refuses the token everywhere else: other recordings, the list, other projects, writes, sharing, persons, trends, flags', async () => {
    const token = await share('share-1')
    const refusals: Array<[string, string, number[], unknown?]> = [
      ['GET', recording('share-2'), [403]],
      ['GET', `${recording('share-2')}snapshots`, [403]],
      ['GET', `${recording('share-2')}snapshots?source=blob_v2&blob_key=0`, [403]],
      ['GET', `${recording('no-such-session')}`, [403]],
      ['GET', `/api/projects/${t.projectId}/session_recordings/`, [401]],
      ['GET', `/api/environments/${t.projectId}/session_recordings/`, [401]],
      ['GET', recording('share-other', other.id), [403]],
      ['GET', `${recording('share-other', other.id)}snapshots`, [403]],
      // The right session id under another project: the configuration belongs to its own project.
      ['GET', recording('share-1', other.id), [403]],
      ['GET', recording('share-1', 987654), [403]],
      ['PATCH', recording('share-1'), [401], { viewed: true }],
      ['DELETE', recording('share-1'), [401]],
      ['GET', `${recording('share-1')}sharing/`, [401]],
      ['PATCH', `${recording('share-1')}sharing/`, [401], { enabled: true }],
      ['POST', `${recording('share-1')}sharing/refresh/`, [401]],
      ['GET', `/api/projects/${t.projectId}/persons/`, [401]],
      ['GET', `/api/projects/${t.projectId}/insights/trend/?events=${encodeURIComponent('[{"id":"$pageview"}]')}`, [401]],
      ['GET', `/api/projects/${t.projectId}/feature_flags/`, [401]],
      ['GET', `/api/projects/${t.projectId}/events/`, [401]],
      ['GET', `/api/projects/${t.projectId}/`, [401]],
      ['GET', '/api/projects/', [401]],
      ['GET', '/api/personal_api_keys/', [401]],
    ]
    const failures: string[] = []
    for (const [method, path, statuses, body] of refusals) {
      const res = await withToken(method, path, token, body)
      const isError = res.body && Object.keys(res.body).sort().join() === 'attr,code,detail,type'
      if (!statuses.includes(res.status) || !isError) failures.push(`${method} ${path}: ${res.status} ${res.text.slice(0, 120)}`)
    }
    expect(failures).toEqual([])
    // Nothing changed: still shared, not viewed, not deleted.
    expect((await call('GET', `${recording('share-1')}sharing/`)).body).toMatchObject({ enabled: true, access_token: token })
    expect((await call('GET', recording('share-1'))).status).toBe(200)
  })

  it('stops a token at once when sharing is disabled or the token rotated', async () => {
    const token = await share('share-1')
    const off = await call('PATCH', `${recording('share-1')}sharing/`, { enabled: false })
    expect(off.body).toMatchObject({ enabled: false, access_token: token })
    expect((await withToken('GET', recording('share-1'), token)).status).toBe(401)
    expect((await withToken('GET', `${recording('share-1')}snapshots`, token)).status).toBe(401)
    const disabledPage = await fetch(`${t.url}/shared/${token}`)
    const unknownPage = await fetch(`${t.url}/shared/${'x'.repeat(43)}`)
    expect(disabledPage.status).toBe(404)
    expect(unknownPage.status).toBe(404)
    // Nothing tells a disabled token from one that never existed.
    expect(await disabledPage.text()).toBe(await unknownPage.text())

    // Enabling again brings the same token back.
    expect(await share('share-1')).toBe(token)
    expect((await withToken('GET', recording('share-1'), token)).status).toBe(200)

    const rotated = await call('POST', `${recording('share-1')}sharing/refresh/`)
    expect(rotated.status).toBe(200)
    expect(rotated.body.enabled).toBe(true)
    const fresh = rotated.body.access_token
    expect(fresh).not.toBe(token)
    expect((await withToken('GET', recording('share-1'), token)).status).toBe(401)
    expect((await fetch(`${t.url}/shared/${token}`)).status).toBe(404)
    expect((await withToken('GET', recording('share-1'), fresh)).status).toBe(200)
    expect((await fetch(`${t.url}/shared/${fresh}`)).status).toBe(200)
    expect((await call('GET', `${recording('share-1')}sharing/`)).body.access_token).toBe(fresh)
  })

  it('marks a recording viewed for retrieve and list', async () => {
    const res = await call('PATCH', recording('share-2'), { viewed: true, player_metadata: { id: 'share-2' } })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ id: 'share-2', viewed: true, click_count: 1 })
    expect((await call('GET', recording('share-2'))).body.viewed).toBe(true)
    const list = (await call('GET', `/api/projects/${t.projectId}/session_recordings/`)).body.results
    const viewed = Object.fromEntries(list.map((r: any) => [r.id, r.viewed]))
    expect(viewed['share-2']).toBe(true)
    expect(viewed['share-1']).toBe(false)

    // PostHog's update: viewed or analyzed must be true; `person` and unknown fields are accepted and change nothing.
    expect((await call('PATCH', recording('share-1'), { person: { id: 1 }, madeUp: true })).body).toMatchObject({ viewed: false })
    for (const body of [{}, { viewed: false }]) {
      const bad = await call('PATCH', recording('share-1'), body)
      expect(bad.status).toBe(400)
      expect(bad.body).toMatchObject({ type: 'validation_error', attr: 'viewed' })
    }
    expect((await call('PATCH', recording('share-1'), { viewed: 'yes' })).status).toBe(400)
    expect((await call('PATCH', recording('no-such-session'), { viewed: true })).status).toBe(404)
    expect((await call('GET', recording('share-1'))).body.viewed).toBe(false)
  })

  it('deletes a recording: its rows leave ClickHouse, its sharing stops, and later blocks do not bring it back', async () => {
    const token = await share('share-del')
    expect(await rowsOf('session_recording_blocks', 'share-del')).toBeGreaterThan(0)
    expect(await rowsOf('session_recording_metadata', 'share-del')).toBeGreaterThan(0)
    expect(await rowsOf('session_recording_sessions', 'share-del')).toBeGreaterThan(0)

    const deleted = await call('DELETE', recording('share-del'))
    expect(deleted.status).toBe(204)
    expect(deleted.text).toBe('')
    expect(await rowsOf('session_recording_blocks', 'share-del')).toBe(0)
    expect(await rowsOf('session_recording_metadata', 'share-del')).toBe(0)
    expect(await rowsOf('session_recording_sessions', 'share-del')).toBe(0)

    const gone = async () => {
      expect((await call('GET', recording('share-del'))).status).toBe(404)
      const ids = (await call('GET', `/api/projects/${t.projectId}/session_recordings/`)).body.results.map((r: any) => r.id)
      expect(ids).not.toContain('share-del')
      expect(ids).toContain('share-2')
      const snapshots = await call('GET', `${recording('share-del')}snapshots`)
      expect(snapshots.status).toBe(410)
      expect(snapshots.body).toMatchObject({ code: 'recording_deleted' })
      expect((await call('GET', `${recording('share-del')}snapshots?source=blob_v2&blob_key=0`)).status).toBe(410)
      expect((await withToken('GET', recording('share-del'), token)).status).toBe(401)
      expect((await fetch(`${t.url}/shared/${token}`)).status).toBe(404)
      expect((await call('GET', `${recording('share-del')}sharing/`)).status).toBe(404)
      expect((await call('DELETE', recording('share-del'))).status).toBe(404)
    }
    await gone()

    // Blocks of the session that reach the processor afterwards (a late request, the log replayed after a
    // crash) are stored, and still do not bring the recording back.
    await send(t.projectKey, 'share-del', [meta(12_000), click(13_000)])
    await processed()
    expect(await rowsOf('session_recording_blocks', 'share-del')).toBeGreaterThan(0)
    await gone()
    // Other recordings are untouched.
    expect((await call('GET', recording('share-2'))).status).toBe(200)
    expect((await call('GET', `${recording('share-2')}snapshots`)).body.sources).toHaveLength(1)
  })

  it('documents the sharing token on the routes that take it, and only there', async () => {
    const doc = (await (await fetch(`${t.url}/api/schema/`)).json()) as any
    const retrieve = doc.paths['/api/projects/{project_id}/session_recordings/{id}/']
    expect(retrieve.get.security).toEqual([{ PersonalAPIKey: [] }, { SharingAccessToken: [] }])
    // The query parameter is documented by its security scheme (the document generator lists it there, not twice).
    expect(retrieve.get.description).toContain('sharing_access_token')
    expect(doc.paths['/api/projects/{project_id}/session_recordings/{id}/snapshots'].get.security).toContainEqual({
      SharingAccessToken: [],
    })
    expect(retrieve.patch.security).toEqual([{ PersonalAPIKey: [] }])
    expect(retrieve.delete.security).toEqual([{ PersonalAPIKey: [] }])
    expect(doc.paths['/api/projects/{project_id}/session_recordings/'].get.security).toEqual([{ PersonalAPIKey: [] }])
    expect(doc.components.securitySchemes.SharingAccessToken).toMatchObject({ type: 'apiKey', in: 'query', name: 'sharing_access_token' })
    expect(doc.paths['/shared/{token}'].get).toBeDefined()
  })
})
