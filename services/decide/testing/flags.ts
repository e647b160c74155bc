// Builders for decide's unit tests: a stored flag with every field a default, and one evaluation input.
import type { FeatureFlag, FlagFilters } from '../../flags/types'
import type { EvaluationInput } from '../evaluate'
import { NO_COHORTS } from '../cohorts'

let nextId = 1

export const flag = (key: string, filters: FlagFilters, extra: Partial<FeatureFlag> = {}): FeatureFlag => ({
  id: nextId++,
  teamId: 1,
  key,
  name: '',
  filters,
  active: true,
  deleted: false,
  ensureExperienceContinuity: false,
  version: 1,
  evaluationRuntime: 'all',
  evaluationTags: [],
  bucketingIdentifier: null,
  tags: [],
  createdAt: '',
  createdBy: null,
  updatedAt: '',
  lastModifiedBy: null,
  ...extra,
})

export const input = (over: Partial<EvaluationInput> = {}): EvaluationInput => ({
  teamId: 1,
  timezone: 'UTC',
  now: Date.now(),
  distinctId: 'user-1',
  personUuid: 'p-1',
  personProperties: { distinct_id: 'user-1' },
  groups: {},
  groupProperties: new Map(),
  groupTypeNames: new Map([[0, 'company']]),
  hashKeyOverrides: {},
  anonDistinctId: null,
  deviceId: null,
  cohorts: NO_COHORTS,
  ...over,
})
