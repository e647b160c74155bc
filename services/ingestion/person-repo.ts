// In-memory person state for the ingestion processor: a cache of what ClickHouse holds (loaded before
// each batch), the writes the rules made since the last drain, and an undo log so one failing item
// leaves no half-applied change behind.
import type { ActivityEntry, DistinctIdRow, GroupRow, GroupTypeRow, Person, PersonChanges, Properties } from './types'
import { personUuid } from './person-uuid'
import { capPersonProperties } from './person-size'

export interface Lookups {
  teamIds: number[]
  distinctIds: Array<{ teamId: number; distinctId: string }>
  personUuids: Array<{ teamId: number; personUuid: string }>
  groups: Array<{ teamId: number; groupType: string; groupKey: string }>
}

export interface LoadedState {
  teams: Array<{ teamId: number; nextPersonId: number; groupTypes: GroupTypeRow[] }>
  /** Latest row per distinct id, deleted ones included (isDeleted true). */
  distinctIds: DistinctIdRow[]
  /** Latest version per uuid, deleted ones included (isDeleted true). */
  persons: Person[]
  groups: GroupRow[]
}

/** PostHog-style ingestion warning (e.g. cannot_merge_already_identified). */
export interface IngestionWarning {
  teamId: number
  type: string
  details: Properties
}

/** The rules asked for state the loader was not asked to load: a bug in lookups, never a user error. */
export class PersonStateNotLoadedError extends Error {}

export const MAX_GROUP_TYPES_PER_TEAM = 5
const MAX_PENDING_WARNINGS = 10_000

interface TeamState {
  nextPersonId: number
  groupTypes: Map<string, number>
  /** Group type indices created in memory since the last drain: no group of theirs can exist in storage. */
  createdIndices: Set<number>
}

type UndoEntry =
  | { kind: 'person'; key: string; prev: Person | null | undefined; wasDirty: boolean }
  | { kind: 'id'; key: string; prev: DistinctIdRow | null | undefined; wasDirty: boolean }
  | { kind: 'group'; key: string; prev: GroupRow | null | undefined; wasDirty: boolean }
  | { kind: 'team'; teamId: number; prev: TeamState }

const SEP = '\u0000'
const idKey = (teamId: number, distinctId: string) => `${teamId}${SEP}${distinctId}`
const personKey = (teamId: number, uuid: string) => `${teamId}${SEP}${uuid}`
const groupKey = (teamId: number, index: number, key: string) => `${teamId}${SEP}${index}${SEP}${key}`

export class PersonRepo {
  private readonly maxPersons: number
  private teams = new Map<number, TeamState>()
  /** null = known absent. Map order is least-recently-used first. */
  private persons = new Map<string, Person | null>()
  private distinctIds = new Map<string, DistinctIdRow | null>()
  /** personKey → distinct ids whose live row points at that person. */
  private idsByPerson = new Map<string, Set<string>>()
  private groups = new Map<string, GroupRow | null>()
  private dirtyPersons = new Set<string>()
  private dirtyIds = new Set<string>()
  private dirtyGroups = new Set<string>()
  private newGroupTypes: GroupTypeRow[] = []
  private activity: ActivityEntry[] = []
  private warnings: IngestionWarning[] = []
  private undo: UndoEntry[] | null = null

  constructor(options?: { maxPersons?: number }) {
    this.maxPersons = options?.maxPersons ?? 200_000
  }

  // ---- loading ----

  /** What of `wanted` is not known in memory (neither present nor known-absent). */
  unknown(wanted: Lookups): Lookups {
    const out = new LookupSet()
    for (const teamId of wanted.teamIds) if (!this.teams.has(teamId)) out.team(teamId)
    for (const { teamId, distinctId } of wanted.distinctIds) {
      const key = idKey(teamId, distinctId)
      if (!this.distinctIds.has(key)) {
        out.distinctId(teamId, distinctId)
        continue
      }
      const row = this.distinctIds.get(key)
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
    for (const t of state.teams) {
      const existing = this.teams.get(t.teamId)
      const groupTypes = new Map<string, number>()
      for (const row of t.groupTypes) groupTypes.set(row.groupType, row.groupTypeIndex)
      if (existing) {
        // Memory may be ahead (not yet drained); never go back.
        for (const [type, index] of existing.groupTypes) groupTypes.set(type, index)
        existing.groupTypes = groupTypes
        existing.nextPersonId = Math.max(existing.nextPersonId, t.nextPersonId)
      } else {
        this.teams.set(t.teamId, { nextPersonId: Math.max(1, t.nextPersonId), groupTypes, createdIndices: new Set() })
      }
    }
    for (const teamId of asked.teamIds) {
      if (!this.teams.has(teamId)) this.teams.set(teamId, { nextPersonId: 1, groupTypes: new Map(), createdIndices: new Set() })
    }
    for (const p of state.persons) {
      const key = personKey(p.teamId, p.uuid)
      const current = this.persons.get(key)
      if (this.dirtyPersons.has(key) || (current && current.version >= p.version)) continue
      this.persons.delete(key)
      this.persons.set(key, { ...p, properties: { ...p.properties } })
    }
    for (const r of state.distinctIds) {
      const key = idKey(r.teamId, r.distinctId)
      const current = this.distinctIds.get(key)
      if (this.dirtyIds.has(key) || (current && current.version >= r.version)) continue
      this.storeRow(key, { ...r })
    }
    for (const g of state.groups) {
      const key = groupKey(g.teamId, g.groupTypeIndex, g.groupKey)
      const current = this.groups.get(key)
      if (this.dirtyGroups.has(key) || (current && current.version >= g.version)) continue
      this.groups.delete(key)
      this.groups.set(key, { ...g, properties: { ...g.properties } })
    }
    for (const { teamId, distinctId } of asked.distinctIds) {
      const key = idKey(teamId, distinctId)
      if (!this.distinctIds.has(key)) this.distinctIds.set(key, null)
    }
    for (const { teamId, personUuid: uuid } of asked.personUuids) {
      const key = personKey(teamId, uuid)
      if (!this.persons.has(key)) this.persons.set(key, null)
    }
    for (const g of asked.groups) {
      const index = this.teams.get(g.teamId)?.groupTypes.get(g.groupType)
      if (index === undefined) continue
      const key = groupKey(g.teamId, index, g.groupKey)
      if (!this.groups.has(key)) this.groups.set(key, null)
    }
  }

  // ---- draining and cache management ----

  /** Everything changed since the last call (latest version of each), in a deterministic order; clears the change set. */
  takeChanges(): PersonChanges {
    const persons = [...this.dirtyPersons].map((k) => structuredClone(this.persons.get(k) as Person))
    persons.sort((a, b) => a.teamId - b.teamId || compareText(a.uuid, b.uuid))
    const distinctIds = [...this.dirtyIds].map((k) => ({ ...(this.distinctIds.get(k) as DistinctIdRow) }))
    distinctIds.sort((a, b) => a.teamId - b.teamId || compareText(a.distinctId, b.distinctId))
    const groups = [...this.dirtyGroups].map((k) => structuredClone(this.groups.get(k) as GroupRow))
    groups.sort((a, b) => a.teamId - b.teamId || a.groupTypeIndex - b.groupTypeIndex || compareText(a.groupKey, b.groupKey))
    const groupTypes = this.newGroupTypes.map((g) => ({ ...g }))
    groupTypes.sort((a, b) => a.teamId - b.teamId || a.groupTypeIndex - b.groupTypeIndex)
    const activity = structuredClone(this.activity)
    this.dirtyPersons.clear()
    this.dirtyIds.clear()
    this.dirtyGroups.clear()
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

  /** Drops clean entries beyond maxPersons (never dirty ones), least recently used first. */
  evict(): void {
    let excess = this.persons.size - this.maxPersons
    if (excess > 0) {
      for (const [key, person] of this.persons) {
        if (excess <= 0) break
        if (this.dirtyPersons.has(key)) continue
        // A live person leaves together with its distinct ids, so a cached person always has them all.
        const ids = person && !person.isDeleted ? this.idsByPerson.get(key) : undefined
        if (ids && [...ids].some((id) => this.dirtyIds.has(idKey(person!.teamId, id)))) continue
        if (ids) for (const id of [...ids]) this.dropRow(idKey(person!.teamId, id))
        this.persons.delete(key)
        excess--
      }
    }
    excess = this.distinctIds.size - this.maxPersons
    if (excess > 0) {
      for (const [key, row] of this.distinctIds) {
        if (excess <= 0) break
        if (this.dirtyIds.has(key)) continue
        const attached = row && !row.isDeleted && this.persons.get(personKey(row.teamId, row.personUuid))
        if (attached) continue
        this.dropRow(key)
        excess--
      }
    }
    excess = this.groups.size - this.maxPersons
    if (excess > 0) {
      for (const key of this.groups.keys()) {
        if (excess <= 0) break
        if (this.dirtyGroups.has(key)) continue
        this.groups.delete(key)
        excess--
      }
    }
  }

  /** Forget everything (used before replaying a batch after a crash). */
  clear(): void {
    this.teams.clear()
    this.persons.clear()
    this.distinctIds.clear()
    this.idsByPerson.clear()
    this.groups.clear()
    this.dirtyPersons.clear()
    this.dirtyIds.clear()
    this.dirtyGroups.clear()
    this.newGroupTypes = []
    this.activity = []
    this.warnings = []
    this.undo = null
  }

  /** Runs `fn`; if it throws, every change it made to this repository is rolled back. */
  atomically<T>(fn: () => T): T {
    if (this.undo) return fn()
    const log: UndoEntry[] = []
    this.undo = log
    const activityLength = this.activity.length
    const warningsLength = this.warnings.length
    const groupTypesLength = this.newGroupTypes.length
    try {
      const result = fn()
      this.undo = null
      return result
    } catch (err) {
      this.undo = null
      for (let i = log.length - 1; i >= 0; i--) this.revert(log[i])
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
    const key = personKey(teamId, uuid)
    const found = this.persons.get(key)
    if (found !== undefined) {
      this.persons.delete(key)
      this.persons.set(key, found)
    }
    return found
  }

  /** The latest distinct-id row (possibly a tombstone), null when the id was never seen. */
  distinctIdRow(teamId: number, distinctId: string): DistinctIdRow | null {
    const key = idKey(teamId, distinctId)
    const row = this.distinctIds.get(key)
    if (row === undefined) throw new PersonStateNotLoadedError(`distinct id ${JSON.stringify(distinctId)} of team ${teamId} was not loaded`)
    this.distinctIds.delete(key)
    this.distinctIds.set(key, row)
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
    const ids = [...(this.idsByPerson.get(personKey(teamId, uuid)) ?? [])]
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
    const found = this.groups.get(k)
    if (found !== undefined) {
      this.groups.delete(k)
      this.groups.set(k, found)
      return found
    }
    if (this.team(teamId).createdIndices.has(groupTypeIndex)) {
      this.groups.set(k, null) // a type made in memory has no stored groups; remember that
      return null
    }
    throw new PersonStateNotLoadedError(`group ${groupTypeIndex}:${JSON.stringify(key)} of team ${teamId} was not loaded`)
  }

  // ---- writes for the rules ----

  /** Next integer person id of the team. */
  allocatePersonId(teamId: number): number {
    const team = this.team(teamId)
    this.recordTeam(teamId, team)
    return team.nextPersonId++
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

  /** Writes a person version and returns it as stored: properties past PostHog's size limit are refused (person-size.ts). */
  putPerson(person: Person): Person {
    const key = personKey(person.teamId, person.uuid)
    const prev = this.persons.get(key)
    const capped = capPersonProperties(person, prev)
    if (capped.warning) this.warn(capped.warning)
    this.undo?.push({ kind: 'person', key, prev, wasDirty: this.dirtyPersons.has(key) })
    this.persons.delete(key)
    this.persons.set(key, capped.person)
    this.dirtyPersons.add(key)
    return capped.person
  }

  putDistinctId(row: DistinctIdRow): void {
    const key = idKey(row.teamId, row.distinctId)
    this.undo?.push({ kind: 'id', key, prev: this.distinctIds.get(key), wasDirty: this.dirtyIds.has(key) })
    this.storeRow(key, row)
    this.dirtyIds.add(key)
  }

  putGroup(row: GroupRow): void {
    const key = groupKey(row.teamId, row.groupTypeIndex, row.groupKey)
    this.undo?.push({ kind: 'group', key, prev: this.groups.get(key), wasDirty: this.dirtyGroups.has(key) })
    this.groups.delete(key)
    this.groups.set(key, row)
    this.dirtyGroups.add(key)
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
    this.undo.push({ kind: 'team', teamId, prev: { nextPersonId: team.nextPersonId, groupTypes: new Map(team.groupTypes), createdIndices: new Set(team.createdIndices) } })
  }

  private storeRow(key: string, row: DistinctIdRow | null): void {
    const previous = this.distinctIds.get(key)
    if (previous && !previous.isDeleted) {
      const owner = personKey(previous.teamId, previous.personUuid)
      const set = this.idsByPerson.get(owner)
      set?.delete(previous.distinctId)
      if (set && set.size === 0) this.idsByPerson.delete(owner)
    }
    this.distinctIds.delete(key)
    this.distinctIds.set(key, row)
    if (row && !row.isDeleted) {
      const owner = personKey(row.teamId, row.personUuid)
      let set = this.idsByPerson.get(owner)
      if (!set) this.idsByPerson.set(owner, (set = new Set()))
      set.add(row.distinctId)
    }
  }

  private dropRow(key: string): void {
    this.storeRow(key, null)
    this.distinctIds.delete(key)
  }

  private revert(entry: UndoEntry): void {
    switch (entry.kind) {
      case 'person':
        if (entry.prev === undefined) this.persons.delete(entry.key)
        else this.persons.set(entry.key, entry.prev)
        if (!entry.wasDirty) this.dirtyPersons.delete(entry.key)
        break
      case 'id':
        if (entry.prev === undefined) this.dropRow(entry.key)
        else this.storeRow(entry.key, entry.prev)
        if (!entry.wasDirty) this.dirtyIds.delete(entry.key)
        break
      case 'group':
        if (entry.prev === undefined) this.groups.delete(entry.key)
        else this.groups.set(entry.key, entry.prev)
        if (!entry.wasDirty) this.dirtyGroups.delete(entry.key)
        break
      case 'team':
        this.teams.set(entry.teamId, entry.prev)
        break
    }
  }
}

/** Collects lookups without duplicates, keeping first-seen order. */
export class LookupSet {
  private readonly seen = new Set<string>()
  private readonly out: Lookups = { teamIds: [], distinctIds: [], personUuids: [], groups: [] }

  team(teamId: number): void {
    if (this.add(`t${SEP}${teamId}`)) this.out.teamIds.push(teamId)
  }
  distinctId(teamId: number, distinctId: string): void {
    if (this.add(`d${SEP}${idKey(teamId, distinctId)}`)) this.out.distinctIds.push({ teamId, distinctId })
  }
  personUuid(teamId: number, uuid: string): void {
    if (this.add(`p${SEP}${personKey(teamId, uuid)}`)) this.out.personUuids.push({ teamId, personUuid: uuid })
  }
  group(teamId: number, groupType: string, key: string): void {
    if (this.add(`g${SEP}${teamId}${SEP}${groupType}${SEP}${key}`)) this.out.groups.push({ teamId, groupType, groupKey: key })
  }
  lookups(): Lookups {
    return this.out
  }
  private add(key: string): boolean {
    if (this.seen.has(key)) return false
    this.seen.add(key)
    return true
  }
}

export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
