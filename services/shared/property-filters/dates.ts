// Dates for the is_date_* operators, read as the server reads them (reference §3.3): epoch seconds,
// relative dates (`-7d`, `3m`) anchored to now in the team timezone, naive strings in the team
// timezone, RFC 3339 strings with their own offset, and a last lenient fallback in UTC.

import { toWall } from '../wall-time'

const RELATIVE_RE = /^-?(\d+)([hdwmy])$/
const NAIVE_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?$/
const RFC3339_RE = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/

/** Wall-clock parts of an instant in a timezone. */
function wallClock(ms: number, timeZone: string): { y: number; mo: number; d: number; h: number; mi: number; s: number } {
  const w = toWall(new Date(ms), timeZone)
  return {
    y: w.getUTCFullYear(),
    mo: w.getUTCMonth() + 1,
    d: w.getUTCDate(),
    h: w.getUTCHours(),
    mi: w.getUTCMinutes(),
    s: w.getUTCSeconds(),
  }
}

/** How far the wall clock in `timeZone` is ahead of UTC at `ms`. */
function offsetAt(ms: number, timeZone: string): number {
  return toWall(new Date(ms), timeZone).getTime() - ms
}

/** The instant at which the wall clock in `timeZone` shows these parts. */
export function zonedToUtc(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, msPart = 0, timeZone = 'UTC'): number {
  const guess = Date.UTC(y, mo - 1, d, h, mi, s, msPart)
  if (timeZone === 'UTC') return guess
  let ms = guess - offsetAt(guess, timeZone)
  const second = guess - offsetAt(ms, timeZone)
  if (second !== ms) ms = second
  return ms
}

function daysInMonth(y: number, mo: number): number {
  return new Date(Date.UTC(y, mo, 0)).getUTCDate()
}

export function parseRelativeDate(text: string, timeZone: string, now: number): number | null {
  const m = RELATIVE_RE.exec(text)
  if (!m) return null
  const n = Number(m[1])
  if (n >= 10_000) return null
  const unit = m[2]
  if (unit === 'h') return now - n * 3_600_000
  if (unit === 'd') return now - n * 86_400_000
  if (unit === 'w') return now - n * 7 * 86_400_000
  const w = wallClock(now, timeZone)
  const months = unit === 'm' ? n : n * 12
  const total = w.y * 12 + (w.mo - 1) - months
  const y = Math.floor(total / 12)
  const mo = (total % 12) + 1
  const d = Math.min(w.d, daysInMonth(y, mo))
  return zonedToUtc(y, mo, d, w.h, w.mi, w.s, now % 1000, timeZone)
}

/** A filter-side (or string property) date, as epoch ms; null when it does not parse. */
export function parseDateString(text: string, timeZone: string, now: number): number | null {
  const relative = parseRelativeDate(text, timeZone, now)
  if (relative !== null) return relative
  if (RFC3339_RE.test(text)) {
    const ms = Date.parse(text.replace(' ', 'T'))
    return Number.isNaN(ms) ? null : ms
  }
  const naive = NAIVE_RE.exec(text)
  if (naive) {
    const [, y, mo, d, h, mi, s, frac] = naive
    if (Number(mo) < 1 || Number(mo) > 12 || Number(d) < 1 || Number(d) > daysInMonth(Number(y), Number(mo))) return null
    const ms = frac ? Math.floor(Number(`0.${frac}`) * 1000) : 0
    return zonedToUtc(Number(y), Number(mo), Number(d), Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0), ms, timeZone)
  }
  // Lenient fallback (the server's `dateparser`): other formats, naive ones taken as UTC.
  const hasZone = /(?:Z|[+-]\d{2}:?\d{2}|GMT|UTC)\s*$/i.test(text)
  const ms = Date.parse(hasZone ? text : `${text} UTC`)
  if (!Number.isNaN(ms)) return ms
  const plain = Date.parse(text)
  return Number.isNaN(plain) ? null : plain
}

/** A property-side date: a number or numeric string is epoch seconds, a string is parsed as above. */
export function parsePropertyDate(value: unknown, timeZone: string, now: number): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.floor(value * 1000) : null
  if (typeof value !== 'string') return null
  if (value.trim() !== '' && /^\s*[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i.test(value)) return Math.floor(Number(value) * 1000)
  return parseDateString(value, timeZone, now)
}
