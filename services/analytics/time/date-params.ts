// Date query parameters (`date_from`, `date_to`, `compare_to`): an absolute date or date-time, or a relative
// form (relative-dates.ts), read in wall time of the project's timezone (wall-time.ts). Trends read their range
// with it; the persons timeline and the recordings list take their dates "as trends take them".
import { wrenError } from '../../platform/errors'
import { relativeWall } from './relative-dates'
import { fromWall, startOfDay, startOfHour, toWall } from './wall-time'

export interface ParsedDate {
  wall: Date
  relative: boolean
  /** Relative with an hour unit (`-48h`): decides truncation and widening. */
  hourUnit: boolean
  /** Relative `-Nd` with N a multiple of 7, for the compare kludge. */
  weekMultipleDays: boolean
}

const ABSOLUTE = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i

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
  const rel = relativeWall(s, nowWall)
  // A count so large that the date is past what a date can hold (-99999999999999999999d) is not a date either.
  if (!rel || Number.isNaN(rel.wall.getTime())) throw badDate(value, attr)
  let w = rel.wall
  if (truncate) w = rel.unit === 'h' ? startOfHour(w) : startOfDay(w)
  return { wall: w, relative: true, hourUnit: rel.unit === 'h', weekMultipleDays: rel.unit === 'd' && rel.count % 7 === 0 && !rel.position }
}

function badDate(value: string, attr: string) {
  return wrenError(
    'invalid_date',
    `${attr} '${value}' is not a date: use YYYY-MM-DD, an ISO date-time, 'all', or a relative form like -7d, -24h, -2w, -1m, -1q, -1y, dStart, mStart, yStart, -1mEnd.`,
    attr,
  )
}
