// PostHog's ExperimentMetric (schema: ExperimentMeanMetric, ExperimentFunnelMetric, ExperimentRatioMetric) and an
// experiment's exposure criteria (ExperimentExposureCriteria), validated into what Wren computes. What PostHog has
// and Wren does not compute (retention metrics, data-warehouse sources, breakdowns, outlier clipping, unordered
// funnels, action exposures) is a 400 naming the field: never accepted and then ignored.
import { wrenError } from '../../../platform/errors'
import { isRecord } from '../../../platform/json'
import { nodeEntity, type SeriesEntity } from '../../common/series'
import { parsePropertyGroup, type PropertyGroup } from '../../../analytics/property-filters/parse'

/** The maths a metric's source is counted by per person: its events (total) or a property's sum. */
const SOURCE_MATHS = ['total', 'sum'] as const

/** PostHog's FunnelConversionWindowTimeUnit, in seconds. */
const UNIT_SECONDS: Record<string, number> = { second: 1, minute: 60, hour: 3600, day: 86400, week: 604800, month: 2592000 }

export type ExperimentMetric =
  | { metricType: 'mean'; source: SeriesEntity; windowSeconds: number | null; node: Record<string, unknown> }
  | { metricType: 'funnel'; series: SeriesEntity[]; windowSeconds: number | null; node: Record<string, unknown> }
  | { metricType: 'ratio'; numerator: SeriesEntity; denominator: SeriesEntity; windowSeconds: number | null; node: Record<string, unknown> }

function source(raw: unknown, attr: string, counted: boolean): SeriesEntity {
  if (!isRecord(raw)) throw wrenError('required', `${attr} must be an EventsNode or an ActionsNode.`, attr)
  const s = nodeEntity(raw, attr, (kind) => `experiment metrics over ${kind} sources`)
  if (counted && !(SOURCE_MATHS as readonly string[]).includes(s.math))
    throw wrenError(
      'unsupported',
      `${attr}: Wren computes experiment metrics with math ${SOURCE_MATHS.join(' or ')}, not '${s.math}'.`,
      attr,
    )
  if (!counted && s.math !== 'total') throw wrenError('unsupported', `${attr}: a funnel step counts its events (math total).`, attr)
  if (s.mathPropertyType === 'person_properties')
    throw wrenError('unsupported', `${attr}: a person property's sum is not computed yet.`, attr)
  return s
}

/** One metric node as PostHog's ExperimentMetric; `attr` names it in errors (e.g. metrics[0]). */
export function parseExperimentMetric(raw: unknown, attr = 'metric'): ExperimentMetric {
  if (!isRecord(raw) || raw.kind !== 'ExperimentMetric')
    throw wrenError(
      'invalid_input',
      `${attr} must be an ExperimentMetric: {"kind": "ExperimentMetric", "metric_type": "mean", "source": {...}}.`,
      attr,
    )
  for (const field of ['breakdownFilter', 'lower_bound_percentile', 'upper_bound_percentile'] as const)
    if (raw[field] !== undefined && raw[field] !== null && !(isRecord(raw[field]) && Object.keys(raw[field]).length === 0))
      throw wrenError('unsupported', `${attr}.${field} is not computed by Wren yet.`, `${attr}.${field}`)
  if (raw.ignore_zeros === true) throw wrenError('unsupported', `${attr}.ignore_zeros is not computed by Wren yet.`, `${attr}.ignore_zeros`)
  if (raw.goal !== undefined && raw.goal !== null && raw.goal !== 'increase' && raw.goal !== 'decrease')
    throw wrenError('invalid_input', `${attr}.goal must be increase or decrease.`, `${attr}.goal`)
  let windowSeconds: number | null = null
  if (raw.conversion_window !== undefined && raw.conversion_window !== null) {
    const n = Number(raw.conversion_window)
    const unit = String(raw.conversion_window_unit ?? 'day')
    if (!Number.isInteger(n) || n <= 0)
      throw wrenError('invalid_input', `${attr}.conversion_window must be a positive integer.`, `${attr}.conversion_window`)
    if (!UNIT_SECONDS[unit])
      throw wrenError(
        'invalid_input',
        `${attr}.conversion_window_unit must be one of ${Object.keys(UNIT_SECONDS).join(', ')}.`,
        `${attr}.conversion_window_unit`,
      )
    windowSeconds = n * UNIT_SECONDS[unit]
  }
  const node = { ...raw }
  switch (raw.metric_type) {
    case 'mean':
      return { metricType: 'mean', source: source(raw.source, `${attr}.source`, true), windowSeconds, node }
    case 'funnel': {
      if (raw.funnel_order_type !== undefined && raw.funnel_order_type !== null && raw.funnel_order_type !== 'ordered')
        throw wrenError(
          'unsupported',
          `${attr}.funnel_order_type: Wren computes ordered experiment funnels only.`,
          `${attr}.funnel_order_type`,
        )
      if (!Array.isArray(raw.series) || raw.series.length === 0)
        throw wrenError('required', `${attr}.series must list the funnel's steps (EventsNode or ActionsNode).`, `${attr}.series`)
      if (raw.series.length > 10) throw wrenError('invalid_input', `${attr}.series: at most 10 steps.`, `${attr}.series`)
      return { metricType: 'funnel', series: raw.series.map((s, i) => source(s, `${attr}.series[${i}]`, false)), windowSeconds, node }
    }
    case 'ratio':
      return {
        metricType: 'ratio',
        numerator: source(raw.numerator, `${attr}.numerator`, true),
        denominator: source(raw.denominator, `${attr}.denominator`, true),
        windowSeconds,
        node,
      }
    case 'retention':
      throw wrenError('unsupported', `${attr}: Wren does not compute retention experiment metrics yet.`, `${attr}.metric_type`)
    default:
      throw wrenError('invalid_input', `${attr}.metric_type must be mean, funnel or ratio.`, `${attr}.metric_type`)
  }
}

/** The entities a metric reads (for its actions and cohorts). */
export const metricEntities = (m: ExperimentMetric): SeriesEntity[] =>
  m.metricType === 'mean' ? [m.source] : m.metricType === 'funnel' ? m.series : [m.numerator, m.denominator]

/** Who counts as exposed, and to which variant (PostHog's ExperimentExposureCriteria). */
export interface ExposureCriteria {
  /** The exposure event; `$feature_flag_called` (the default) reads the variant from `$feature_flag_response`, another from `$feature/<key>`. */
  event: string
  properties: PropertyGroup
  /** A person exposed to more than one variant: `exclude` (PostHog's default) reports them as `$multiple` and leaves them out of results. */
  multipleVariantHandling: 'exclude' | 'first_seen'
  filterTestAccounts: boolean
}

export const DEFAULT_EXPOSURE_EVENT = '$feature_flag_called'
export const MULTIPLE_VARIANT_KEY = '$multiple'

export function parseExposureCriteria(raw: unknown, attr = 'exposure_criteria'): ExposureCriteria {
  const criteria = raw === undefined || raw === null ? {} : raw
  if (!isRecord(criteria)) throw wrenError('invalid_input', `${attr} must be an object.`, attr)
  const handling = criteria.multiple_variant_handling ?? 'exclude'
  if (handling !== 'exclude' && handling !== 'first_seen')
    throw wrenError(
      'invalid_input',
      `${attr}.multiple_variant_handling must be exclude or first_seen.`,
      `${attr}.multiple_variant_handling`,
    )
  if (criteria.activation_config !== undefined && criteria.activation_config !== null)
    throw wrenError('unsupported', `${attr}.activation_config is not computed by Wren yet.`, `${attr}.activation_config`)
  let event = DEFAULT_EXPOSURE_EVENT
  let properties: PropertyGroup = { type: 'AND', values: [] }
  const config = criteria.exposure_config
  if (config !== undefined && config !== null) {
    if (!isRecord(config) || config.kind !== 'ExperimentEventExposureConfig')
      throw wrenError(
        'unsupported',
        `${attr}.exposure_config: Wren computes exposures from an ExperimentEventExposureConfig (an event and its properties).`,
        `${attr}.exposure_config`,
      )
    if (typeof config.event !== 'string' || config.event === '')
      throw wrenError('required', `${attr}.exposure_config.event names the exposure event.`, `${attr}.exposure_config.event`)
    event = config.event === '$experiment_exposure' ? DEFAULT_EXPOSURE_EVENT : config.event
    properties = parsePropertyGroup(config.properties ?? [], `${attr}.exposure_config.properties`)
  }
  return { event, properties, multipleVariantHandling: handling, filterTestAccounts: criteria.filterTestAccounts !== false }
}
