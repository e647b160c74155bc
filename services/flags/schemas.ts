// What the feature flag routes answer: declared once, for the routes, the OpenAPI document and the web app's types.
// PostHog's FeatureFlagSerializer fields (reference §2.3), with Wren's values.
import { Type } from 'typebox'
import { AnyObject } from '../platform/http/schemas'

const Time = Type.String({ format: 'date-time' })
/** Who created or last changed the flag: the key's label (Wren has keys, not users). */
const Actor = Type.Union([
  Type.Object({
    id: Type.Null(),
    uuid: Type.Null(),
    distinct_id: Type.String(),
    first_name: Type.String(),
    email: Type.Null(),
  }),
  Type.Null(),
])
const None = (description: string) => Type.Array(Type.Unknown(), { description, maxItems: 0 })

export const Flag = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    key: Type.String(),
    filters: AnyObject(),
    deleted: Type.Boolean(),
    active: Type.Boolean(),
    created_by: Actor,
    created_at: Time,
    updated_at: Time,
    version: Type.Integer(),
    last_modified_by: Actor,
    is_simple_flag: Type.Boolean(),
    rollout_percentage: Type.Union([Type.Number(), Type.Null()]),
    ensure_experience_continuity: Type.Boolean(),
    experiment_set: None('Experiments: none in Wren.'),
    surveys: None('Surveys: none in Wren.'),
    features: None('Early access features: none in Wren.'),
    rollback_conditions: Type.Null(),
    performed_rollback: Type.Boolean(),
    can_edit: Type.Boolean({ description: 'Whether the key holds feature_flag:write.' }),
    tags: Type.Array(Type.String()),
    evaluation_tags: Type.Array(Type.String()),
    usage_dashboard: Type.Null(),
    analytics_dashboards: None('Dashboards of the flag’s usage: none in Wren.'),
    has_enriched_analytics: Type.Boolean(),
    user_access_level: Type.Union([Type.Literal('editor'), Type.Literal('viewer')]),
    creation_context: Type.String(),
    is_remote_configuration: Type.Boolean(),
    has_encrypted_payloads: Type.Boolean(),
    status: Type.Union([Type.Literal('ACTIVE'), Type.Literal('DELETED')]),
    evaluation_runtime: Type.Union([Type.Literal('server'), Type.Literal('client'), Type.Literal('all')]),
    bucketing_identifier: Type.Union([Type.Literal('distinct_id'), Type.Literal('device_id'), Type.Null()]),
    last_called_at: Type.Null({ description: 'When the flag was last evaluated: Wren does not record it.' }),
  },
  { description: 'PostHog’s FeatureFlagSerializer fields.' },
)
