// The stored shape of a feature flag (PostHog's FeatureFlag / FlagFilters, reference §2.1). `filters` is
// kept as the user sent it (validated), so the management API and local evaluation return it unchanged.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
export type Properties = Record<string, unknown>

/** A filter as the user sent it; decide reads it parsed (analytics/property-filters/parse.ts storedFlagFilter). */
export interface StoredPropertyFilter {
  key: string
  value?: unknown
  operator?: string | null
  type?: string
  negation?: boolean
  group_type_index?: number | null
  /** Added to flag-dependency filters in the local-evaluation payload only. */
  dependency_chain?: string[]
}

export interface ConditionGroup {
  properties?: StoredPropertyFilter[] | null
  rollout_percentage?: number | null
  variant?: string | null
  aggregation_group_type_index?: number | null
  description?: string | null
}

export interface Variant {
  key: string
  name?: string | null
  rollout_percentage: number
}

export interface FlagFilters {
  groups?: ConditionGroup[]
  multivariate?: { variants: Variant[] } | null
  aggregation_group_type_index?: number | null
  payloads?: Record<string, string> | null
  super_groups?: ConditionGroup[] | null
  feature_enrollment?: boolean | null
  holdout?: { id: number; exclusion_percentage: number } | null
  holdout_groups?: ConditionGroup[] | null
  early_exit?: boolean
  [key: string]: unknown
}

export interface FeatureFlag {
  id: number
  teamId: number
  key: string
  name: string
  filters: FlagFilters
  active: boolean
  deleted: boolean
  ensureExperienceContinuity: boolean
  /** Bumped on every change; 1 on create. */
  version: number
  evaluationRuntime: 'server' | 'client' | 'all'
  evaluationTags: string[]
  bucketingIdentifier: 'distinct_id' | 'device_id' | null
  tags: string[]
  createdAt: string
  createdBy: string | null
  updatedAt: string
  lastModifiedBy: string | null
}

export interface StoredPropertyGroup {
  type?: string
  values?: Array<StoredPropertyGroup | StoredPropertyFilter>
}
