// What the management API accepts as a flag (PostHog's FeatureFlagSerializer, reference §2.2). Every
// rejection is a 400 that names the field.
import { wrenError } from '../platform/errors'
import { isRecord } from '../platform/json'
import { parseDateString } from '../analytics/time/date-strings'
import { parseFlagFilter } from '../analytics/property-filters/parse'
import type { ConditionGroup, FeatureFlag, FlagFilters, StoredPropertyFilter } from './types'

const KEY_RE = /^[a-zA-Z0-9_-]+$/
// PostHog's serializer asks for strings here, but its UI and API clients send numbers for the comparisons
// (`{"operator": "gt", "value": 1}`) and its matcher reads either: a number or a string is accepted.
const SCALAR_OPERATORS = new Set(['regex', 'icontains', 'not_regex', 'not_icontains', 'gt', 'gte', 'lt', 'lte'])
const MAX_LIST = 1000

export function validateKey(key: unknown, siblings: readonly FeatureFlag[], selfId: number | null): string {
  if (typeof key !== 'string' || key === '') throw wrenError('required', 'This field is required.', 'key')
  if (!KEY_RE.test(key)) throw wrenError('invalid_key', 'Only letters, numbers, hyphens ("-") & underscores ("_") are allowed.', 'key')
  if (key.length > 400) throw wrenError('max_length', 'Ensure this field has no more than 400 characters.', 'key')
  if (siblings.some((f) => f.key === key && !f.deleted && f.id !== selfId))
    throw wrenError('unique', 'There is already a feature flag with this key.', 'key')
  return key
}

/** Validates and normalizes `filters` (payload values become JSON-encoded strings). */
export function validateFilters(raw: unknown, siblings: readonly FeatureFlag[], selfId: number | null): FlagFilters {
  if (raw === undefined || raw === null) return { groups: [] }
  if (!isRecord(raw)) throw wrenError('invalid_input', 'filters must be an object.', 'filters')
  const filters = structuredClone(raw) as FlagFilters
  const aggregation = filters.aggregation_group_type_index
  if (aggregation !== undefined && aggregation !== null && !(Number.isInteger(aggregation) && aggregation >= 0 && aggregation <= 4)) {
    throw wrenError('invalid_input', 'aggregation_group_type_index must be an integer from 0 to 4.', 'filters')
  }
  const groupFlag = typeof aggregation === 'number'

  const groups = filters.groups ?? []
  if (!Array.isArray(groups)) throw wrenError('invalid_input', 'filters.groups must be a list of condition groups.', 'filters')
  filters.groups = groups

  let variantKeys: string[] = []
  if (filters.multivariate !== undefined && filters.multivariate !== null) {
    const variants = isRecord(filters.multivariate) ? filters.multivariate.variants : undefined
    if (!Array.isArray(variants))
      throw wrenError('invalid_input', 'Invalid variant definitions: multivariate.variants must be a list.', 'filters')
    let sum = 0
    for (const v of variants) {
      if (!isRecord(v) || typeof v.key !== 'string' || v.key === '')
        throw wrenError('invalid_input', 'Invalid variant definitions: every variant needs a key.', 'filters')
      if (typeof v.rollout_percentage !== 'number' || !Number.isFinite(v.rollout_percentage) || v.rollout_percentage < 0) {
        throw wrenError('invalid_input', `Invalid variant definitions: variant '${v.key}' needs a rollout_percentage.`, 'filters')
      }
      sum += v.rollout_percentage
    }
    if (new Set(variants.map((v) => (v as { key: string }).key)).size !== variants.length)
      throw wrenError('invalid_input', 'Invalid variant definitions: variant keys must be unique.', 'filters')
    if (variants.length > 0 && Math.abs(sum - 100) > 1e-9)
      throw wrenError('invalid_input', 'Invalid variant definitions: Variant rollout percentages must sum to 100.', 'filters')
    variantKeys = variants.map((v) => (v as { key: string }).key)
  }

  const checkGroup = (group: unknown, where: string): void => {
    if (!isRecord(group)) throw wrenError('invalid_input', `${where} must be an object.`, 'filters')
    const g = group as ConditionGroup
    if (g.rollout_percentage !== undefined && g.rollout_percentage !== null) {
      if (typeof g.rollout_percentage !== 'number' || g.rollout_percentage < 0 || g.rollout_percentage > 100) {
        throw wrenError('invalid_input', `${where}.rollout_percentage must be a number from 0 to 100.`, 'filters')
      }
    }
    if (g.variant !== undefined && g.variant !== null && !variantKeys.includes(g.variant)) {
      throw wrenError(
        'invalid_input',
        `Filters are not valid (variant override does not exist): '${String(g.variant)}' is not a variant of this flag.`,
        'filters',
      )
    }
    const conditionAggregation = typeof g.aggregation_group_type_index === 'number' ? g.aggregation_group_type_index : aggregation
    const properties = g.properties ?? []
    if (!Array.isArray(properties)) throw wrenError('invalid_input', `${where}.properties must be a list.`, 'filters')
    properties.forEach((p, i) =>
      checkProperty(
        p,
        `${where}.properties[${i}]`,
        typeof conditionAggregation === 'number' ? conditionAggregation : null,
        siblings,
        selfId,
      ),
    )
  }
  groups.forEach((g, i) => checkGroup(g, `filters.groups[${i}]`))
  for (const name of ['super_groups', 'holdout_groups'] as const) {
    const list = filters[name]
    if (list !== undefined && list !== null) {
      if (!Array.isArray(list)) throw wrenError('invalid_input', `filters.${name} must be a list.`, 'filters')
      list.forEach((g, i) => checkGroup(g, `filters.${name}[${i}]`))
    }
  }
  if (filters.holdout !== undefined && filters.holdout !== null) {
    const h = filters.holdout
    if (!isRecord(h) || typeof h.id !== 'number' || typeof h.exclusion_percentage !== 'number')
      throw wrenError('invalid_input', 'filters.holdout must be {id, exclusion_percentage}.', 'filters')
  }

  if (filters.payloads !== undefined && filters.payloads !== null) {
    if (!isRecord(filters.payloads)) throw wrenError('invalid_input', 'filters.payloads must be an object.', 'filters')
    const allowed = variantKeys.length > 0 ? variantKeys : ['true']
    const payloads: Record<string, string> = {}
    for (const [key, value] of Object.entries(filters.payloads)) {
      if (!allowed.includes(key)) {
        throw wrenError(
          'invalid_input',
          variantKeys.length > 0
            ? `Payload keys must match a variant key: '${key}' is not a variant.`
            : `Payload keys must be 'true' for boolean flags, got '${key}'.`,
          'filters',
        )
      }
      if (value === null || value === undefined || value === '') continue
      payloads[key] = typeof value === 'string' ? value : JSON.stringify(value)
    }
    filters.payloads = payloads
  }
  if (groupFlag) filters.aggregation_group_type_index = aggregation
  checkDependencyCycles(filters, siblings, selfId)
  return filters
}

function checkProperty(
  raw: unknown,
  where: string,
  aggregation: number | null,
  siblings: readonly FeatureFlag[],
  selfId: number | null,
): void {
  const p = parseFlagFilter(raw, where)
  const { type, operator } = p
  const groupTypeIndex = (raw as StoredPropertyFilter).group_type_index
  if (aggregation === null && !['person', 'cohort', 'flag', 'person_metadata'].includes(type)) {
    throw wrenError(
      'invalid_input',
      `Filters are not valid (can only use person, cohort and flag properties): ${where} has type '${type}'.`,
      'filters',
    )
  }
  if (
    aggregation !== null &&
    type !== 'flag' &&
    !(type === 'group' && (groupTypeIndex === undefined || groupTypeIndex === null || groupTypeIndex === aggregation))
  ) {
    throw wrenError('invalid_input', `Filters are not valid (can only use group properties of type ${aggregation}): ${where}.`, 'filters')
  }
  if (type === 'flag') {
    if (operator !== 'flag_evaluates_to')
      throw wrenError('invalid_input', `${where}: flag dependencies must use the flag_evaluates_to operator.`, 'filters')
    if (!(typeof p.value === 'boolean' || typeof p.value === 'string'))
      throw wrenError('invalid_input', `${where}: flag_evaluates_to needs true, false or a variant key.`, 'filters')
    const depId = Number(p.key)
    if (selfId !== null && depId === selfId) throw wrenError('invalid_input', `${where}: a flag cannot depend on itself.`, 'filters')
    if (!siblings.some((f) => f.id === depId && !f.deleted))
      throw wrenError('invalid_input', `${where}: flag dependency ${p.key} does not exist.`, 'filters')
    return
  }
  if (operator === 'flag_evaluates_to')
    throw wrenError('invalid_input', `${where}: flag_evaluates_to is only for flag dependencies.`, 'filters')
  if (type === 'cohort') {
    if (!Number.isInteger(Number(p.value)))
      throw wrenError('invalid_input', `${where}: a cohort filter's value is the cohort id.`, 'filters')
    return
  }
  if (operator === 'in' || operator === 'not_in') throw wrenError('invalid_input', `${where}: in / not_in are only for cohorts.`, 'filters')
  if (Array.isArray(p.value) && p.value.length > MAX_LIST)
    throw wrenError('invalid_input', `${where}: a list value may have at most ${MAX_LIST} entries.`, 'filters')
  if (SCALAR_OPERATORS.has(operator) && !(typeof p.value === 'string' || (typeof p.value === 'number' && Number.isFinite(p.value)))) {
    throw wrenError('invalid_input', `${where}: the ${operator} operator needs a string or number value.`, 'filters')
  }
  if (
    (operator === 'is_date_before' || operator === 'is_date_after' || operator === 'is_date_exact') &&
    (typeof p.value !== 'string' || parseDateString(p.value, 'UTC', Date.now()) === null)
  ) {
    throw wrenError('invalid_date', `${where}: '${String(p.value)}' is not a valid date.`, 'filters')
  }
  if ((operator === 'between' || operator === 'not_between') && !(Array.isArray(p.value) && p.value.length === 2)) {
    throw wrenError('invalid_input', `${where}: ${operator} needs a [min, max] value.`, 'filters')
  }
}

/** The cohort ids a flag's conditions name (cohorts belong to a project: the caller checks they exist there). */
export function cohortIdsOf(filters: FlagFilters): number[] {
  const groups = [...(filters.groups ?? []), ...(filters.super_groups ?? []), ...(filters.holdout_groups ?? [])]
  return [...new Set(groups.flatMap((g) => (g.properties ?? []).filter((p) => p.type === 'cohort').map((p) => Number(p.value))))]
}

/** Flag dependencies must not form a cycle through the project's other flags. */
function checkDependencyCycles(filters: FlagFilters, siblings: readonly FeatureFlag[], selfId: number | null): void {
  const depsOf = (f: FlagFilters): number[] =>
    (f.groups ?? []).flatMap((g) => (g.properties ?? []).filter((p) => p.type === 'flag').map((p) => Number(p.key)))
  const byId = new Map(siblings.filter((f) => !f.deleted).map((f) => [f.id, f]))
  const seen = new Set<number>()
  const stack = depsOf(filters)
  while (stack.length) {
    const id = stack.pop()!
    if (selfId !== null && id === selfId)
      throw wrenError('invalid_input', 'Circular dependency detected: this flag depends on itself through its dependencies.', 'filters')
    if (seen.has(id)) continue
    seen.add(id)
    const dep = byId.get(id)
    if (dep) stack.push(...depsOf(dep.filters))
  }
}
