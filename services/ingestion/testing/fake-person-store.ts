// Test support: the person store (persons/store.ts) and the dead letters in memory, with ClickHouse's
// semantics wherever the processor's replay depends on them, so the processor's loop can be unit-tested:
// - every row keeps its origin (the partition and the last offset of the range that wrote it), and a load
//   with a replay bound leaves out the rows at or after it, as the loader's SQL does;
// - an insert whose deduplication token (`table:topic:partition:first-last`) was seen before is dropped;
// - a read takes each key's highest version, the later insert on ties (argMax over a ReplacingMergeTree).
// Rows are kept as inserted (no merges), so a test sees a second copy if a replay wrote one.
import type { DeadLetter, DeadLetterRecorder } from '../../platform/processing/runner'
import type { LogBatch } from '../../platform/log/log'
import type { BatchRange, LoadedState, Lookups, PersonStore, PingResult, ReplayBound } from '../persons/store'
import { personUuid } from '../persons/uuid'
import { firstIdAfter } from '../persons/ids'
import type { ActivityEntry, DistinctIdRow, GroupRow, GroupTypeRow, Person, PersonChanges, ProcessedEvent } from '../types'

interface Row<T> {
  value: T
  partition: number
  /** The last offset of the range that wrote the row (ClickHouse's _offset column). */
  offset: number
}

export interface StoredLetter extends DeadLetter {
  topic: string
  partition: number
}

/** Where seed() rows come from: before any offset of the log, so no replay bound leaves them out. */
const SEEDED = { partition: 0, offset: -1 }

const k = (...parts: Array<string | number>) => parts.join('\u0000')

/** What the fake stores for a range: the output itself. */
export interface FakeWrite {
  range: BatchRange
  changes: PersonChanges
  events: ProcessedEvent[]
}

export class FakePersonStore implements PersonStore<FakeWrite> {
  /** ClickHouse's tables, each row as inserted. */
  private readonly tables = {
    person: [] as Array<Row<Person>>,
    person_distinct_id: [] as Array<Row<DistinctIdRow>>,
    person_activity: [] as Array<Row<ActivityEntry>>,
    groups: [] as Array<Row<GroupRow>>,
    group_type_mapping: [] as Array<Row<GroupTypeRow>>,
    events: [] as Array<Row<ProcessedEvent>>,
    dead_letters: [] as Array<Row<StoredLetter>>,
  }
  private readonly tokens = new Set<string>()
  /** The lookups of every load, in order. */
  readonly loads: Lookups[] = []
  /** Every write the store was asked for (stored or dropped as a duplicate), in order. */
  readonly writes: FakeWrite[] = []
  /** Set to an error to make storage unreachable: ping fails, and so does every load and write. */
  down: Error | null = null
  /** Writes this picks fail after their person tables are written, as when ClickHouse refuses the events insert. */
  refuse: ((changes: PersonChanges, events: ProcessedEvent[]) => boolean) | null = null

  // ---- the store ----

  async load(wanted: Lookups, bound: ReplayBound | null): Promise<LoadedState> {
    this.check()
    this.loads.push(structuredClone(wanted))
    const visible = <T>(rows: Array<Row<T>>) =>
      rows.filter((r) => !(bound && r.partition === bound.partition && r.offset >= bound.firstOffset)).map((r) => r.value)
    const persons = visible(this.tables.person)
    const ids = visible(this.tables.person_distinct_id)
    const groups = visible(this.tables.groups)
    const groupTypes = visible(this.tables.group_type_mapping)

    // The loader's algorithm (persons/clickhouse-store.ts), over these rows.
    const state: LoadedState = { teams: [], distinctIds: [], persons: [], groups: [] }
    if (wanted.personIds) {
      const { partition, partitions } = wanted.personIds
      const inSpace = persons.filter((p) => (p.id - 1) % partitions === partition % partitions)
      state.nextPersonId = firstIdAfter(wanted.personIds, Math.max(0, ...inSpace.map((p) => p.id)))
    }
    const teams = new Set([
      ...wanted.teamIds,
      ...wanted.distinctIds.map((d) => d.teamId),
      ...wanted.personUuids.map((p) => p.teamId),
      ...wanted.groups.map((g) => g.teamId),
    ])
    for (const teamId of teams) {
      if (wanted.teamIds.includes(teamId)) {
        const types = new Map<string, GroupTypeRow>()
        for (const g of groupTypes.filter((g) => g.teamId === teamId)) types.set(k(g.groupType, g.groupTypeIndex), { ...g })
        state.teams.push({
          teamId,
          groupTypes: [...types.values()].sort((a, b) => a.groupTypeIndex - b.groupTypeIndex),
        })
      }
      const latestIds = latest(
        ids.filter((r) => r.teamId === teamId),
        (r) => r.distinctId,
      )
      const wantedIds = wanted.distinctIds.filter((d) => d.teamId === teamId).map((d) => d.distinctId)
      const idRows = wantedIds.flatMap((id) => latestIds.get(id) ?? [])
      const uuids = new Set(wanted.personUuids.filter((p) => p.teamId === teamId).map((p) => p.personUuid))
      for (const row of idRows) uuids.add(row.personUuid)
      for (const id of wantedIds) if (!idRows.some((r) => r.distinctId === id)) uuids.add(personUuid(teamId, id))
      const latestPersons = latest(
        persons.filter((p) => p.teamId === teamId),
        (p) => p.uuid,
      )
      const found = [...uuids].flatMap((uuid) => latestPersons.get(uuid) ?? [])
      // Every id that ever pointed at a live person (in any row, as the SQL's subquery reads), at its latest.
      const live = new Set(found.filter((p) => !p.isDeleted).map((p) => p.uuid))
      const everPointed = new Set(
        this.tables.person_distinct_id
          .filter((r) => r.value.teamId === teamId && live.has(r.value.personUuid))
          .map((r) => r.value.distinctId),
      )
      const allIds = [...everPointed].flatMap((id) => latestIds.get(id) ?? [])
      const byId = new Map<string, DistinctIdRow>()
      for (const row of [...idRows, ...allIds]) byId.set(row.distinctId, { ...row })
      state.distinctIds.push(...byId.values())
      state.persons.push(...found.map((p) => structuredClone(p)))
      const known = state.teams.find((t) => t.teamId === teamId)?.groupTypes ?? []
      const latestGroups = latest(
        groups.filter((g) => g.teamId === teamId),
        (g) => k(g.groupTypeIndex, g.groupKey),
      )
      for (const g of wanted.groups.filter((x) => x.teamId === teamId)) {
        const index = known.find((t) => t.groupType === g.groupType)?.groupTypeIndex
        const row = index === undefined ? undefined : latestGroups.get(k(index, g.groupKey))
        if (row) state.groups.push(structuredClone(row))
      }
    }
    return state
  }

  prepare(range: BatchRange, changes: PersonChanges, events: ProcessedEvent[]): FakeWrite {
    return { range, changes, events }
  }

  /** The fake stores the events themselves: an event's JSON only stands for its size. */
  encodeEvent(event: ProcessedEvent): string {
    return JSON.stringify(event)
  }

  async write({ range, changes, events }: FakeWrite): Promise<void> {
    this.check()
    this.writes.push(
      structuredClone({
        range: { topic: range.topic, partition: range.partition, firstOffset: range.firstOffset, lastOffset: range.lastOffset },
        changes,
        events,
      }),
    )
    const origin = { partition: range.partition, offset: range.lastOffset }
    const token = (table: string) => `${table}:${range.topic}:${range.partition}:${range.firstOffset}-${range.lastOffset}`
    this.insert(this.tables.person, changes.persons, origin, token('person'))
    this.insert(this.tables.person_distinct_id, changes.distinctIds, origin, token('person_distinct_id'))
    this.insert(this.tables.person_activity, changes.activity, origin, token('person_activity'))
    this.insert(this.tables.groups, changes.groups, origin, token('groups'))
    this.insert(this.tables.group_type_mapping, changes.groupTypes, origin, token('group_type_mapping'))
    if (this.refuse?.(changes, events)) throw new Error('the store refuses this write')
    this.insert(this.tables.events, events, origin, token('events'))
  }

  async ping(): Promise<PingResult> {
    return this.down ? { success: false, error: this.down } : { success: true }
  }

  /** The dead letters on the same storage (the dead_letters table), deduplicated per range likewise. */
  readonly deadLetters: DeadLetterRecorder = {
    record: async (batch: LogBatch, letters: DeadLetter[]) => {
      this.check()
      const rows = letters.map((l) => ({ ...l, payload: Buffer.from(l.payload), topic: batch.topic, partition: batch.partition }))
      this.insert(
        this.tables.dead_letters,
        rows,
        { partition: batch.partition, offset: batch.lastOffset },
        `dead_letters:${batch.topic}:${batch.partition}:${batch.firstOffset}-${batch.lastOffset}`,
        (row) => row,
      )
    },
    offsetsIn: async (topic: string, partition: number, first: number, last: number) => {
      this.check()
      const offsets = this.tables.dead_letters
        .map((r) => r.value)
        .filter((l) => l.topic === topic && l.partition === partition && l.offset >= first && l.offset <= last)
      return [...new Set(offsets.map((l) => l.offset))].sort((a, b) => a - b)
    },
  }

  /** Stores rows as if an earlier process had written them (before every offset of the log). */
  seed(changes: Partial<PersonChanges>): void {
    this.insert(this.tables.person, changes.persons ?? [], SEEDED)
    this.insert(this.tables.person_distinct_id, changes.distinctIds ?? [], SEEDED)
    this.insert(this.tables.person_activity, changes.activity ?? [], SEEDED)
    this.insert(this.tables.groups, changes.groups ?? [], SEEDED)
    this.insert(this.tables.group_type_mapping, changes.groupTypes ?? [], SEEDED)
  }

  // ---- what a query would see (latest versions), for assertions ----

  /** The latest version of a person, deleted ones included. */
  person(teamId: number, uuid: string): Person | undefined {
    return this.persons().find((p) => p.teamId === teamId && p.uuid === uuid)
  }

  /** The latest row of a distinct id, tombstones included. */
  row(teamId: number, distinctId: string): DistinctIdRow | undefined {
    return this.distinctIds().find((r) => r.teamId === teamId && r.distinctId === distinctId)
  }

  /** Live distinct ids of a person, sorted. */
  idsOf(teamId: number, uuid: string): string[] {
    return this.distinctIds()
      .filter((r) => r.teamId === teamId && r.personUuid === uuid && !r.isDeleted)
      .map((r) => r.distinctId)
      .sort()
  }

  /** Latest version of every person, in the order they were first stored. */
  persons(): Person[] {
    return [
      ...latest(
        this.tables.person.map((r) => r.value),
        (p) => k(p.teamId, p.uuid),
      ).values(),
    ].map((p) => structuredClone(p))
  }

  distinctIds(): DistinctIdRow[] {
    return [
      ...latest(
        this.tables.person_distinct_id.map((r) => r.value),
        (r) => k(r.teamId, r.distinctId),
      ).values(),
    ].map((r) => ({ ...r }))
  }

  groups(): GroupRow[] {
    return [
      ...latest(
        this.tables.groups.map((r) => r.value),
        (g) => k(g.teamId, g.groupTypeIndex, g.groupKey),
      ).values(),
    ].map((g) => structuredClone(g))
  }

  /** Every group type row, as inserted. */
  groupTypes(): GroupTypeRow[] {
    return this.tables.group_type_mapping.map((r) => ({ ...r.value }))
  }

  /** Every event row, as inserted (a second copy of an event shows up twice). */
  events(): ProcessedEvent[] {
    return this.tables.events.map((r) => structuredClone(r.value))
  }

  /** Every person row version, as inserted. */
  personVersions(): Person[] {
    return this.tables.person.map((r) => structuredClone(r.value))
  }

  /** Every activity entry, as inserted. */
  activity(): ActivityEntry[] {
    return this.tables.person_activity.map((r) => structuredClone(r.value))
  }

  /** Every dead letter, as inserted. */
  letters(): StoredLetter[] {
    return this.tables.dead_letters.map((r) => ({ ...r.value, payload: Buffer.from(r.value.payload) }))
  }

  // ---- internals ----

  private check(): void {
    if (this.down) throw this.down
  }

  private insert<T>(
    table: Array<Row<T>>,
    rows: T[],
    origin: { partition: number; offset: number },
    token?: string,
    copy: (row: T) => T = structuredClone,
  ): void {
    if (rows.length === 0) return // like insertRows: an empty insert sends nothing, so its token is not spent
    if (token !== undefined) {
      if (this.tokens.has(token)) return
      this.tokens.add(token)
    }
    for (const value of rows) table.push({ value: copy(value), ...origin })
  }
}

/** Each key's highest version, the later row on ties; keys in first-seen order. */
function latest<T extends { version?: number }>(rows: T[], key: (row: T) => string): Map<string, T> {
  const out = new Map<string, T>()
  for (const row of rows) {
    const k = key(row)
    const current = out.get(k)
    if (!current || (current.version ?? 0) <= (row.version ?? 0)) out.set(k, row)
  }
  return out
}
