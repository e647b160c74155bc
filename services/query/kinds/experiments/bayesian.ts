// The statistics of an experiment's results: PostHog's Bayesian method (products/experiments/stats/bayesian/) with
// its defaults — a Gaussian posterior on the RELATIVE effect (treatment mean − control mean) / control mean, under
// a non-informative prior (the posterior is the likelihood), at a 95% credible level. The effect's variance comes
// from each variant's sufficient statistics by the delta method: a mean metric's sample variance
// ((Σx² − (Σx)²/n) / (n − 1)), a funnel's binomial p(1 − p), a ratio metric's delta-method variance of Σm/Σd.
// Chance to win is P(effect > 0); the credible interval the posterior's 2.5% and 97.5% quantiles; a variant is
// significant when its chance to win is beyond the level either way (PostHog's is_decisive). Validation follows
// PostHog's validate_variant_result: fewer than 50 exposures, a funnel with fewer than 5 conversions, or a
// baseline whose sum is 0 give no statistics, only the reason.

export type MetricType = 'mean' | 'funnel' | 'ratio'

/** A variant's sufficient statistics, as the SQL sums them (PostHog's ExperimentStatsBase). */
export interface VariantStats {
  key: string
  number_of_samples: number
  sum: number
  sum_squares: number
  /** Ratio metrics: the denominator's sums and the sum of numerator × denominator. */
  denominator_sum?: number
  denominator_sum_squares?: number
  numerator_denominator_sum_product?: number
}

export type ValidationFailure = 'not-enough-exposures' | 'not-enough-metric-data' | 'baseline-mean-is-zero'

export interface VariantResult extends VariantStats {
  validation_failures: ValidationFailure[]
  chance_to_win?: number | null
  credible_interval?: [number, number] | null
  significant?: boolean
}

export const CI_LEVEL = 0.95
const MIN_EXPOSURES = 50
const MIN_FUNNEL_CONVERSIONS = 5

/** The standard normal's CDF (West, "Better approximations to cumulative normal functions", 2005: double precision). */
export function normalCdf(x: number): number {
  const a = Math.abs(x)
  let c: number
  if (a > 37) c = 0
  else {
    const e = Math.exp((-a * a) / 2)
    if (a < 7.07106781186547) {
      let n = 3.52624965998911e-2 * a + 0.700383064443688
      n = n * a + 6.37396220353165
      n = n * a + 33.912866078383
      n = n * a + 112.079291497871
      n = n * a + 221.213596169931
      n = n * a + 220.206867912376
      let d = 8.83883476483184e-2 * a + 1.75566716318264
      d = d * a + 16.064177579207
      d = d * a + 86.7807322029461
      d = d * a + 296.564248779674
      d = d * a + 637.333633378831
      d = d * a + 793.826512519948
      d = d * a + 440.413735824752
      c = (e * n) / d
    } else {
      let b = a + 0.65
      b = a + 4 / b
      b = a + 3 / b
      b = a + 2 / b
      b = a + 1 / b
      c = e / b / 2.506628274631
    }
  }
  return x > 0 ? 1 - c : c
}

/** The standard normal's quantile (Acklam's rational approximation, refined by one Halley step on normalCdf). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError('a quantile needs 0 < p < 1')
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239]
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1]
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783]
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416]
  const tail = (q: number) =>
    (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
  let x: number
  if (p < 0.02425) x = tail(Math.sqrt(-2 * Math.log(p)))
  else if (p > 1 - 0.02425) x = -tail(Math.sqrt(-2 * Math.log(1 - p)))
  else {
    const q = p - 0.5
    const r = q * q
    x =
      ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) /
      (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
  }
  const e = normalCdf(x) - p
  const u = e * Math.sqrt(2 * Math.PI) * Math.exp((x * x) / 2)
  return x - u / (1 + (x * u) / 2)
}

/** A variant's mean (a funnel's conversion rate, a ratio's Σm/Σd) and the variance of one sample. */
export function meanAndVariance(metric: MetricType, v: VariantStats): { mean: number; variance: number } {
  const n = v.number_of_samples
  if (metric === 'funnel') {
    const p = n > 0 ? v.sum / n : 0
    return { mean: p, variance: p * (1 - p) }
  }
  const sampleVariance = (sum: number, squares: number) => (n <= 1 ? 0 : (squares - (sum * sum) / n) / (n - 1))
  if (metric === 'mean') return { mean: n > 0 ? v.sum / n : 0, variance: sampleVariance(v.sum, v.sum_squares) }
  const dSum = v.denominator_sum ?? 0
  const mMean = n > 0 ? v.sum / n : 0
  const dMean = n > 0 ? dSum / n : 0
  if (Math.abs(dMean) < 1e-10) return { mean: 0, variance: 0 }
  const mVar = sampleVariance(v.sum, v.sum_squares)
  const dVar = sampleVariance(dSum, v.denominator_sum_squares ?? 0)
  const cov = n <= 1 ? 0 : ((v.numerator_denominator_sum_product ?? 0) - (v.sum * dSum) / n) / (n - 1)
  const variance = mVar / dMean ** 2 + (mMean ** 2 * dVar) / dMean ** 4 - (2 * mMean * cov) / dMean ** 3
  return { mean: v.sum / dSum, variance }
}

/** PostHog's BayesianMethod.run_test with its default config: the relative effect's posterior. */
export function bayesianTest(
  metric: MetricType,
  treatment: VariantStats,
  control: VariantStats,
  ciLevel = CI_LEVEL,
): { effect: number; chanceToWin: number; credibleInterval: [number, number]; decisive: boolean } | null {
  const t = meanAndVariance(metric, treatment)
  const c = meanAndVariance(metric, control)
  if (c.mean <= 0) return null
  const effect = (t.mean - c.mean) / c.mean
  // Delta method for the ratio of the two means (no covariance between treatment and control).
  const varT = t.variance / treatment.number_of_samples
  const varC = c.variance / control.number_of_samples
  const effectVariance = varT / c.mean ** 2 + (t.mean ** 2 * varC) / c.mean ** 4
  if (!(effectVariance > 0) || !Number.isFinite(effectVariance)) return null
  const sd = Math.sqrt(effectVariance)
  const chanceToWin = 1 - normalCdf((0 - effect) / sd)
  const z = normalQuantile(1 - (1 - ciLevel) / 2)
  return {
    effect,
    chanceToWin,
    credibleInterval: [effect - z * sd, effect + z * sd],
    decisive: chanceToWin > ciLevel || chanceToWin < 1 - ciLevel,
  }
}

function failuresOf(metric: MetricType, v: VariantStats, baseline: boolean): ValidationFailure[] {
  const failures: ValidationFailure[] = []
  if (v.number_of_samples < MIN_EXPOSURES) failures.push('not-enough-exposures')
  // PostHog's proportion test also refuses fewer than 5 successes or failures (its normal approximation).
  if (metric === 'funnel' && (v.sum < MIN_FUNNEL_CONVERSIONS || v.number_of_samples - v.sum < MIN_FUNNEL_CONVERSIONS))
    failures.push('not-enough-metric-data')
  if (baseline && v.sum === 0) failures.push('baseline-mean-is-zero')
  return failures
}

/** PostHog's get_bayesian_experiment_result: the baseline (control) and each test variant's statistics. */
export function bayesianResults(
  metric: MetricType,
  control: VariantStats,
  tests: VariantStats[],
  ciLevel = CI_LEVEL,
): { baseline: VariantResult; variant_results: VariantResult[] } {
  const baseline: VariantResult = { ...control, validation_failures: failuresOf(metric, control, true) }
  const variant_results = tests.map((test): VariantResult => {
    const result: VariantResult = { ...test, validation_failures: failuresOf(metric, test, false) }
    if (baseline.validation_failures.length === 0 && result.validation_failures.length === 0) {
      const outcome = bayesianTest(metric, test, control, ciLevel)
      if (outcome) {
        result.chance_to_win = outcome.chanceToWin
        result.credible_interval = outcome.credibleInterval
        result.significant = outcome.decisive
      }
    }
    return result
  })
  return { baseline, variant_results }
}

/**
 * The chance each variant is the best of all (the legacy `probability` of PostHog's ExperimentQueryResponse): the
 * variants' means as independent Gaussian posteriors N(mean, variance / n), P(variant i has the highest mean) by
 * numerical integration of φᵢ(x) · Πⱼ≠ᵢ Φⱼ(x). A variant without samples has none (0).
 */
export function chanceToBeBest(metric: MetricType, variants: VariantStats[]): Record<string, number> {
  const posteriors = variants.map((v) => {
    const { mean, variance } = meanAndVariance(metric, v)
    return { key: v.key, mean, sd: v.number_of_samples > 0 ? Math.sqrt(Math.max(variance, 0) / v.number_of_samples) : 0 }
  })
  const usable = posteriors.filter((p) => p.sd > 0)
  const out: Record<string, number> = Object.fromEntries(posteriors.map((p) => [p.key, 0]))
  if (usable.length === 0) return out
  if (usable.length === 1) return { ...out, [usable[0].key]: 1 }
  const lo = Math.min(...usable.map((p) => p.mean - 8 * p.sd))
  const hi = Math.max(...usable.map((p) => p.mean + 8 * p.sd))
  const steps = 4000
  const h = (hi - lo) / steps
  for (const p of usable) {
    let total = 0
    for (let s = 0; s <= steps; s++) {
      const x = lo + s * h
      const z = (x - p.mean) / p.sd
      let f = Math.exp((-z * z) / 2) / (p.sd * Math.sqrt(2 * Math.PI))
      for (const q of usable) if (q !== p) f *= normalCdf((x - q.mean) / q.sd)
      total += (s === 0 || s === steps ? 0.5 : 1) * f
    }
    out[p.key] = total * h
  }
  return out
}

/** A variant's own mean's credible interval (the legacy `credible_intervals`): N(mean, variance / n) at the level. */
export function meanInterval(metric: MetricType, v: VariantStats, ciLevel = CI_LEVEL): [number, number] {
  const { mean, variance } = meanAndVariance(metric, v)
  if (v.number_of_samples === 0) return [0, 0]
  const half = normalQuantile(1 - (1 - ciLevel) / 2) * Math.sqrt(Math.max(variance, 0) / v.number_of_samples)
  return [mean - half, mean + half]
}

/** ln Γ(x) (Lanczos, g = 7). */
function lnGamma(x: number): number {
  const g = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61503916999185, 12.507343278686905,
    -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ]
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x)
  x -= 1
  let a = g[0]
  const t = x + 7.5
  for (let i = 1; i < 9; i++) a += g[i] / (x + i)
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a)
}

/** The upper regularized incomplete gamma Q(s, x) (series below s + 1, continued fraction above). */
function upperGamma(s: number, x: number): number {
  if (x <= 0) return 1
  const front = Math.exp(-x + s * Math.log(x) - lnGamma(s))
  if (x < s + 1) {
    let sum = 1 / s
    let term = sum
    for (let k = 1; k < 500 && Math.abs(term) > Math.abs(sum) * 1e-15; k++) {
      term *= x / (s + k)
      sum += term
    }
    return 1 - front * sum
  }
  let b = x + 1 - s
  let c = 1e300
  let d = 1 / b
  let h = d
  for (let i = 1; i < 500; i++) {
    const an = -i * (i - s)
    b += 2
    d = an * d + b
    if (Math.abs(d) < 1e-300) d = 1e-300
    c = b + an / c
    if (Math.abs(c) < 1e-300) c = 1e-300
    d = 1 / d
    const delta = d * c
    h *= delta
    if (Math.abs(delta - 1) < 1e-15) break
  }
  return front * h
}

/** Pearson's chi-squared goodness-of-fit p-value (scipy's chisquare): observed against expected counts. */
export function chiSquarePValue(observed: number[], expected: number[]): number {
  const stat = observed.reduce((s, o, i) => s + (o - expected[i]) ** 2 / expected[i], 0)
  return upperGamma((observed.length - 1) / 2, stat / 2)
}
