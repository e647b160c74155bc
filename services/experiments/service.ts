// Experiment management's logic, apart from HTTP (PostHog's ExperimentService and ExperimentSerializer): a create
// that makes the experiment's multivariate flag (control and test at 50/50 unless parameters.feature_flag_variants
// says otherwise; inactive while a draft) or takes an existing one with a control variant; launch (start_date:
// the flag goes active) and stop (end_date); metrics validated as PostHog's ExperimentMetric, each given a uuid.
import { randomUUID } from 'node:crypto'
import { wrenError } from '../platform/errors'
import { isRecord } from '../platform/json'
import type { FlagManagement } from '../flags/service'
import type { FeatureFlag, Variant } from '../flags/types'
import { parseExperimentMetric, parseExposureCriteria } from '../query/kinds/experiments'
import type { Experiment, ExperimentStore, Json } from './store'

/** PostHog's DEFAULT_VARIANTS. */
const DEFAULT_VARIANTS: Variant[] = [
  { key: 'control', name: 'Control Group', rollout_percentage: 50 },
  { key: 'test', name: 'Test Variant', rollout_percentage: 50 },
]
export const CONCLUSIONS = ['won', 'lost', 'inconclusive', 'stopped_early', 'invalid'] as const

/** The fields a caller sends (PostHog's names); each optional on a PATCH. */
export interface ExperimentBody {
  name?: string
  description?: string | null
  feature_flag_key?: string
  start_date?: string | null
  end_date?: string | null
  type?: 'product' | 'web'
  parameters?: Json | null
  filters?: Json | null
  secondary_metrics?: unknown[] | null
  metrics?: unknown[] | null
  metrics_secondary?: unknown[] | null
  stats_config?: Json | null
  exposure_criteria?: Json | null
  archived?: boolean
  deleted?: boolean
  conclusion?: (typeof CONCLUSIONS)[number] | null
  conclusion_comment?: string | null
  holdout_id?: number | null
  saved_metrics_ids?: unknown[] | null
}

const instant = (value: string | null | undefined, attr: string): string | null => {
  if (value === null || value === undefined || value === '') return null
  const at = Date.parse(value)
  if (Number.isNaN(at)) throw wrenError('invalid_date', `${attr} must be a date and time (ISO 8601), got '${value}'.`, attr)
  return new Date(at).toISOString()
}

/** Metrics as PostHog's ExperimentMetric, each with a uuid (PostHog's _assign_uuids_to_metrics). */
function metricsOf(raw: unknown[] | null | undefined, attr: string): Json[] {
  if (raw === undefined || raw === null) return []
  if (!Array.isArray(raw)) throw wrenError('invalid_input', `${attr} must be a list of ExperimentMetric.`, attr)
  if (raw.length > 10) throw wrenError('invalid_input', `${attr}: an experiment has at most 10 metrics.`, attr)
  return raw.map((m, i) => {
    parseExperimentMetric(m, `${attr}[${i}]`)
    const metric = m as Json
    return typeof metric.uuid === 'string' && metric.uuid ? metric : { ...metric, uuid: randomUUID() }
  })
}

/** PostHog's validate_parameters: at most 10 variants, one of them control; each a key and a rollout. */
function variantsOf(parameters: Json | null | undefined): Variant[] | null {
  const raw = parameters?.feature_flag_variants
  if (raw === undefined || raw === null) return null
  if (!Array.isArray(raw) || raw.length === 0) return null
  if (raw.length >= 11) throw wrenError('invalid_input', 'Feature flag variants must be less than 11', 'parameters')
  const variants = raw.map((v, i): Variant => {
    if (!isRecord(v) || typeof v.key !== 'string' || v.key === '')
      throw wrenError('invalid_input', `parameters.feature_flag_variants[${i}] needs a key.`, 'parameters')
    const rollout = Number(v.rollout_percentage)
    if (!Number.isFinite(rollout) || rollout < 0 || rollout > 100)
      throw wrenError('invalid_input', `parameters.feature_flag_variants[${i}].rollout_percentage must be 0-100.`, 'parameters')
    return { key: v.key, ...(typeof v.name === 'string' ? { name: v.name } : {}), rollout_percentage: rollout }
  })
  if (!variants.some((v) => v.key === 'control'))
    throw wrenError('invalid_input', 'Feature flag variants must contain a control variant', 'parameters')
  return variants
}

function checkUnsupported(body: ExperimentBody): void {
  if (body.holdout_id !== undefined && body.holdout_id !== null)
    throw wrenError('unsupported', 'Holdouts are not supported by Wren yet.', 'holdout_id')
  if (Array.isArray(body.saved_metrics_ids) && body.saved_metrics_ids.length > 0)
    throw wrenError('unsupported', 'Saved metrics are not supported by Wren yet.', 'saved_metrics_ids')
  const method = body.stats_config?.method
  if (method !== undefined && method !== null && method !== 'bayesian')
    throw wrenError(
      'unsupported',
      `Wren computes experiment results with the Bayesian method only, not '${String(method)}'.`,
      'stats_config',
    )
  const bayesian = body.stats_config?.bayesian
  const difference = isRecord(bayesian) ? bayesian.difference_type : undefined
  if (difference !== undefined && difference !== null && difference !== 'RELATIVE')
    throw wrenError('unsupported', `Wren computes the relative difference only, not '${String(difference)}'.`, 'stats_config')
  if (body.exposure_criteria !== undefined && body.exposure_criteria !== null) parseExposureCriteria(body.exposure_criteria)
}

export class ExperimentManagement {
  constructor(
    private readonly experiments: ExperimentStore,
    private readonly flags: FlagManagement,
  ) {}

  async find(teamId: number, rawId: string): Promise<Experiment> {
    const id = Number(rawId)
    const experiment = Number.isInteger(id) && id > 0 ? await this.experiments.get(teamId, id) : undefined
    if (!experiment) throw wrenError('not_found', `Experiment ${rawId} does not exist.`)
    return experiment
  }

  async create(teamId: number, body: ExperimentBody & { name: string; feature_flag_key: string }, actor: { user: string; label: string }) {
    checkUnsupported(body)
    const metrics = metricsOf(body.metrics, 'metrics')
    const metricsSecondary = metricsOf(body.metrics_secondary, 'metrics_secondary')
    const startDate = instant(body.start_date, 'start_date')
    const endDate = instant(body.end_date, 'end_date')
    if (startDate && endDate && endDate < startDate) throw wrenError('invalid_input', 'end_date must be after start_date.', 'end_date')
    const parameters = body.parameters ?? {}
    const flag = await this.flagFor(teamId, body.feature_flag_key, body.name, parameters, startDate === null, actor.label)
    return this.experiments.create(teamId, {
      name: body.name,
      description: body.description ?? '',
      featureFlagId: flag.id,
      startDate,
      endDate,
      type: body.type ?? 'product',
      parameters,
      filters: body.filters ?? {},
      secondaryMetrics: body.secondary_metrics ?? [],
      metrics,
      metricsSecondary,
      statsConfig: { method: 'bayesian', ...(body.stats_config ?? {}) },
      exposureCriteria: { filterTestAccounts: true, ...(body.exposure_criteria ?? {}) },
      archived: body.archived ?? false,
      conclusion: body.conclusion ?? null,
      conclusionComment: body.conclusion_comment ?? null,
      createdBy: actor.user,
    })
  }

  /** The flag with `key` when it is fit for an experiment (PostHog's _validate_existing_flag), or a new one. */
  private async flagFor(teamId: number, key: string, name: string, parameters: Json, draft: boolean, actor: string): Promise<FeatureFlag> {
    const existing = this.flags.list(teamId, {}).find((f) => f.key === key)
    if (existing) {
      const variants = existing.filters.multivariate?.variants ?? []
      if (variants.length < 2)
        throw wrenError(
          'invalid_input',
          'Feature flag must have at least 2 variants (control and at least one test variant)',
          'feature_flag_key',
        )
      if (!variants.some((v) => v.key === 'control'))
        throw wrenError('invalid_input', "Feature flag must have a variant with key 'control'", 'feature_flag_key')
      return existing
    }
    const group = parameters.aggregation_group_type_index
    const rollout = parameters.rollout_percentage ?? 100
    return this.flags.create(
      teamId,
      {
        key,
        name: `Feature Flag for Experiment ${name}`,
        filters: {
          groups: [{ properties: [], rollout_percentage: rollout }],
          multivariate: { variants: variantsOf(parameters) ?? DEFAULT_VARIANTS },
          aggregation_group_type_index: typeof group === 'number' ? group : null,
        },
        active: !draft,
        ...(typeof parameters.ensure_experience_continuity === 'boolean'
          ? { ensure_experience_continuity: parameters.ensure_experience_continuity }
          : {}),
      },
      actor,
    )
  }

  /** A PATCH: the fields given. Launching (a start_date on a draft) turns the flag on; a draft's new variants rewrite its flag's. */
  async update(teamId: number, rawId: string, body: ExperimentBody, actorLabel: string): Promise<Experiment> {
    const current = await this.find(teamId, rawId)
    checkUnsupported(body)
    if (body.feature_flag_key !== undefined) {
      const flag = this.flags.get(teamId, String(current.featureFlagId))
      if (body.feature_flag_key !== flag.key)
        throw wrenError('invalid_input', "Can't update keys: get_feature_flag_key on Experiment", 'feature_flag_key')
    }
    const metrics = body.metrics !== undefined ? metricsOf(body.metrics, 'metrics') : undefined
    const metricsSecondary = body.metrics_secondary !== undefined ? metricsOf(body.metrics_secondary, 'metrics_secondary') : undefined
    const startDate = body.start_date !== undefined ? instant(body.start_date, 'start_date') : current.startDate
    const endDate = body.end_date !== undefined ? instant(body.end_date, 'end_date') : current.endDate
    if (endDate && !startDate)
      throw wrenError('invalid_input', 'An experiment is stopped (end_date) only after its launch (start_date).', 'end_date')
    if (startDate && endDate && endDate < startDate) throw wrenError('invalid_input', 'end_date must be after start_date.', 'end_date')
    const newVariants = body.parameters !== undefined ? variantsOf(body.parameters) : null
    const flag = this.flags.get(teamId, String(current.featureFlagId))
    if (newVariants && JSON.stringify(newVariants) !== JSON.stringify(flag.filters.multivariate?.variants ?? [])) {
      if (current.startDate) throw wrenError('invalid_input', "Can't update feature_flag_variants on Experiment", 'parameters')
      await this.flags.update(
        teamId,
        String(flag.id),
        { filters: { ...flag.filters, multivariate: { variants: newVariants } } },
        actorLabel,
      )
    }
    if (!current.startDate && startDate && !flag.active) await this.flags.update(teamId, String(flag.id), { active: true }, actorLabel)
    const saved = await this.experiments.update(teamId, current.id, (stored) => {
      if (stored.deleted) throw wrenError('not_found', `Experiment ${rawId} does not exist.`)
      return {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.description !== undefined ? { description: body.description ?? '' } : {}),
        startDate,
        endDate,
        ...(body.type !== undefined ? { type: body.type } : {}),
        ...(body.parameters !== undefined ? { parameters: body.parameters ?? {} } : {}),
        ...(body.filters !== undefined ? { filters: body.filters ?? {} } : {}),
        ...(body.secondary_metrics !== undefined ? { secondaryMetrics: body.secondary_metrics ?? [] } : {}),
        ...(metrics !== undefined ? { metrics } : {}),
        ...(metricsSecondary !== undefined ? { metricsSecondary } : {}),
        ...(body.stats_config !== undefined ? { statsConfig: { method: 'bayesian', ...(body.stats_config ?? {}) } } : {}),
        ...(body.exposure_criteria !== undefined
          ? { exposureCriteria: { filterTestAccounts: true, ...(body.exposure_criteria ?? {}) } }
          : {}),
        ...(body.archived !== undefined ? { archived: body.archived } : {}),
        ...(body.conclusion !== undefined ? { conclusion: body.conclusion } : {}),
        ...(body.conclusion_comment !== undefined ? { conclusionComment: body.conclusion_comment } : {}),
        deleted: body.deleted === true,
      }
    })
    if (!saved) throw wrenError('not_found', `Experiment ${rawId} does not exist.`)
    return saved
  }

  async delete(teamId: number, rawId: string): Promise<void> {
    const { id } = await this.find(teamId, rawId)
    await this.experiments.update(teamId, id, () => ({ deleted: true }))
  }
}
