import { describe, expect, it } from 'vitest'
import { dayString, labelFor, previousRange, resolveRange, instantParam, type DateRangeInput } from './dates'

const input = (over: Partial<DateRangeInput> = {}): DateRangeInput => ({
  dateFrom: null,
  dateTo: null,
  interval: 'day',
  explicitDate: false,
  exact: false,
  earliest: null,
  ...over,
})
const days = (r: ReturnType<typeof resolveRange>) => r.buckets.map((b) => dayString(b, r.interval))

describe('trend date ranges', () => {
  it('compares -7d with the weekday-aligned previous period', () => {
    const i = input({ dateFrom: '-7d' })
    const current = resolveRange(i, new Date('2020-01-04T13:00:00Z'), 'UTC', 0)
    expect(days(current)).toEqual([
      '2019-12-28',
      '2019-12-29',
      '2019-12-30',
      '2019-12-31',
      '2020-01-01',
      '2020-01-02',
      '2020-01-03',
      '2020-01-04',
    ])
    const previous = previousRange(current, i, null)
    expect(days(previous)[0]).toBe('2019-12-21')
    expect(days(previous).at(-1)).toBe('2019-12-28')
  })

  it('compares a fixed single day with the day before, and dStart by the hour', () => {
    const i = input({ dateFrom: '2020-01-02', dateTo: '2020-01-02' })
    const current = resolveRange(i, new Date('2020-01-04T13:00:00Z'), 'UTC', 0)
    expect(days(previousRange(current, i, null))).toEqual(['2020-01-01'])
    const h = input({ dateFrom: 'dStart', interval: 'hour' })
    const today = resolveRange(h, new Date('2020-01-02T20:17:00Z'), 'UTC', 0)
    expect(today.buckets).toHaveLength(21)
    const prev = previousRange(today, h, null)
    expect(days(prev)[0]).toBe('2020-01-01 00:00:00')
    expect(days(prev).at(-1)).toBe('2020-01-01 20:00:00')
    const to = previousRange(current, i, '-1w')
    expect(days(to)).toEqual(['2019-12-26'])
  })

  it('starts weeks on Sunday or Monday and clips week labels to the range', () => {
    const i = input({ dateFrom: '-14d', interval: 'week' })
    const now = new Date('2020-01-26T10:00:00Z')
    expect(days(resolveRange(i, now, 'UTC', 0))).toEqual(['2020-01-12', '2020-01-19', '2020-01-26'])
    expect(days(resolveRange(i, now, 'UTC', 1))).toEqual(['2020-01-06', '2020-01-13', '2020-01-20'])
    const r = resolveRange(input({ dateFrom: '2019-12-28', dateTo: '2020-01-10', interval: 'week' }), now, 'UTC', 0)
    expect(r.buckets.map((b) => labelFor(b, r))).toEqual(['28-Dec-2019', '29-Dec-2019 – 4-Jan-2020', '5–10 Jan'])
    const m = resolveRange(input({ dateFrom: '2020-01-29', dateTo: '2020-02-08', interval: 'week' }), now, 'UTC', 0)
    expect(m.buckets.map((b) => labelFor(b, m))).toEqual(['29-Jan – 1-Feb', '2–8 Feb'])
  })

  it('keeps buckets whole across a DST change and converts walls to UTC instants', () => {
    const r = resolveRange(input({ dateFrom: '2020-03-07', dateTo: '2020-03-09' }), new Date('2020-03-10T00:00:00Z'), 'US/Pacific', 0)
    expect(days(r)).toEqual(['2020-03-07', '2020-03-08', '2020-03-09'])
    expect(instantParam(r.from, 'US/Pacific')).toBe('2020-03-07 08:00:00.000000')
    expect(instantParam(r.to, 'US/Pacific')).toBe('2020-03-10 06:59:59.999999')
  })

  it('rounds date_to to the end of the day or hour unless explicit_date', () => {
    const now = new Date('2026-03-15T12:34:00Z')
    const r = (over: Partial<DateRangeInput>) => resolveRange(input(over), now, 'UTC', 0)
    expect(instantParam(r({ dateFrom: '2026-03-10', dateTo: '2026-03-12' }).to, 'UTC')).toBe('2026-03-12 23:59:59.999999')
    expect(instantParam(r({ dateFrom: '2026-03-10T05:00:00Z', dateTo: '2026-03-10T17:00:00Z', interval: 'hour' }).to, 'UTC')).toBe(
      '2026-03-10 17:00:00.000000',
    )
    expect(instantParam(r({ dateFrom: '-2h', interval: 'hour' }).to, 'UTC')).toBe('2026-03-15 12:59:59.999999')
    const explicit = r({ dateFrom: '2026-03-10T05:30:00Z', dateTo: '2026-03-12T06:00:00Z', explicitDate: true })
    expect([instantParam(explicit.from, 'UTC'), instantParam(explicit.to, 'UTC')]).toEqual([
      '2026-03-10 05:30:00.000000',
      '2026-03-12 06:00:00.000000',
    ])
    expect(instantParam(r({ dateFrom: 'all', earliest: new Date('2026-01-05T08:00:00Z') }).from, 'UTC')).toBe('2026-01-05 00:00:00.000000')
    const bold = r({ dateFrom: '-7d', exact: true })
    expect([instantParam(bold.from, 'UTC'), instantParam(bold.to, 'UTC')]).toEqual([
      '2026-03-08 12:34:00.000000',
      '2026-03-15 12:34:00.000000',
    ])
  })

  it('parses relative forms and refuses nonsense', () => {
    const now = new Date('2026-03-15T12:34:00Z')
    const from = (dateFrom: string, extra: Partial<DateRangeInput> = {}) =>
      dayString(resolveRange(input({ dateFrom, ...extra }), now, 'UTC', 0).from, extra.interval ?? 'day')
    expect(from('-1mStart')).toBe('2026-02-01')
    expect(from('-3d')).toBe('2026-03-12')
    expect(from('-48h', { interval: 'hour' })).toBe('2026-03-13 12:00:00')
    expect(from('2020-6-7', { interval: 'month' })).toBe('2020-06-01')
    expect(from('2026-03-01T10:00:00+02:00', { interval: 'hour' })).toBe('2026-03-01 08:00:00')
    expect(() => resolveRange(input({ dateFrom: 'soon' }), now, 'UTC', 0)).toThrow(/date_from 'soon' is not a date/)
    expect(() => resolveRange(input({ dateFrom: '2026-02-30' }), now, 'UTC', 0)).toThrow(/not a date/)
    expect(() => resolveRange(input({ dateFrom: '2026-03-10', dateTo: '2026-03-01' }), now, 'UTC', 0)).toThrow(/before date_from/)
  })
})
