// Test support: an in-memory stand-in for the ClickHouse person tables and the loader, so tests can run
// batches the way the processor does (unknown → load → rules → takeChanges → store → evict).
import type { LoadedState, Lookups, PersonRepo } from './person-repo'
import { personUuid } from './person-uuid'
import { applyCommand, lookupsFor, processEvent, type CommandResult } from './person-rules'
import type { DistinctIdRow, GroupRow, GroupTypeRow, IngestEvent, Person, PersonChanges, PersonCommand, ProcessedEvent } from './types'

const k = (...parts: Array<string | number>) => parts.join('\u0000')

export class FakeStore {
  persons = new Map<string, Person>()
  distinctIds = new Map<string, DistinctIdRow>()
  groups = new Map<string, GroupRow>()
  groupTypes: GroupTypeRow[] = []
  queries = 0

  /** Like ReplacingMergeTree(version): the highest version wins, the later insert on ties. */
  apply(changes: PersonChanges): void {
    for (const p of changes.persons) {
      const key = k(p.teamId, p.uuid)
      const old = this.persons.get(key)
      if (!old || old.version <= p.version) this.persons.set(key, structuredClone(p))
    }
    for (const r of changes.distinctIds) {
      const key = k(r.teamId, r.distinctId)
      const old = this.distinctIds.get(key)
      if (!old || old.version <= r.version) this.distinctIds.set(key, { ...r })
    }
    for (const g of changes.groups) {
      const key = k(g.teamId, g.groupTypeIndex, g.groupKey)
      const old = this.groups.get(key)
      if (!old || old.version <= g.version) this.groups.set(key, structuredClone(g))
    }
    this.groupTypes.push(...changes.groupTypes)
  }

  /** The loader's algorithm, over this store. */
  load(wanted: Lookups): LoadedState {
    this.queries++
    const state: LoadedState = { teams: [], distinctIds: [], persons: [], groups: [] }
    const teams = new Set([...wanted.teamIds, ...wanted.distinctIds.map((d) => d.teamId), ...wanted.personUuids.map((p) => p.teamId), ...wanted.groups.map((g) => g.teamId)])
    for (const teamId of teams) {
      if (wanted.teamIds.includes(teamId)) {
        const ids = [...this.persons.values()].filter((p) => p.teamId === teamId).map((p) => p.id)
        state.teams.push({ teamId, nextPersonId: Math.max(0, ...ids) + 1, groupTypes: this.groupTypes.filter((g) => g.teamId === teamId).map((g) => ({ ...g })) })
      }
      const ids = wanted.distinctIds.filter((d) => d.teamId === teamId).map((d) => d.distinctId)
      const idRows = ids.flatMap((id) => {
        const row = this.distinctIds.get(k(teamId, id))
        return row ? [{ ...row }] : []
      })
      const uuids = new Set(wanted.personUuids.filter((p) => p.teamId === teamId).map((p) => p.personUuid))
      for (const row of idRows) uuids.add(row.personUuid)
      for (const id of ids) if (!idRows.some((r) => r.distinctId === id)) uuids.add(personUuid(teamId, id))
      const persons = [...uuids].flatMap((uuid) => {
        const p = this.persons.get(k(teamId, uuid))
        return p ? [structuredClone(p)] : []
      })
      const live = new Set(persons.filter((p) => !p.isDeleted).map((p) => p.uuid))
      const allIds = [...this.distinctIds.values()].filter((r) => r.teamId === teamId && live.has(r.personUuid)).map((r) => ({ ...r }))
      const byId = new Map<string, DistinctIdRow>()
      for (const row of [...idRows, ...allIds]) byId.set(row.distinctId, row)
      state.distinctIds.push(...byId.values())
      state.persons.push(...persons)
      const known = state.teams.find((t) => t.teamId === teamId)?.groupTypes ?? []
      for (const g of wanted.groups.filter((x) => x.teamId === teamId)) {
        const index = known.find((t) => t.groupType === g.groupType)?.groupTypeIndex
        const row = index === undefined ? undefined : this.groups.get(k(teamId, index, g.groupKey))
        if (row) state.groups.push(structuredClone(row))
      }
    }
    return state
  }

  person(teamId: number, uuid: string): Person | undefined {
    return this.persons.get(k(teamId, uuid))
  }

  row(teamId: number, distinctId: string): DistinctIdRow | undefined {
    return this.distinctIds.get(k(teamId, distinctId))
  }

  /** Live distinct ids of a person, sorted. */
  idsOf(teamId: number, uuid: string): string[] {
    return [...this.distinctIds.values()]
      .filter((r) => r.teamId === teamId && r.personUuid === uuid && !r.isDeleted)
      .map((r) => r.distinctId)
      .sort()
  }
}

export type Item = IngestEvent | PersonCommand
export type Output = ProcessedEvent | CommandResult

/** One processor batch: load what is unknown, run the rules, drain, store, evict. */
export function runBatch(repo: PersonRepo, store: FakeStore, items: Item[]): { outputs: Output[]; changes: PersonChanges } {
  const wanted = repo.unknown(lookupsFor(items))
  repo.load(wanted, store.load(wanted))
  const outputs = items.map((item) => ('action' in item ? applyCommand(repo, item) : processEvent(repo, item)))
  const changes = repo.takeChanges()
  store.apply(changes)
  repo.evict()
  return { outputs, changes }
}

let counter = 0

/** An event with sensible defaults; `at` is a second offset from a fixed base. */
export function ev(distinctId: string, event: string, properties: Record<string, unknown> = {}, at = 0, teamId = 1): IngestEvent {
  counter++
  const timestamp = new Date(Date.UTC(2024, 0, 1, 0, 0, at)).toISOString()
  return {
    teamId,
    uuid: `00000000-0000-4000-8000-${String(counter).padStart(12, '0')}`,
    event,
    distinctId,
    properties,
    timestamp,
    now: timestamp,
    elementsChain: '',
  }
}
