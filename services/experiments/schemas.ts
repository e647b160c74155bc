// What the experiment routes answer, in PostHog's ExperimentSerializer's shape: declared once, for the routes and
// the OpenAPI document.
import { Type } from 'typebox'
import { AnyObject, UserBasic } from '../platform/http/schemas'

const Time = Type.String({ format: 'date-time' })
const OptionalTime = Type.Union([Time, Type.Null()])
const Objects = Type.Array(AnyObject())

export const ExperimentAnswer = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    start_date: OptionalTime,
    end_date: OptionalTime,
    feature_flag_key: Type.String(),
    feature_flag: Type.Union([AnyObject('the flag it runs on (MinimalFeatureFlagSerializer)'), Type.Null()]),
    holdout: Type.Null(),
    holdout_id: Type.Null(),
    exposure_cohort: Type.Null(),
    parameters: Type.Union([AnyObject('feature_flag_variants, minimum_detectable_effect, …'), Type.Null()]),
    secondary_metrics: Type.Array(Type.Unknown()),
    saved_metrics: Type.Array(Type.Unknown(), { maxItems: 0 }),
    saved_metrics_ids: Type.Null(),
    filters: AnyObject(),
    archived: Type.Boolean(),
    deleted: Type.Boolean(),
    created_by: Type.Union([UserBasic, Type.Null()]),
    created_at: Time,
    updated_at: Time,
    type: Type.Enum(['product', 'web']),
    metrics: Objects,
    metrics_secondary: Objects,
    primary_metrics_ordered_uuids: Type.Array(Type.String()),
    secondary_metrics_ordered_uuids: Type.Array(Type.String()),
    stats_config: AnyObject(),
    exposure_criteria: AnyObject(),
    conclusion: Type.Union([Type.Enum(['won', 'lost', 'inconclusive', 'stopped_early', 'invalid']), Type.Null()]),
    conclusion_comment: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: true, description: 'An experiment: a multivariate flag’s variants compared on metrics.' },
)
