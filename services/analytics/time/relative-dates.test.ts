import { describe, expect, it } from 'vitest'
import { parseRelativeDate, relativeWall } from './relative-dates'
import { fromWall, toWall } from './wall-time'

const TZ = 'America/New_York'
// Noon on the Monday after the spring DST change (Sunday 2025-03-09 02:00 skipped an hour), and a summer noon.
const AFTER_CHANGE = new Date('2025-03-10T16:00:00Z')
const SUMMER = new Date('2025-07-15T16:00:00Z')
const queryInstant = (text: string, now = AFTER_CHANGE) => {
  const rel = relativeWall(text, toWall(now, TZ))
  return rel ? fromWall(rel.wall, TZ).toISOString() : null
}
const filterInstant = (text: string, now = AFTER_CHANGE) => {
  const ms = parseRelativeDate(text, TZ, now.getTime())
  return ms === null ? null : new Date(ms).toISOString()
}

describe('the two readings of relative dates', () => {
  it('agree on the forms both take when no DST change lies between', () => {
    for (const text of ['-48h', '-1d', '-7d', '2w', '-1m', '-3m', '-1y'])
      expect(queryInstant(text, SUMMER), text).toBe(filterInstant(text, SUMMER))
  })

  it('agree on months and years across a DST change (both calendar ones in the timezone)', () => {
    for (const text of ['-1m', '-1y']) expect(queryInstant(text), text).toBe(filterInstant(text))
  })

  it('differ by the hour a DST change skips: wall-clock hours and days for queries, elapsed ones for filters', () => {
    expect(queryInstant('-2d')).toBe('2025-03-08T17:00:00.000Z') // Saturday 12:00 EST
    expect(filterInstant('-2d')).toBe('2025-03-08T16:00:00.000Z') // 48 hours back: Saturday 11:00 EST
    expect(queryInstant('-48h')).toBe('2025-03-08T17:00:00.000Z')
    expect(filterInstant('-48h')).toBe('2025-03-08T16:00:00.000Z')
  })

  it('take forms only queries know: quarters, seconds, minutes, a missing count, Start and End', () => {
    for (const text of ['-1q', '-30s', '-5M', 'dStart', '-1mEnd', '-10000d']) {
      expect(queryInstant(text), text).not.toBeNull()
      expect(filterInstant(text), text).toBeNull()
    }
  })
})
