// Date ranges of a trend: parsing `date_from`/`date_to` (absolute and relative forms), PostHog's rounding
// rules, the bucket list, `days` and `labels`, and the previous period for compare. All in wall time of
// the project's timezone (see shared/wall-time.ts).
import { wrenError } from '../shared/errors'
import {
  addDays,
  addMonths,
  endOfDay,
  endOfHour,
  fromWall,
  startOfDay,
  startOfHour,
  startOfMonth,
  startOfWeek,
  toWall,
  wallDate,
  wallDateTime,
  withTimeOf,
} from '../shared/wall-time'

export type Interval = 'hour' | 'day' | 'week' | 'month'
export const INTERVALS: readonly Interval[] = ['hour', 'day', 'week', 'month']

interface ParsedDate {
  wall: Date
  relative: boolean
  /** Relative with an hour unit (`-48h`): decides truncation and widening. */
  hourUnit: boolean
  /** Relative `-Nd` with N a multiple of 7, for the compare kludge. */
  weekMultipleDays: boolean
}

const ABSOLUTE = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i
const RELATIVE = /^-?(\d+)?([hdwmqysHDWQYS]|M)(Start|End)?$/

/**
 * A `date_from` / `date_to` query parameter outside trends (the properties timeline, the recordings list)
 * as a UTC instant, in every form trends take, relative ones in the project's timezone (`date_from` rounded
 * as trends round it); throws a 400 naming `attr`.
 */
export function dateParamInstant(value: string, attr: 'date_from' | 'date_to', now: Date, tz: string): Date {
  return fromWall(parseDate(value, toWall(now, tz), tz, attr === 'date_from', attr).wall, tz)
}

/** Parses one date string against `nowWall`; throws a 400 naming `attr` when it is neither form. */
export function parseDate(value: string, nowWall: Date, tz: string, truncate: boolean, attr: string): ParsedDate {
  const s = value.trim()
  const abs = ABSOLUTE.exec(s)
  if (abs) {
    const [, y, mo, d, h, mi, sec, frac, offset] = abs
    const ms = frac ? Math.floor(Number(frac.padEnd(6, '0')) / 1000) : 0
    const fields = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h ?? 0), Number(mi ?? 0), Number(sec ?? 0), ms)
    const check = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)))
    if (check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d) || Number(h ?? 0) > 23) throw badDate(value, attr)
    let wall = new Date(fields)
    if (offset) {
      const sign = offset.toUpperCase() === 'Z' ? 0 : offset.startsWith('-') ? -1 : 1
      const digits = offset.replace(/[^0-9]/g, '')
      const minutes = sign === 0 ? 0 : sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || 0))
      wall = toWall(new Date(fields - minutes * 60_000), tz)
    }
    return { wall, relative: false, hourUnit: false, weekMultipleDays: false }
  }
  const rel = RELATIVE.exec(s)
  if (!rel) throw badDate(value, attr)
  const n = Number(rel[1] ?? 0)
  const unit = rel[2] === 'M' ? 'M' : rel[2].toLowerCase()
  const position = rel[3]
  let w = nowWall
  switch (unit) {
    case 'h':
      w = new Date(w.getTime() - n * 3_600_000)
      if (position === 'Start') w = startOfHour(w)
      if (position === 'End') w = endOfHour(w)
      break
    case 'd':
      w = addDays(w, -n)
      if (position === 'Start') w = startOfDay(w)
      if (position === 'End') w = endOfDay(w)
      break
    case 'w':
      w = addDays(w, -7 * n)
      break
    case 'q':
      w = addDays(w, -91 * n)
      break
    case 'm':
      w = addMonths(w, -n)
      if (position === 'Start')
        w = new Date(
          Date.UTC(w.getUTCFullYear(), w.getUTCMonth(), 1, w.getUTCHours(), w.getUTCMinutes(), w.getUTCSeconds(), w.getUTCMilliseconds()),
        )
      if (position === 'End')
        w = addMonths(
          new Date(
            Date.UTC(w.getUTCFullYear(), w.getUTCMonth(), 1, w.getUTCHours(), w.getUTCMinutes(), w.getUTCSeconds(), w.getUTCMilliseconds()),
          ),
          1,
        )
      if (position === 'End') w = addDays(w, -1)
      break
    case 'y':
      w = addMonths(w, -12 * n)
      if (position === 'Start')
        w = new Date(Date.UTC(w.getUTCFullYear(), 0, 1, w.getUTCHours(), w.getUTCMinutes(), w.getUTCSeconds(), w.getUTCMilliseconds()))
      if (position === 'End')
        w = new Date(
          Date.UTC(
            w.getUTCFullYear(),
            w.getUTCMonth(),
            lastDay(w),
            w.getUTCHours(),
            w.getUTCMinutes(),
            w.getUTCSeconds(),
            w.getUTCMilliseconds(),
          ),
        )
      break
    case 'M':
      w = new Date(w.getTime() - n * 60_000)
      break
    case 's':
      w = new Date(w.getTime() - n * 1000)
      break
  }
  if (truncate) w = unit === 'h' ? startOfHour(w) : startOfDay(w)
  return { wall: w, relative: true, hourUnit: unit === 'h', weekMultipleDays: unit === 'd' && n % 7 === 0 && !position }
}

function lastDay(w: Date): number {
  return new Date(Date.UTC(w.getUTCFullYear(), w.getUTCMonth() + 1, 0)).getUTCDate()
}

function badDate(value: string, attr: string) {
  return wrenError(
    'invalid_date',
    `${attr} '${value}' is not a date: use YYYY-MM-DD, an ISO date-time, 'all', or a relative form like -7d, -24h, -2w, -1m, -1q, -1y, dStart, mStart, yStart, -1mEnd.`,
    attr,
  )
}

export interface DateRangeInput {
  dateFrom: string | null
  dateTo: string | null
  interval: Interval
  explicitDate: boolean
  /** BoldNumber: no truncation, no widening, a missing date_to is exactly now. */
  exact: boolean
  /** The project's earliest event, for date_from = all. */
  earliest: Date | null
}

export interface DateRange {
  interval: Interval
  tz: string
  weekStartDay: number
  /** Lower bound of the query (after widening to the interval start), wall time. */
  from: Date
  /** Inclusive upper bound, wall time. */
  to: Date
  /** date_from before widening: clips the first week label. */
  labelFrom: Date
  buckets: Date[]
  parsedFrom: ParsedDate
  parsedTo: ParsedDate
  dateToRelativeOrMissing: boolean
}

export function resolveRange(input: DateRangeInput, now: Date, tz: string, weekStartDay: number): DateRange {
  const nowWall = toWall(now, tz)
  let parsedFrom: ParsedDate
  if (input.dateFrom === 'all') {
    const earliest = input.earliest ? toWall(input.earliest, tz) : startOfDay(nowWall)
    parsedFrom = { wall: earliest, relative: false, hourUnit: false, weekMultipleDays: false }
  } else if (input.dateFrom) {
    parsedFrom = parseDate(input.dateFrom, nowWall, tz, !input.exact, 'date_from')
  } else {
    parsedFrom = {
      wall: input.exact ? addDays(nowWall, -7) : addDays(startOfDay(nowWall), -7),
      relative: true,
      hourUnit: false,
      weekMultipleDays: true,
    }
  }
  const parsedTo: ParsedDate = input.dateTo
    ? parseDate(input.dateTo, nowWall, tz, false, 'date_to')
    : { wall: nowWall, relative: true, hourUnit: false, weekMultipleDays: false }
  const dateToRelativeOrMissing = !input.dateTo || parsedTo.relative
  return buildRange(parsedFrom, parsedTo, dateToRelativeOrMissing, input, tz, weekStartDay)
}

function buildRange(
  parsedFrom: ParsedDate,
  parsedTo: ParsedDate,
  dateToRelativeOrMissing: boolean,
  input: DateRangeInput,
  tz: string,
  weekStartDay: number,
  roundTo = true,
): DateRange {
  const { interval } = input
  let to = parsedTo.wall
  if (roundTo && !input.explicitDate && !(input.exact && !input.dateTo)) {
    if (interval !== 'hour') to = endOfDay(to)
    else if (dateToRelativeOrMissing) to = endOfHour(to)
  }
  const widen = !(
    input.exact ||
    input.explicitDate ||
    (interval === 'hour' && parsedFrom.relative) ||
    (interval === 'day' && parsedFrom.hourUnit)
  )
  let from = parsedFrom.wall
  if (widen) from = interval === 'month' ? startOfMonth(from) : interval === 'hour' ? startOfHour(from) : startOfDay(from)
  if (to.getTime() < from.getTime()) throw wrenError('invalid_date', 'date_to is before date_from.', 'date_to')
  const buckets: Date[] = []
  const last = bucketStart(to, interval, weekStartDay).getTime()
  for (let b = bucketStart(from, interval, weekStartDay); b.getTime() <= last; b = nextBucket(b, interval)) {
    buckets.push(b)
    if (buckets.length > 10_000)
      throw wrenError(
        'too_many_buckets',
        `This date range has more than 10000 ${interval} buckets; choose a larger interval or a shorter range.`,
        'interval',
      )
  }
  return { interval, tz, weekStartDay, from, to, labelFrom: parsedFrom.wall, buckets, parsedFrom, parsedTo, dateToRelativeOrMissing }
}

/** The previous period for compare: §8 of the reference. */
export function previousRange(current: DateRange, input: DateRangeInput, compareTo: string | null): DateRange {
  const from = current.parsedFrom.wall
  const to = current.to
  const diff = to.getTime() - from.getTime()
  let prevFrom: Date
  let prevTo: Date
  if (compareTo) {
    prevFrom = parseDate(compareTo, from, current.tz, false, 'compare_to').wall
    prevTo = new Date(prevFrom.getTime() + diff)
  } else {
    prevFrom = new Date(from.getTime() - diff)
    prevFrom = withTimeOf(prevFrom, from)
    if (
      current.interval === 'day' &&
      current.parsedFrom.relative &&
      current.parsedFrom.weekMultipleDays &&
      !(input.dateTo && current.parsedTo.relative)
    )
      prevFrom = addDays(prevFrom, 1)
    prevTo = new Date(prevFrom.getTime() + diff)
    prevTo = withTimeOf(prevTo, to)
  }
  const pf: ParsedDate = { ...current.parsedFrom, wall: prevFrom }
  const pt: ParsedDate = { ...current.parsedTo, wall: prevTo }
  return buildRange(pf, pt, false, input, current.tz, current.weekStartDay, false)
}

export function bucketStart(w: Date, interval: Interval, weekStartDay: number): Date {
  switch (interval) {
    case 'hour':
      return startOfHour(w)
    case 'day':
      return startOfDay(w)
    case 'week':
      return startOfWeek(w, weekStartDay)
    case 'month':
      return startOfMonth(w)
  }
}

function nextBucket(w: Date, interval: Interval): Date {
  switch (interval) {
    case 'hour':
      return new Date(w.getTime() + 3_600_000)
    case 'day':
      return addDays(w, 1)
    case 'week':
      return addDays(w, 7)
    case 'month':
      return addMonths(w, 1)
  }
}

/** The key ClickHouse's bucket column is formatted as: `%Y-%m-%d %H:%i:%S` in wall time. */
export const bucketKey = (w: Date) => wallDateTime(w)

export function dayString(w: Date, interval: Interval): string {
  return interval === 'hour' ? wallDateTime(w) : wallDate(w)
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const dMonY = (w: Date) => `${w.getUTCDate()}-${MONTHS[w.getUTCMonth()]}-${w.getUTCFullYear()}`
const dMon = (w: Date) => `${w.getUTCDate()}-${MONTHS[w.getUTCMonth()]}`
const hhmm = (w: Date) => `${String(w.getUTCHours()).padStart(2, '0')}:${String(w.getUTCMinutes()).padStart(2, '0')}`

export function labelFor(bucket: Date, range: DateRange): string {
  switch (range.interval) {
    case 'hour':
      return `${dMon(bucket)} ${hhmm(bucket)}`
    case 'day':
      return dMonY(bucket)
    case 'month':
      return `${MONTHS[bucket.getUTCMonth()]} ${bucket.getUTCFullYear()}`
    case 'week': {
      let start = bucket
      let end = addDays(bucket, 6)
      const fromDay = startOfDay(range.labelFrom)
      const toDay = startOfDay(range.to)
      if (start < fromDay) start = fromDay
      if (end > toDay) end = toDay
      if (end < start) end = start
      if (start.getTime() === end.getTime()) return dMonY(start)
      if (start.getUTCFullYear() !== end.getUTCFullYear()) return `${dMonY(start)} – ${dMonY(end)}`
      if (start.getUTCMonth() !== end.getUTCMonth()) return `${dMon(start)} – ${dMon(end)}`
      return `${start.getUTCDate()}–${end.getUTCDate()} ${MONTHS[start.getUTCMonth()]}`
    }
  }
}

/** A wall time as the UTC instant string ClickHouse parameters take (DateTime64(6, 'UTC')). */
export function instantParam(w: Date, tz: string): string {
  const instant = fromWall(w, tz)
  const iso = instant.toISOString()
  const micros = instant.getUTCMilliseconds() === 999 ? '999' : '000'
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}${micros}`
}

/** For `filter.date_from`/`date_to` in the response: ISO with the project's offset. */
export function isoInTz(w: Date, tz: string): string {
  const instant = fromWall(w, tz)
  const offsetMin = Math.round((w.getTime() - instant.getTime()) / 60_000)
  const sign = offsetMin < 0 ? '-' : '+'
  const abs = Math.abs(offsetMin)
  const base = w.toISOString().slice(0, 19) + (w.getUTCMilliseconds() ? `.${String(w.getUTCMilliseconds()).padStart(3, '0')}999` : '')
  return `${base}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`
}
