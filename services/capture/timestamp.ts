// Event timestamps: parsing the many date shapes SDKs send, and PostHog's clock-skew correction.
// Reference: capture-persons-recordings.md §1.4.

const HOUR_MS = 3_600_000
/** Events further than this into the future are assumed to come from a broken client clock. */
const FUTURE_CUTOFF_MS = 23 * HOUR_MS

// YYYY-MM-DD, optionally followed by T/space and a time, optionally a fraction and a zone.
// The zone may be Z, ±HH, ±HHMM or ±HH:MM (`+03` is what some SDKs send instead of `+03:00`).
const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/
// YYYY/MM/DD[ HH:MM[:SS]] and MM/DD/YYYY[ HH:MM[:SS]], both read as UTC.
const SLASH_YMD_RE = /^(\d{4})\/(\d{1,2})\/(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?$/
const SLASH_MDY_RE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?$/
// RFC 2822, e.g. "Tue, 1 Jul 2003 10:52:37 +0200". Only this shape is handed to Date.parse, because
// Date.parse reads many other strings in the server's local zone.
const RFC2822_RE = /^(?:[A-Za-z]{3},\s*)?\d{1,2}\s+[A-Za-z]{3}\s+\d{4}\s+\d{1,2}:\d{2}(?::\d{2})?(?:\s+(\S+))?$/
const NUMERIC_RE = /^-?\d+(?:\.\d+)?$/

/** Builds a UTC date from parts, or null if any part is out of range (Feb 30, 25:00, ...). */
function utcDate(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): Date | null {
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return null
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0..99 to 1900..1999.
  const date = new Date(0)
  date.setUTCFullYear(y, mo - 1, d)
  date.setUTCHours(h, mi, Math.min(s, 59), ms) // a leap second (:60) is folded into :59
  return date.getUTCDate() === d ? date : null
}

/** "+03", "+0300", "+03:00", "Z" → offset in minutes east of UTC. */
function zoneMinutes(zone: string | undefined): number {
  if (!zone || zone === 'Z' || zone === 'z') return 0
  const sign = zone[0] === '-' ? -1 : 1
  const digits = zone.slice(1).replace(':', '')
  const hours = Number(digits.slice(0, 2))
  const minutes = digits.length > 2 ? Number(digits.slice(2, 4)) : 0
  return sign * (hours * 60 + minutes)
}

function parseIso(m: RegExpExecArray): Date | null {
  const [, y, mo, d, h, mi, s, frac, zone] = m
  // Fractions beyond milliseconds are dropped: Date has millisecond precision.
  const ms = frac ? Number(frac.slice(0, 3).padEnd(3, '0')) : 0
  const local = utcDate(Number(y), Number(mo), Number(d), Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0), ms)
  if (!local) return null
  if (zone && zone.length > 1 && Number(zone.slice(1, 3)) > 23) return null
  return new Date(local.getTime() - zoneMinutes(zone) * 60_000)
}

/** Numeric epochs: 10 digits are seconds and 19 are nanoseconds (as PostHog's dateparser reads them); anything else is ms. */
function parseNumeric(text: string): Date {
  const intDigits = text.replace(/^-/, '').split('.')[0].length
  const n = Number(text)
  if (intDigits === 10) return new Date(Math.trunc(n * 1000))
  if (intDigits === 19) return new Date(Math.trunc(n / 1e6))
  return new Date(Math.trunc(n))
}

function valid(d: Date | null): Date | null {
  return d && !Number.isNaN(d.getTime()) ? d : null
}

/**
 * Parses an event or sent_at timestamp. Accepts RFC 3339 (also with a `+HH` zone, a space separator, or no
 * zone, which is read as UTC), date-only, slash dates, numeric epochs and RFC 2822. Returns null when unparseable.
 */
export function parseTimestamp(value: unknown): Date | null {
  if (value instanceof Date) return valid(new Date(value.getTime()))
  if (typeof value === 'number') return Number.isFinite(value) ? valid(new Date(Math.trunc(value))) : null
  if (typeof value !== 'string') return null
  const text = value.trim()
  if (text === '') return null

  if (NUMERIC_RE.test(text)) return valid(parseNumeric(text))

  const iso = ISO_RE.exec(text)
  if (iso) return valid(parseIso(iso))

  const ymd = SLASH_YMD_RE.exec(text)
  if (ymd) {
    const [, y, mo, d, h, mi, s] = ymd
    return valid(utcDate(Number(y), Number(mo), Number(d), Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0)))
  }
  const mdy = SLASH_MDY_RE.exec(text)
  if (mdy) {
    const [, mo, d, y, h, mi, s] = mdy
    return valid(utcDate(Number(y), Number(mo), Number(d), Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0)))
  }

  const rfc = RFC2822_RE.exec(text)
  if (rfc) {
    // A missing zone would make Date.parse use the server's local zone; RFC 2822 dates without one are read as UTC.
    const ms = Date.parse(rfc[1] ? text : `${text} GMT`)
    return Number.isNaN(ms) ? null : valid(new Date(ms))
  }
  return null
}

export interface TimestampInput {
  timestamp: string | null
  /** ms before `now` the event happened (posthog-js sends this instead of a timestamp on timer flushes) */
  offset: number | null
  sentAt: Date | null
  now: Date
  /** properties.$ignore_sent_at === true: the client asked not to skew-correct */
  ignoreSentAt: boolean
}

/** Decides an event's timestamp, correcting for the client's clock skew. Rules from reference §1.4, in order. */
export function resolveTimestamp(input: TimestampInput): Date {
  const now = input.now.getTime()
  const parsed = parseTimestamp(input.timestamp)
  let ts = now

  if (parsed && input.sentAt && !input.ignoreSentAt) {
    // sentAt − now is how far the client's clock runs ahead of ours; take that out of its timestamp.
    ts = parsed.getTime() - (input.sentAt.getTime() - now)
  } else if (parsed) {
    ts = parsed.getTime()
  }
  if (input.offset !== null && Number.isFinite(input.offset)) ts = now - input.offset

  if (ts - now > FUTURE_CUTOFF_MS) ts = now
  const result = new Date(ts)
  const year = result.getUTCFullYear()
  // NaN covers results beyond what Date can hold, which are out of range too.
  if (Number.isNaN(year) || year < 0 || year > 9999) return new Date(0)
  return result
}
