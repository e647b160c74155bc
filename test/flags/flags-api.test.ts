// Flags over HTTP against a real Wren: management CRUD and validation, decide / flags in every version
// and body encoding, remote config, local-evaluation definitions with ETag, and persons from capture.
import { gzipSync } from 'node:zlib'
import lzString from 'lz-string'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'
import { flagHash } from '../../services/decide/hash'

describe('feature flags over HTTP', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  let base: string
  beforeAll(async () => {
    t = await startWren()
    call = api(t)
    base = `/api/projects/${t.projectId}/feature_flags`
  })
  afterAll(async () => {
    await t?.close()
  })

  const post = async (path: string, body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) => {
    const res = await fetch(t.url + path, {
      method: 'POST',
      headers,
      body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
    })
    const text = await res.text()
    return { status: res.status, body: text ? JSON.parse(text) : null }
  }

  it('creates, lists, retrieves, patches (version bumps), soft-deletes, and logs activity', async () => {
    const created = await call('POST', `${base}/`, {
      key: 'crud-flag',
      name: 'CRUD',
      filters: { groups: [{ properties: [], rollout_percentage: 50 }] },
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      key: 'crud-flag',
      name: 'CRUD',
      version: 1,
      active: true,
      deleted: false,
      is_simple_flag: true,
      rollout_percentage: 50,
    })
    const id = created.body.id
    const env = await call('GET', `/api/environments/${t.projectId}/feature_flags/${id}/`)
    expect(env.body.key).toBe('crud-flag')
    const patched = await call('PATCH', `${base}/${id}/`, { active: false })
    expect(patched.body).toMatchObject({ active: false, version: 2 })
    const list = await call('GET', `${base}/`)
    expect(list.body.count).toBeGreaterThanOrEqual(1)
    expect(list.body.results.map((f: any) => f.key)).toContain('crud-flag')
    expect((await call('DELETE', `${base}/${id}/`)).status).toBe(405)
    const deleted = await call('PATCH', `${base}/${id}/`, { deleted: true })
    expect(deleted.body).toMatchObject({ deleted: true, version: 3 })
    expect((await call('GET', `${base}/`)).body.results.map((f: any) => f.key)).not.toContain('crud-flag')
    // The key is free again once deleted.
    expect((await call('POST', `${base}/`, { key: 'crud-flag' })).status).toBe(201)
    const activity = await call('GET', `${base}/${id}/activity/`)
    expect(activity.body.results.map((a: any) => a.activity)).toEqual(['deleted', 'updated', 'created'])
    expect(activity.body.results[1].detail.changes).toEqual([
      { type: 'FeatureFlag', action: 'changed', field: 'active', before: true, after: false },
    ])
  })

  it('validates like PostHog, naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{ key: 'bad key!' }, 'key'],
      [{ key: 'crud-flag' }, 'key'],
      [
        {
          key: 'v1',
          filters: {
            multivariate: {
              variants: [
                { key: 'a', rollout_percentage: 60 },
                { key: 'b', rollout_percentage: 30 },
              ],
            },
          },
        },
        'filters',
      ],
      [
        { key: 'v2', filters: { multivariate: { variants: [{ key: 'a', rollout_percentage: 100 }] }, groups: [{ variant: 'zzz' }] } },
        'filters',
      ],
      [{ key: 'v3', filters: { payloads: { nope: '1' } } }, 'filters'],
      [{ key: 'v4', filters: { groups: [{ properties: [{ key: 'age', operator: 'gt', value: { n: 5 }, type: 'person' }] }] } }, 'filters'],
      [
        {
          key: 'v5',
          filters: { groups: [{ properties: [{ key: 'd', operator: 'is_date_after', value: 'not a date', type: 'person' }] }] },
        },
        'filters',
      ],
      [
        {
          key: 'v6',
          filters: { groups: [{ properties: [{ key: 'x', operator: 'exact', value: 1, type: 'group', group_type_index: 0 }] }] },
        },
        'filters',
      ],
      [{ key: 'v7', filters: { groups: [{ properties: [{ key: 'x', operator: 'nope', value: 1 }] }] } }, 'filters'],
    ]
    for (const [body, attr] of cases) {
      const res = await call('POST', `${base}/`, body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.body.attr).toBe(attr)
    }
  })

  it('enforces scopes', async () => {
    const { value } = await t.wren.projects.createPersonalKey({ label: 'reader', scopes: ['feature_flag:read'] })
    expect((await call('GET', `${base}/`, undefined, value)).status).toBe(200)
    expect((await call('POST', `${base}/`, { key: 'nope' }, value)).status).toBe(403)
    expect((await call('GET', `${base}/`, undefined, null)).status).toBe(401)
  })

  it('answers decide v1–v4 and flags v1/v2 in their shapes, with persons from capture', async () => {
    await call('POST', `${base}/`, {
      key: 'pro-only',
      filters: { groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }] }], payloads: { true: '{"x":1}' } },
    })
    await call('POST', `${base}/`, {
      key: 'multi',
      filters: {
        groups: [{ rollout_percentage: 100 }],
        multivariate: {
          variants: [
            { key: 'control', rollout_percentage: 50 },
            { key: 'test', rollout_percentage: 50 },
          ],
        },
        payloads: { control: '"c"', test: '"t"' },
      },
    })
    await call('POST', `${base}/`, { key: 'off', filters: { groups: [{ rollout_percentage: 0 }] } })
    await captureBatch(t, [{ event: '$identify', distinct_id: 'pro-user', properties: { $set: { plan: 'pro' } } }])
    await drained(t.wren)
    const expectedVariant = flagHash('multi', 'pro-user', 'variant') < 0.5 ? 'control' : 'test'

    const v3 = await post('/decide/?v=3', { api_key: t.projectKey, distinct_id: 'pro-user' })
    expect(v3.status).toBe(200)
    expect(v3.body.featureFlags).toEqual({ 'crud-flag': false, 'pro-only': true, multi: expectedVariant, off: false })
    expect(v3.body.featureFlagPayloads).toEqual({ 'pro-only': '{"x":1}', multi: expectedVariant === 'control' ? '"c"' : '"t"' })
    expect(v3.body.errorsWhileComputingFlags).toBe(false)
    expect(v3.body).toMatchObject({
      config: { enable_collect_everything: true },
      isAuthenticated: false,
      supportedCompression: ['gzip', 'gzip-js'],
      sessionRecording: false,
    })

    expect((await post('/decide/', { token: t.projectKey, distinct_id: 'pro-user' })).body.featureFlags.sort()).toEqual([
      'multi',
      'pro-only',
    ])
    expect((await post('/decide/?v=2', { token: t.projectKey, distinct_id: 'pro-user' })).body.featureFlags).toEqual({
      'pro-only': true,
      multi: expectedVariant,
    })
    const v4 = await post('/decide/?v=4', { token: t.projectKey, distinct_id: 'pro-user' })
    expect(v4.body.flags['pro-only']).toMatchObject({
      key: 'pro-only',
      enabled: true,
      variant: null,
      reason: { code: 'condition_match', condition_index: 0, description: 'Matched condition set 1' },
      metadata: { version: 1, payload: '{"x":1}' },
    })
    expect(v4.body.flags.off).toMatchObject({ enabled: false, reason: { code: 'out_of_rollout_bound' } })

    const flags2 = await post('/flags/?v=2', { token: t.projectKey, distinct_id: 'free-user', person_properties: { plan: 'PRO' } })
    expect(flags2.body.flags['pro-only'].enabled).toBe(true)
    expect(flags2.body).not.toHaveProperty('config')
    const flagsNone = await post('/flags', { token: t.projectKey, distinct_id: 'free-user' })
    expect(flagsNone.body.flags['pro-only']).toMatchObject({ enabled: false, reason: { code: 'no_condition_match' } })
    expect(flagsNone.body).toHaveProperty('supportedCompression')
    const flags1 = await post('/flags?v=1', { token: t.projectKey, distinct_id: 'pro-user' })
    expect(flags1.body.featureFlags['pro-only']).toBe(true)
    expect(typeof flags1.body.requestId).toBe('string')
  })

  it('decodes the body encodings old SDKs sent', async () => {
    const json = JSON.stringify({ token: t.projectKey, distinct_id: 'pro-user' })
    const b64 = Buffer.from(json).toString('base64')
    const form = await post('/decide/?v=3&compression=base64', `data=${encodeURIComponent(b64)}`, {
      'content-type': 'application/x-www-form-urlencoded',
    })
    expect(form.body.featureFlags['pro-only']).toBe(true)
    const gz = await post('/decide/?v=3&compression=gzip-js', gzipSync(json), { 'content-type': 'text/plain' })
    expect(gz.body.featureFlags['pro-only']).toBe(true)
    const lz = await post('/decide/?v=3&compression=lz64', `data=${encodeURIComponent(lzString.compressToBase64(json))}`, {
      'content-type': 'application/x-www-form-urlencoded',
    })
    expect(lz.body.featureFlags['pro-only']).toBe(true)
    const whole = await post('/decide/?v=3', b64, { 'content-type': 'application/json; encoding=base64' })
    expect(whole.body.featureFlags['pro-only']).toBe(true)
  })

  it('rejects bad input with the reference statuses, never a 500', async () => {
    expect((await post('/decide/?v=3', { distinct_id: 'x' })).status).toBe(401)
    expect((await post('/decide/?v=3', { api_key: 'phc_unknown', distinct_id: 'x' })).status).toBe(401)
    const missing = await post('/decide/?v=3', { api_key: t.projectKey })
    expect(missing.status).toBe(400)
    expect(missing.body.code).toBe('missing_distinct_id')
    expect((await post('/flags/?v=2', '\u0001garbage{', { 'content-type': 'application/json' })).status).toBe(400)
    expect(
      (await post('/flags/?v=2', gzipSync('not json'), { 'content-type': 'application/json', 'content-encoding': 'gzip' })).status,
    ).toBe(400)
  })

  it('fills $geoip_* from X-Forwarded-For only where person_properties does not set them', async () => {
    await call('POST', `${base}/`, {
      key: 'geo-gb',
      filters: { groups: [{ properties: [{ key: '$geoip_country_code', value: 'GB', type: 'person' }] }] },
    })
    const headers = { 'content-type': 'application/json', 'x-forwarded-for': '81.2.69.142, 10.0.0.1' }
    expect((await post('/flags/?v=2', { token: t.projectKey, distinct_id: 'geo' }, headers)).body.flags['geo-gb'].enabled).toBe(true)
    expect(
      (await post('/flags/?v=2', { token: t.projectKey, distinct_id: 'geo', person_properties: { $geoip_country_code: 'US' } }, headers))
        .body.flags['geo-gb'].enabled,
    ).toBe(false)
    expect(
      (await post('/flags/?v=2', { token: t.projectKey, distinct_id: 'geo', geoip_disable: true }, headers)).body.flags['geo-gb'].enabled,
    ).toBe(false)
  })

  it('serves remote config and local-evaluation definitions with ETag / 304', async () => {
    const cfg = await fetch(`${t.url}/array/${t.projectKey}/config`)
    expect(cfg.status).toBe(200)
    expect(await cfg.json()).toMatchObject({
      token: t.projectKey,
      supportedCompression: ['gzip', 'gzip-js'],
      sessionRecording: false,
      hasFeatureFlags: true,
    })
    const js = await (await fetch(`${t.url}/array/${t.projectKey}/config.js`)).text()
    expect(js).toContain('_POSTHOG_REMOTE_CONFIG')
    expect((await fetch(`${t.url}/array/phc_nope/config`)).status).toBe(401)

    for (const path of [
      `/api/feature_flag/local_evaluation/?token=${t.projectKey}&send_cohorts`,
      `/flags/definitions?token=${t.projectKey}&send_cohorts`,
    ]) {
      const first = await fetch(t.url + path, { headers: { authorization: `Bearer ${t.personalKey}` } })
      expect(first.status).toBe(200)
      const body: any = await first.json()
      expect(body.flags.map((f: any) => f.key)).toContain('pro-only')
      expect(body.flags.every((f: any) => f.active && !f.deleted)).toBe(true)
      expect(body).toHaveProperty('group_type_mapping')
      expect(body).toHaveProperty('cohorts')
      const etag = first.headers.get('etag')!
      expect(etag).toMatch(/^W\/"/)
      expect((await fetch(t.url + path, { headers: { authorization: `Bearer ${t.personalKey}`, 'if-none-match': etag } })).status).toBe(304)
      expect((await fetch(t.url + path)).status).toBe(401)
    }
  })
})
