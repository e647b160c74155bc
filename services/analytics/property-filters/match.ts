// One parsed property filter (parse.ts) matched in memory against one set of properties, as decide
// evaluates flags, with the server's semantics (reference §3.1–3.3): missing keys, null values,
// boolean-like exact matching, numeric-only comparisons, lenient semver and team-timezone dates. A
// filter that cannot be evaluated throws MatchError; the caller counts it as no match, as the server does.
import { parseDateString, parsePropertyDate } from '../time/date-strings'
import { compareVersions, inRange, parseVersion, rangeFor, type SemverCompare, type SemverRange } from './semver'
import type { PropertyFilter } from './parse'

/** What matching reads of a parsed filter (negation and type are the caller's). */
type Matched = Pick<PropertyFilter, 'key' | 'value' | 'operator'>

export class MatchError extends Error {}

export interface MatchContext {
  timezone: string
  /** Epoch ms; relative dates are anchored here. */
  now: number
}

/** JSON string values as-is, anything else as its JSON text (`123`, `true`, `null`, `[1,2]`). */
export function asString(value: unknown): string {
  if (typeof value === 'string') return value
  if (value === undefined) return 'null'
  return JSON.stringify(value) ?? 'null'
}

export function asNumber(value: unknown): number | null {
  if (typeof value === 'number') return value
  const text = asString(value).trim()
  if (text === '' || !/^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$|^[+-]?(?:inf|infinity|nan)$/i.test(text)) return null
  const lower = text.toLowerCase().replace(/^\+/, '')
  if (lower === 'nan' || lower === '-nan') return Number.NaN
  if (lower === 'inf' || lower === 'infinity') return Number.POSITIVE_INFINITY
  if (lower === '-inf' || lower === '-infinity') return Number.NEGATIVE_INFINITY
  return Number(text)
}

function isBoolLike(value: unknown): boolean {
  if (typeof value === 'boolean') return true
  if (typeof value === 'string') return value.toLowerCase() === 'true' || value.toLowerCase() === 'false'
  if (Array.isArray(value)) return value.every(isBoolLike)
  return false
}

function isTruthy(value: unknown): boolean {
  if (typeof value === 'boolean') return value
  if (typeof value === 'string') return value.toLowerCase() === 'true'
  if (Array.isArray(value)) return value.every(isTruthy)
  return false
}

// ASCII-only case folding, as the server's to_ascii_lowercase.
const asciiLower = (text: string): string => text.replace(/[A-Z]+/g, (s) => s.toLowerCase())

const regexCache = new Map<string, RegExp | null>()

/** The filter's pattern as a JS RegExp; null when it does not compile. Leading inline flags `(?i)` become flags. */
export function compileRegex(pattern: string): RegExp | null {
  if (regexCache.has(pattern)) return regexCache.get(pattern)!
  let source = pattern
  let flags = 'u'
  const inline = /^\(\?([imsx]+)\)/.exec(source)
  if (inline) {
    source = source.slice(inline[0].length)
    for (const f of inline[1]) if ((f === 'i' || f === 'm' || f === 's') && !flags.includes(f)) flags += f
  }
  source = source.replace(/\(\?P</g, '(?<')
  let compiled: RegExp | null
  try {
    compiled = new RegExp(source, flags)
  } catch {
    try {
      compiled = new RegExp(source, flags.replace('u', ''))
    } catch {
      compiled = null
    }
  }
  if (regexCache.size > 10_000) regexCache.clear()
  regexCache.set(pattern, compiled)
  return compiled
}

function has(properties: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(properties, key) && properties[key] !== undefined
}

/** Whether `properties` match one filter (negation not applied); throws MatchError where the server errors. */
export function matchProperty(filter: Matched, properties: Record<string, unknown>, ctx: MatchContext): boolean {
  return matcherFor(filter)(properties, ctx)
}

/** The operators without a compiled form (compileMatcher has already handled is_set and null values). */
function matchUncompiled(filter: Matched, properties: Record<string, unknown>, ctx: MatchContext): boolean {
  const key = filter.key
  const present = has(properties, key)
  const operator = filter.operator ?? 'exact'
  const value = filter.value
  const prop = present ? properties[key] : undefined

  switch (operator) {
    case 'icontains_multi':
    case 'not_icontains_multi': {
      const negated = operator === 'not_icontains_multi'
      if (!present) return negated
      const haystack = asciiLower(asString(prop))
      const needles = Array.isArray(value) ? value : [value]
      const hit = needles.some((v) => haystack.includes(asciiLower(asString(v))))
      return negated ? !hit : hit
    }
    case 'between':
    case 'not_between': {
      if (!present) return operator === 'not_between'
      if (!Array.isArray(value) || value.length !== 2) throw new MatchError('between needs a two-element array [min, max]')
      const low = asNumber(value[0])
      const high = asNumber(value[1])
      if (low === null || high === null || Number.isNaN(low) || Number.isNaN(high)) throw new MatchError('between needs numeric bounds')
      if (low > high) throw new MatchError('between needs min <= max')
      const n = asNumber(prop)
      if (n === null) throw new MatchError(`property ${key} is not a number`)
      if (Number.isNaN(n)) return false
      const inside = n >= low && n <= high
      return operator === 'between' ? inside : !inside
    }
    case 'semver_eq':
    case 'semver_neq':
    case 'semver_gt':
    case 'semver_gte':
    case 'semver_lt':
    case 'semver_lte': {
      if (!present) return false
      const version = parseVersion(asString(prop))
      if (!version) return false
      const target = parseVersion(asString(value))
      if (!target) throw new MatchError(`filter value ${asString(value)} is not a valid version`)
      return compareVersions(operator as SemverCompare, version, target)
    }
    case 'semver_tilde':
    case 'semver_caret':
    case 'semver_wildcard': {
      if (!present) return false
      const version = parseVersion(asString(prop))
      if (!version) return false
      const range = rangeFor(operator as SemverRange, asString(value))
      if (!range) throw new MatchError(`filter value ${asString(value)} is not a valid version range`)
      return inRange(version, range)
    }
    case 'is_date_exact':
    case 'is_date_after':
    case 'is_date_before': {
      const date = present ? parsePropertyDate(prop, ctx.timezone, ctx.now) : null
      if (date === null || typeof value !== 'string') return false
      const target = parseDateString(value, ctx.timezone, ctx.now)
      if (target === null) return false
      return operator === 'is_date_before' ? date < target : operator === 'is_date_after' ? date > target : date === target
    }
    default:
      throw new MatchError(`operator ${operator} cannot be used on a property`)
  }
}

/** One filter compiled once per flag version: the raw hit (negation not applied); throws MatchError like matchProperty. */
export type Matcher = (properties: Record<string, unknown>, ctx: MatchContext) => boolean

const matchers = new WeakMap<Matched, Matcher>()

/**
 * One filter with its value pre-processed (lower-cased needles, parsed numbers, compiled regexes); the
 * rarer operators without a compiled form go to matchUncompiled. Cached per filter object (flag
 * versions are immutable objects).
 */
export function matcherFor(filter: Matched): Matcher {
  let m = matchers.get(filter)
  if (!m) matchers.set(filter, (m = compileMatcher(filter)))
  return m
}

function compileMatcher(filter: Matched): Matcher {
  const key = filter.key
  const operator = filter.operator ?? 'exact'
  if (operator === 'is_set') return (p) => has(p, key)
  if (operator === 'is_not_set') return (p) => !has(p, key)
  const value = filter.value
  if (value === null || value === undefined) return () => false
  switch (operator) {
    case 'exact':
    case 'is_not': {
      const absent = operator === 'is_not'
      let equal: (prop: unknown) => boolean
      if (isBoolLike(value)) {
        const truthy = isTruthy(value)
        equal = (prop) => isTruthy(prop) === truthy
      } else if (Array.isArray(value)) {
        const wanted = new Set(value.map((v) => asString(v).toLowerCase()))
        equal = (prop) => wanted.has(asString(prop).toLowerCase())
      } else {
        const wanted = asString(value).toLowerCase()
        equal = (prop) => asString(prop).toLowerCase() === wanted
      }
      return (p) => (has(p, key) ? equal(p[key]) !== absent : absent)
    }
    case 'icontains':
    case 'not_icontains':
    case 'starts_with':
    case 'not_starts_with':
    case 'ends_with':
    case 'not_ends_with': {
      const negated = operator.startsWith('not_')
      const needle = asciiLower(asString(value))
      const base = negated ? operator.slice(4) : operator
      const test: (haystack: string) => boolean =
        base === 'icontains' ? (h) => h.includes(needle) : base === 'starts_with' ? (h) => h.startsWith(needle) : (h) => h.endsWith(needle)
      return (p) => (has(p, key) ? test(asciiLower(asString(p[key]))) !== negated : negated)
    }
    case 'regex':
    case 'not_regex': {
      const regex = compileRegex(asString(value))
      const positive = operator === 'regex'
      return (p) => {
        if (!has(p, key)) return !positive
        if (!regex) return false
        return regex.test(asString(p[key])) === positive
      }
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const rhs = asNumber(value)
      const compare: (lhs: number, rhs: number) => boolean =
        operator === 'gt' ? (l, r) => l > r : operator === 'gte' ? (l, r) => l >= r : operator === 'lt' ? (l, r) => l < r : (l, r) => l <= r
      return (p) => {
        if (!has(p, key)) return false
        const lhs = asNumber(p[key])
        if (lhs === null) throw new MatchError(`property ${key} is not a number`)
        if (rhs === null) throw new MatchError(`filter value for ${key} is not a number`)
        return compare(lhs, rhs)
      }
    }
    default:
      return (p, ctx) => matchUncompiled(filter, p, ctx)
  }
}
