// What the ingestion processor needs from storage, and nothing else: the stored person state a batch
// reads, and one write of a batch's output. ClickHousePersonStore is the real one; FakePersonStore (test
// support) keeps the same semantics in memory so the processor's loop can be unit-tested.
//
// The two promises every store keeps, on which the processor's exactly-once replay rests:
// - load() with a replay bound leaves out every row written by the range starting at that offset (and by
//   later ones): a replayed range is rebuilt from the state stored before it.
// - write() is idempotent per range: writing the same range's output again stores nothing new.
//
// prepare() and write() are two steps so that the work of encoding rows stays with the person work, off
// the thread that serves requests; write() only hands ready rows to storage.
import type { CopiesWaiting } from '../../platform/ingestion-lag'
import type { LogBatch } from '../../platform/log/log'
import type { DistinctIdRow, GroupRow, GroupTypeRow, Person, PersonChanges, ProcessedEvent } from '../types'
import type { PersonIdSpace } from './ids'
import type { DefinitionRows } from '../definitions'

/** What a batch's items may read (rules.ts lookupsFor), less what memory already knows. */
export interface Lookups {
  teamIds: number[]
  distinctIds: Array<{ teamId: number; distinctId: string }>
  personUuids: Array<{ teamId: number; personUuid: string }>
  groups: Array<{ teamId: number; groupType: string; groupKey: string }>
  /** The id space whose next person id is wanted (ids.ts). */
  personIds?: PersonIdSpace
}

/** What storage holds for some lookups: every lookup it does not contain is absent from storage. */
export interface LoadedState {
  teams: Array<{ teamId: number; groupTypes: GroupTypeRow[] }>
  /** When `personIds` was asked: the first id of that space past every stored id of it. */
  nextPersonId?: number
  /** Latest row per distinct id, deleted ones included (isDeleted true). */
  distinctIds: DistinctIdRow[]
  /** Latest version per uuid, deleted ones included (isDeleted true). */
  persons: Person[]
  groups: GroupRow[]
}

/** Rows written by this partition's range starting at firstOffset, or later, are left out of a load. */
export interface ReplayBound {
  partition: number
  firstOffset: number
}

/** The log range a write comes from: its rows carry its origin and its deduplication identity. */
export type BatchRange = Pick<LogBatch, 'topic' | 'partition' | 'firstOffset' | 'lastOffset'>

export type PingResult = { success: true } | { success: false; error: Error }

export interface PersonStore<Prepared = unknown> {
  /** The stored state for `wanted` (one round of reads per batch), leaving out rows at or after `bound`. */
  load(wanted: Lookups, bound: ReplayBound | null): Promise<LoadedState>
  /**
   * A range's output in the form write() stores: pure, synchronous and plain data (structured-cloneable),
   * so that it is built where the person work runs, which may be another thread (compute-worker.ts).
   * `definitions`: the whole range's definition rows, with its last part only (null with the others).
   */
  prepare(range: BatchRange, changes: PersonChanges, events: ProcessedEvent[], rows: string[], definitions: DefinitionRows | null): Prepared
  /**
   * An event's row as prepare() takes it (`rows[i]` for `events[i]`): encoded once, as the event is made
   * (the person work bounds a part by the rows' length), without its origin (the part's, known once the
   * part is cut). Pure, like prepare().
   */
  encodeEvent(event: ProcessedEvent): string
  /**
   * Stores a range's person changes, then its events (an event row never points at a person that is
   * not stored yet). Writing the same range again stores nothing twice. A write that throws may have
   * stored part of its output. `replayed`: the range was handed out before (or its partition was just
   * got): a crash may have cut an earlier write of it anywhere.
   */
  write(prepared: Prepared, replayed?: boolean): Promise<void>
  /**
   * Copies the events a write set aside (a wide person's: persons/wide.ts) into the events table, for the
   * parts of stored ranges (`upTo`: per partition, the last offset stored), a chunk at a time once `next()`
   * says it may go (false: stop), until none is left; how many chunks it copied. A store that sets nothing
   * aside has none.
   */
  copyWide?(upTo: ReadonlyMap<number, number>, next: () => Promise<boolean>): Promise<number>
  /** The parts whose set-aside events wait for copyWide (their events are not in queries yet); null: not known now. */
  copiesWaiting?(): CopiesWaiting | null
  /** Whether storage answers at all: a store that does not is no message's fault. */
  ping(): Promise<PingResult>
}

/** Collects lookups without duplicates, keeping first-seen order. */
export class LookupSet {
  private readonly seen = new Set<string>()
  private readonly out: Lookups = { teamIds: [], distinctIds: [], personUuids: [], groups: [] }

  team(teamId: number): void {
    if (this.add('t', teamId)) this.out.teamIds.push(teamId)
  }
  distinctId(teamId: number, distinctId: string): void {
    if (this.add('d', teamId, distinctId)) this.out.distinctIds.push({ teamId, distinctId })
  }
  personUuid(teamId: number, uuid: string): void {
    if (this.add('p', teamId, uuid)) this.out.personUuids.push({ teamId, personUuid: uuid })
  }
  personIds(space: PersonIdSpace): void {
    this.out.personIds = space
  }
  group(teamId: number, groupType: string, key: string): void {
    if (this.add('g', teamId, groupType, key)) this.out.groups.push({ teamId, groupType, groupKey: key })
  }
  lookups(): Lookups {
    return this.out
  }
  private add(...parts: Array<string | number>): boolean {
    const key = parts.join('\u0000')
    if (this.seen.has(key)) return false
    this.seen.add(key)
    return true
  }
}
