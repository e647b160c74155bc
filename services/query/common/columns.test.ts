import { describe, expect, it } from 'vitest'
import { hasAggregation, isoInZone, orderItem, paging, presentType, presentValue } from './columns'

describe('table columns', () => {
  it('writes datetimes in the project’s timezone with its offset, as PostHog’s JSON does (UTC as Z)', () => {
    expect(isoInZone('2026-03-29T00:30:00.123456Z', 'Europe/Berlin')).toBe('2026-03-29T01:30:00.123456+01:00')
    expect(isoInZone('2026-03-29T01:30:00Z', 'Europe/Berlin')).toBe('2026-03-29T03:30:00+02:00')
    expect(isoInZone('2026-01-01T00:00:00.5Z', 'UTC')).toBe('2026-01-01T00:00:00.5Z')
    expect(isoInZone('2026-01-01T03:00:00Z', 'America/St_Johns')).toBe('2025-12-31T23:30:00-03:30')
    const type = presentType("Tuple(String, DateTime64(6, 'UTC'), Array(Nullable(DateTime('UTC'))))", 'Asia/Tokyo')
    expect(type).toBe("Tuple(String, DateTime64(6, 'Asia/Tokyo'), Array(Nullable(DateTime('Asia/Tokyo'))))")
    expect(presentValue(['x', '2026-01-01T00:00:00Z', ['2026-01-01T12:00:00Z']], type, 'Asia/Tokyo')).toEqual([
      'x',
      '2026-01-01T09:00:00+09:00',
      ['2026-01-01T21:00:00+09:00'],
    ])
  })

  it('pages as PostHog’s paginator: 100 by default, at most 50,000, a negative offset refused', () => {
    expect(paging({})).toEqual({ limit: 100, offset: 0 })
    expect(paging({ limit: 0, offset: 5 })).toEqual({ limit: 100, offset: 5 })
    expect(paging({ limit: 1_000_000 })).toEqual({ limit: 50_000, offset: 0 })
    expect(() => paging({ offset: -1 })).toThrow(/offset/)
    expect(() => paging({ limit: '10' })).toThrow(/limit/)
  })

  it('reads an order item and tells an aggregate column by its calls, not its text', async () => {
    expect(orderItem('count() DESC')).toEqual({ expr: 'count()', desc: true })
    expect(orderItem('person_display_name -- Person')).toEqual({ expr: 'person_display_name', desc: false })
    expect(await hasAggregation("if(event = 'count()', 1, 0)", 'select[0]')).toBe(false)
    expect(await hasAggregation('round(avg(toFloat(properties.price)), 2)', 'select[0]')).toBe(true)
    await expect(hasAggregation('count(', 'select[1]')).rejects.toMatchObject({ attr: 'select[1]' })
  })
})
