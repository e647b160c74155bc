import { describe, it, expect } from 'vitest'
import { b64, rejectsWith as rejects, sdkEvent as ev, sdkRequest as req, TOKEN } from '../platform/http/testing/sdk-requests'
import { decodeCapture } from './decode'

describe('decodeCapture: payload errors', () => {
  it('rejects invalid JSON with 400 invalid_payload naming JSON', async () => {
    const err = await rejects(decodeCapture(req('{"event": ')), 400, 'invalid_payload')
    expect(err.message).toMatch(/JSON/)
  })

  it('rejects a JSON scalar and a non-object event with 400 invalid_payload', async () => {
    await rejects(decodeCapture(req('"hello"')), 400, 'invalid_payload')
    await rejects(decodeCapture(req([ev(), 42])), 400, 'invalid_payload')
  })

  it('rejects an empty array and an empty batch with 400 empty_payload', async () => {
    await rejects(decodeCapture(req([])), 400, 'empty_payload')
    await rejects(decodeCapture(req({ api_key: TOKEN, batch: [] }, { path: '/batch/' })), 400, 'empty_payload')
  })
})

describe('decodeCapture: shapes', () => {
  it('reads an array of events', async () => {
    const out = await decodeCapture(req([ev(), ev({ event: 'clicked' })]))
    expect(out.events.map((e) => e.event)).toEqual(['$pageview', 'clicked'])
    expect(out.historicalMigration).toBe(false)
  })

  it('reads a {api_key, batch, sent_at, historical_migration} batch', async () => {
    const body = {
      api_key: TOKEN,
      batch: [{ event: 'a', distinct_id: 'd' }],
      sent_at: '2024-05-01T10:00:00.000Z',
      historical_migration: true,
    }
    const out = await decodeCapture(req(body, { path: '/batch/' }))
    expect(out).toMatchObject({ token: TOKEN, historicalMigration: true })
    expect(out.sentAt?.toISOString()).toBe('2024-05-01T10:00:00.000Z')
    expect(out.events[0]).toMatchObject({ event: 'a', distinctId: 'd' })
  })

  it('reads a {token, batch} batch', async () => {
    const out = await decodeCapture(req({ token: TOKEN, batch: [{ event: 'a', distinct_id: 'd' }] }, { path: '/batch' }))
    expect(out.token).toBe(TOKEN)
  })

  it('reads a single event object with all its fields', async () => {
    const body = {
      uuid: '0190B7B2-1111-7000-8000-000000000001',
      event: 'signed up',
      distinct_id: 'u',
      api_key: TOKEN,
      properties: { plan: 'pro' },
      timestamp: '2024-05-01T10:00:00Z',
      offset: 1500,
      $set: { email: 'a@b.c' },
      $set_once: { first: 1 },
      $unset: ['dropped'],
    }
    const out = await decodeCapture(req(body, { path: '/capture/' }))
    expect(out.events).toEqual([
      {
        uuid: '0190b7b2-1111-7000-8000-000000000001',
        event: 'signed up',
        distinctId: 'u',
        properties: { plan: 'pro' },
        timestamp: '2024-05-01T10:00:00Z',
        offset: 1500,
        set: { email: 'a@b.c' },
        setOnce: { first: 1 },
      },
    ])
  })

  it('treats non-object properties as {} and non-object $set as absent', async () => {
    const out = await decodeCapture(req([ev({ api_key: TOKEN, properties: 'oops', $set: 'x', timestamp: 17 })]))
    expect(out.events[0]).toMatchObject({ properties: {}, set: null, setOnce: null, timestamp: '17', offset: null })
  })

  it('turns a legacy engage object on /engage into $identify', async () => {
    const body = { $token: TOKEN, $distinct_id: 'person-9', $set: { name: 'Ada' } }
    const out = await decodeCapture(req(b64(JSON.stringify(body)), { path: '/engage/' }))
    expect(out.token).toBe(TOKEN)
    expect(out.events).toEqual([
      {
        uuid: null,
        event: '$identify',
        distinctId: 'person-9',
        properties: {},
        timestamp: null,
        offset: null,
        set: { name: 'Ada' },
        setOnce: null,
      },
    ])
  })

  it('rejects the engage shape off /engage with 400 missing_event_name', async () => {
    const body = { $token: TOKEN, $distinct_id: 'person-9', $set: { name: 'Ada' } }
    await rejects(decodeCapture(req(body, { path: '/e/' })), 400, 'missing_event_name')
  })

  it('rejects a missing or empty event name with 400 missing_event_name', async () => {
    await rejects(decodeCapture(req([{ distinct_id: 'd', api_key: TOKEN }])), 400, 'missing_event_name')
    await rejects(decodeCapture(req([ev({ event: '' })])), 400, 'missing_event_name')
  })
})

describe('decodeCapture: token', () => {
  it('prefers the batch-level api_key over event tokens', async () => {
    const body = { api_key: 'phc_batch', batch: [ev({ token: 'phc_other' }), ev({ properties: { token: 'phc_third' } })] }
    expect((await decodeCapture(req(body, { path: '/batch/' }))).token).toBe('phc_batch')
  })

  it('reads properties.token, and top-level token / $token / api_key before it', async () => {
    expect((await decodeCapture(req([ev()]))).token).toBe(TOKEN)
    for (const key of ['token', '$token', 'api_key']) {
      const out = await decodeCapture(req([ev({ [key]: 'phc_top', properties: { token: 'phc_prop' } })]))
      expect(out.token).toBe('phc_top')
    }
  })

  it('accepts events that agree, ignoring events that carry no token', async () => {
    const out = await decodeCapture(req([ev(), ev({ properties: {} }), ev({ api_key: TOKEN })]))
    expect(out.token).toBe(TOKEN)
  })

  it('trims whitespace around a copied key', async () => {
    expect((await decodeCapture(req({ api_key: ` ${TOKEN}\n`, batch: [ev()] }))).token).toBe(TOKEN)
  })

  it('rejects events with different tokens with 400 multiple_tokens', async () => {
    await rejects(decodeCapture(req([ev(), ev({ properties: { token: 'phc_other' } })])), 400, 'multiple_tokens')
  })

  it('rejects a missing token with 401 ingest_key_required', async () => {
    const err = await rejects(decodeCapture(req([{ event: 'e', distinct_id: 'd' }])), 401, 'ingest_key_required')
    expect(err.message).toBe('Project API key missing: send api_key or token')
  })

  it('rejects an empty batch token with 401 ingest_key_required', async () => {
    await rejects(decodeCapture(req({ api_key: '', batch: [ev()] }, { path: '/batch/' })), 401, 'ingest_key_required')
  })

  it('rejects a personal API key with 401 ingest_key_invalid', async () => {
    const err = await rejects(decodeCapture(req([ev({ token: 'phx_secret' })])), 401, 'ingest_key_invalid')
    expect(err.message).toMatch(/personal API key/)
  })
})

describe('decodeCapture: distinct_id', () => {
  const one = async (extra: Record<string, unknown>): Promise<string> =>
    (await decodeCapture(req([{ event: 'e', api_key: TOKEN, ...extra }]))).events[0].distinctId

  it('prefers top-level distinct_id / $distinct_id over properties.distinct_id', async () => {
    expect(await one({ distinct_id: 'top', properties: { distinct_id: 'prop' } })).toBe('top')
    expect(await one({ $distinct_id: 'dollar', properties: { distinct_id: 'prop' } })).toBe('dollar')
    expect(await one({ properties: { distinct_id: 'prop' } })).toBe('prop')
  })

  it('stringifies numbers and objects as JSON', async () => {
    expect(await one({ distinct_id: 23 })).toBe('23')
    expect(await one({ distinct_id: 23.5 })).toBe('23.5')
    expect(await one({ distinct_id: { a: 1, b: 'x' } })).toBe('{"a":1,"b":"x"}')
    expect(await one({ distinct_id: ['a', 'b'] })).toBe('["a","b"]')
  })

  it('truncates to 200 characters', async () => {
    expect(await one({ distinct_id: 'x'.repeat(250) })).toBe('x'.repeat(200))
  })

  it('replaces NUL with U+FFFD', async () => {
    expect(await one({ distinct_id: 'a\u0000b' })).toBe('a\uFFFDb')
  })

  it('rejects missing, null and empty distinct_id with 400 missing_distinct_id', async () => {
    await rejects(decodeCapture(req([{ event: 'e', api_key: TOKEN }])), 400, 'missing_distinct_id')
    await rejects(decodeCapture(req([{ event: 'e', api_key: TOKEN, distinct_id: null }])), 400, 'missing_distinct_id')
    await rejects(decodeCapture(req([{ event: 'e', api_key: TOKEN, distinct_id: '' }])), 400, 'missing_distinct_id')
  })

  it('fails the whole request when one event of many is bad', async () => {
    await rejects(decodeCapture(req([ev(), ev({ distinct_id: null }), ev()])), 400, 'missing_distinct_id')
  })
})

describe('decodeCapture: uuid', () => {
  it('is null when absent or empty, and lower-case canonical when valid', async () => {
    const out = await decodeCapture(req([ev(), ev({ uuid: '' }), ev({ uuid: '0190B7B21111700080000000000000AB' })]))
    expect(out.events.map((e) => e.uuid)).toEqual([null, null, '0190b7b2-1111-7000-8000-0000000000ab'])
  })

  it('rejects an invalid uuid with 400 invalid_uuid, failing the whole request', async () => {
    await rejects(decodeCapture(req([ev(), ev({ uuid: 'not-a-uuid' })])), 400, 'invalid_uuid')
    await rejects(decodeCapture(req([ev({ uuid: 12 })])), 400, 'invalid_uuid')
  })
})

describe('decodeCapture: $performance_event', () => {
  it('drops $performance_event events', async () => {
    const out = await decodeCapture(req([ev({ event: '$performance_event' }), ev()]))
    expect(out.events.map((e) => e.event)).toEqual(['$pageview'])
  })

  it('rejects a request with only $performance_event events with 400 empty_payload_filtered', async () => {
    await rejects(decodeCapture(req([ev({ event: '$performance_event' })])), 400, 'empty_payload_filtered')
  })
})

describe('decodeCapture: sent_at', () => {
  it('reads the batch sent_at', async () => {
    const out = await decodeCapture(req({ api_key: TOKEN, batch: [ev()], sent_at: '2024-05-01T10:00:00+02:00' }))
    expect(out.sentAt?.toISOString()).toBe('2024-05-01T08:00:00.000Z')
  })

  it('reads query sent_at and _ in milliseconds', async () => {
    expect((await decodeCapture(req([ev()], { query: { sent_at: '1704067200000' } }))).sentAt?.toISOString()).toBe(
      '2024-01-01T00:00:00.000Z',
    )
    expect((await decodeCapture(req([ev()], { query: { _: '1704067200000' } }))).sentAt?.toISOString()).toBe('2024-01-01T00:00:00.000Z')
  })

  it('ignores query values in seconds (year ≤ 2020 when read as ms) and non-numbers', async () => {
    expect((await decodeCapture(req([ev()], { query: { _: '1704067200' } }))).sentAt).toBeNull()
    expect((await decodeCapture(req([ev()], { query: { sent_at: 'yesterday' } }))).sentAt).toBeNull()
    expect((await decodeCapture(req([ev()]))).sentAt).toBeNull()
  })

  it('prefers the batch sent_at, and falls back to the query when the batch value is unparseable', async () => {
    const query = { _: '1704067200000' }
    const good = await decodeCapture(req({ api_key: TOKEN, batch: [ev()], sent_at: '2024-05-01T10:00:00Z' }, { query }))
    expect(good.sentAt?.toISOString()).toBe('2024-05-01T10:00:00.000Z')
    const bad = await decodeCapture(req({ api_key: TOKEN, batch: [ev()], sent_at: 'garbage' }, { query }))
    expect(bad.sentAt?.toISOString()).toBe('2024-01-01T00:00:00.000Z')
  })
})
