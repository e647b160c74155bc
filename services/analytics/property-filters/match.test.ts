import { describe, expect, it } from 'vitest'
import { matchProperty, MatchError } from './match'
import type { PropertyFilter } from './parse'

const ctx = { timezone: 'UTC', now: Date.parse('2024-06-15T12:00:00Z') }
const m = (operator: string, value: unknown, props: Record<string, unknown>, key = 'key') =>
  matchProperty({ key, value, operator } as PropertyFilter, props, ctx)

describe('operators: missing keys and null values (server semantics)', () => {
  const falseWhenMissing = [
    'exact',
    'icontains',
    'starts_with',
    'ends_with',
    'icontains_multi',
    'regex',
    'gt',
    'gte',
    'lt',
    'lte',
    'between',
    'semver_eq',
    'semver_gt',
    'semver_tilde',
    'is_date_before',
    'is_date_after',
    'is_date_exact',
    'is_set',
  ]
  const trueWhenMissing = [
    'is_not',
    'not_icontains',
    'not_starts_with',
    'not_ends_with',
    'not_icontains_multi',
    'not_regex',
    'not_between',
    'is_not_set',
  ]
  it.each(falseWhenMissing)('%s is false when the key is absent', (op) => {
    const value = op === 'between' ? [1, 2] : op.startsWith('semver') ? '1.0.0' : op.startsWith('is_date') ? '2024-01-01' : 'x'
    expect(m(op, value, { other: 1 })).toBe(false)
  })
  it.each(trueWhenMissing)('%s is true when the key is absent', (op) => {
    expect(m(op, op.includes('between') ? [1, 2] : 'x', { other: 1 })).toBe(true)
  })
  it('a null filter value matches nothing but is_set / is_not_set', () => {
    expect(m('exact', null, { key: null })).toBe(false)
    expect(m('is_not', null, { key: 'a' })).toBe(false)
    expect(m('is_set', null, { key: 'a' })).toBe(true)
    expect(m('is_not_set', null, {})).toBe(true)
  })
  it('is_set is true for a key whose value is null; is_not_set only when absent', () => {
    expect(m('is_set', 'is_set', { key: null })).toBe(true)
    expect(m('is_not_set', 'is_not_set', { key: null })).toBe(false)
  })
  it('a null property value is the string "null"', () => {
    expect(m('icontains', 'nu', { key: null })).toBe(true)
    expect(m('is_not', 'null', { key: null })).toBe(false)
    expect(m('exact', 'null', { key: null })).toBe(true)
  })
})

describe('exact / is_not', () => {
  it('compares string forms case-insensitively', () => {
    expect(m('exact', 'Value', { key: 'value' })).toBe(true)
    expect(m('exact', 123, { key: '123' })).toBe(true)
    expect(m('exact', '123', { key: 123 })).toBe(true)
    expect(m('exact', 'value', { key: 'value2' })).toBe(false)
    expect(m('exact', 'value', { key: '' })).toBe(false)
    expect(m('is_not', 'value', { key: 'value2' })).toBe(true)
    expect(m('is_not', 'value', { key: '' })).toBe(true)
  })
  it('arrays are membership tests, and an empty array never matches', () => {
    expect(m('exact', ['US', 'CA', 'Uk'], { key: 'uk' })).toBe(true)
    expect(m('exact', ['US', 'CA'], { key: 'de' })).toBe(false)
    expect(m('exact', [], { key: 'us' })).toBe(false)
    expect(m('is_not', ['value1', 'value2'], { key: 'value2' })).toBe(false)
    expect(m('is_not', ['value1', 'value2'], { key: null })).toBe(true)
  })
  it('boolean-like values compare as truthiness', () => {
    expect(m('exact', true, { key: 'true' })).toBe(true)
    expect(m('exact', 'True', { key: true })).toBe(true)
    expect(m('exact', ['true'], { key: 'TRUE' })).toBe(true)
    expect(m('exact', false, { key: false })).toBe(true)
    expect(m('exact', 'false', { key: 'False' })).toBe(true)
    expect(m('exact', true, { key: false })).toBe(false)
    expect(m('is_not', true, { key: 'true' })).toBe(false)
  })
  it('uses Unicode lowercasing, not casefolding', () => {
    expect(m('exact', 'ÉCOLE', { key: 'école' })).toBe(true)
    expect(m('exact', 'Straße', { key: 'strasse' })).toBe(false)
  })
})

describe('substring operators', () => {
  it('icontains is an ASCII case-insensitive substring test on string forms', () => {
    expect(m('icontains', 'valUe', { key: '343tfvalue5' })).toBe(true)
    expect(m('icontains', 'valUe', { key: 'Alakazam' })).toBe(false)
    expect(m('icontains', '3', { key: 323 })).toBe(true)
    expect(m('icontains', 'valUe', { key: 123 })).toBe(false)
    expect(m('not_icontains', 'val', { key: 'VALUE' })).toBe(false)
  })
  it('starts_with / ends_with and their negations', () => {
    expect(m('starts_with', 'Val', { key: 'value' })).toBe(true)
    expect(m('starts_with', 'Val', { key: 'a value' })).toBe(false)
    expect(m('not_starts_with', 'Val', { key: 'a value' })).toBe(true)
    expect(m('ends_with', '.COM', { key: 'ada@example.com' })).toBe(true)
    expect(m('not_ends_with', '.com', { key: 'ada@example.com' })).toBe(false)
  })
  it('icontains_multi matches when any element is contained', () => {
    expect(m('icontains_multi', ['foo', 'BAR'], { key: 'xbarx' })).toBe(true)
    expect(m('icontains_multi', ['foo', 'baz'], { key: 'xbarx' })).toBe(false)
    expect(m('not_icontains_multi', ['foo', 'baz'], { key: 'xbarx' })).toBe(true)
    expect(m('icontains_multi', 'bar', { key: 'xbarx' })).toBe(true)
  })
})

describe('regex', () => {
  it('searches (unanchored), case-sensitively unless (?i)', () => {
    expect(m('regex', 'ada@', { key: 'x ada@example.com' })).toBe(true)
    expect(m('regex', '^ADA', { key: 'ada' })).toBe(false)
    expect(m('regex', '(?i)^ADA', { key: 'ada' })).toBe(true)
    expect(m('not_regex', '^ada', { key: 'ada' })).toBe(false)
    expect(m('regex', '4', { key: 4 })).toBe(true)
  })
  it('supports lookaround', () => {
    expect(m('regex', '^(?!test).*', { key: 'prod' })).toBe(true)
    expect(m('regex', '^(?!test)', { key: 'test-user' })).toBe(false)
  })
  it('an invalid pattern matches neither regex nor not_regex', () => {
    expect(m('regex', '(unclosed', { key: 'x' })).toBe(false)
    expect(m('not_regex', '(unclosed', { key: 'x' })).toBe(false)
  })
})

describe('numeric comparisons', () => {
  it('parse both sides as numbers', () => {
    expect(m('gt', 1, { key: '23' })).toBe(true)
    expect(m('lt', '30', { key: 100 })).toBe(false)
    expect(m('gte', 5, { key: 5 })).toBe(true)
    expect(m('lte', '5.5', { key: '5.5' })).toBe(true)
    expect(m('gt', -1, { key: 0 })).toBe(true)
  })
  it('a non-numeric side is an error (no match)', () => {
    expect(() => m('gt', 1, { key: 'abc' })).toThrow(MatchError)
    expect(() => m('gt', '123aloha', { key: 129 })).toThrow(MatchError)
  })
  it('between is inclusive; not_between its complement; bad bounds are errors; NaN matches neither', () => {
    expect(m('between', [1, 10], { key: 1 })).toBe(true)
    expect(m('between', ['1', '10'], { key: '10' })).toBe(true)
    expect(m('between', [1, 10], { key: 11 })).toBe(false)
    expect(m('not_between', [1, 10], { key: 11 })).toBe(true)
    expect(() => m('between', [10, 1], { key: 5 })).toThrow(MatchError)
    expect(() => m('between', [1], { key: 5 })).toThrow(MatchError)
    expect(() => m('between', ['a', 2], { key: 5 })).toThrow(MatchError)
    expect(m('between', [1, 10], { key: 'NaN' })).toBe(false)
    expect(m('not_between', [1, 10], { key: 'NaN' })).toBe(false)
  })
})

describe('semver', () => {
  it('compares leniently: v prefix, padding, leading zeros, pre-release order', () => {
    expect(m('semver_eq', '1.2.3', { key: 'v1.2.3' })).toBe(true)
    expect(m('semver_eq', '3.8.0', { key: '3.08' })).toBe(true)
    expect(m('semver_gt', '3.9', { key: '3.10' })).toBe(true)
    expect(m('semver_lt', '1.0.0', { key: '1.0.0-alpha.1' })).toBe(true)
    expect(m('semver_gte', '2.0.0', { key: '2.0.0' })).toBe(true)
    expect(m('semver_neq', '2.0.0', { key: '2.0.1' })).toBe(true)
    expect(m('semver_lte', '2', { key: '1.9.9' })).toBe(true)
  })
  it('an unparsable property is false, an unparsable filter value an error', () => {
    expect(m('semver_eq', '1.0.0', { key: 'not-a-version' })).toBe(false)
    expect(() => m('semver_eq', 'garbage', { key: '1.0.0' })).toThrow(MatchError)
  })
  it('tilde, caret and wildcard ranges', () => {
    expect(m('semver_tilde', '1.2.3', { key: '1.2.9' })).toBe(true)
    expect(m('semver_tilde', '1.2.3', { key: '1.3.0' })).toBe(false)
    expect(m('semver_caret', '1.2.3', { key: '1.9.0' })).toBe(true)
    expect(m('semver_caret', '1.2.3', { key: '2.0.0' })).toBe(false)
    expect(m('semver_caret', '0.2.3', { key: '0.3.0' })).toBe(false)
    expect(m('semver_caret', '0.0.3', { key: '0.0.4' })).toBe(false)
    expect(m('semver_wildcard', '1.2.*', { key: '1.2.7' })).toBe(true)
    expect(m('semver_wildcard', '1.2.*', { key: '1.3.0' })).toBe(false)
    expect(m('semver_wildcard', '1.*', { key: '1.9.0' })).toBe(true)
    expect(m('semver_wildcard', '3.08.*', { key: '3.8.1' })).toBe(true)
    expect(() => m('semver_wildcard', '1.*.3', { key: '1.2.3' })).toThrow(MatchError)
  })
})

describe('dates', () => {
  it('compare strictly; epoch seconds, numeric strings and date strings on the property side', () => {
    expect(m('is_date_before', '2024-06-01', { key: '2024-05-31' })).toBe(true)
    expect(m('is_date_before', '2024-06-01', { key: '2024-06-01' })).toBe(false)
    expect(m('is_date_exact', '2024-06-01', { key: '2024-06-01T00:00:00Z' })).toBe(true)
    expect(m('is_date_after', '2024-01-01', { key: 1717200000 })).toBe(true)
    expect(m('is_date_after', '2024-01-01', { key: '1717200000.5' })).toBe(true)
    expect(m('is_date_before', '2024-06-01T00:00:00+02:00', { key: '2024-05-31T23:00:00Z' })).toBe(false)
  })
  it('relative dates are anchored to now; m and y clamp to the month end', () => {
    expect(m('is_date_after', '-7d', { key: '2024-06-10' })).toBe(true)
    expect(m('is_date_after', '7d', { key: '2024-06-01' })).toBe(false)
    expect(m('is_date_before', '-1h', { key: '2024-06-15T10:30:00Z' })).toBe(true)
    expect(m('is_date_after', '-1m', { key: '2024-05-16' })).toBe(true)
    expect(m('is_date_after', '-1y', { key: '2023-06-14' })).toBe(false)
    const endOfMarch = { timezone: 'UTC', now: Date.parse('2024-03-31T00:00:00Z') }
    expect(matchProperty({ key: 'k', value: '-1m', operator: 'is_date_exact' }, { k: '2024-02-29T00:00:00Z' }, endOfMarch)).toBe(true)
  })
  it('naive strings are read in the team timezone', () => {
    const ny = { timezone: 'America/New_York', now: ctx.now }
    // Midnight in New York is 04:00 UTC in June.
    expect(matchProperty({ key: 'k', value: '2024-06-01', operator: 'is_date_exact' }, { k: '2024-06-01T04:00:00Z' }, ny)).toBe(true)
    expect(matchProperty({ key: 'k', value: '2024-06-01', operator: 'is_date_before' }, { k: '2024-06-01T03:00:00Z' }, ny)).toBe(true)
  })
  it('a filter value that is not a string, or does not parse, gives false', () => {
    expect(m('is_date_before', 20240601, { key: '2024-05-01' })).toBe(false)
    expect(m('is_date_before', 'not a date', { key: '2024-05-01' })).toBe(false)
    expect(m('is_date_before', '2024-06-01', { key: 'yesterday-ish' })).toBe(false)
  })
})

describe('cohort and flag operators are not property operators', () => {
  it('in / not_in / flag_evaluates_to on a property are errors', () => {
    expect(() => m('in', 1, { key: 1 })).toThrow(MatchError)
    expect(() => m('flag_evaluates_to', true, { key: 1 })).toThrow(MatchError)
  })
})
