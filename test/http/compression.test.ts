// Answers go brotli- or gzip-encoded as the client's Accept-Encoding asks: the posthog-js bundles every visitor
// of a user's site loads, the web app's script, and API answers. Read with node:http (fetch would decode them
// unseen), so the test sees the bytes on the wire.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'node:http'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { startWren, type TestWren } from '../support/wren'

const require = createRequire(import.meta.url)
const ARRAY_JS = readFileSync(path.join(path.dirname(require.resolve('posthog-js/package.json')), 'dist', 'array.js'))

interface Raw {
  status: number
  headers: Record<string, string | string[] | undefined>
  bytes: Buffer
}

describe('compressed answers', () => {
  let t: TestWren
  beforeAll(async () => {
    t = await startWren()
  })
  afterAll(async () => {
    await t?.close()
  })

  const get = (route: string, headers: Record<string, string>, method = 'GET', body?: string): Promise<Raw> =>
    new Promise((resolve, reject) => {
      const req = request(t.url + route, { method, headers }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }))
      })
      req.on('error', reject)
      req.end(body)
    })
  const decoded = (raw: Raw) =>
    raw.headers['content-encoding'] === 'br'
      ? brotliDecompressSync(raw.bytes)
      : raw.headers['content-encoding'] === 'gzip'
        ? gunzipSync(raw.bytes)
        : raw.bytes

  it('sends posthog-js’s array.js in brotli, gzip or as it is, each with its own ETag, and 304s each again', async () => {
    const seen = new Set<string>()
    for (const [accept, encoding] of [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['identity', undefined],
    ] as const) {
      for (const time of ['first', 'second']) {
        const raw = await get('/static/array.js', { 'accept-encoding': accept })
        expect(raw.status, `${accept} ${time}`).toBe(200)
        expect(raw.headers['content-encoding'], accept).toBe(encoding)
        expect(raw.headers.vary).toMatch(/accept-encoding/i)
        expect(decoded(raw).equals(ARRAY_JS), accept).toBe(true)
        if (encoding) expect(raw.bytes.length, accept).toBeLessThan(ARRAY_JS.length / 3)
        const etag = raw.headers.etag as string
        seen.add(etag)
        const again = await get('/static/array.js', { 'accept-encoding': accept, 'if-none-match': etag })
        expect(again.status, accept).toBe(304)
      }
    }
    expect(seen.size).toBe(3)
  })

  it('encodes the web app’s script and an API answer, and leaves an answer under 1 KB as it is', async () => {
    const app = await get('/static/wren/app.js', { 'accept-encoding': 'br' })
    expect(app.headers['content-encoding']).toBe('br')
    expect(decoded(app).toString()).toContain('Wren')
    const auth = { authorization: `Bearer ${t.personalKey}` }
    const plain = await get('/api/schema/', auth)
    const br = await get('/api/schema/', { ...auth, 'accept-encoding': 'br' })
    const gz = await get('/api/schema/', { ...auth, 'accept-encoding': 'gzip' })
    expect(plain.headers['content-encoding']).toBeUndefined()
    expect(br.headers['content-encoding']).toBe('br')
    expect(gz.headers['content-encoding']).toBe('gzip')
    expect(JSON.parse(decoded(br).toString())).toEqual(JSON.parse(plain.bytes.toString()))
    expect(JSON.parse(decoded(gz).toString())).toEqual(JSON.parse(plain.bytes.toString()))
    expect(br.bytes.length).toBeLessThan(plain.bytes.length / 4)
    const health = await get('/_health', { 'accept-encoding': 'br' })
    expect(health.bytes.length).toBeLessThan(1024)
    expect(health.headers['content-encoding']).toBeUndefined()
  })

  it('answers the SDKs’ flag requests as they are (the hottest route carries no compression hook)', async () => {
    const flags = await get(
      '/flags/?v=2',
      { 'accept-encoding': 'br', 'content-type': 'application/json' },
      'POST',
      JSON.stringify({ api_key: t.projectKey, distinct_id: 'd' }),
    )
    expect(flags.status).toBe(200)
    expect(flags.headers['content-encoding']).toBeUndefined()
    expect(JSON.parse(flags.bytes.toString())).toHaveProperty('flags')
  })
})
