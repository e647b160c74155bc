// Experiments: configuration objects (platform/config-objects.ts). The flag an experiment runs on is the flags
// store's; an experiment keeps only its id. Nothing of another process caches experiments, so a write tells no one.
import type { ClickHouseClient } from '../platform/clickhouse'
import { ConfigObjectStore, timestamp, type ConfigObjectKind } from '../platform/config-objects'
import type { Clock } from '../platform/clock'
import type { ConfigLog } from '../platform/log/config-log'

export type Json = Record<string, unknown>

export interface Experiment {
  id: number
  teamId: number
  name: string
  description: string
  featureFlagId: number
  /** Launch and stop (ISO instants); null: not yet. */
  startDate: string | null
  endDate: string | null
  /** PostHog's types: product (default) or web. */
  type: 'product' | 'web'
  /** PostHog's `parameters` (feature_flag_variants, minimum_detectable_effect, …), as the caller sent them. */
  parameters: Json
  /** Legacy insight filters, kept as sent. */
  filters: Json
  secondaryMetrics: unknown[]
  /** ExperimentMetric nodes, validated (each with its uuid). */
  metrics: Json[]
  metricsSecondary: Json[]
  statsConfig: Json
  exposureCriteria: Json
  archived: boolean
  conclusion: string | null
  conclusionComment: string | null
  /** The user's uuid ('' for a key without a user). */
  createdBy: string
  createdAt: string
  updatedAt: string
  deleted: boolean
  version: number
}

export type ExperimentFields = Omit<Experiment, 'id' | 'teamId' | 'createdAt' | 'updatedAt' | 'deleted' | 'version'>

const json = (value: unknown, empty: unknown): unknown => {
  if (typeof value !== 'string' || value === '') return empty
  return JSON.parse(value) as unknown
}
const instantOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : timestamp(value))

const EXPERIMENTS: ConfigObjectKind<Experiment, ExperimentFields> = {
  table: 'experiments',
  object: 'experiment',
  columns: [
    'name',
    'description',
    'feature_flag_id',
    'start_date',
    'end_date',
    'type',
    'parameters',
    'filters',
    'secondary_metrics',
    'metrics',
    'metrics_secondary',
    'stats_config',
    'exposure_criteria',
    'archived',
    'conclusion',
    'conclusion_comment',
    'created_by',
    'updated_at',
  ],
  create: (fields, now) => ({ ...fields, updatedAt: now }),
  touch: (experiment, _current, now) => ({ ...experiment, updatedAt: now }),
  toRow: (e) => ({
    name: e.name,
    description: e.description,
    feature_flag_id: e.featureFlagId,
    start_date: e.startDate,
    end_date: e.endDate,
    type: e.type,
    parameters: JSON.stringify(e.parameters),
    filters: JSON.stringify(e.filters),
    secondary_metrics: JSON.stringify(e.secondaryMetrics),
    metrics: JSON.stringify(e.metrics),
    metrics_secondary: JSON.stringify(e.metricsSecondary),
    stats_config: JSON.stringify(e.statsConfig),
    exposure_criteria: JSON.stringify(e.exposureCriteria),
    archived: e.archived ? 1 : 0,
    conclusion: e.conclusion ?? '',
    conclusion_comment: e.conclusionComment ?? '',
    created_by: e.createdBy,
    updated_at: e.updatedAt,
  }),
  fromRow: (r) => ({
    name: r.name as string,
    description: r.description as string,
    featureFlagId: Number(r.feature_flag_id),
    startDate: instantOrNull(r.start_date),
    endDate: instantOrNull(r.end_date),
    type: r.type === 'web' ? 'web' : 'product',
    parameters: json(r.parameters, {}) as Json,
    filters: json(r.filters, {}) as Json,
    secondaryMetrics: json(r.secondary_metrics, []) as unknown[],
    metrics: json(r.metrics, []) as Json[],
    metricsSecondary: json(r.metrics_secondary, []) as Json[],
    statsConfig: json(r.stats_config, {}) as Json,
    exposureCriteria: json(r.exposure_criteria, {}) as Json,
    archived: Number(r.archived) === 1,
    conclusion: (r.conclusion as string) || null,
    conclusionComment: (r.conclusion_comment as string) || null,
    createdBy: r.created_by as string,
    updatedAt: timestamp(r.updated_at),
  }),
}

export class ExperimentStore extends ConfigObjectStore<Experiment, ExperimentFields> {
  constructor(client: ClickHouseClient, clock: Clock, config: ConfigLog) {
    super(client, clock, config, EXPERIMENTS)
  }
}
