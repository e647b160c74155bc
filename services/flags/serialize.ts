// The management API's view of a flag (PostHog's FeatureFlagSerializer fields, reference §2.3).
import { hasScope } from '../platform/http/auth'
import type { PersonalApiKey } from '../platform/tenancy'
import type { FeatureFlag } from './types'

export function isSimpleFlag(flag: FeatureFlag): boolean {
  const groups = flag.filters.groups ?? []
  return (
    groups.length === 1 &&
    (groups[0].properties ?? []).length === 0 &&
    flag.filters.aggregation_group_type_index == null &&
    !flag.filters.multivariate?.variants?.length
  )
}

function person(actor: string | null): Record<string, unknown> | null {
  return actor === null ? null : { id: null, uuid: null, distinct_id: actor, first_name: actor, email: null }
}

/** `viewer`: the key reading it, which can edit it when it holds feature_flag:write (none: as an editor sees it). */
export function serializeFlag(flag: FeatureFlag, viewer?: PersonalApiKey): Record<string, unknown> {
  const simple = isSimpleFlag(flag)
  const canEdit = viewer === undefined || hasScope(viewer, 'feature_flag:write')
  return {
    id: flag.id,
    name: flag.name,
    key: flag.key,
    filters: flag.filters,
    deleted: flag.deleted,
    active: flag.active,
    created_by: person(flag.createdBy),
    created_at: flag.createdAt,
    updated_at: flag.updatedAt,
    version: flag.version,
    last_modified_by: person(flag.lastModifiedBy),
    is_simple_flag: simple,
    rollout_percentage: simple ? (flag.filters.groups?.[0]?.rollout_percentage ?? null) : null,
    ensure_experience_continuity: flag.ensureExperienceContinuity,
    experiment_set: [],
    surveys: [],
    features: [],
    rollback_conditions: null,
    performed_rollback: false,
    can_edit: canEdit,
    tags: flag.tags,
    evaluation_tags: flag.evaluationTags,
    usage_dashboard: null,
    analytics_dashboards: [],
    has_enriched_analytics: false,
    user_access_level: canEdit ? 'editor' : 'viewer',
    creation_context: 'feature_flags',
    is_remote_configuration: false,
    has_encrypted_payloads: false,
    status: flag.deleted ? 'DELETED' : 'ACTIVE',
    evaluation_runtime: flag.evaluationRuntime,
    bucketing_identifier: flag.bucketingIdentifier,
    last_called_at: null,
  }
}

/** The minimal shape local evaluation serves (MinimalFeatureFlagSerializer). */
export function minimalFlag(flag: FeatureFlag): Record<string, unknown> {
  return {
    id: flag.id,
    team_id: flag.teamId,
    name: flag.name,
    key: flag.key,
    filters: flag.filters,
    deleted: flag.deleted,
    active: flag.active,
    ensure_experience_continuity: flag.ensureExperienceContinuity,
    has_encrypted_payloads: false,
    version: flag.version,
    evaluation_runtime: flag.evaluationRuntime,
    evaluation_tags: flag.evaluationTags,
    bucketing_identifier: flag.bucketingIdentifier,
  }
}
