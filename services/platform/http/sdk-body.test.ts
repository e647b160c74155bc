import { gzipSync } from 'node:zlib'
import lzString from 'lz-string'
import { describe, it, expect } from 'vitest'
import { lzBomb } from '../../../test/support/lz-bomb'
import { MAX_DECOMPRESSED_BYTES, payloadText, type SdkRequest } from './sdk-body'
import { b64, rejectsWith as rejects, sdkEvent as ev, sdkRequest as req, TOKEN } from './testing/sdk-requests'

type RawEvent = { event: string; distinct_id: string; properties: Record<string, unknown> }

/** The decoded body read as the array of events every payload here holds. */
async function events(r: SdkRequest): Promise<RawEvent[]> {
  return JSON.parse(await payloadText(r)) as RawEvent[]
}

// What a browser form-encoder does to base64 ('+' → '%2B') and what a sloppy one does ('+' left raw, read as ' ').
const sloppyForm = (fields: Record<string, string>): string =>
  Object.entries(fields)
    .map(([k, v]) => `${k}=${v.replace(/\//g, '%2F').replace(/=/g, '%3D')}`)
    .join('&')
const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

describe('payloadText: encodings', () => {
  const payload = JSON.stringify([ev()])

  it('reads a plain JSON body', async () => {
    const out = await events(req(payload))
    expect(out[0].properties.token).toBe(TOKEN)
    expect(out.map((e) => [e.event, e.distinct_id])).toEqual([['$pageview', 'user-1']])
  })

  it('gunzips with a Content-Encoding: gzip header', async () => {
    const out = await events(req(gzipSync(payload), { path: '/batch/', headers: { 'content-encoding': 'gzip' } }))
    expect(out[0].event).toBe('$pageview')
  })

  it('gunzips without any hint by sniffing the 1f 8b magic (posthog-js ≥ 1.398.2)', async () => {
    const out = await events(req(gzipSync(payload), { headers: { 'content-type': 'text/plain' } }))
    expect(out[0].distinct_id).toBe('user-1')
  })

  it('gunzips with the old ?compression=gzip-js query hint', async () => {
    const out = await events(req(gzipSync(payload), { query: { compression: 'gzip-js', _: '1704067200000' } }))
    expect(out).toHaveLength(1)
  })

  it('reads a gzip-hinted body without gzip magic as plain JSON', async () => {
    const out = await events(req(payload, { headers: { 'content-encoding': 'gzip' } }))
    expect(out).toHaveLength(1)
  })

  it('reads form data= base64 whose + became spaces, hinted by ?compression=base64', async () => {
    // Pick a payload whose base64 contains '+' so the space repair is exercised.
    const data = b64(JSON.stringify([ev({ properties: { token: TOKEN, k: '>>>~~~' } })]))
    expect(data).toContain('+')
    const body = sloppyForm({ data })
    expect(body).not.toContain('%2B')
    const out = await events(req(body, { query: { compression: 'base64' }, headers: FORM }))
    expect(out[0].properties.k).toBe('>>>~~~')
  })

  it('reads a properly urlencoded base64 form on a non-legacy path with the form compression field', async () => {
    const data = b64(payload)
    const body = new URLSearchParams({ data, compression: 'base64' }).toString()
    const out = await events(
      req(body, { path: '/i/v0/e/', headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' } }),
    )
    expect(out[0].event).toBe('$pageview')
  })

  it('reads a form whose data= is plain JSON', async () => {
    const body = new URLSearchParams({ data: payload, ver: '1.2.3' }).toString()
    const out = await events(req(body, { headers: FORM }))
    expect(out[0].distinct_id).toBe('user-1')
  })

  it('reads lz64 (lz-string compressToBase64) in a form with compression=lz64', async () => {
    const body = new URLSearchParams({ data: lzString.compressToBase64(payload), compression: 'lz64' }).toString()
    const out = await events(req(body, { headers: FORM }))
    expect(out[0].event).toBe('$pageview')
  })

  it('reads a raw lz64 body hinted by ?compression=lz-string without base64-decoding it first', async () => {
    const out = await events(req(lzString.compressToBase64(payload), { query: { compression: 'lz-string' } }))
    expect(out[0].event).toBe('$pageview')
  })

  it('base64-decodes a body that is entirely base64 (on any path)', async () => {
    const out = await events(req(b64(payload), { path: '/batch/' }))
    expect(out[0].event).toBe('$pageview')
  })

  it('decodes double base64 on a legacy path', async () => {
    const out = await events(req(b64(b64(payload)), { path: '/capture/' }))
    expect(out[0].event).toBe('$pageview')
  })

  it('does not decode double base64 on /batch (only legacy paths do)', async () => {
    // Left as base64 text, which JSON parsing then refuses.
    expect(await payloadText(req(b64(b64(payload)), { path: '/batch/' }))).toBe(b64(payload))
  })

  it('reads GET ?data= JSON and ?data= base64 whose + the query parser turned into spaces', async () => {
    const plain = await events(req(Buffer.alloc(0), { query: { data: payload } }))
    expect(plain).toHaveLength(1)
    const data = b64(JSON.stringify([ev({ properties: { token: TOKEN, k: '>>>~~~' } })]))
    const out = await events(req(Buffer.alloc(0), { query: { data: data.replace(/\+/g, ' ') } }))
    expect(out[0].properties.k).toBe('>>>~~~')
  })

  it('keeps a JSON body whose URL contains &ip= as JSON', async () => {
    const body = JSON.stringify([ev({ properties: { token: TOKEN, $current_url: 'https://a.io/?x=1&ip=1&data=2' } })])
    const out = await events(req(body, { headers: { 'content-type': 'application/json' } }))
    expect(out[0].properties.$current_url).toBe('https://a.io/?x=1&ip=1&data=2')
  })
})

describe('payloadText: payload errors', () => {
  it('rejects an empty body and an empty ?data= with 400 empty_payload', async () => {
    await rejects(payloadText(req(Buffer.alloc(0))), 400, 'empty_payload')
    await rejects(payloadText(req(Buffer.alloc(0), { query: { data: '' } })), 400, 'empty_payload')
  })

  it('rejects corrupt gzip with 400 invalid_payload naming gzip', async () => {
    const broken = Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08]), Buffer.from('garbage garbage')])
    const err = await rejects(payloadText(req(broken)), 400, 'invalid_payload')
    expect(err.message).toMatch(/gzip/)
  })

  it('rejects invalid UTF-8 with 400 invalid_payload', async () => {
    const err = await rejects(payloadText(req(Buffer.from([0x5b, 0xff, 0xfe, 0x5d]))), 400, 'invalid_payload')
    expect(err.message).toMatch(/UTF-8/)
  })

  it('rejects undecodable lz64 with 400 invalid_payload', async () => {
    const body = new URLSearchParams({ data: '!!!not lz!!!', compression: 'lz64' }).toString()
    await rejects(payloadText(req(body, { headers: FORM })), 400, 'invalid_payload')
  })

  it('rejects gzip that inflates past MAX_DECOMPRESSED_BYTES with 413', async () => {
    const bomb = gzipSync(Buffer.alloc(MAX_DECOMPRESSED_BYTES + 1024, 0x20))
    expect(bomb.length).toBeLessThan(100_000)
    await rejects(payloadText(req(bomb, { path: '/batch/' })), 413, 'payload_too_large')
  })

  it('rejects lz64 that inflates past MAX_DECOMPRESSED_BYTES with 413', async () => {
    // lz-string compresses long runs very slowly, so build > 20 MB of UTF-8 from 3-byte characters in pseudo-random
    // order: ~7M chars compress in a few seconds. The text is written as UTF-16 code units and decoded at once (an
    // array of 7M one-character strings joined took as long again as the compression).
    let seed = 1
    const codes = [...'€₤₩₪'].map((c) => c.charCodeAt(0))
    const units = new Uint16Array(Math.ceil(MAX_DECOMPRESSED_BYTES / 3) + 10)
    for (let i = 0; i < units.length; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      units[i] = codes[(seed >> 16) & 3]
    }
    const big = lzString.compressToBase64(new TextDecoder('utf-16le').decode(units))
    await rejects(payloadText(req(big, { query: { compression: 'lz64' } })), 413, 'payload_too_large')
  })

  it('rejects a crafted 256 KB lz64 stream (outputs growing by one character a code) with 413 before building it', async () => {
    // lz-string itself would build ~5 billion characters from this and run V8 out of heap.
    await rejects(payloadText(req(lzBomb(100_000), { path: '/batch/', query: { compression: 'lz64' } })), 413, 'payload_too_large')
  })
})
