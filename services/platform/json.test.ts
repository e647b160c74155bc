import { describe, expect, it } from 'vitest'
import { jsonTooDeepIn, MAX_JSON_DEPTH, replaceLoneSurrogates } from './json'

const nest = (depth: number): unknown => JSON.parse('['.repeat(depth) + ']'.repeat(depth))

describe('jsonTooDeepIn', () => {
  it('allows MAX_JSON_DEPTH levels of objects and arrays, and refuses one more', () => {
    expect(jsonTooDeepIn(nest(MAX_JSON_DEPTH))).toBe(false)
    expect(jsonTooDeepIn(nest(MAX_JSON_DEPTH + 1))).toBe(true)
    expect(jsonTooDeepIn(JSON.parse('{"a":'.repeat(MAX_JSON_DEPTH + 1) + '1' + '}'.repeat(MAX_JSON_DEPTH + 1)))).toBe(true)
  })

  it('counts nesting, not size, and ignores brackets inside strings', () => {
    expect(jsonTooDeepIn(Array.from({ length: 10_000 }, () => [{ a: [1] }]))).toBe(false)
    expect(jsonTooDeepIn({ text: '['.repeat(1_000) })).toBe(false)
    expect(jsonTooDeepIn('scalar')).toBe(false)
  })
})

describe('replaceLoneSurrogates', () => {
  it('replaces half characters in keys and strings with U+FFFD, keeping whole ones', () => {
    const value = JSON.parse('{"id":"a\\ud83d","ok":"😀","list":["\\ude00x",1,{"k\\ud800":"v"}],"__proto__":"\\udfff"}')
    replaceLoneSurrogates(value)
    expect(value.id).toBe('a\ufffd')
    expect(value.ok).toBe('😀')
    expect(value.list).toEqual(['\ufffdx', 1, { 'k\ufffd': 'v' }])
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toBe('\ufffd')
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
  })
})
