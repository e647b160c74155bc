// Capture over real HTTP: every path with GET, POST and CORS preflight; the status and JSON error a
// PostHog SDK would get for bad input and bad keys; and that an accepted request is stored whole or not
// at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { gzipSync } from 'node:zlib'
import { api, drained, startWren, type TestWren } from '../support/wren'
import { createProject } from '../support/management'

const PATHS = ['/e/', '/batch/', '/i/v0/e/', '/capture/', '/track/', '/engage/']

describe('capture API', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  beforeAll(async () => {
    t = await startWren()
    call = api(t)
  })
  afterAll(async () => {
    await t?.close()
  })

  const post = (path: string, body: string | Buffer, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    fetch(t.url + path, { method: 'POST', headers, body })
  const postJson = (path: string, json: unknown) => post(path, JSON.stringify(json))
  const eventsOf = async (distinctId: string, projectId = t.projectId) => {
    const res = await call('GET', `/api/projects/${projectId}/events/?distinct_id=${encodeURIComponent(distinctId)}`)
    expect(res.status).toBe(200)
    return res.body.results as Array<{ event: string; properties: Record<string, unknown>; id: string }>
  }

  it('accepts a POSTed event on every capture path, with and without the trailing slash', async () => {
    for (const path of PATHS) {
      for (const p of [path, path.slice(0, -1)]) {
        const res = await postJson(p, { api_key: t.projectKey, event: 'clicked', distinct_id: `post${p}`, properties: { path: p } })
        expect(res.status, p).toBe(200)
        expect(await res.json(), p).toEqual({ status: 'Ok' })
      }
    }
    await drained(t.wren)
    for (const path of PATHS) {
      for (const p of [path, path.slice(0, -1)]) {
        const stored = await eventsOf(`post${p}`)
        expect(
          stored.map((e) => [e.event, e.properties.path]),
          p,
        ).toEqual([['clicked', p]])
      }
    }
  })

  it('accepts GET with ?data= (base64 JSON) on every path', async () => {
    for (const path of PATHS) {
      const data = Buffer.from(JSON.stringify({ token: t.projectKey, event: 'pixel', distinct_id: `get${path}` })).toString('base64')
      const res = await fetch(`${t.url}${path}?data=${encodeURIComponent(data)}`)
      expect(res.status, path).toBe(200)
    }
    await drained(t.wren)
    for (const path of PATHS)
      expect(
        (await eventsOf(`get${path}`)).map((e) => e.event),
        path,
      ).toEqual(['pixel'])
  })

  it('answers CORS preflight on every path, mirroring the origin with credentials', async () => {
    for (const path of PATHS) {
      const res = await fetch(t.url + path, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://shop.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      })
      expect(res.status, path).toBeLessThan(300)
      expect(res.headers.get('access-control-allow-origin'), path).toBe('https://shop.example')
      expect(res.headers.get('access-control-allow-credentials'), path).toBe('true')
      expect(res.headers.get('access-control-allow-methods'), path).toMatch(/POST/)
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase(), path).toContain('content-type')
    }
    // Not only browsers: a bare OPTIONS is answered too, as PostHog's capture does.
    for (const headers of [{}, { origin: 'https://shop.example' }] as Array<Record<string, string>>) {
      const bare = await fetch(`${t.url}/batch/`, { method: 'OPTIONS', headers })
      expect(bare.status, JSON.stringify(headers)).toBeLessThan(300)
    }
    const simple = await fetch(`${t.url}/e/`, {
      method: 'POST',
      headers: { origin: 'https://shop.example', 'content-type': 'text/plain' },
      body: JSON.stringify({ api_key: t.projectKey, event: 'x', distinct_id: 'cors' }),
    })
    expect(simple.status).toBe(200)
    expect(simple.headers.get('access-control-allow-origin')).toBe('https://shop.example')
  })

  it('decodes the SDKs’ encodings: posthog-node gzip batch, posthog-js gzip text/plain, base64 form, legacy engage', async () => {
    const gz = await post(
      '/batch/',
      gzipSync(JSON.stringify({ api_key: t.projectKey, batch: [{ event: 'gz', distinct_id: 'enc-1', properties: {} }] })),
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    )
    expect(gz.status).toBe(200)
    const js = await post(
      '/e/',
      gzipSync(
        JSON.stringify({
          api_key: t.projectKey,
          batch: [{ event: 'js', properties: { distinct_id: 'enc-1' } }],
          sent_at: new Date().toISOString(),
        }),
      ),
      { 'content-type': 'text/plain' },
    )
    expect(js.status).toBe(200)
    const form = await post(
      '/e/?compression=base64',
      `data=${encodeURIComponent(Buffer.from(JSON.stringify([{ event: 'beacon', properties: { token: t.projectKey, distinct_id: 'enc-1' } }])).toString('base64'))}`,
      {
        'content-type': 'application/x-www-form-urlencoded',
      },
    )
    expect(form.status).toBe(200)
    const engage = await postJson('/engage/', { $token: t.projectKey, $distinct_id: 'enc-1', $set: { plan: 'pro' } })
    expect(engage.status).toBe(200)
    await drained(t.wren)
    expect((await eventsOf('enc-1')).map((e) => e.event).sort()).toEqual(['$identify', 'beacon', 'gz', 'js'])
    const persons = await call('GET', `/api/environments/${t.projectId}/persons/?distinct_id=enc-1`)
    expect(persons.body.results[0].properties.plan).toBe('pro')
  })

  it('answers ?beacon=1 with 204 and no body', async () => {
    const res = await postJson('/e/?beacon=1', { api_key: t.projectKey, event: 'unload', distinct_id: 'beacon-1' })
    expect(res.status).toBe(204)
    expect(await res.text()).toBe('')
    await drained(t.wren)
    expect((await eventsOf('beacon-1')).map((e) => e.event)).toEqual(['unload'])
  })

  it('answers 400 with {type, code, detail} for bodies it cannot use', async () => {
    const good = { event: 'ok', distinct_id: 'bad-input' }
    const cases: Array<[string, string | Buffer, Record<string, string> | undefined, string]> = [
      ['/batch/', '{"api_key": "x", "batch": [', undefined, 'invalid_payload'],
      ['/e/', Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad]), { 'content-type': 'text/plain' }, 'invalid_payload'],
      ['/e/', Buffer.from([0xff, 0xfe, 0xfd]), { 'content-type': 'application/json' }, 'invalid_payload'],
      ['/e/', '', undefined, 'empty_payload'],
      ['/e/', '"just a string"', undefined, 'invalid_payload'],
      ['/batch/', JSON.stringify({ api_key: t.projectKey, batch: [] }), undefined, 'empty_payload'],
      ['/e/', JSON.stringify({ api_key: t.projectKey, event: 'x' }), undefined, 'missing_distinct_id'],
      ['/e/', JSON.stringify({ api_key: t.projectKey, event: 'x', distinct_id: '' }), undefined, 'missing_distinct_id'],
      ['/e/', JSON.stringify({ api_key: t.projectKey, distinct_id: 'd' }), undefined, 'missing_event_name'],
      ['/capture/', JSON.stringify({ api_key: t.projectKey, event: '', distinct_id: 'd' }), undefined, 'missing_event_name'],
      ['/e/', JSON.stringify({ api_key: t.projectKey, event: 'x', distinct_id: 'd', uuid: 'not-a-uuid' }), undefined, 'invalid_uuid'],
      [
        '/batch/',
        JSON.stringify({
          batch: [
            { ...good, api_key: t.projectKey },
            { ...good, api_key: 'phc_other' },
          ],
        }),
        undefined,
        'multiple_tokens',
      ],
    ]
    for (const [path, body, headers, code] of cases) {
      const res = await post(path, body, headers)
      const what = `${path} ${code}`
      expect(res.status, what).toBe(400)
      expect(res.headers.get('content-type'), what).toMatch(/application\/json/)
      const json = (await res.json()) as any
      expect(json, what).toMatchObject({ type: 'validation_error', code })
      expect(typeof json.detail, what).toBe('string')
      expect(json.detail, what).not.toMatch(/at .*\.ts:\d+/)
    }
  })

  it('stores none of a batch that has one bad event', async () => {
    const res = await postJson('/batch/', {
      api_key: t.projectKey,
      batch: [
        { event: 'first', distinct_id: 'atomic-1', properties: {} },
        { event: 'second', properties: {} },
        { event: 'third', distinct_id: 'atomic-1', properties: {} },
      ],
    })
    expect(res.status).toBe(400)
    expect(((await res.json()) as any).code).toBe('missing_distinct_id')
    const withBadUuid = await postJson('/batch/', {
      api_key: t.projectKey,
      batch: [
        { event: 'first', distinct_id: 'atomic-1' },
        { event: 'x', distinct_id: 'atomic-1', uuid: 'nope' },
      ],
    })
    expect(withBadUuid.status).toBe(400)
    // A good request after them is stored; nothing of the rejected ones is.
    expect((await postJson('/batch/', { api_key: t.projectKey, batch: [{ event: 'after', distinct_id: 'atomic-1' }] })).status).toBe(200)
    await drained(t.wren)
    expect((await eventsOf('atomic-1')).map((e) => e.event)).toEqual(['after'])
  })

  it('answers 401 for no key, an unknown key and a personal key used as the project key', async () => {
    const cases: Array<[unknown, string]> = [
      [{ event: 'x', distinct_id: 'd' }, 'ingest_key_required'],
      [{ api_key: '', event: 'x', distinct_id: 'd' }, 'ingest_key_required'],
      [{ api_key: 'phc_doesnotexist', event: 'x', distinct_id: 'd' }, 'ingest_key_invalid'],
      [{ api_key: t.personalKey, event: 'x', distinct_id: 'd' }, 'ingest_key_invalid'],
      [{ batch: [{ event: 'x', distinct_id: 'd', properties: { token: 'phc_doesnotexist' } }] }, 'ingest_key_invalid'],
    ]
    for (const [body, code] of cases) {
      const res = await postJson('/batch/', body)
      expect(res.status, JSON.stringify(body)).toBe(401)
      expect(await res.json(), JSON.stringify(body)).toMatchObject({ type: 'authentication_error', code })
    }
  })

  it('answers 413 for a body over 20 MB', async () => {
    const big = JSON.stringify({
      api_key: t.projectKey,
      batch: [{ event: 'big', distinct_id: 'big-1', properties: { blob: 'x'.repeat(21 * 1024 * 1024) } }],
    })
    const res = await post('/batch/', big)
    expect(res.status).toBe(413)
    expect(await res.json()).toMatchObject({ code: 'payload_too_large' })
    // Over the limit only after decompression.
    const bomb = gzipSync(big)
    const gz = await post('/batch/', bomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
    expect(gz.status).toBe(413)
    await drained(t.wren)
    expect(await eventsOf('big-1')).toEqual([])
  })

  it('keeps each project’s events apart by its project key', async () => {
    const other = await createProject(t, 'Other capture project')
    expect((await postJson('/e/', { api_key: other.api_token, event: 'elsewhere', distinct_id: 'split-brain' })).status).toBe(200)
    expect((await postJson('/e/', { api_key: t.projectKey, event: 'here', distinct_id: 'split-brain' })).status).toBe(200)
    await drained(t.wren)
    expect((await eventsOf('split-brain')).map((e) => e.event)).toEqual(['here'])
    expect((await eventsOf('split-brain', other.id)).map((e) => e.event)).toEqual(['elsewhere'])
  })
})
