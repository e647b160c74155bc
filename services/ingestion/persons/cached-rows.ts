// One kind of row the person repository caches (persons, distinct ids, groups): what storage holds, the
// keys known to be absent (null), and the keys the rules wrote since the last drain. Each key keeps the
// tick of its last use; eviction drops the oldest first. (A use that moved its key to the end of the map
// cost a delete and an insert into a map of 100,000s of keys per read: ~10% of the person work.)
import type { DistinctIdRow } from '../types'

const SEP = '\u0000'
export const idKey = (teamId: number, distinctId: string) => `${teamId}${SEP}${distinctId}`
export const personKey = (teamId: number, uuid: string) => `${teamId}${SEP}${uuid}`
export const groupKey = (teamId: number, index: number, key: string) => `${teamId}${SEP}${index}${SEP}${key}`

/** The clock of uses, shared by a repository's kinds of rows, so that one tick marks a moment across them all. */
export interface UseClock {
  tick: number
}

export class CachedRows<T extends { version: number }> {
  protected readonly rows = new Map<string, T | null>()
  private readonly dirty = new Set<string>()
  /** The tick of each key's last use. */
  private readonly used = new Map<string, number>()

  constructor(private readonly clock: UseClock = { tick: 0 }) {}

  get size(): number {
    return this.rows.size
  }

  /** Whether the key is known (present or known absent). */
  has(key: string): boolean {
    return this.rows.has(key)
  }

  /** The row (null: known absent; undefined: not known), without counting as a use. */
  peek(key: string): T | null | undefined {
    return this.rows.get(key)
  }

  /** Like peek(), and counts as a use: the row becomes the most recently used. */
  use(key: string): T | null | undefined {
    const row = this.rows.get(key)
    if (row !== undefined) this.used.set(key, ++this.clock.tick)
    return row
  }

  /** Whether the key has an unsaved change or was used after the tick `usedBy` (CachedRows.evict). */
  isRecent(key: string, usedBy = Infinity): boolean {
    return this.dirty.has(key) || (this.used.get(key) ?? 0) > usedBy
  }

  /** What storage holds; memory wins when it has an unsaved change or a version at least as new. */
  load(key: string, row: T): void {
    const current = this.rows.get(key)
    if (this.dirty.has(key) || (current && current.version >= row.version)) return
    this.set(key, row)
  }

  /** A key storage was asked for and does not hold. */
  absent(key: string): void {
    if (!this.rows.has(key)) this.set(key, null)
  }

  /** A write of the rules; returns what undoes it. */
  put(key: string, row: T): () => void {
    const prev = this.rows.get(key)
    const wasDirty = this.dirty.has(key)
    this.set(key, row)
    this.dirty.add(key)
    return () => {
      this.restore(key, prev)
      if (!wasDirty) this.dirty.delete(key)
    }
  }

  /**
   * The rows written since the last call, in the order first written; clears the change set. Not copies:
   * a row is never changed in place (a write puts a new row), so what is handed out stays as it was.
   */
  takeChanges(): T[] {
    const rows = [...this.dirty].map((key) => this.rows.get(key) as T)
    this.dirty.clear()
    return rows
  }

  /**
   * Drops clean entries, least recently used first, until at most `max` are left, sparing every entry used
   * after the tick `usedBy`. `keep` spares an entry; `dropping` hears of each entry before it goes.
   */
  evict(max: number, hooks: { keep?: (row: T | null) => boolean; dropping?: (row: T | null) => void } = {}, usedBy = Infinity): void {
    let excess = this.rows.size - max
    if (excess <= 0) return
    const oldestFirst = [...this.used].sort((a, b) => a[1] - b[1])
    for (const [key, tick] of oldestFirst) {
      if (excess <= 0 || tick > usedBy) break
      const row = this.rows.get(key) as T | null
      if (this.dirty.has(key) || hooks.keep?.(row)) continue
      hooks.dropping?.(row)
      this.drop(key)
      excess--
    }
  }

  clear(): void {
    this.rows.clear()
    this.dirty.clear()
    this.used.clear()
  }

  /** Stores the row as the most recently used. */
  protected set(key: string, row: T | null): void {
    this.rows.set(key, row)
    this.used.set(key, ++this.clock.tick)
  }

  protected drop(key: string): void {
    this.rows.delete(key)
    this.used.delete(key)
  }

  protected restore(key: string, prev: T | null | undefined): void {
    if (prev === undefined) this.drop(key)
    else this.rows.set(key, prev)
  }
}

/** Distinct-id rows, with the index of the live ids of each person kept along. */
export class DistinctIdRows extends CachedRows<DistinctIdRow> {
  /** personKey → distinct ids whose live row points at that person. */
  private readonly byPerson = new Map<string, Set<string>>()

  /** The distinct ids whose live row points at the person. */
  ofPerson(teamId: number, uuid: string): ReadonlySet<string> | undefined {
    return this.byPerson.get(personKey(teamId, uuid))
  }

  /** Forgets the row, as if it had never been loaded. */
  forget(key: string): void {
    this.drop(key)
  }

  override clear(): void {
    super.clear()
    this.byPerson.clear()
  }

  protected override set(key: string, row: DistinctIdRow | null): void {
    const previous = this.rows.get(key)
    if (previous && !previous.isDeleted) {
      const owner = personKey(previous.teamId, previous.personUuid)
      const set = this.byPerson.get(owner)
      set?.delete(previous.distinctId)
      if (set && set.size === 0) this.byPerson.delete(owner)
    }
    super.set(key, row)
    if (row && !row.isDeleted) {
      const owner = personKey(row.teamId, row.personUuid)
      let set = this.byPerson.get(owner)
      if (!set) this.byPerson.set(owner, (set = new Set()))
      set.add(row.distinctId)
    }
  }

  protected override drop(key: string): void {
    this.set(key, null)
    super.drop(key)
  }

  protected override restore(key: string, prev: DistinctIdRow | null | undefined): void {
    if (prev === undefined) this.drop(key)
    else this.set(key, prev)
  }
}
