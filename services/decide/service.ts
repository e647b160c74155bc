// Decide's evaluation for one request: flag definitions from the FlagStore, person and group state from
// the snapshot (memory first, ClickHouse on a miss), request overrides and GeoIP merged in, then the
// evaluator. Experience-continuity hash keys are stored when an anonymous id is first identified.
import type { Project } from '../platform/tenancy'
import type { Clock } from '../platform/clock'
import { evaluateFlagList, type FlagResult } from './evaluate'
import type { FlagsRequest } from './request'
import type { PersonEntry, PersonKeys, PersonSnapshot } from './snapshot'
import type { FlagStore } from '../flags/store'
import type { FeatureFlag, Properties } from '../flags/types'
import type { CohortReader } from './cohorts'
import type { GeoLookup } from './geoip'

export interface Evaluation {
  results: FlagResult[]
  errors: boolean
}

/**
 * Everything besides the request that a warm evaluation reads: the project's flag list (a new list on
 * any flag change), its timezone, the person's snapshot entry and its version (a $set, a merge, a stored
 * continuity key), group properties and types, and cohorts. While the stamp holds, the same request gets
 * the same evaluation.
 */
export interface Stamp {
  teamId: number
  distinctId: string
  flags: FeatureFlag[]
  timezone: string
  person: PersonEntry | null
  /** Where the snapshot holds the distinct id and its person (made once: see PersonSnapshot.peekPersonAt). */
  personKeys: PersonKeys
  personVersion: number
  groups: number
  cohorts: number
}

const GEOIP_KEYS = [
  '$geoip_city_name',
  '$geoip_country_name',
  '$geoip_country_code',
  '$geoip_continent_name',
  '$geoip_continent_code',
  '$geoip_postal_code',
  '$geoip_time_zone',
]

export class FlagsService {
  private readonly activeFlags = new Map<number, FeatureFlag[]>()
  /** Whether a flag list (with the cohorts of a cohort version) reads the clock: relative dates. */
  private readonly clockBound = new WeakMap<FeatureFlag[], { cohorts: number; reads: boolean }>()

  constructor(
    private readonly flags: FlagStore,
    private readonly snapshot: PersonSnapshot,
    private readonly cohorts: CohortReader,
    private readonly clock: Clock,
    private readonly geoip: GeoLookup | null,
  ) {
    flags.onChange((teamId) => this.activeFlags.delete(teamId))
  }

  /** Whether evaluations read the client's address (GeoIP): then answers differ by address. */
  get readsIp(): boolean {
    return this.geoip !== null
  }

  /** The project's non-deleted flags (inactive ones included: dependencies read them as false). */
  flagsOf(teamId: number): FeatureFlag[] {
    let list = this.activeFlags.get(teamId)
    if (!list) this.activeFlags.set(teamId, (list = this.flags.all(teamId).filter((f) => !f.deleted)))
    return list
  }

  /**
   * The state a request's evaluation would read right now, when that evaluation can be reused while the
   * state lasts: the person is warm, and no flag (or cohort) compares dates, which move with the clock.
   */
  stamp(project: Project, req: FlagsRequest): Stamp | null {
    const teamId = project.id
    const person = this.snapshot.peekPerson(teamId, req.distinctId)
    if (person === undefined) return null
    const flags = this.flagsOf(teamId)
    const cohorts = this.cohorts.version()
    let bound = this.clockBound.get(flags)
    if (!bound || bound.cohorts !== cohorts) {
      const cohortText = flags.some((f) => JSON.stringify(f.filters).includes('"cohort"')) ? JSON.stringify(this.cohorts.list(teamId)) : ''
      bound = { cohorts, reads: (JSON.stringify(flags.map((f) => f.filters)) + cohortText).includes('is_date_') }
      this.clockBound.set(flags, bound)
    }
    if (bound.reads) return null
    return {
      teamId,
      distinctId: req.distinctId,
      flags,
      timezone: project.timezone,
      person,
      personKeys: this.snapshot.personKeys(teamId, req.distinctId, person),
      personVersion: person?.version ?? 0,
      groups: this.snapshot.groupsVersion,
      cohorts,
    }
  }

  /** Whether an evaluation stamped `stamp` still holds for the same request to this project. */
  holds(stamp: Stamp, project: Project): boolean {
    const person = this.snapshot.peekPersonAt(stamp.personKeys)
    return (
      project.id === stamp.teamId &&
      project.timezone === stamp.timezone &&
      this.flagsOf(stamp.teamId) === stamp.flags &&
      person === stamp.person &&
      (person?.version ?? 0) === stamp.personVersion &&
      this.snapshot.groupsVersion === stamp.groups &&
      this.cohorts.version() === stamp.cohorts
    )
  }

  /**
   * Evaluates the project's flags for one request. Synchronous (no promise, no query) when the person
   * and any groups named are warm in the snapshot and no continuity key must be stored; otherwise the
   * misses are loaded first.
   */
  evaluate(project: Project, req: FlagsRequest, opts: { ip: string | null; onlyOverrides?: boolean }): Evaluation | Promise<Evaluation> {
    const teamId = project.id
    const flags = this.selectFlags(this.flagsOf(teamId), req)
    if (req.disableFlags || flags.length === 0) return { results: [], errors: false }
    const person = this.snapshot.peekPerson(teamId, req.distinctId)
    if (person !== undefined && !this.needsLoad(teamId, person, flags, req, opts)) {
      return this.compute(project, flags, req, opts, person ?? null, this.warmGroups(teamId, req, opts), false)
    }
    return this.evaluateLoading(project, flags, req, opts)
  }

  private async evaluateLoading(
    project: Project,
    flags: FeatureFlag[],
    req: FlagsRequest,
    opts: { ip: string | null; onlyOverrides?: boolean },
  ): Promise<Evaluation> {
    const teamId = project.id
    let storageError = false
    const person = await this.snapshot.person(teamId, req.distinctId).catch(() => ((storageError = true), null))
    const groups = new Map<number, Properties | null>()
    if (!opts.onlyOverrides) {
      for (const [index, name] of this.snapshot.groupTypeNames(teamId)) {
        const key = req.groups[name]
        if (key === undefined) continue
        groups.set(index, await this.snapshot.group(teamId, index, key).catch(() => ((storageError = true), null)))
      }
    }
    let overrides = person?.overrides ?? {}
    if (person && req.anonDistinctId)
      overrides = await this.continuity(teamId, person.uuid, overrides, flags, req.anonDistinctId).catch(
        () => ((storageError = true), overrides),
      )
    return this.compute(project, flags, req, opts, person, groups, storageError, overrides)
  }

  /** Whether the request needs a group loaded or a continuity key stored before it can be answered. */
  private needsLoad(
    teamId: number,
    person: PersonEntry | null,
    flags: FeatureFlag[],
    req: FlagsRequest,
    opts: { onlyOverrides?: boolean },
  ): boolean {
    if (
      person &&
      req.anonDistinctId &&
      flags.some((f) => f.ensureExperienceContinuity && f.active && person.overrides[f.key] === undefined)
    )
      return true
    if (opts.onlyOverrides) return false
    for (const [index, name] of this.snapshot.groupTypeNames(teamId)) {
      const key = req.groups[name]
      if (key !== undefined && this.snapshot.peekGroup(teamId, index, key) === undefined) return true
    }
    return false
  }

  private warmGroups(teamId: number, req: FlagsRequest, opts: { onlyOverrides?: boolean }): Map<number, Properties | null> {
    const groups = new Map<number, Properties | null>()
    if (opts.onlyOverrides) return groups
    for (const [index, name] of this.snapshot.groupTypeNames(teamId)) {
      const key = req.groups[name]
      if (key !== undefined) groups.set(index, this.snapshot.peekGroup(teamId, index, key) ?? null)
    }
    return groups
  }

  private compute(
    project: Project,
    flags: FeatureFlag[],
    req: FlagsRequest,
    opts: { ip: string | null; onlyOverrides?: boolean },
    person: PersonEntry | null,
    storedGroups: Map<number, Properties | null>,
    storageError: boolean,
    overrides: Record<string, string> = person?.overrides ?? {},
  ): Evaluation {
    const teamId = project.id
    const stored = opts.onlyOverrides ? {} : (person?.properties ?? {})
    const personProperties: Properties = { ...stored, ...req.personProperties }
    if (!('distinct_id' in req.personProperties)) personProperties.distinct_id = req.distinctId
    if (!req.geoipDisable && this.geoip && opts.ip) {
      const geo = this.geoip(opts.ip)
      // GeoIP only fills gaps: a $geoip_* value the caller sent wins, unless it is null.
      for (const key of GEOIP_KEYS)
        if (geo[key] !== undefined && (req.personProperties[key] === undefined || req.personProperties[key] === null))
          personProperties[key] = geo[key]
    }

    const groupTypeNames = this.snapshot.groupTypeNames(teamId)
    const groupProperties = new Map<number, Properties>()
    for (const [index, name] of groupTypeNames) {
      const key = req.groups[name]
      if (key === undefined) continue
      groupProperties.set(index, { ...(storedGroups.get(index) ?? {}), ...(req.groupProperties[name] ?? {}), $group_key: key })
    }

    const list = evaluateFlagList(
      flags,
      {
        teamId,
        timezone: project.timezone || 'UTC',
        now: this.clock.now().getTime(),
        distinctId: req.distinctId,
        personUuid: person?.uuid ?? null,
        personProperties,
        groups: req.groups,
        groupProperties,
        groupTypeNames,
        hashKeyOverrides: overrides,
        anonDistinctId: req.anonDistinctId,
        deviceId: req.deviceId,
        cohorts: this.cohorts,
      },
      req.flagKeys ? new Set(req.flagKeys) : undefined,
    )
    let errors = storageError
    if (!errors) for (const r of list) if (r.failed) errors = true
    return { results: list, errors }
  }

  /** Flags with experience continuity hash with the anonymous id the person was first seen as: store it. */
  private async continuity(
    teamId: number,
    personUuid: string,
    current: Record<string, string>,
    flags: FeatureFlag[],
    anonId: string,
  ): Promise<Record<string, string>> {
    const missing = flags.filter((f) => f.ensureExperienceContinuity && f.active && current[f.key] === undefined)
    if (missing.length === 0) return current
    const fresh = Object.fromEntries(missing.map((f) => [f.key, anonId]))
    await this.snapshot.addOverrides(teamId, personUuid, fresh, this.clock.now().toISOString())
    return { ...fresh, ...current }
  }

  /** Drops flags for another runtime, or tagged for contexts the caller did not name. */
  private selectFlags(flags: FeatureFlag[], req: FlagsRequest): FeatureFlag[] {
    if (!req.evaluationRuntime && !(req.evaluationContexts && req.evaluationContexts.length > 0)) return flags
    return flags.filter((f) => {
      if (req.evaluationRuntime && f.evaluationRuntime !== 'all' && f.evaluationRuntime !== req.evaluationRuntime) return false
      if (
        req.evaluationContexts &&
        req.evaluationContexts.length > 0 &&
        f.evaluationTags.length > 0 &&
        !f.evaluationTags.some((t) => req.evaluationContexts!.includes(t))
      )
        return false
      return true
    })
  }
}
