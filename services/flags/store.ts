// Feature flags: ClickHouse holds every version; this store keeps the latest of each flag in memory, so
// the management API reads and decide evaluates without a query. Listeners hear every change at once
// (decide's snapshot, the local-evaluation ETag). Every save is published on the configuration log
// (platform/log/config-log.ts), from which every process's store keeps up (cluster mode: flags written through
// another api process); new ids come from its allocator, unique across processes.
import type { ClickHouseClient } from '../platform/clickhouse'
import { insertRows, queryRows } from '../platform/clickhouse'
import type { Clock } from '../platform/clock'
import type { ConfigChange, ConfigLog } from '../platform/log/config-log'
import type { FeatureFlag } from './types'
import { VersionedUpdates } from '../platform/versioned-update'

interface FlagRow {
  team_id: number
  id: number
  definition: string
  ver: number
}

export interface ActivityEntry {
  flagId: number
  activity: 'created' | 'updated' | 'deleted'
  detail: Record<string, unknown>
  actor: string
  at: string
}

export class FlagStore {
  private readonly byTeam = new Map<number, Map<number, FeatureFlag>>()
  private readonly listeners: Array<(teamId: number) => void> = []
  private readonly updates: VersionedUpdates

  private constructor(
    private readonly client: ClickHouseClient,
    private readonly clock: Clock,
    private readonly config: ConfigLog,
  ) {
    this.updates = new VersionedUpdates(config)
    config.onChange((change) => this.apply(change))
  }

  static async load(client: ClickHouseClient, clock: Clock, config: ConfigLog): Promise<FlagStore> {
    const store = new FlagStore(client, clock, config)
    await store.refresh()
    return store
  }

  /** A flag stored by any process (this one included): kept when newer than what is held. */
  private apply(change: ConfigChange): void {
    if (change.kind !== 'flag') return
    const flag = change.record as FeatureFlag
    if ((this.get(flag.teamId, flag.id)?.version ?? 0) >= flag.version) return
    this.put(flag)
    this.emit(flag.teamId)
  }

  /** Reads the latest version of every flag; tells listeners about the projects whose flags changed. */
  async refresh(): Promise<void> {
    const rows = await queryRows<FlagRow>(
      this.client,
      'SELECT team_id, id, argMax(definition, version) AS definition, max(version) AS ver FROM feature_flags GROUP BY team_id, id',
    )
    const changed = new Set<number>()
    for (const row of rows) {
      const flag = JSON.parse(row.definition) as FeatureFlag
      const teamId = Number(row.team_id)
      const current = this.byTeam.get(teamId)?.get(flag.id)
      if (!current || current.version < flag.version) {
        this.put(flag)
        changed.add(teamId)
      }
    }
    for (const teamId of changed) this.emit(teamId)
  }

  onChange(listener: (teamId: number) => void): void {
    this.listeners.push(listener)
  }

  /** Every flag of a project, deleted ones included, in id order. */
  all(teamId: number): FeatureFlag[] {
    return [...(this.byTeam.get(teamId)?.values() ?? [])].sort((a, b) => a.id - b.id)
  }

  get(teamId: number, id: number): FeatureFlag | undefined {
    return this.byTeam.get(teamId)?.get(id)
  }

  /** A new flag id, unique across every process. */
  allocateId(): Promise<number> {
    return this.config.nextId('feature_flags')
  }

  /**
   * Applies `change` to the flag as stored now (not to this process's copy, which may lag another
   * process's write); `change` answers null when there is nothing to write. The flag afterwards, or
   * undefined when there is no such flag.
   */
  async update(
    teamId: number,
    id: number,
    change: (current: FeatureFlag) => Promise<{ flag: FeatureFlag; activity: ActivityEntry } | null>,
  ): Promise<FeatureFlag | undefined> {
    let activity: ActivityEntry | undefined
    return this.updates.apply<FeatureFlag>({
      object: { kind: 'flag', teamId, id },
      read: async () => {
        const [row] = await queryRows<FlagRow>(
          this.client,
          'SELECT team_id, id, argMax(definition, version) AS definition, max(version) AS ver FROM feature_flags WHERE team_id = {t:Int64} AND id = {id:Int64} GROUP BY team_id, id',
          { t: teamId, id },
        )
        return row ? { ...(JSON.parse(row.definition) as FeatureFlag), version: Number(row.ver) } : undefined
      },
      change: async (current) => {
        const changed = await change(current)
        activity = changed?.activity
        return changed?.flag ?? null
      },
      write: (next) => this.save(next, activity!),
    })
  }

  /** Stores a new version of a flag (the caller has bumped `version`) and tells listeners. */
  async save(flag: FeatureFlag, activity: ActivityEntry): Promise<void> {
    await insertRows(this.client, 'feature_flags', [
      {
        team_id: flag.teamId,
        id: flag.id,
        key: flag.key,
        definition: JSON.stringify(flag),
        deleted: flag.deleted ? 1 : 0,
        version: flag.version,
        updated_at: flag.updatedAt,
      },
    ])
    await insertRows(this.client, 'feature_flag_activity', [
      {
        team_id: flag.teamId,
        flag_id: activity.flagId,
        activity: activity.activity,
        detail: JSON.stringify(activity.detail),
        actor: activity.actor,
        at: activity.at,
      },
    ])
    this.put(flag)
    this.emit(flag.teamId)
    await this.config.publish({ kind: 'flag', record: flag })
  }

  /** Newest first; entries of one millisecond in a fixed order, so that pages neither repeat nor skip one. */
  async activity(teamId: number, flagId: number | null, limit: number, offset: number): Promise<{ total: number; rows: ActivityEntry[] }> {
    const where = flagId === null ? 'team_id = {t:Int64}' : 'team_id = {t:Int64} AND flag_id = {f:Int64}'
    const params = { t: teamId, f: flagId ?? 0, limit, offset }
    const [count] = await queryRows<{ n: number }>(this.client, `SELECT count() AS n FROM feature_flag_activity WHERE ${where}`, params)
    const rows = await queryRows<{ flag_id: number; activity: ActivityEntry['activity']; detail: string; actor: string; at: string }>(
      this.client,
      `SELECT flag_id, activity, detail, actor, at FROM feature_flag_activity WHERE ${where}
       ORDER BY at DESC, flag_id DESC, activity, detail LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
      params,
    )
    return {
      total: Number(count?.n ?? 0),
      rows: rows.map((r) => ({
        flagId: Number(r.flag_id),
        activity: r.activity,
        detail: JSON.parse(r.detail) as Record<string, unknown>,
        actor: r.actor,
        at: r.at,
      })),
    }
  }

  now(): string {
    return this.clock.now().toISOString()
  }

  private put(flag: FeatureFlag): void {
    let team = this.byTeam.get(flag.teamId)
    if (!team) this.byTeam.set(flag.teamId, (team = new Map()))
    team.set(flag.id, flag)
  }

  private emit(teamId: number): void {
    for (const listener of this.listeners) listener(teamId)
  }
}
