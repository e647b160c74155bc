// Relative dates (`-7d`, `-1m`, `mStart`). PostHog reads them two ways, and Wren answers as PostHog does in
// each place, so there are two readers here rather than one:
//
// - `relativeWall`: query date parameters (trends' date_from / date_to / compare_to, and every date_from /
//   date_to taken "as trends take it": the persons timeline, the recordings list; PostHog's
//   relative_date_parse). Units h d w q m y, s and M (minutes, the only case-sensitive unit); the count may
//   be left out (`dStart` is today's start); `Start` / `End` round to the unit; it counts back on the
//   project's wall clock, so across a DST change `-1d` (or `-24h`) is 23 or 25 hours.
// - `parseRelativeDate`: property filters' date values (PostHog's relative_date_parse_for_feature_flag_matching).
//   Units h d w m y only, a count required and below 10,000, no Start / End: anything else is not relative,
//   and the caller tries the absolute forms (date-strings.ts). Hours, days and weeks are elapsed time, so
//   `-1d` is 24 hours back even across a DST change; months and years are calendar ones in the team timezone.
//
// So `-1q`, `dStart` or `-10000d` are dates to one and not to the other, and across a DST change `-1d` or
// `-48h` differ by its hour (relative-dates.test.ts).
import { addDays, addMonths, daysInMonth, endOfDay, endOfHour, startOfDay, startOfHour, toWall, zonedToUtc } from './wall-time'

const QUERY_RELATIVE = /^-?(\d+)?([hdwmqysHDWQYS]|M)(Start|End)?$/
const FILTER_RELATIVE = /^-?(\d+)([hdwmy])$/

export type RelativeUnit = 'h' | 'd' | 'w' | 'q' | 'm' | 'y' | 's' | 'M'

export interface RelativeWall {
  /** The wall time the text names, against the `nowWall` it was read with. */
  wall: Date
  unit: RelativeUnit
  count: number
  position: 'Start' | 'End' | undefined
}

/** A relative query date parameter read against `nowWall` (a wall time, see wall-time.ts); null when it is not one. */
export function relativeWall(text: string, nowWall: Date): RelativeWall | null {
  const rel = QUERY_RELATIVE.exec(text)
  if (!rel) return null
  const n = Number(rel[1] ?? 0)
  const unit = (rel[2] === 'M' ? 'M' : rel[2].toLowerCase()) as RelativeUnit
  const position = rel[3] as RelativeWall['position']
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
            daysInMonth(w.getUTCFullYear(), w.getUTCMonth() + 1),
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
  return { wall: w, unit, count: n, position }
}

/** A relative property-filter date as epoch ms, against `now` (epoch ms) in `timeZone`; null when it is not one. */
export function parseRelativeDate(text: string, timeZone: string, now: number): number | null {
  const m = FILTER_RELATIVE.exec(text)
  if (!m) return null
  const n = Number(m[1])
  if (n >= 10_000) return null
  const unit = m[2]
  if (unit === 'h') return now - n * 3_600_000
  if (unit === 'd') return now - n * 86_400_000
  if (unit === 'w') return now - n * 7 * 86_400_000
  const w = toWall(new Date(now), timeZone)
  const months = unit === 'm' ? n : n * 12
  const total = w.getUTCFullYear() * 12 + w.getUTCMonth() - months
  const y = Math.floor(total / 12)
  const mo = (total % 12) + 1
  const d = Math.min(w.getUTCDate(), daysInMonth(y, mo))
  return zonedToUtc(y, mo, d, w.getUTCHours(), w.getUTCMinutes(), w.getUTCSeconds(), now % 1000, timeZone)
}
