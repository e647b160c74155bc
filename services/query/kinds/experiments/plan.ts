// The SQL of an experiment's exposures and of one metric per variant, each in one pass over the events: the
// events read are the exposures (the flag's `$feature_flag_called` with the variant in `$feature_flag_response`,
// or the criteria's own event with it in `$feature/<key>`) and, for a metric, the metric's events. Per person (or
// group): the variant (one seen twice is `$multiple` under PostHog's default `exclude` handling, the first seen
// under `first_seen`), the first exposure, and the metric's events after it — up to the experiment's end, or its
// conversion window when the metric has one. Only the per-variant sums reach Wren.
import { wrenError } from '../../../platform/errors'
import type { PersonalApiKey, Project } from '../../../platform/tenancy'
import { jsonValue } from '../../../analytics/property-filters/sql'
import { queryDefinitions } from '../../common/definitions'
import { allOf, eventReads, type EventReads } from '../../common/event-reads'
import type { SeriesEntity } from '../../common/series'
import { DEFAULT_EXPOSURE_EVENT, MULTIPLE_VARIANT_KEY, metricEntities, type ExperimentMetric, type ExposureCriteria } from './metric'
import type { ExperimentDeps, ExperimentSubject } from './subject'

export interface ExperimentWindow {
  /** ISO instants: the experiment's launch, and its stop (or now). */
  from: string
  to: string
}

/** An ISO instant as the DateTime64(6, 'UTC') parameter text ClickHouse takes. */
const instantText = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 23)}000`

export interface ExperimentPlan {
  reads: EventReads
  /** The rows of one per exposed actor: entity, variant, first_exposure (µs)[, evs]; `metric` adds the metric's events. */
  actorsSql: string
  settings: string
}

export async function planExperiment(
  deps: ExperimentDeps,
  project: Project,
  subject: ExperimentSubject,
  criteria: ExposureCriteria,
  window: ExperimentWindow,
  opts: { now: Date; viewer?: PersonalApiKey; metric?: ExperimentMetric },
): Promise<ExperimentPlan> {
  const tz = project.timezone || 'UTC'
  const entities: SeriesEntity[] = opts.metric ? metricEntities(opts.metric) : []
  const definitions = await queryDefinitions(deps, project, {
    properties: criteria.properties,
    filterTestAccounts: criteria.filterTestAccounts,
    entities,
    attr: 'metric',
    breakdownType: '',
  })
  const reads = await eventReads(deps, project, definitions, {
    now: opts.now,
    viewer: opts.viewer,
    tz,
    weekStartDay: 0,
    filterDate: (value) => new Date(value),
  })
  const { params } = reads
  const from = `toDateTime64(${params.add('String', instantText(window.from))}, 6, 'UTC')`
  const to = `toDateTime64(${params.add('String', instantText(window.to))}, 6, 'UTC')`
  const entity = subject.aggregationGroup === null ? reads.personId.sql : `\`$group_${subject.aggregationGroup}\``
  const variantProperty = criteria.event === DEFAULT_EXPOSURE_EVENT ? '$feature_flag_response' : `$feature/${subject.flagKey}`
  const variantValue = `ifNull(${jsonValue('properties', variantProperty, params, deps.materialized)}, '')`
  // The global properties: the exposure config's own, with the project's test-account filters when asked.
  const exposure = allOf([
    `event = ${params.add('String', criteria.event)}`,
    criteria.event === DEFAULT_EXPOSURE_EVENT
      ? `ifNull(${jsonValue('properties', '$feature_flag', params, deps.materialized)}, '') = ${params.add('String', subject.flagKey)}`
      : '1',
    `${variantValue} IN ${params.add(
      'Array(String)',
      subject.variants.map((v) => v.key),
    )}`,
    reads.where(definitions.globalProperties),
  ])
  const variant = (isExposure: string) =>
    criteria.multipleVariantHandling === 'first_seen'
      ? `argMinIf(variant_value, timestamp, ${isExposure})`
      : `if(uniqExactIf(variant_value, ${isExposure}) > 1, ${params.add('String', MULTIPLE_VARIANT_KEY)}, anyIf(variant_value, ${isExposure}))`
  const where = allOf([
    reads.team,
    `timestamp >= ${from}`,
    `timestamp <= ${to}`,
    reads.visible,
    subject.aggregationGroup === null ? '1' : `${entity} != ''`,
  ])

  const metric = opts.metric
  if (!metric) {
    const sql = `SELECT entity, ${variant('1')} AS variant, toUnixTimestamp64Micro(min(timestamp)) AS first_exposure
      FROM (SELECT ${entity} AS entity, timestamp, ${variantValue} AS variant_value FROM __events__ WHERE ${allOf([where, exposure])})
      GROUP BY entity`
    const source = reads.source({ from, to })
    return { reads, actorsSql: sql.split('__events__').join(source.from), settings: source.settings }
  }

  // Each metric event as (µs, values…): a mean's value, a ratio's numerator and denominator, a funnel's step bits.
  const valueOf = (s: SeriesEntity) =>
    s.math === 'sum' ? `ifNull(toFloat64OrNull(${jsonValue('properties', s.mathProperty ?? '', params, deps.materialized)}), 0)` : '1'
  const conditions = metricEntities(metric).map((s) => reads.entity(s))
  const columns =
    metric.metricType === 'funnel'
      ? [`toUInt64(${conditions.map((c, i) => `if(${c}, ${(1n << BigInt(i)).toString()}, 0)`).join(' + ')})`]
      : metricEntities(metric).map((s, i) => `if(${conditions[i]}, toFloat64(${valueOf(s)}), 0)`)
  const isMetric = conditions.map((c) => `(${c})`).join(' OR ')
  const sql = `SELECT entity, ${variant('is_exposure')} AS variant, toUnixTimestamp64Micro(minIf(timestamp, is_exposure)) AS first_exposure,
      groupArrayIf((toUnixTimestamp64Micro(timestamp), ${columns.map((_, i) => `m${i}`).join(', ')}), is_metric) AS evs
    FROM (SELECT ${entity} AS entity, timestamp, ${variantValue} AS variant_value, (${exposure}) AS is_exposure, (${isMetric}) AS is_metric,
        ${columns.map((c, i) => `${c} AS m${i}`).join(', ')}
      FROM __events__ WHERE ${where} AND (is_exposure OR is_metric))
    GROUP BY entity HAVING countIf(is_exposure) > 0`
  const source = reads.source({ from, to })
  return { reads, actorsSql: sql.split('__events__').join(source.from), settings: source.settings }
}

/**
 * Per variant: number_of_samples, sum, sum_squares (and a ratio's denominator sums and cross product) of each
 * exposed actor's metric value, over `actorsSql` with the metric's events (planExperiment with a metric).
 */
export function variantSumsSql(plan: ExperimentPlan, metric: ExperimentMetric, window: ExperimentWindow): string {
  const { params } = plan.reads
  const end = params.add('Int64', Date.parse(window.to) * 1000)
  const limit =
    metric.windowSeconds === null ? end : `least(${end}, first_exposure + ${params.add('Int64', metric.windowSeconds * 1_000_000)})`
  const after = `arrayFilter(x -> x.1 >= first_exposure AND x.1 <= ${limit}, evs)`
  let value: string
  let denominator = '0'
  if (metric.metricType === 'funnel') {
    const n = metric.series.length
    value = `toFloat64(arrayFold((acc, x) -> if(acc < ${n} AND bitTest(x.2, acc), acc + 1, acc), arraySort(x -> x.1, ${after}), toUInt64(0)) = ${n})`
  } else {
    value = `arraySum(x -> x.2, ${after})`
    if (metric.metricType === 'ratio') denominator = `arraySum(x -> x.3, ${after})`
  }
  return `SELECT variant, count() AS n, sum(v) AS s, sum(v * v) AS ss, sum(d) AS ds, sum(d * d) AS dss, sum(v * d) AS vd
    FROM (SELECT variant, ${value} AS v, ${denominator} AS d FROM (${plan.actorsSql}))
    GROUP BY variant`
}

/** Exposures per day (in the project's timezone) and variant, over `actorsSql` without a metric. */
export function exposuresPerDaySql(plan: ExperimentPlan, tz: string): string {
  const zone = plan.reads.params.add('String', tz)
  return `SELECT toString(toDate(fromUnixTimestamp64Micro(first_exposure), ${zone})) AS day, variant, count() AS n
    FROM (${plan.actorsSql}) GROUP BY day, variant ORDER BY day, variant`
}

/** The settings clause of the plan's query. */
export const withSettings = (sql: string, plan: ExperimentPlan) => (plan.settings ? `${sql} SETTINGS ${plan.settings}` : sql)

/** The experiment's window: launch to stop (or now); a draft has none (a 400 naming it). */
export function experimentWindow(
  subject: ExperimentSubject,
  now: Date,
  override?: { start: string | null; end: string | null },
): ExperimentWindow {
  const start = override?.start ?? subject.startDate
  if (!start) throw wrenError('invalid_input', `Experiment ${subject.id} has not been launched: it has no start_date yet.`, 'experiment_id')
  const end = override?.end ?? subject.endDate
  const stop = end && Date.parse(end) < now.getTime() ? end : now.toISOString()
  return { from: new Date(start).toISOString(), to: new Date(stop).toISOString() }
}
