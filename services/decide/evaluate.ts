// Evaluates a project's flags for one person (or group), with the server's rules (reference §1, §3.4–3.6):
// early access, holdouts, condition groups in stored order, rollout by hash, variant overrides and
// multivariate choice, payloads, group aggregation, experience continuity, cohorts and flag dependencies.
// A flag that cannot be computed is reported `failed` and leaves the others intact.
import { hashesFor, holdoutHash, type IdentifierHashes } from './hash'
import { MatchError, matcherFor, type MatchContext } from '../analytics/property-filters/match'
import { storedFlagFilter, type PropertyFilter } from '../analytics/property-filters/parse'
import type { ConditionGroup, FeatureFlag, Properties, StoredPropertyFilter, StoredPropertyGroup } from '../flags/types'
import type { CohortReader } from './cohorts'

export type ReasonCode =
  | 'super_condition_value'
  | 'holdout_condition_value'
  | 'condition_match'
  | 'out_of_rollout_bound'
  | 'no_condition_match'
  | 'no_group_type'
  | 'flag_disabled'
  | 'missing_dependency'
  | 'cohort_not_found'

const SCORE: Record<ReasonCode, number> = {
  super_condition_value: 6,
  holdout_condition_value: 5,
  condition_match: 4,
  out_of_rollout_bound: 3,
  no_condition_match: 2,
  no_group_type: 1,
  flag_disabled: 0,
  missing_dependency: -1,
  cohort_not_found: -2,
}

export interface Reason {
  code: ReasonCode
  condition_index: number | null
  description: string
}

export interface FlagResult {
  flag: FeatureFlag
  enabled: boolean
  variant: string | null
  reason: Reason
  /** The stored JSON-encoded payload for the matched variant (or "true"), when enabled. */
  payload: string | null
  failed: boolean
}

export interface EvaluationInput extends MatchContext {
  teamId: number
  distinctId: string
  personUuid: string | null
  /** Stored person properties merged with the request's (request wins), plus distinct_id. */
  personProperties: Properties
  /** Request `groups`: group type name → group key. */
  groups: Record<string, string>
  /** Stored group properties merged with the request's, by group type index. */
  groupProperties: Map<number, Properties>
  groupTypeNames: Map<number, string>
  /** Experience-continuity hash keys stored for this person, by flag key. */
  hashKeyOverrides: Record<string, string>
  anonDistinctId: string | null
  deviceId: string | null
  cohorts: CohortReader
}

class CohortUnavailable extends Error {}

export function describe(code: ReasonCode, index: number | null, skippedGroupType = false): string {
  switch (code) {
    case 'condition_match':
      return `Matched condition set ${(index ?? 0) + 1}`
    case 'no_condition_match':
      return skippedGroupType
        ? 'No matching condition set (group conditions were not evaluated because no group type was provided)'
        : 'No matching condition set'
    case 'out_of_rollout_bound':
      return 'Out of rollout bound'
    case 'no_group_type':
      return 'No group type'
    case 'super_condition_value':
      return 'Super condition value'
    case 'holdout_condition_value':
      return 'Holdout condition value'
    case 'flag_disabled':
      return 'Feature flag is disabled'
    case 'missing_dependency':
      return 'Flag cannot be evaluated due to missing dependency'
    case 'cohort_not_found':
      return 'Flag cannot be evaluated: a cohort it uses is not available'
  }
}

// Reasons are immutable and shared: one object per (code, condition index, skipped group type).
const reasons = new Map<string, Reason[]>()
function reason(code: ReasonCode, index: number | null, skippedGroupType = false): Reason {
  const id = skippedGroupType ? `${code}:skipped` : code
  let table = reasons.get(id)
  if (!table) reasons.set(id, (table = []))
  const slot = index === null ? 0 : index + 1
  let r = table[slot]
  if (!r) {
    r = Object.freeze({ code, condition_index: index, description: describe(code, index, skippedGroupType) }) as Reason
    if (slot < 1000) table[slot] = r
  }
  return r
}

// ---- flags compiled once per version -----------------------------------------------------------------

type FilterSource = { kind: 'condition' } | { kind: 'person' } | { kind: 'group'; index: number } | { kind: 'empty' }

interface CompiledCondition {
  /** The condition's aggregation, else the flag's. */
  aggregation: number | null
  rollout: number | null | undefined
  /** A variant override naming a real variant, else null. */
  override: string | null
  /** Property and flag filters in stored order (cohorts are checked after them, as the server does). */
  filters: Array<{ filter: PropertyFilter; source: FilterSource }>
  cohorts: PropertyFilter[]
}

interface CompiledFlag {
  source: FeatureFlag
  filtersRef: FeatureFlag['filters']
  aggregation: number | null
  variantKeys: string[]
  /** Running float64 sums of the variant percentages, in stored order. */
  cumulative: number[]
  /** Payload key (variant or "true") → the JSON-encoded payload. */
  payloads: Map<string, string>
  conditions: CompiledCondition[]
  /** Whether any of the early-access, super-group or holdout rules apply (rare: checked only then). */
  special: boolean
  earlyExit: boolean
}

const compiledFlags = new WeakMap<FeatureFlag, CompiledFlag>()

function compiled(flag: FeatureFlag): CompiledFlag {
  const c = compiledFlags.get(flag)
  if (c && c.filtersRef === flag.filters) return c
  const fresh = compileFlag(flag)
  compiledFlags.set(flag, fresh)
  return fresh
}

function compileFlag(flag: FeatureFlag): CompiledFlag {
  const filters = flag.filters ?? {}
  const aggregation = numberOrNull(filters.aggregation_group_type_index)
  const variants = filters.multivariate?.variants ?? []
  const variantKeys = variants.map((v) => v.key)
  const cumulative: number[] = []
  let sum = 0
  for (const v of variants) cumulative.push((sum += Number(v.rollout_percentage) / 100))
  const payloads = new Map<string, string>()
  if (filters.payloads && typeof filters.payloads === 'object') {
    for (const [k, v] of Object.entries(filters.payloads as Record<string, unknown>)) {
      if (v === null || v === undefined) continue
      const text = typeof v === 'string' ? v : JSON.stringify(v)
      if (text !== undefined) payloads.set(k, text)
    }
  }
  const conditions = (filters.groups ?? []).map((condition): CompiledCondition => {
    const conditionAggregation = numberOrNull(condition.aggregation_group_type_index) ?? aggregation
    const props: CompiledCondition['filters'] = []
    const cohorts: PropertyFilter[] = []
    for (const stored of condition.properties ?? []) {
      const filter = storedFlagFilter(stored)
      if (filter.type === 'cohort') cohorts.push(filter)
      else if (filter.type === 'flag') props.push({ filter, source: { kind: 'condition' } })
      else if (filter.type === 'group') {
        const index = numberOrNull(filter.groupTypeIndex) ?? conditionAggregation
        props.push({ filter, source: index === null ? { kind: 'empty' } : { kind: 'group', index } })
      } else if (filter.type === 'person' && conditionAggregation !== null) props.push({ filter, source: { kind: 'person' } })
      else props.push({ filter, source: { kind: 'condition' } })
    }
    return {
      aggregation: conditionAggregation,
      rollout: condition.rollout_percentage,
      override: condition.variant && variantKeys.includes(condition.variant) ? condition.variant : null,
      filters: props,
      cohorts,
    }
  })
  const special =
    filters.feature_enrollment === true ||
    (Array.isArray(filters.super_groups) && filters.super_groups.length > 0) ||
    !!filters.holdout ||
    Array.isArray(filters.holdout_groups)
  return {
    source: flag,
    filtersRef: flag.filters,
    aggregation,
    variantKeys,
    cumulative,
    payloads,
    conditions,
    special,
    earlyExit: filters.early_exit === true,
  }
}

// ---- evaluation ---------------------------------------------------------------------------------------

/** Per flag list (the service's list is replaced when a flag changes): flags by id, and whether any depends on another. */
interface FlagIndex {
  byId: Map<string, FeatureFlag>
  dependencies: boolean
}

const indexes = new WeakMap<readonly FeatureFlag[], FlagIndex>()

function indexOf(flags: readonly FeatureFlag[]): FlagIndex {
  let index = indexes.get(flags)
  if (!index) {
    const byId = new Map<string, FeatureFlag>()
    for (const f of flags) byId.set(String(f.id), f)
    const dependencies = flags.some((f) => (f.filters?.groups ?? []).some((g) => (g.properties ?? []).some((p) => p.type === 'flag')))
    indexes.set(flags, (index = { byId, dependencies }))
  }
  return index
}

/** One request's evaluation: results so far and the dependency walk in progress. */
class Evaluation {
  readonly done = new Map<string, FlagResult>()
  readonly visiting = new Set<string>()
  private hashes: IdentifierHashes | null = null

  constructor(
    readonly input: EvaluationInput,
    readonly byId: Map<string, FeatureFlag>,
  ) {}

  /** The memoized hashes of one identifier (almost always the same one for a whole request). */
  hashesOf(identifier: string): IdentifierHashes {
    if (this.hashes === null || this.hashes.identifier !== identifier) this.hashes = hashesFor(identifier)
    return this.hashes
  }

  resultFor(flag: FeatureFlag): FlagResult {
    const cached = this.done.get(flag.key)
    if (cached) return cached
    if (this.visiting.has(flag.key)) return failure(flag, 'missing_dependency')
    this.visiting.add(flag.key)
    const result = this.evaluate(flag)
    this.visiting.delete(flag.key)
    this.done.set(flag.key, result)
    return result
  }

  evaluate(flag: FeatureFlag): FlagResult {
    if (!flag.active) return { flag, enabled: false, variant: null, reason: reason('flag_disabled', null), payload: null, failed: false }
    try {
      return evaluateOne(flag, compiled(flag), this)
    } catch (err) {
      if (err instanceof MissingDependency) return failure(flag, 'missing_dependency')
      if (err instanceof CohortUnavailable) return failure(flag, 'cohort_not_found')
      throw err
    }
  }

  dependencyValue(flagId: string): boolean | string {
    const dep = this.byId.get(flagId)
    if (!dep || dep.deleted) throw new MissingDependency()
    const r = this.resultFor(dep)
    if (r.failed) throw new MissingDependency()
    return r.enabled ? (r.variant ?? true) : false
  }
}

/**
 * Evaluates `flags` (the project's non-deleted flags; inactive ones evaluate to false) and returns the
 * results for the active ones, or only for `onlyKeys` when given (dependencies are still evaluated).
 */
export function evaluateFlags(
  flags: readonly FeatureFlag[],
  input: EvaluationInput,
  onlyKeys?: ReadonlySet<string>,
): Map<string, FlagResult> {
  const out = new Map<string, FlagResult>()
  for (const r of evaluateFlagList(flags, input, onlyKeys)) out.set(r.flag.key, r)
  return out
}

/** evaluateFlags as a list, in the flags' order. */
export function evaluateFlagList(flags: readonly FeatureFlag[], input: EvaluationInput, onlyKeys?: ReadonlySet<string>): FlagResult[] {
  const index = indexOf(flags)
  const run = new Evaluation(input, index.byId)
  const out: FlagResult[] = []
  const seen = index.dependencies || hasDuplicateKeys(flags) ? new Set<string>() : null
  for (let i = 0; i < flags.length; i++) {
    const flag = flags[i]
    if (flag.deleted || !flag.active) continue
    if (onlyKeys && !onlyKeys.has(flag.key)) continue
    if (seen === null) {
      out.push(run.evaluate(flag))
      continue
    }
    // With dependencies, a flag may already have been evaluated; a key listed twice is answered once,
    // by its first flag (results are remembered by key).
    const result = run.resultFor(flag)
    if (seen.has(flag.key)) continue
    seen.add(flag.key)
    out.push(result)
  }
  return out
}

const duplicateKeys = new WeakMap<readonly FeatureFlag[], boolean>()
function hasDuplicateKeys(flags: readonly FeatureFlag[]): boolean {
  let dup = duplicateKeys.get(flags)
  if (dup === undefined) {
    const keys = new Set<string>()
    dup = false
    for (const f of flags) {
      if (f.deleted || !f.active) continue
      if (keys.has(f.key)) dup = true
      keys.add(f.key)
    }
    duplicateKeys.set(flags, dup)
  }
  return dup
}

class MissingDependency extends Error {}

function failure(flag: FeatureFlag, code: 'missing_dependency' | 'cohort_not_found'): FlagResult {
  return { flag, enabled: false, variant: null, reason: reason(code, null), payload: null, failed: true }
}

/** The result of a decided flag: the variant (chosen by hash when not given) and its payload. */
function matched(
  run: Evaluation,
  flag: FeatureFlag,
  c: CompiledFlag,
  enabled: boolean,
  variant: string | null,
  why: Reason,
  identifier: string | null,
): FlagResult {
  let chosen = variant
  if (enabled && chosen === null && identifier !== null) chosen = pickVariant(flag, c, identifier, run)
  const payload = enabled && c.payloads.size > 0 ? (c.payloads.get(chosen ?? 'true') ?? null) : null
  return { flag, enabled, variant: enabled ? chosen : null, reason: why, payload, failed: false }
}

function evaluateOne(flag: FeatureFlag, c: CompiledFlag, run: Evaluation): FlagResult {
  const input = run.input
  const flagAggregation = c.aggregation

  // A group flag with no key for its group type is not evaluated at all.
  if (flagAggregation !== null && groupKeyFor(flagAggregation, input) === null)
    return matched(run, flag, c, false, null, reason('no_group_type', null), null)

  const personId = personIdentifier(flag, input)
  if (c.special) {
    const decided = earlyAccessOrHoldout(flag, c, run, personId)
    if (decided) return decided
  }
  return conditionGroups(flag, c, run, personId)
}

/** Early access (1) and holdouts (2), which decide a flag before its conditions. */
function earlyAccessOrHoldout(flag: FeatureFlag, c: CompiledFlag, run: Evaluation, personId: string | null): FlagResult | null {
  const input = run.input
  const filters = flag.filters ?? {}
  const flagAggregation = c.aggregation

  // 1. Early access.
  if (filters.feature_enrollment === true) {
    const enrollKey = `$feature_enrollment/${flag.key}`
    if (Object.prototype.hasOwnProperty.call(input.personProperties, enrollKey)) {
      const v = input.personProperties[enrollKey]
      const on = v === true || v === 'true'
      return matched(run, flag, c, on, null, reason('super_condition_value', 0), personId ?? input.distinctId)
    }
  } else if (Array.isArray(filters.super_groups) && filters.super_groups.length > 0) {
    const group = filters.super_groups[0]
    const keys = (group.properties ?? []).map((p) => p.key)
    if (keys.some((k) => Object.prototype.hasOwnProperty.call(input.personProperties, k))) {
      const on = (group.properties ?? []).every((p) => safeMatch(parsed(p), input.personProperties, input))
      return matched(run, flag, c, on, null, reason('super_condition_value', 0), personId ?? input.distinctId)
    }
  }

  // 2. Holdouts.
  const holdoutId = flagAggregation !== null ? groupKeyFor(flagAggregation, input) : personId
  if (filters.holdout && typeof filters.holdout.id === 'number' && holdoutId !== null) {
    const pct = Number(filters.holdout.exclusion_percentage)
    if (pct >= 100 || holdoutHash(holdoutId) <= pct / 100) {
      return matched(run, flag, c, true, `holdout-${filters.holdout.id}`, reason('holdout_condition_value', null), holdoutId)
    }
  } else if (Array.isArray(filters.holdout_groups) && holdoutId !== null) {
    for (const group of filters.holdout_groups) {
      const pct = group.rollout_percentage ?? 100
      if (pct >= 100 || holdoutHash(holdoutId) <= pct / 100) {
        return matched(run, flag, c, true, group.variant ?? null, reason('holdout_condition_value', null), holdoutId)
      }
    }
  }
  return null
}

/** 3. Condition groups, in stored order; the first match wins. The best reason among the misses is kept. */
function conditionGroups(flag: FeatureFlag, c: CompiledFlag, run: Evaluation, personId: string | null): FlagResult {
  const input = run.input

  let bestCode: ReasonCode | null = null
  let bestIndex = 0
  let skippedGroupType = false
  const conditions = c.conditions
  for (let index = 0; index < conditions.length; index++) {
    const condition = conditions[index]
    const aggregation = condition.aggregation
    let identifier: string | null
    let properties: Properties
    let missed: ReasonCode | null = null
    if (aggregation !== null) {
      identifier = groupKeyFor(aggregation, input)
      properties = identifier === null ? EMPTY : (input.groupProperties.get(aggregation) ?? EMPTY)
    } else {
      identifier = personId
      properties = input.personProperties
    }
    if (aggregation !== null && identifier === null) {
      skippedGroupType = true
      missed = 'no_group_type'
    } else if (!conditionProperties(condition, properties, input, run)) {
      missed = 'no_condition_match'
    } else if (!inRollout(flag.key, identifier, condition.rollout, run)) {
      missed = 'out_of_rollout_bound'
    } else {
      return matched(run, flag, c, true, condition.override, reason('condition_match', index), identifier ?? '')
    }
    if (bestCode === null || SCORE[missed] >= SCORE[bestCode]) {
      bestCode = missed
      bestIndex = index
    }
    if (missed === 'out_of_rollout_bound' && c.earlyExit) break
  }
  const final: Reason =
    bestCode === null
      ? reason('no_condition_match', null)
      : bestCode === 'no_condition_match'
        ? reason('no_condition_match', bestIndex, skippedGroupType)
        : reason(bestCode, bestIndex)
  return matched(run, flag, c, false, null, final, null)
}

const EMPTY: Properties = Object.freeze({}) as Properties

function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) ? value : null
}

function groupKeyFor(index: number, input: EvaluationInput): string | null {
  const name = input.groupTypeNames.get(index)
  if (name === undefined) return null
  const key = input.groups[name] as unknown
  if (typeof key === 'string') return key
  if (typeof key === 'number') return String(key)
  return null
}

/** Which identifier a person condition hashes (reference §1.2); null: cannot bucket (device id missing). */
function personIdentifier(flag: FeatureFlag, input: EvaluationInput): string | null {
  if (flag.bucketingIdentifier === 'device_id') return input.deviceId ? input.deviceId : null
  if (flag.ensureExperienceContinuity) return input.hashKeyOverrides[flag.key] ?? input.anonDistinctId ?? input.distinctId
  return input.distinctId
}

function inRollout(flagKey: string, identifier: string | null, rollout: number | null | undefined, run: Evaluation): boolean {
  const pct = rollout ?? 100
  if (identifier === null) return false
  if (pct >= 100) return true
  // An empty identifier (a group key of "") hashes to 0.
  const hash = identifier === '' ? 0 : run.hashesOf(identifier).rollout(flagKey)
  return hash <= pct / 100
}

/** The first variant whose running (float64) sum of percentages exceeds the hash; null if they sum below it. */
function pickVariant(flag: FeatureFlag, c: CompiledFlag, identifier: string, run: Evaluation): string | null {
  const cumulative = c.cumulative
  if (cumulative.length === 0) return null
  const hash = identifier === '' ? 0 : run.hashesOf(identifier).variant(flag.key)
  for (let i = 0; i < cumulative.length; i++) if (hash < cumulative[i]) return c.variantKeys[i]
  return null
}

function safeMatch(filter: PropertyFilter, properties: Properties, ctx: EvaluationInput): boolean {
  try {
    const hit = matcherFor(filter)(properties, ctx)
    return filter.negation === true ? !hit : hit
  } catch (err) {
    if (err instanceof MatchError) return false
    throw err
  }
}

/** All filters of one condition, ANDed; flag dependencies inline, cohorts last (as the server does). */
function conditionProperties(condition: CompiledCondition, properties: Properties, input: EvaluationInput, run: Evaluation): boolean {
  const filters = condition.filters
  for (let i = 0; i < filters.length; i++) {
    const { filter, source } = filters[i]
    if (filter.type === 'flag') {
      if (!flagFilterMatches(filter, run)) return false
      continue
    }
    const from =
      source.kind === 'condition'
        ? properties
        : source.kind === 'person'
          ? input.personProperties
          : source.kind === 'group'
            ? (input.groupProperties.get(source.index) ?? EMPTY)
            : EMPTY
    if (!safeMatch(filter, from, input)) return false
  }
  for (const filter of condition.cohorts) {
    const inCohort = cohortMatch(Number(filter.value), properties, input, new Set())
    const wanted = filter.operator === 'not_in' ? !inCohort : inCohort
    if (filter.negation === true ? wanted : !wanted) return false
  }
  return true
}

/** `flag_evaluates_to`: true → any enabled value, false → disabled, a string → that exact variant. */
function flagFilterMatches(filter: PropertyFilter, run: Evaluation): boolean {
  const value = run.dependencyValue(String(filter.key))
  if (filter.operator !== 'flag_evaluates_to') return false
  if (filter.value === true) return value !== false
  if (filter.value === false) return value === false
  if (typeof filter.value === 'string') return typeof value === 'string' && value === filter.value
  return false
}

function cohortMatch(cohortId: number, properties: Properties, input: EvaluationInput, seen: Set<number>): boolean {
  if (!Number.isInteger(cohortId)) throw new CohortUnavailable()
  if (seen.has(cohortId)) return false
  const cohort = input.cohorts.get(input.teamId, cohortId)
  if (!cohort) throw new CohortUnavailable()
  if (cohort.isStatic) {
    if (input.personUuid === null) return false
    const member = input.cohorts.isStaticMember(input.teamId, cohortId, input.personUuid)
    if (member === undefined) throw new CohortUnavailable()
    return member
  }
  // A dynamic cohort with no filters yet (created empty, to be defined after) has no members.
  if (!cohort.properties?.values?.length) return false
  seen.add(cohortId)
  try {
    return groupMatch(cohort.properties, properties, input, seen)
  } finally {
    seen.delete(cohortId)
  }
}

/**
 * Stored filters read outside compiled conditions (cohort definitions, super groups) in the parsed shape,
 * once per stored object (definitions are replaced when they change, never edited).
 */
const parsedFilters = new WeakMap<StoredPropertyFilter, PropertyFilter>()

function parsed(stored: StoredPropertyFilter): PropertyFilter {
  let filter = parsedFilters.get(stored)
  if (!filter) parsedFilters.set(stored, (filter = storedFlagFilter(stored)))
  return filter
}

function groupMatch(
  group: StoredPropertyGroup | null | undefined,
  properties: Properties,
  input: EvaluationInput,
  seen: Set<number>,
): boolean {
  const values = group?.values ?? []
  if (values.length === 0) return true
  const test = (entry: StoredPropertyGroup | StoredPropertyFilter): boolean => {
    if ('values' in entry && Array.isArray(entry.values)) return groupMatch(entry, properties, input, seen)
    const filter = parsed(entry as StoredPropertyFilter)
    if (filter.type === 'cohort') {
      const inCohort = cohortMatch(Number(filter.value), properties, input, seen)
      const hit = filter.operator === 'not_in' ? !inCohort : inCohort
      return filter.negation === true ? !hit : hit
    }
    return safeMatch(filter, properties, input)
  }
  return String(group?.type ?? 'AND').toUpperCase() === 'OR' ? values.some(test) : values.every(test)
}
