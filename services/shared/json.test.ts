import { describe, expect, it } from 'vitest'
import { jsonTooDeepIn, MAX_JSON_DEPTH } from './json'

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
