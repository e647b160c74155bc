// The Bayesian method against PostHog's own worked example: products/experiments/stats/tests/test_bayesian.py,
// TestBayesianMethod.test_realistic_example (two mean variants, relative difference, 95% level), its figures
// copied as numbers; and the normal functions and the chi-squared p-value against tabulated values.
import { describe, expect, it } from 'vitest'
import { bayesianResults, bayesianTest, chanceToBeBest, chiSquarePValue, normalCdf, normalQuantile } from './bayesian'

describe('Bayesian experiment statistics', () => {
  it('matches PostHog’s test_realistic_example: effect 0.63646, interval [-0.0873, 1.36026], chance to win 0.95759', () => {
    const treatment = { key: 'test', number_of_samples: 2461, sum: 1922.7, sum_squares: 94698.29 }
    const control = { key: 'control', number_of_samples: 2507, sum: 1196.87, sum_squares: 37377.9767 }
    const result = bayesianTest('mean', treatment, control)!
    expect(result.effect).toBeCloseTo(0.63646, 4)
    expect(result.credibleInterval[0]).toBeCloseTo(-0.0873, 4)
    expect(result.credibleInterval[1]).toBeCloseTo(1.36026, 4)
    expect(result.chanceToWin).toBeCloseTo(0.95759, 4)
    // 0.95759 is above the 95% level: decisive, so significant.
    const { baseline, variant_results } = bayesianResults('mean', control, [treatment])
    expect(baseline.validation_failures).toEqual([])
    expect(variant_results[0]).toMatchObject({ key: 'test', significant: true, validation_failures: [] })
    expect(variant_results[0].chance_to_win).toBeCloseTo(0.95759, 4)
  })

  it('gives no statistics, only the reason, below 50 exposures or 5 conversions, or with a zero baseline', () => {
    const few = bayesianResults('mean', { key: 'control', number_of_samples: 49, sum: 10, sum_squares: 20 }, [
      { key: 'test', number_of_samples: 60, sum: 12, sum_squares: 30 },
    ])
    expect(few.baseline.validation_failures).toEqual(['not-enough-exposures'])
    expect(few.variant_results[0].chance_to_win).toBeUndefined()
    const funnel = bayesianResults('funnel', { key: 'control', number_of_samples: 100, sum: 0, sum_squares: 0 }, [
      { key: 'test', number_of_samples: 100, sum: 3, sum_squares: 3 },
    ])
    expect(funnel.baseline.validation_failures).toEqual(['not-enough-metric-data', 'baseline-mean-is-zero'])
    expect(funnel.variant_results[0].validation_failures).toEqual(['not-enough-metric-data'])
  })

  it('computes the normal CDF and quantile, the chance to be best, and chi-squared p-values', () => {
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 12)
    expect(normalCdf(-3)).toBeCloseTo(0.0013498980316301, 13)
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 12)
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232306167813, 12)
    // Two equal variants: an even chance each; the chances always sum to 1.
    const same = { number_of_samples: 1000, sum: 100, sum_squares: 100 }
    const even = chanceToBeBest('funnel', [
      { key: 'control', ...same },
      { key: 'test', ...same },
    ])
    expect(even.control).toBeCloseTo(0.5, 6)
    const three = chanceToBeBest('funnel', [
      { key: 'control', ...same },
      { key: 'a', number_of_samples: 1000, sum: 130, sum_squares: 130 },
      { key: 'b', number_of_samples: 1000, sum: 90, sum_squares: 90 },
    ])
    expect(three.control + three.a + three.b).toBeCloseTo(1, 6)
    expect(three.a).toBeGreaterThan(0.95)
    // scipy.stats.chisquare's documented examples: p = 0.84914503608460956 and 0.62338762774958223.
    expect(chiSquarePValue([16, 18, 16, 14, 12, 12], Array(6).fill(88 / 6))).toBeCloseTo(0.84914503608, 7)
    expect(chiSquarePValue([16, 18, 16, 14, 12, 12], [16, 16, 16, 16, 16, 8])).toBeCloseTo(0.62338762775, 7)
  })
})
