import { describe, it, expect } from 'vitest'
import type { DecodedEvent } from './decode'
import { newEventUuid, toIngestEvent } from './stamp'

const now = new Date('2024-05-01T12:00:00.000Z')
const ctx = { teamId: 7, now, sentAt: null, ip: '203.0.113.9', newUuid: () => 'generated-uuid' }

const decoded = (extra: Partial<DecodedEvent> = {}): DecodedEvent => ({
  uuid: null,
  event: '$pageview',
  distinctId: 'user-1',
  properties: {},
  timestamp: null,
  offset: null,
  set: null,
  setOnce: null,
  ...extra,
})

describe('toIngestEvent', () => {
  it('builds the IngestEvent with a generated uuid and now when nothing else is known', () => {
    expect(toIngestEvent(decoded(), ctx)).toEqual({
      teamId: 7,
      uuid: 'generated-uuid',
      event: '$pageview',
      distinctId: 'user-1',
      properties: { $ip: '203.0.113.9' },
      timestamp: '2024-05-01T12:00:00.000Z',
      now: '2024-05-01T12:00:00.000Z',
      elementsChain: '',
    })
  })

  it("keeps the client's uuid", () => {
    expect(toIngestEvent(decoded({ uuid: '0190b7b2-1111-7000-8000-000000000001' }), ctx).uuid).toBe('0190b7b2-1111-7000-8000-000000000001')
  })

  it('merges top-level $set / $set_once into properties, top-level keys winning', () => {
    const e = decoded({
      properties: { $set: { a: 'prop', b: 'prop' }, $set_once: { c: 'prop' } },
      set: { b: 'top', d: 'top' },
      setOnce: { c: 'top' },
    })
    const out = toIngestEvent(e, ctx)
    expect(out.properties.$set).toEqual({ a: 'prop', b: 'top', d: 'top' })
    expect(out.properties.$set_once).toEqual({ c: 'top' })
  })

  it('replaces a non-object properties.$set with the top-level one, and leaves $set alone without one', () => {
    expect(toIngestEvent(decoded({ properties: { $set: 'junk' }, set: { a: 1 } }), ctx).properties.$set).toEqual({ a: 1 })
    expect(toIngestEvent(decoded({ properties: { $set: { a: 1 } } }), ctx).properties.$set).toEqual({ a: 1 })
    expect(toIngestEvent(decoded(), ctx).properties).not.toHaveProperty('$set_once')
  })

  it('sets $ip from the request unless the event has one, and omits it when the ip is unknown', () => {
    expect(toIngestEvent(decoded({ properties: { $ip: '198.51.100.1' } }), ctx).properties.$ip).toBe('198.51.100.1')
    expect(toIngestEvent(decoded(), { ...ctx, ip: null }).properties).not.toHaveProperty('$ip')
  })

  it('adds $sent_at and corrects the timestamp for clock skew when sent_at is known', () => {
    const sentAt = new Date('2024-05-01T12:00:10.000Z') // client clock 10 s ahead
    const out = toIngestEvent(decoded({ timestamp: '2024-05-01T11:00:00Z' }), { ...ctx, sentAt })
    expect(out.properties.$sent_at).toBe('2024-05-01T12:00:10.000Z')
    expect(out.timestamp).toBe('2024-05-01T10:59:50.000Z')
  })

  it('skips skew correction when properties.$ignore_sent_at is true', () => {
    const sentAt = new Date('2024-05-01T12:00:10.000Z')
    const out = toIngestEvent(decoded({ timestamp: '2024-05-01T11:00:00Z', properties: { $ignore_sent_at: true } }), { ...ctx, sentAt })
    expect(out.timestamp).toBe('2024-05-01T11:00:00.000Z')
  })

  it('uses offset over timestamp', () => {
    expect(toIngestEvent(decoded({ timestamp: '2020-01-01T00:00:00Z', offset: 1000 }), ctx).timestamp).toBe('2024-05-01T11:59:59.000Z')
  })

  it('takes elementsChain from a string $elements_chain, keeping the property', () => {
    const out = toIngestEvent(decoded({ event: '$autocapture', properties: { $elements_chain: 'a:href="/x"' } }), ctx)
    expect(out.elementsChain).toBe('a:href="/x"')
    expect(out.properties.$elements_chain).toBe('a:href="/x"')
    expect(toIngestEvent(decoded({ properties: { $elements_chain: 5 } }), ctx).elementsChain).toBe('')
  })

  it('keeps $groupidentify properties untouched (only $ip is added)', () => {
    const properties = { $group_type: 'company', $group_key: 'acme', $group_set: { plan: 'pro' }, $set: { x: 1 } }
    const out = toIngestEvent(decoded({ event: '$groupidentify', properties }), ctx)
    expect(out.properties).toEqual({ ...properties, $ip: '203.0.113.9' })
  })

  it('does not mutate the decoded event', () => {
    const e = decoded({ properties: { $set: { a: 1 } }, set: { b: 2 } })
    toIngestEvent(e, { ...ctx, sentAt: now })
    expect(e.properties).toEqual({ $set: { a: 1 } })
  })
})

describe('newEventUuid', () => {
  it('returns distinct uuidv7 values', () => {
    const a = newEventUuid()
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(newEventUuid()).not.toBe(a)
  })

  it('keeps the order they were made in, within a millisecond and across the random pool’s refills', () => {
    const ids = Array.from({ length: 5_000 }, () => newEventUuid())
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect([...ids].sort()).toEqual(ids)
    expect(new Set(ids).size).toBe(ids.length)
    // The time in the first 48 bits is the time it was made.
    expect(Math.abs(parseInt(ids[0].replace('-', '').slice(0, 12), 16) - Date.now())).toBeLessThan(5_000)
  })
})
