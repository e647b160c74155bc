import { describe, expect, it } from 'vitest'
import { flagHash, holdoutHash, variantFor } from './hash'

describe('flag hash', () => {
  it('is sha1 of key.identifier+salt, first 15 hex digits over 0xFFFFFFFFFFFFFFF (values from Python)', () => {
    expect(flagHash('simple-flag', 'distinct_id_0')).toBe(0.7836963764220432)
    expect(flagHash('simple-flag', 'distinct_id_1')).toBe(0.3397069926995401)
    expect(flagHash('multivariate-flag', '11', 'variant')).toBe(0.6043617649583914)
    expect(flagHash('multivariate-flag', 'example_id', 'variant')).toBe(0.4099865814300066)
    expect(flagHash('beta', 'ñandú-ü')).toBe(0.9302739658137926)
    expect(flagHash('flag', '')).toBe(0.5870601324105035)
  })

  it('holdouts hash "holdout-" + identifier, without a flag key', () => {
    expect(holdoutHash('some_id')).toBe(0.5347453584245785)
  })

  it('picks the first variant whose running sum exceeds the hash, and none past the sum', () => {
    const variants = [
      { key: 'a', rollout_percentage: 50 },
      { key: 'b', rollout_percentage: 25 },
      { key: 'c', rollout_percentage: 25 },
    ]
    expect(variantFor(0, variants)).toBe('a')
    expect(variantFor(0.4999, variants)).toBe('a')
    expect(variantFor(0.5, variants)).toBe('b')
    expect(variantFor(0.75, variants)).toBe('c')
    expect(variantFor(0.99, [{ key: 'a', rollout_percentage: 90 }])).toBeNull()
    // Float running sum: 0.1 + 0.2 = 0.30000000000000004, so a hash of exactly 0.3 still falls in the second.
    expect(
      variantFor(0.3, [
        { key: 'x', rollout_percentage: 10 },
        { key: 'y', rollout_percentage: 20 },
        { key: 'z', rollout_percentage: 70 },
      ]),
    ).toBe('y')
  })
})
