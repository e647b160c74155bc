// ExperimentExposureQuery and ExperimentQuery: an experiment's exposures per variant per day, and one metric's
// result per variant with the statistics of PostHog's Bayesian method (bayesian.ts), as PostHog's
// ExperimentExposuresQueryRunner and ExperimentQueryRunner answer them. The experiment (its flag, dates and
// criteria) is read through the lookup its feature provides (subject.ts); the SQL is plan.ts's.
import { queryRows } from '../../../platform/clickhouse'
import { wrenError } from '../../../platform/errors'
import { isRecord } from '../../../platform/json'
import type { Project } from '../../../platform/tenancy'
import type { QueryKind } from '../../kind'
import { optInt, optString } from '../../common/fields'
import { bayesianResults, chanceToBeBest, chiSquarePValue, meanInterval, CI_LEVEL, type VariantResult, type VariantStats } from './bayesian'
import { MULTIPLE_VARIANT_KEY, parseExperimentMetric, parseExposureCriteria } from './metric'
import { experimentWindow, exposuresPerDaySql, planExperiment, variantSumsSql, withSettings } from './plan'
import type { ExperimentDeps, ExperimentSubject } from './subject'

export type { ExperimentDeps, ExperimentSubject } from './subject'
export { parseExperimentMetric, parseExposureCriteria } from './metric'

/** PostHog's minimum of exposures before a sample ratio mismatch is tested. */
const SRM_MINIMUM_SAMPLE_SIZE = 100

async function subjectOf(deps: ExperimentDeps, project: Project, id: number): Promise<ExperimentSubject> {
  const subject = await deps.experiments.experiment(project.id, id)
  if (!subject) throw wrenError('invalid_input', `Experiment with id ${id} not found.`, 'experiment_id')
  return subject
}

const experimentId = (node: Record<string, unknown>): number => {
  const id = optInt(node, 'experiment_id', 1, Number.MAX_SAFE_INTEGER)
  if (id === null) throw wrenError('required', 'experiment_id is required.', 'experiment_id')
  return id
}

export interface ExposureQuery {
  experimentId: number
  /** The flag the caller names (PostHog's tools send the experiment's own); it must be the experiment's. */
  flagKey: string | null
  exposureCriteria: Record<string, unknown> | null
  startDate: string | null
  endDate: string | null
}

/** The experiment an exposure query asks about; a flag named that is not the experiment's is a 400. */
async function exposureSubject(deps: ExperimentDeps, project: Project, query: ExposureQuery): Promise<ExperimentSubject> {
  const subject = await subjectOf(deps, project, query.experimentId)
  if (query.flagKey !== null && query.flagKey !== subject.flagKey)
    throw wrenError(
      'invalid_input',
      `feature_flag '${query.flagKey}' is not experiment ${subject.id}'s flag ('${subject.flagKey}').`,
      'feature_flag',
    )
  return subject
}

export const experimentExposureKind: QueryKind<ExposureQuery, ExperimentDeps> = {
  kind: 'ExperimentExposureQuery',
  insight: false,
  parse(node) {
    const criteria = node.exposure_criteria
    if (criteria !== undefined && criteria !== null) parseExposureCriteria(criteria)
    // A holdout's exposures are not computed: refused, never left out silently.
    if (node.holdout !== undefined && node.holdout !== null)
      throw wrenError('unsupported', 'Wren does not compute holdouts yet: send holdout null.', 'holdout')
    const flag = node.feature_flag
    if (flag !== undefined && flag !== null && !(isRecord(flag) && typeof flag.key === 'string'))
      throw wrenError('invalid_input', 'feature_flag must be the experiment’s flag, with its key.', 'feature_flag')
    const dates = ['start_date', 'end_date'].map((key) => {
      const value = optString(node, key)
      if (value !== null && Number.isNaN(Date.parse(value)))
        throw wrenError('invalid_date', `${key} must be an ISO date, got '${value}'.`, key)
      return value
    })
    return {
      experimentId: experimentId(node),
      flagKey: isRecord(flag) ? (flag.key as string) : null,
      exposureCriteria: isRecord(criteria) ? criteria : null,
      startDate: dates[0],
      endDate: dates[1],
    }
  },
  check: async (deps, project, query) => void (await exposureSubject(deps, project, query)),
  definitions: (deps, project, query) => exposureSubject(deps, project, query),
  staleInterval: () => null,
  async run(deps, run, query) {
    const subject = await exposureSubject(deps, run.project, query)
    const criteria = parseExposureCriteria(query.exposureCriteria ?? subject.exposureCriteria)
    const tz = run.project.timezone || 'UTC'
    const start = query.startDate ?? subject.startDate
    if (!start)
      return {
        kind: 'ExperimentExposureQuery',
        timeseries: [],
        total_exposures: {},
        date_range: { date_from: null, date_to: null, explicitDate: true },
        sample_ratio_mismatch: null,
      }
    const window = experimentWindow(subject, run.now, { start, end: query.endDate ?? subject.endDate })
    const plan = await planExperiment(deps, run.project, subject, criteria, window, { now: run.now, viewer: run.viewer })
    const rows = await queryRows<{ day: string; variant: string; n: number | string }>(
      deps.clickhouse,
      withSettings(exposuresPerDaySql(plan, tz), plan),
      plan.reads.params.values,
      { signal: run.signal },
    )
    // Every day of the window for every variant (and $multiple when seen), counts cumulative, as PostHog's runner.
    const days = daysBetween(window.from, window.to, tz)
    const counts = new Map(rows.map((r) => [`${r.variant}\u0000${r.day}`, Number(r.n)]))
    const keys = [
      ...subject.variants.map((v) => v.key),
      ...(rows.some((r) => r.variant === MULTIPLE_VARIANT_KEY) ? [MULTIPLE_VARIANT_KEY] : []),
    ]
    const timeseries = keys.map((variant) => {
      let running = 0
      return { variant, days, exposure_counts: days.map((day) => (running += counts.get(`${variant}\u0000${day}`) ?? 0)) }
    })
    const total_exposures = Object.fromEntries(timeseries.map((s) => [s.variant, s.exposure_counts.at(-1) ?? 0]))
    // The query's kind, as PostHog's ExperimentExposureQueryResponse names it (its agent toolkit checks it).
    return {
      kind: 'ExperimentExposureQuery',
      timeseries,
      total_exposures,
      date_range: { date_from: window.from, date_to: query.endDate ?? subject.endDate, explicitDate: true },
      sample_ratio_mismatch: sampleRatioMismatch(subject, total_exposures),
    }
  },
}

/** The calendar days (YYYY-MM-DD in `tz`) from one instant to another, both included. */
function daysBetween(from: string, to: string, tz: string): string[] {
  const day = (ms: number) =>
    new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(ms)
  const last = day(Date.parse(to))
  const days: string[] = []
  for (let d = day(Date.parse(from)); days.length < 3660;) {
    days.push(d)
    if (d >= last) break
    d = new Date(Date.parse(`${d}T12:00:00Z`) + 86_400_000).toISOString().slice(0, 10)
  }
  return days
}

/** PostHog's sample ratio mismatch: exposures against the flag's rollout, by a chi-squared test; none under 100 exposures. */
function sampleRatioMismatch(subject: ExperimentSubject, totals: Record<string, number>) {
  const rolled = subject.variants.filter((v) => v.rollout_percentage > 0)
  const observed = rolled.reduce((s, v) => s + (totals[v.key] ?? 0), 0)
  const share = rolled.reduce((s, v) => s + v.rollout_percentage, 0)
  if (observed < SRM_MINIMUM_SAMPLE_SIZE || rolled.length < 2 || share <= 0) return null
  const expected = Object.fromEntries(rolled.map((v) => [v.key, (v.rollout_percentage / share) * observed]))
  const p_value = chiSquarePValue(
    rolled.map((v) => totals[v.key] ?? 0),
    rolled.map((v) => expected[v.key]),
  )
  return { expected, p_value }
}

export interface MetricQuery {
  experimentId: number
  metric: Record<string, unknown>
}

export const experimentKind: QueryKind<MetricQuery, ExperimentDeps> = {
  kind: 'ExperimentQuery',
  insight: false,
  parse(node) {
    parseExperimentMetric(node.metric, 'metric')
    return { experimentId: experimentId(node), metric: node.metric as Record<string, unknown> }
  },
  check: async (deps, project, query) => void (await subjectOf(deps, project, query.experimentId)),
  definitions: (deps, project, query) => subjectOf(deps, project, query.experimentId),
  staleInterval: () => null,
  async run(deps, run, query) {
    const subject = await subjectOf(deps, run.project, query.experimentId)
    const metric = parseExperimentMetric(query.metric, 'metric')
    const criteria = parseExposureCriteria(subject.exposureCriteria)
    const window = experimentWindow(subject, run.now)
    const plan = await planExperiment(deps, run.project, subject, criteria, window, { now: run.now, viewer: run.viewer, metric })
    const rows = await queryRows<Record<string, number | string>>(
      deps.clickhouse,
      withSettings(variantSumsSql(plan, metric, window), plan),
      plan.reads.params.values,
      { signal: run.signal },
    )
    const byKey = new Map(rows.map((r) => [String(r.variant), r]))
    const ratio = metric.metricType === 'ratio'
    // Every variant of the flag, in its order, those without exposures at zero ($multiple left out: PostHog's exclude).
    const stats: VariantStats[] = subject.variants.map(({ key }) => {
      const r = byKey.get(key)
      const num = (k: string) => Number(r?.[k] ?? 0)
      return {
        key,
        number_of_samples: num('n'),
        sum: num('s'),
        sum_squares: metric.metricType === 'funnel' ? num('s') : num('ss'),
        ...(ratio ? { denominator_sum: num('ds'), denominator_sum_squares: num('dss'), numerator_denominator_sum_product: num('vd') } : {}),
      }
    })
    const baselineKey = typeof subject.statsConfig.baseline_variant_key === 'string' ? subject.statsConfig.baseline_variant_key : 'control'
    const control = stats.find((s) => s.key === baselineKey)
    if (!control)
      throw wrenError('invalid_input', `The experiment's flag has no '${baselineKey}' variant to compare with.`, 'experiment_id')
    const ciLevel = ciLevelOf(subject.statsConfig)
    const { baseline, variant_results } = bayesianResults(
      metric.metricType,
      control,
      stats.filter((s) => s !== control),
      ciLevel,
    )
    return {
      kind: 'ExperimentQuery',
      metric: query.metric,
      baseline,
      variant_results,
      ...legacyFields(metric.metricType, stats, baseline, variant_results, ciLevel),
      stats_version: 2,
      is_precomputed: false,
    }
  },
}

/** The credible level: stats_config.bayesian.ci_level when it is a number in (0, 1), else PostHog's 0.95. */
function ciLevelOf(statsConfig: Record<string, unknown>): number {
  const bayesian = statsConfig.bayesian
  const level = isRecord(bayesian) ? Number(bayesian.ci_level) : NaN
  return level > 0 && level < 1 ? level : CI_LEVEL
}

/**
 * The fields of PostHog's older results shape, which its clients still read: each variant's counts (`variants`),
 * its chance to be the best (`probability`), its mean's credible interval (`credible_intervals`), and whether a
 * variant is significant (`significant`, `significance_code`).
 */
function legacyFields(
  metricType: 'mean' | 'funnel' | 'ratio',
  stats: VariantStats[],
  baseline: VariantResult,
  results: VariantResult[],
  ciLevel: number,
) {
  const notEnough = [baseline, ...results].some((r) => r.validation_failures.length > 0)
  const significant = results.some((r) => r.significant === true)
  return {
    variants: stats.map((s) =>
      metricType === 'funnel'
        ? { key: s.key, success_count: s.sum, failure_count: s.number_of_samples - s.sum }
        : { key: s.key, count: s.sum, exposure: s.number_of_samples, absolute_exposure: s.number_of_samples },
    ),
    probability: chanceToBeBest(metricType, stats),
    credible_intervals: Object.fromEntries(stats.map((s) => [s.key, meanInterval(metricType, s, ciLevel)])),
    significant,
    significance_code: notEnough ? 'not_enough_exposure' : significant ? 'significant' : 'low_win_probability',
  }
}
