import { describe, expect, it } from 'vitest'
import { parseFormula } from './formula'

describe('trend formulas', () => {
  it('evaluates arithmetic over series letters, case-insensitively', () => {
    expect(parseFormula('(A-B)/B*100', 2).evaluate([30, 20])).toBe(50)
    expect(parseFormula('a + b * 2', 2).evaluate([1, 2])).toBe(5)
    expect(parseFormula('-A ^ 2 + 0.5', 1).evaluate([3])).toBe(-8.5)
    expect(parseFormula('A / 0', 1).evaluate([3])).toBe(0)
  })
  it('names unknown letters and syntax errors', () => {
    expect(() => parseFormula('A + C', 2)).toThrow('Formula references series C, but only 2 series are defined (A, B).')
    expect(() => parseFormula('A +', 1)).toThrow(/not valid/)
    expect(() => parseFormula('(A', 1)).toThrow(/not closed/)
  })
})
