// A project's configuration objects (actions, cohorts, insights, dashboards, annotations) in ClickHouse: each write is a
// whole new version of the row and reads take the latest per id (argMax by version). New ids come from the
// configuration log's allocator, unique across processes (log/config-log.ts); every change is compare-and-set
// on the version (versioned-update.ts). One store for the four kinds: a kind says only its own columns, how
// a new object is made, and what its writes tell the other processes.
import type { ClickHouseClient } from './clickhouse'
import { insertRows, queryRows } from './clickhouse'
import { latestVersionsSql } from './clickhouse/rows'
import type { Clock } from './clock'
import { VersionedUpdates } from './versioned-update'
import type { ConfigChange, ConfigLog } from './log/config-log'

/** What every configuration object has; the store keeps these columns itself. */
export interface ConfigObject {
  id: number
  teamId: number
  createdAt: string
  deleted: boolean
  version: number
}

type Own<T extends ConfigObject> = Omit<T, keyof ConfigObject>

export interface ConfigObjectKind<T extends ConfigObject, F extends Partial<T>, C = F> {
  /** The table, also the id allocator's kind. */
  table: 'actions' | 'cohorts' | 'insights' | 'dashboards' | 'annotations' | 'experiments' | 'surveys'
  /** The object kind of compare-and-set claims. */
  object: 'action' | 'cohort' | 'insight' | 'dashboard' | 'annotation' | 'experiment' | 'survey'
  /** The kind's own columns (team_id, id, created_at, deleted and version are every kind's). */
  columns: readonly string[]
  /** A new object's own fields from the caller's, at `now` (its modification time among them). */
  create(fields: C, now: string): Own<T>
  /** The object as written at `now` after a change to `current`: sets its modification time. */
  touch(next: T, current: T, now: string): T
  toRow(object: T): Record<string, unknown>
  fromRow(row: Record<string, unknown>): Own<T>
  /** What other processes hear after a write (none: nothing of theirs caches this kind). */
  published?(object: T): ConfigChange
}

export interface ListOptions {
  includeDeleted?: boolean
  ids?: number[]
}

/**
 * The store as its callers see it, for objects `T` whose fields `F` a change sets (and `deleted`), made from
 * `C` (`F` unless the kind makes some fields itself). `FakeConfigObjects` (testing/fake-config-objects.ts) is
 * the same in memory.
 */
export interface ConfigObjects<T extends ConfigObject, F extends Partial<T>, C = F> {
  /** A project's objects in id order: the deleted ones too with `includeDeleted`, only `ids` with `ids`. */
  list(teamId: number, opts?: ListOptions): Promise<T[]>
  get(teamId: number, id: number, opts?: { includeDeleted?: boolean }): Promise<T | undefined>
  create(teamId: number, fields: C): Promise<T>
  /**
   * The one update path: `change` applied to the object as stored now (deleted included), so a concurrent
   * update of other fields stays, written as the next version. The object afterwards, or undefined when there is none.
   */
  update(teamId: number, id: number, change: (current: T) => Partial<F> & { deleted?: boolean }): Promise<T | undefined>
}

export class ConfigObjectStore<T extends ConfigObject, F extends Partial<T>, C = F> implements ConfigObjects<T, F, C> {
  private readonly updates: VersionedUpdates
  private readonly latest: string

  constructor(
    protected readonly client: ClickHouseClient,
    protected readonly clock: Clock,
    protected readonly config: ConfigLog,
    private readonly kind: ConfigObjectKind<T, F, C>,
  ) {
    this.updates = new VersionedUpdates(config)
    this.latest = latestVersionsSql(kind.table, [...kind.columns, 'created_at', 'deleted'])
  }

  async list(teamId: number, opts: ListOptions = {}): Promise<T[]> {
    if (opts.ids?.length === 0) return []
    const where = [...(opts.includeDeleted ? [] : ['deleted = 0']), ...(opts.ids ? ['id IN {ids:Array(UInt64)}'] : [])]
    const rows = await queryRows<Record<string, unknown>>(
      this.client,
      `SELECT * FROM (${this.latest}) ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id`,
      { team: teamId, ids: opts.ids ?? [] },
    )
    return rows.map((r) => this.fromRow(r))
  }

  async get(teamId: number, id: number, opts: { includeDeleted?: boolean } = {}): Promise<T | undefined> {
    return (await this.list(teamId, { ...opts, ids: [id] }))[0]
  }

  async create(teamId: number, fields: C): Promise<T> {
    const now = this.clock.now().toISOString()
    const id = await this.config.nextId(this.kind.table)
    const object = { ...this.kind.create(fields, now), id, teamId, createdAt: now, deleted: false, version: 1 } as T
    await this.write(object)
    return object
  }

  update(teamId: number, id: number, change: (current: T) => Partial<F> & { deleted?: boolean }): Promise<T | undefined> {
    return this.updates.apply<T>({
      object: { kind: this.kind.object, teamId, id },
      read: () => this.get(teamId, id, { includeDeleted: true }),
      change: (current) => this.kind.touch({ ...current, ...change(current) }, current, this.clock.now().toISOString()),
      write: (next) => this.write(next),
    })
  }

  private async write(object: T): Promise<void> {
    await insertRows(this.client, this.kind.table, [
      {
        ...this.kind.toRow(object),
        team_id: object.teamId,
        id: object.id,
        created_at: object.createdAt,
        deleted: object.deleted ? 1 : 0,
        version: object.version,
      },
    ])
    const change = this.kind.published?.(object)
    if (change) await this.config.publish(change)
  }

  private fromRow(r: Record<string, unknown>): T {
    return {
      ...this.kind.fromRow(r),
      id: Number(r.id),
      teamId: Number(r.team_id),
      createdAt: timestamp(r.created_at),
      deleted: Number(r.deleted) === 1,
      version: Number(r.latest_version),
    } as T
  }
}

/** A DateTime64 column as an ISO string. */
export function timestamp(value: unknown): string {
  return new Date(value as string).toISOString()
}
