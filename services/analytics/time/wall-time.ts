// Wall-clock time in a project's timezone, without a date library. A "wall" is a Date whose UTC fields
// are the local date and time (so arithmetic on it is calendar arithmetic); `toWall`/`fromWall` convert
// between instants and walls through Intl.

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
    formatters.set(tz, f)
  }
  return f
}

export function isTimezone(tz: string): boolean {
  try {
    formatter(tz)
    return true
  } catch {
    return false
  }
}

export function toWall(instant: Date, tz: string): Date {
  const parts: Record<string, number> = {}
  for (const p of formatter(tz).formatToParts(instant)) if (p.type !== 'literal') parts[p.type] = Number(p.value)
  return new Date(Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second, instant.getUTCMilliseconds()))
}

/** The instant at which the wall clock in `tz` shows `wall` (the earlier one in a DST overlap). */
export function fromWall(wall: Date, tz: string): Date {
  const guess = new Date(wall.getTime() - offsetMs(wall, tz))
  const second = new Date(wall.getTime() - offsetMs(guess, tz))
  return offsetMs(second, tz) === offsetMs(guess, tz) ? second : guess
}

function offsetMs(instant: Date, tz: string): number {
  return toWall(instant, tz).getTime() - instant.getTime()
}

/**
 * The instant (epoch ms) at which the wall clock in `timeZone` shows these parts, as property filters read
 * dates (date-strings.ts, relative-dates.ts). It agrees with fromWall except for a wall time a DST change
 * skips, which the two move to different sides of the gap; kept apart so filters answer as they did.
 */
export function zonedToUtc(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, msPart = 0, timeZone = 'UTC'): number {
  const guess = Date.UTC(y, mo - 1, d, h, mi, s, msPart)
  if (timeZone === 'UTC') return guess
  let ms = guess - offsetMs(new Date(guess), timeZone)
  const second = guess - offsetMs(new Date(ms), timeZone)
  if (second !== ms) ms = second
  return ms
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0')

export const wallDate = (w: Date) => `${w.getUTCFullYear()}-${pad(w.getUTCMonth() + 1)}-${pad(w.getUTCDate())}`
export const wallDateTime = (w: Date) => `${wallDate(w)} ${pad(w.getUTCHours())}:${pad(w.getUTCMinutes())}:${pad(w.getUTCSeconds())}`

export function addDays(w: Date, n: number): Date {
  return new Date(w.getTime() + n * 86_400_000)
}

/** The days in month `mo` (1–12) of year `y`. */
export function daysInMonth(y: number, mo: number): number {
  return new Date(Date.UTC(y, mo, 0)).getUTCDate()
}

/** Calendar months with the day clamped to the month's last day (like dateutil's relativedelta). */
export function addMonths(w: Date, n: number): Date {
  const y = w.getUTCFullYear()
  const m = w.getUTCMonth() + n
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate()
  return new Date(
    Date.UTC(y, m, Math.min(w.getUTCDate(), last), w.getUTCHours(), w.getUTCMinutes(), w.getUTCSeconds(), w.getUTCMilliseconds()),
  )
}

export function startOfDay(w: Date): Date {
  return new Date(Date.UTC(w.getUTCFullYear(), w.getUTCMonth(), w.getUTCDate()))
}

export function startOfHour(w: Date): Date {
  return new Date(Date.UTC(w.getUTCFullYear(), w.getUTCMonth(), w.getUTCDate(), w.getUTCHours()))
}

export function startOfMonth(w: Date): Date {
  return new Date(Date.UTC(w.getUTCFullYear(), w.getUTCMonth(), 1))
}

/** weekStartDay: 0 Sunday, 1 Monday. */
export function startOfWeek(w: Date, weekStartDay: number): Date {
  const d = startOfDay(w)
  const back = (d.getUTCDay() - weekStartDay + 7) % 7
  return addDays(d, -back)
}

export function endOfDay(w: Date): Date {
  return new Date(startOfDay(w).getTime() + 86_400_000 - 1)
}

export function endOfHour(w: Date): Date {
  return new Date(startOfHour(w).getTime() + 3_600_000 - 1)
}

/** Replaces the time of day of `w` with that of `from`. */
export function withTimeOf(w: Date, from: Date): Date {
  return new Date(startOfDay(w).getTime() + (from.getTime() - startOfDay(from).getTime()))
}
