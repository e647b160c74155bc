// Dates in property filters (the is_date_* operators, reference §3.3) and filter-side date strings (a flag's
// date value, the recordings list's dates), read as the server reads them: epoch seconds, relative dates
// (`-7d`, `3m`, relative-dates.ts) anchored to now in the team timezone, naive strings in the team
// timezone, RFC 3339 strings with their own offset, and a last lenient fallback in UTC.

import { parseRelativeDate } from './relative-dates'
import { daysInMonth, zonedToUtc } from './wall-time'

const NAIVE_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?$/
const RFC3339_RE = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/

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
