import { describe, it, expect } from 'vitest'
import { parseTimestamp, resolveTimestamp, type TimestampInput } from './timestamp'

const iso = (value: unknown): string | null => parseTimestamp(value)?.toISOString() ?? null

describe('parseTimestamp', () => {
  it('reads RFC 3339 with Z, an offset, and sub-millisecond fractions', () => {
    expect(iso('2024-05-01T10:00:00Z')).toBe('2024-05-01T10:00:00.000Z')
    expect(iso('2024-05-01T10:00:00.123456Z')).toBe('2024-05-01T10:00:00.123Z')
    expect(iso('2024-05-01T12:30:00+02:30')).toBe('2024-05-01T10:00:00.000Z')
    expect(iso('2024-05-01T05:00:00-05:00')).toBe('2024-05-01T10:00:00.000Z')
  })

  it('reads the +HH and +HHMM offset shorthands', () => {
    expect(iso('2025-09-17T14:05:04.805+03')).toBe('2025-09-17T11:05:04.805Z')
    expect(iso('2025-09-17T14:05:04-0300')).toBe('2025-09-17T17:05:04.000Z')
  })

  it('reads a date-only value as UTC midnight', () => {
    expect(iso('2023-01-15')).toBe('2023-01-15T00:00:00.000Z')
  })

  it('reads a space separator, with and without a zone', () => {
    expect(iso('2023-01-15 12:34:56')).toBe('2023-01-15T12:34:56.000Z')
    expect(iso('2023-01-15 12:34:56+01:00')).toBe('2023-01-15T11:34:56.000Z')
  })

  it('reads a naive YYYY-MM-DDTHH:MM:SS as UTC', () => {
    expect(iso('2023-01-15T12:34:56')).toBe('2023-01-15T12:34:56.000Z')
    expect(iso('2023-01-15T12:34')).toBe('2023-01-15T12:34:00.000Z')
  })

  it('reads numeric epochs: numbers and digit strings as ms, 10-digit strings as seconds', () => {
    expect(iso(1704067200000)).toBe('2024-01-01T00:00:00.000Z')
    expect(iso('1704067200000')).toBe('2024-01-01T00:00:00.000Z')
    expect(iso('1704067200')).toBe('2024-01-01T00:00:00.000Z')
    expect(iso('1704067200.5')).toBe('2024-01-01T00:00:00.500Z')
  })

  it('reads RFC 2822, reading a missing zone as UTC', () => {
    expect(iso('Tue, 1 Jul 2003 10:52:37 +0200')).toBe('2003-07-01T08:52:37.000Z')
    expect(iso('1 Jul 2003 10:52:37 GMT')).toBe('2003-07-01T10:52:37.000Z')
    expect(iso('Tue, 1 Jul 2003 10:52:37')).toBe('2003-07-01T10:52:37.000Z')
  })

  it('reads slash dates as UTC', () => {
    expect(iso('2023/01/15 10:00:00')).toBe('2023-01-15T10:00:00.000Z')
    expect(iso('01/15/2023')).toBe('2023-01-15T00:00:00.000Z')
  })

  it('keeps years below 100 as they are', () => {
    expect(iso('0050-06-01T00:00:00Z')).toBe('0050-06-01T00:00:00.000Z')
  })

  it('returns null for anything unparseable', () => {
    for (const v of ['', 'not a date', '2023-02-30', '2023-13-01', '2023-01-01T25:00:00Z', 'Tuesday', null, undefined, {}, true, NaN]) {
      expect(parseTimestamp(v)).toBeNull()
    }
  })
})

describe('resolveTimestamp', () => {
  const now = new Date('2023-01-01T12:00:00Z')
  const base: TimestampInput = { timestamp: null, offset: null, sentAt: null, now, ignoreSentAt: false }
  const resolve = (input: Partial<TimestampInput>): string => resolveTimestamp({ ...base, ...input }).toISOString()

  it('subtracts the skew (sent_at − now) when the client clock runs ahead', () => {
    expect(resolve({ timestamp: '2023-01-01T11:00:00Z', sentAt: new Date('2023-01-01T12:00:10Z') })).toBe('2023-01-01T10:59:50.000Z')
  })

  it('adds the skew when the client clock runs behind', () => {
    expect(resolve({ timestamp: '2023-01-01T11:00:00Z', sentAt: new Date('2023-01-01T11:59:50Z') })).toBe('2023-01-01T11:00:10.000Z')
  })

  it('uses the timestamp as is without sent_at, or when told to ignore it', () => {
    expect(resolve({ timestamp: '2023-01-01T11:00:00Z' })).toBe('2023-01-01T11:00:00.000Z')
    expect(resolve({ timestamp: '2023-01-01T11:00:00Z', sentAt: new Date('2023-01-01T12:00:10Z'), ignoreSentAt: true })).toBe(
      '2023-01-01T11:00:00.000Z',
    )
  })

  it('lets offset override both timestamp and sent_at: now − offset', () => {
    expect(resolve({ offset: 5000 })).toBe('2023-01-01T11:59:55.000Z')
    expect(resolve({ timestamp: '2020-01-01T00:00:00Z', sentAt: new Date('2023-01-01T12:00:10Z'), offset: 5000 })).toBe(
      '2023-01-01T11:59:55.000Z',
    )
  })

  it('falls back to now with no timestamp, or an unparseable one, even when sent_at is known', () => {
    expect(resolve({})).toBe(now.toISOString())
    expect(resolve({ sentAt: new Date('2023-01-01T12:00:05Z') })).toBe(now.toISOString())
    expect(resolve({ timestamp: 'not a date', sentAt: new Date('2023-01-01T12:00:05Z') })).toBe(now.toISOString())
  })

  it('clamps timestamps more than 23h in the future to now, and keeps those within 23h', () => {
    expect(resolve({ timestamp: '2023-01-02T11:00:01Z' })).toBe(now.toISOString())
    expect(resolve({ timestamp: '2023-01-02T11:00:00Z' })).toBe('2023-01-02T11:00:00.000Z')
    expect(resolve({ offset: -24 * 3600 * 1000 })).toBe(now.toISOString())
  })

  it('falls back to the Unix epoch for years below 0', () => {
    expect(resolve({ timestamp: '-70000000000000' })).toBe('1970-01-01T00:00:00.000Z')
    expect(resolve({ offset: 1e15 })).toBe('1970-01-01T00:00:00.000Z')
  })

  it('treats years beyond 9999 as future, hence now (the future clamp runs first)', () => {
    expect(resolve({ timestamp: '9999999999999999' })).toBe(now.toISOString())
  })
})
