// In-memory person state for the ingestion processor: a cache of what the person store holds (loaded
// before each batch; cached-rows.ts keeps each kind of row and its changes), the person id counters
// (ids.ts) and the teams' group types, the output the rules made since the last drain, and an undo journal so one failing item leaves
// no half-applied change behind.
import { CachedRows, DistinctIdRows, groupKey, idKey, personKey } from './cached-rows'
import { personUuid } from './uuid'
import { firstIdAfter, idSpaceKey, type PersonIdSpace } from './ids'
import { capPersonProperties } from './size'
import { LookupSet, type LoadedState, type Lookups } from './store'
import type { ActivityEntry, DistinctIdRow, GroupRow, GroupTypeRow, IngestionWarning, Person, PersonChanges } from '../types'

/** The rules asked for state the loader was not asked to load: a bug in lookups, never a user error. */
export class PersonStateNotLoadedError extends Error {}

export const MAX_GROUP_TYPES_PER_TEAM = 5
const MAX_PENDING_WARNINGS = 10_000

interface TeamState {
  groupTypes: Map<string, number>
  /** Group type indices created in memory since the last drain: no group of theirs can exist in storage. */
  createdIndices: Set<number>
}

export class PersonRepo {
  private readonly maxPersons: number
  private teams = new Map<number, TeamState>()
  /** Next person id per id space (idSpaceKey), once loaded. */
  private readonly nextPersonIds = new Map<string, number>()
  /** Where new person ids come from: the partition of the batch being processed. */
  private idSpace: PersonIdSpace = { partition: 0, partitions: 1 }
  /** Ticks on every use of a cached row (cached-rows.ts): a moment to evict up to (evict). */
  private readonly clock = { tick: 0 }
  private readonly persons = new CachedRows<Person>(this.clock)
  private readonly distinctIds = new DistinctIdRows(this.clock)
  private readonly groups = new CachedRows<GroupRow>(this.clock)
  private newGroupTypes: GroupTypeRow[] = []
  private activity: ActivityEntry[] = []
  private warnings: IngestionWarning[] = []
  /** While an atomic block runs: what undoes each of its writes, in order. */
  private undo: Array<() => void> | null = null

  constructor(options?: { maxPersons?: number }) {
    this.maxPersons = options?.maxPersons ?? 200_000
  }

  // ---- loading ----

  /** What of `wanted` is not known in memory (neither present nor known-absent). */
  unknown(wanted: Lookups): Lookups {
    const out = new LookupSet()
    if (wanted.personIds && !this.nextPersonIds.has(idSpaceKey(wanted.personIds))) out.personIds(wanted.personIds)
    for (const teamId of wanted.teamIds) if (!this.teams.has(teamId)) out.team(teamId)
    for (const { teamId, distinctId } of wanted.distinctIds) {
      const key = idKey(teamId, distinctId)
      if (!this.distinctIds.has(key)) {
        out.distinctId(teamId, distinctId)
        continue
      }
      const row = this.distinctIds.peek(key)
      if (row && !row.isDeleted && !this.persons.has(personKey(teamId, row.personUuid))) out.distinctId(teamId, distinctId)
    }
    for (const { teamId, personUuid: uuid } of wanted.personUuids) {
      if (!this.persons.has(personKey(teamId, uuid))) out.personUuid(teamId, uuid)
    }
    for (const g of wanted.groups) {
      const team = this.teams.get(g.teamId)
      if (!team) {
        out.team(g.teamId)
        out.group(g.teamId, g.groupType, g.groupKey)
        continue
      }
      const index = team.groupTypes.get(g.groupType)
      if (index === undefined || team.createdIndices.has(index)) continue // no such group can be stored
      if (!this.groups.has(groupKey(g.teamId, index, g.groupKey))) {
        // The loader resolves group types through the team rows it loads, so ask for the team too.
        out.team(g.teamId)
        out.group(g.teamId, g.groupType, g.groupKey)
      }
    }
    return out.lookups()
  }

  /** Stores what the loader found; every lookup in `asked` that `state` does not contain becomes known-absent. */
  load(asked: Lookups, state: LoadedState): void {
    if (asked.personIds) {
      const key = idSpaceKey(asked.personIds)
      const stored = state.nextPersonId ?? firstIdAfter(asked.personIds, 0)
      // Memory may be ahead (not yet drained); never go back.
      this.nextPersonIds.set(key, Math.max(this.nextPersonIds.get(key) ?? 0, stored))
    }
    for (const t of state.teams) {
      const existing = this.teams.get(t.teamId)
      const groupTypes = new Map<string, number>()
      for (const row of t.groupTypes) groupTypes.set(row.groupType, row.groupTypeIndex)
      if (existing) {
        // Memory may be ahead (not yet drained); never go back.
        for (const [type, index] of existing.groupTypes) groupTypes.set(type, index)
        existing.groupTypes = groupTypes
      } else {
        this.teams.set(t.teamId, { groupTypes, createdIndices: new Set() })
      }
    }
    for (const teamId of asked.teamIds) {
      if (!this.teams.has(teamId)) this.teams.set(teamId, { groupTypes: new Map(), createdIndices: new Set() })
    }
    for (const p of state.persons) this.persons.load(personKey(p.teamId, p.uuid), { ...p, properties: { ...p.properties } })
    for (const r of state.distinctIds) this.distinctIds.load(idKey(r.teamId, r.distinctId), { ...r })
    for (const g of state.groups)
      this.groups.load(groupKey(g.teamId, g.groupTypeIndex, g.groupKey), { ...g, properties: { ...g.properties } })
    for (const { teamId, distinctId } of asked.distinctIds) this.distinctIds.absent(idKey(teamId, distinctId))
    for (const { teamId, personUuid: uuid } of asked.personUuids) this.persons.absent(personKey(teamId, uuid))
    for (const g of asked.groups) {
      const index = this.teams.get(g.teamId)?.groupTypes.get(g.groupType)
      if (index !== undefined) this.groups.absent(groupKey(g.teamId, index, g.groupKey))
    }
  }

  // ---- draining and cache management ----

  /** Everything changed since the last call (latest version of each), in a deterministic order; clears the change set. */
  takeChanges(): PersonChanges {
    const persons = this.persons.takeChanges()
    persons.sort((a, b) => a.teamId - b.teamId || compareText(a.uuid, b.uuid))
    const distinctIds = this.distinctIds.takeChanges()
    distinctIds.sort((a, b) => a.teamId - b.teamId || compareText(a.distinctId, b.distinctId))
    const groups = this.groups.takeChanges()
    groups.sort((a, b) => a.teamId - b.teamId || a.groupTypeIndex - b.groupTypeIndex || compareText(a.groupKey, b.groupKey))
    const groupTypes = this.newGroupTypes.map((g) => ({ ...g }))
    groupTypes.sort((a, b) => a.teamId - b.teamId || a.groupTypeIndex - b.groupTypeIndex)
    const activity = this.activity
    this.newGroupTypes = []
    this.activity = []
    for (const team of this.teams.values()) team.createdIndices.clear()
    return { persons, distinctIds, activity, groups, groupTypes }
  }

  /** Warnings recorded since the last call (PostHog's ingestion warnings), oldest first. */
  takeWarnings(): IngestionWarning[] {
    const out = this.warnings
    this.warnings = []
    return out
  }

  /** The moment now, on the clock of uses: what evict(now) may drop is what was used up to here. */
  now(): number {
    return this.clock.tick
  }

  /**
   * Drops clean entries beyond maxPersons (never dirty ones), least recently used first, and none used
   * after the moment `usedBy` (now()): rows of ranges not yet stored stay.
   */
  evict(usedBy = Infinity): void {
    // A live person leaves together with its distinct ids, so a cached person always has them all.
    const liveIds = (person: Person | null) =>
      person && !person.isDeleted ? this.distinctIds.ofPerson(person.teamId, person.uuid) : undefined
    this.persons.evict(
      this.maxPersons,
      {
        keep: (person) => [...(liveIds(person) ?? [])].some((id) => this.distinctIds.isRecent(idKey(person!.teamId, id), usedBy)),
        dropping: (person) => {
          for (const id of [...(liveIds(person) ?? [])]) this.distinctIds.forget(idKey(person!.teamId, id))
        },
      },
      usedBy,
    )
    this.distinctIds.evict(
      this.maxPersons,
      { keep: (row) => Boolean(row && !row.isDeleted && this.persons.peek(personKey(row.teamId, row.personUuid))) },
      usedBy,
    )
    this.groups.evict(this.maxPersons, {}, usedBy)
  }

  /** Forget everything (used before replaying a batch after a crash). */
  clear(): void {
    this.teams.clear()
    this.nextPersonIds.clear()
    this.persons.clear()
    this.distinctIds.clear()
    this.groups.clear()
    this.newGroupTypes = []
    this.activity = []
    this.warnings = []
    this.undo = null
  }

  /** Runs `fn`; if it throws, every change it made to this repository is rolled back. */
  atomically<T>(fn: () => T): T {
    if (this.undo) return fn()
    const journal: Array<() => void> = []
    this.undo = journal
    const activityLength = this.activity.length
    const warningsLength = this.warnings.length
    const groupTypesLength = this.newGroupTypes.length
    try {
      const result = fn()
      this.undo = null
      return result
    } catch (err) {
      this.undo = null
      for (let i = journal.length - 1; i >= 0; i--) journal[i]()
      this.activity.length = activityLength
      this.warnings.length = warningsLength
      this.newGroupTypes.length = groupTypesLength
      throw err
    }
  }

  // ---- reads for the rules ----

  /** Person by uuid (deleted ones included), null when it does not exist. */
  person(teamId: number, uuid: string): Person | null {
    const found = this.peekPerson(teamId, uuid)
    if (found === undefined) throw new PersonStateNotLoadedError(`person ${uuid} of team ${teamId} was not loaded`)
    return found
  }

  /** Like person(), but undefined when the repository does not know. */
  peekPerson(teamId: number, uuid: string): Person | null | undefined {
    return this.persons.use(personKey(teamId, uuid))
  }

  /** The latest distinct-id row (possibly a tombstone), null when the id was never seen. */
  distinctIdRow(teamId: number, distinctId: string): DistinctIdRow | null {
    const row = this.distinctIds.use(idKey(teamId, distinctId))
    if (row === undefined) throw new PersonStateNotLoadedError(`distinct id ${JSON.stringify(distinctId)} of team ${teamId} was not loaded`)
    return row
  }

  /** The live person a distinct id belongs to, or null. */
  personForDistinctId(teamId: number, distinctId: string): Person | null {
    const row = this.distinctIdRow(teamId, distinctId)
    if (!row || row.isDeleted) return null
    const person = this.person(teamId, row.personUuid)
    return person && !person.isDeleted ? person : null
  }

  /**
   * A person's distinct ids. Storage keeps no insertion order, so the order is derived from the state:
   * the id the person's uuid was made from comes first, then the others in code-unit order.
   */
  distinctIdsOf(teamId: number, uuid: string): string[] {
    const ids = [...(this.distinctIds.ofPerson(teamId, uuid) ?? [])]
    const primary = ids.filter((id) => personUuid(teamId, id) === uuid)
    const rest = ids.filter((id) => personUuid(teamId, id) !== uuid).sort(compareText)
    return [...primary.sort(compareText), ...rest]
  }

  groupTypeIndex(teamId: number, groupType: string): number | undefined {
    return this.team(teamId).groupTypes.get(groupType)
  }

  /** The group, null when it does not exist. */
  group(teamId: number, groupTypeIndex: number, key: string): GroupRow | null {
    const k = groupKey(teamId, groupTypeIndex, key)
    const found = this.groups.use(k)
    if (found !== undefined) return found
    if (this.team(teamId).createdIndices.has(groupTypeIndex)) {
      this.groups.absent(k) // a type made in memory has no stored groups; remember that
      return null
    }
    throw new PersonStateNotLoadedError(`group ${groupTypeIndex}:${JSON.stringify(key)} of team ${teamId} was not loaded`)
  }

  // ---- writes for the rules ----

  /** Ids of new persons come from `space` from now on (the processor sets it per batch). */
  useIdSpace(space: PersonIdSpace): void {
    this.idSpace = space
  }

  /** The next integer person id of the current id space: unique across every project. */
  allocatePersonId(): number {
    const key = idSpaceKey(this.idSpace)
    const id = this.nextPersonIds.get(key)
    if (id === undefined) throw new PersonStateNotLoadedError(`person ids of partition ${key} were not loaded`)
    this.nextPersonIds.set(key, id + this.idSpace.partitions)
    this.journal(() => this.nextPersonIds.set(key, id))
    return id
  }

  /** Index of a group type, assigning the lowest free one (0–4) on first sight; null when the team is full. */
  ensureGroupType(teamId: number, groupType: string): number | null {
    const team = this.team(teamId)
    const known = team.groupTypes.get(groupType)
    if (known !== undefined) return known
    const used = new Set(team.groupTypes.values())
    let index = 0
    while (used.has(index)) index++
    if (index >= MAX_GROUP_TYPES_PER_TEAM) return null
    this.recordTeam(teamId, team)
    team.groupTypes.set(groupType, index)
    team.createdIndices.add(index)
    this.newGroupTypes.push({ teamId, groupType, groupTypeIndex: index })
    return index
  }

  /** Writes a person version and returns it as stored: properties past PostHog's size limit are refused (size.ts). */
  putPerson(person: Person): Person {
    const key = personKey(person.teamId, person.uuid)
    const capped = capPersonProperties(person, this.persons.peek(key))
    if (capped.warning) this.warn(capped.warning)
    this.journal(this.persons.put(key, capped.person))
    return capped.person
  }

  putDistinctId(row: DistinctIdRow): void {
    this.journal(this.distinctIds.put(idKey(row.teamId, row.distinctId), row))
  }

  putGroup(row: GroupRow): void {
    this.journal(this.groups.put(groupKey(row.teamId, row.groupTypeIndex, row.groupKey), row))
  }

  addActivity(entry: ActivityEntry): void {
    this.activity.push(entry)
  }

  /** Records a warning; past MAX_PENDING_WARNINGS undrained ones, new warnings are dropped. */
  warn(warning: IngestionWarning): void {
    if (this.warnings.length < MAX_PENDING_WARNINGS) this.warnings.push(warning)
  }

  // ---- internals ----

  private team(teamId: number): TeamState {
    const team = this.teams.get(teamId)
    if (!team) throw new PersonStateNotLoadedError(`team ${teamId} was not loaded`)
    return team
  }

  private recordTeam(teamId: number, team: TeamState): void {
    if (!this.undo) return
    const prev: TeamState = {
      groupTypes: new Map(team.groupTypes),
      createdIndices: new Set(team.createdIndices),
    }
    this.journal(() => this.teams.set(teamId, prev))
  }

  private journal(undo: () => void): void {
    this.undo?.push(undo)
  }
}

export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
