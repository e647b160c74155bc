// Date ranges of a trend: `date_from`/`date_to` (read by analytics/time/date-params.ts), PostHog's rounding
// rules, the bucket list, `days` and `labels`, and the previous period for compare. All in wall time of
// the project's timezone (see analytics/time/wall-time.ts).
import { queryRows, type ClickHouseClient } from '../../platform/clickhouse'
import { wrenError } from '../../platform/errors'
import type { Project } from '../../platform/tenancy'
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
} from '../../analytics/time/wall-time'
import { parseDate, type ParsedDate } from '../../analytics/time/date-params'

export type Interval = 'hour' | 'day' | 'week' | 'month'
export const INTERVALS: readonly Interval[] = ['hour', 'day', 'week', 'month']

/** A query's interval (default day; PostHog's minute is read as hour); anything else is a 400 naming `attr`. */
export function intervalOf(raw: string | null, attr: string): Interval {
  const intervalRaw = raw ?? 'day'
  const interval = (intervalRaw === 'minute' ? 'hour' : intervalRaw) as Interval
  if (!INTERVALS.includes(interval))
    throw wrenError('invalid_input', `${attr} must be one of hour, day, week, month; got '${intervalRaw}'.`, attr)
  return interval
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

/** The project's first day of the week: 1 Monday, 0 Sunday (its `week_start_day` setting). */
export const weekStartOf = (project: Project): number => (Number(project.settings.week_start_day) === 1 ? 1 : 0)

/** The project's first event (what `date_from: all` starts at), or null when it has none. */
export async function earliestEvent(clickhouse: ClickHouseClient, teamId: number): Promise<Date | null> {
  const [row] = await queryRows<{ first: string | null }>(
    clickhouse,
    "SELECT if(count() = 0, NULL, min(timestamp)) AS first FROM events WHERE team_id = {team:Int64} AND timestamp > toDateTime64('1980-01-01 00:00:00', 6, 'UTC')",
    { team: teamId },
  )
  return row?.first ? new Date(row.first) : null
}

/** A request's dates as its range reads them; the project's first event is read only for date_from "all". */
export async function rangeInputOf(
  clickhouse: ClickHouseClient,
  teamId: number,
  request: { dateFrom: string | null; dateTo: string | null; explicitDate: boolean },
  interval: Interval,
  exact = false,
): Promise<DateRangeInput> {
  const earliest = request.dateFrom === 'all' ? await earliestEvent(clickhouse, teamId) : null
  return { dateFrom: request.dateFrom, dateTo: request.dateTo, interval, explicitDate: request.explicitDate, exact, earliest }
}
