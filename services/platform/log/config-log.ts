// Configuration (projects, personal API keys, flags, actions, cohorts) as records on the log: how every
// process keeps its in-memory copy fresh without re-reading tables, and how ids stay unique across any
// number of `api` processes.
//
// Changes. A store that has written a row publishes the stored record as a change. Every process applies
// each change to what it holds (projects and keys, flags, cohorts for decide). The stores apply a change
// only when it is newer than what they hold (records carry versions), so applying one twice, or an older
// one after a load from storage, changes nothing.
//
// Ids. A new row's id comes from one allocator, so two processes never hand out the same id, and ids stay
// small integers counting up per kind, as PostHog's are.
//
// Embedded mode (one process owns the data directory): changes go to this process's listeners at once,
// and ids come from an in-memory counter per kind, started at the table's max(id) and used one at a time.
//
// Cluster mode: one topic, `wren_config`, every record keyed 'config' so all of them are in one partition,
// in one order.
//   - An api process that needs an id appends an id request. The api processes share the consumer group
//     `wren-config-ids`, so the partition has exactly one owner at a time: it answers requests in log
//     order from its counters, records every id it hands out in ClickHouse (`config_ids`) before it
//     answers, and appends the answers to the topic. An owner that has just been given the partition (a
//     rebalance, a restart) starts its counters from the greater of each table's max(id) and the ids
//     already handed out, so an id answered but not yet written by its requester is not handed out again.
//     A batch replayed after a crash allocates new ids again: some ids are then skipped, none is reused.
//   - Updates are compare-and-set on the object's version. A writer that read version N of an object
//     appends a claim (object, N); the same owner answers claims in log order: granted iff N is the latest
//     version it knows (loaded from the object's table, and from the versions it granted, `config_versions`,
//     when unknown or after a reassignment), recorded in `config_versions` before it answers, as ids are.
//     Granted, the writer writes N + 1; denied, it re-reads the object and tries again (VersionedUpdates,
//     platform/versioned-update.ts). A grant whose row never lands (its writer died) stops blocking after
//     CLAIM_EXPIRY_MS, once the table still holds N.
//   - Changes are appended to the same topic. Every process (any role) reads the topic with a consumer
//     group of its own, from the topic's start (it keeps minutes: a change appended while the process was
//     joining is not missed, old ones are ignored as older), applies changes and resolves its waits for ids.
import { EventEmitter } from 'node:events'
import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import type { ClickHouseClient } from '../clickhouse'
import { insertRows, queryRows } from '../clickhouse'
import type { Log, LogBatch, Subscription } from './log'
import { TOPICS } from './log'
import { subscription } from './streams'
import { SerialQueue } from '../serial'

/** Tables whose integer ids the allocator hands out. */
export type IdKind =
  'projects' | 'feature_flags' | 'actions' | 'cohorts' | 'insights' | 'dashboards' | 'annotations' | 'experiments' | 'surveys'
const ID_KINDS: IdKind[] = [
  'projects',
  'feature_flags',
  'actions',
  'cohorts',
  'insights',
  'dashboards',
  'annotations',
  'experiments',
  'surveys',
]

/** A stored configuration record (the store's own shape, with its version), or a signal to reload. */
export type ConfigChange =
  | { kind: 'project'; record: unknown }
  | { kind: 'key'; record: unknown }
  | { kind: 'flag'; record: unknown }
  | { kind: 'action'; teamId: number; id: number }
  | { kind: 'cohort'; teamId: number }
  /** A survey as stored: decide keeps the running ones (surveys/running.ts). */
  | { kind: 'survey'; record: unknown }
  | { kind: 'account'; record: unknown }

/** A configuration object whose updates are compare-and-set on its version. */
export type VersionedObject =
  | { kind: 'project'; id: number }
  | { kind: 'key'; id: string }
  | { kind: 'flag' | 'action' | 'cohort' | 'insight' | 'dashboard' | 'annotation' | 'experiment' | 'survey'; teamId: number; id: number }
  | { kind: 'sharing'; teamId: number; sessionId: string }
  /** accounts/store.ts: `user:<id>`, `invite:<id>`, `organization:<id>`, `organization` (the first one's making), `first-owner`. */
  | { kind: 'account'; id: string }

export function objectKey(o: VersionedObject): string {
  if (o.kind === 'project' || o.kind === 'key' || o.kind === 'account') return `${o.kind}:${o.id}`
  return o.kind === 'sharing' ? `sharing:${o.teamId}/${o.sessionId}` : `${o.kind}:${o.teamId}/${o.id}`
}

export interface ConfigLog {
  /** A new id for a row of `kind`, unique across every process. */
  nextId(kind: IdKind): Promise<number>
  /** Whether the caller, who read version `expected` of `object`, may write `expected + 1`: granted to one writer only. */
  claimVersion(object: VersionedObject, expected: number): Promise<boolean>
  /** Tells every process (this one first) about a change that is stored. */
  publish(change: ConfigChange): Promise<void>
  onChange(listener: (change: ConfigChange) => void): void
  stop(): Promise<void>
}

type Wire =
  | { type: 'id'; request: string; kind: IdKind }
  | { type: 'ids'; answers: Array<[string, number]> }
  | { type: 'claim'; request: string; object: VersionedObject; expected: number }
  | { type: 'claims'; answers: Array<[string, boolean]> }
  | { type: 'change'; change: ConfigChange }

const ID_TIMEOUT_MS = 30_000
/** How long a granted version whose row has not landed blocks other writers (its writer may have died). */
export const CLAIM_EXPIRY_MS = 30_000

/** The latest version of an object in its own table (0: none yet). */
async function storedVersion(client: ClickHouseClient, o: VersionedObject): Promise<number> {
  if (o.kind === 'account') return storedAccountVersion(client, o.id)
  const [table, where] =
    o.kind === 'project'
      ? ['projects', 'id = {id:UInt64}']
      : o.kind === 'key'
        ? ['personal_api_keys', 'id = {id:String}']
        : o.kind === 'sharing'
          ? ['session_recording_sharing', 'team_id = {team:Int64} AND session_id = {session:String}']
          : [
              {
                flag: 'feature_flags',
                action: 'actions',
                cohort: 'cohorts',
                insight: 'insights',
                dashboard: 'dashboards',
                annotation: 'annotations',
                experiment: 'experiments',
                survey: 'surveys',
              }[o.kind],
              'team_id = {team:Int64} AND id = {id:Int64}',
            ]
  const params = o.kind === 'sharing' ? { team: o.teamId, session: o.sessionId } : { id: o.id, team: 'teamId' in o ? o.teamId : 0 }
  const [row] = await queryRows<{ v: number }>(client, `SELECT max(version) AS v FROM ${table} WHERE ${where}`, params)
  return Number(row?.v ?? 0)
}

/** Accounts' objects (accounts/store.ts): a user's or invitation's version, or whether the first organization or owner exists. */
async function storedAccountVersion(client: ClickHouseClient, id: string): Promise<number> {
  const [kind, rest] = [id.slice(0, id.indexOf(':')), id.slice(id.indexOf(':') + 1)]
  const query =
    kind === 'user'
      ? 'SELECT max(version) AS v FROM users WHERE id = {id:String}'
      : kind === 'invite'
        ? 'SELECT max(version) AS v FROM organization_invites WHERE id = {id:String}'
        : kind === 'organization'
          ? 'SELECT max(version) AS v FROM organization WHERE id = {id:String}'
          : id === 'organization'
            ? 'SELECT count() AS v FROM organization'
            : `SELECT count() AS v FROM users WHERE level >= 15`
  const [row] = await queryRows<{ v: number }>(client, query, { id: rest })
  return Math.min(Number(row?.v ?? 0), id === 'organization' || id === 'first-owner' ? 1 : Infinity)
}

/**
 * The owner's knowledge of the latest version of each object it was asked about, and its rule for claims.
 * `recorded`: versions granted by earlier owners count too (cluster mode, config_versions).
 */
class VersionClaims {
  private known = new Map<string, { version: number; at: number }>()

  constructor(
    private readonly client: ClickHouseClient,
    private readonly recorded: boolean,
    private readonly expiryMs: number,
  ) {}

  forget(): void {
    this.known.clear()
  }

  /** Grants or denies; a grant makes `expected + 1` the latest. */
  async decide(object: VersionedObject, expected: number, now: number): Promise<boolean> {
    const key = objectKey(object)
    let state = this.known.get(key)
    // Unknown, or a writer has seen a version this owner has not (written before it knew the object).
    if (!state || expected > state.version) state = { version: await this.latest(object, key), at: now }
    let granted = expected === state.version
    // A granted version whose row never landed: once expired, the table's version counts again.
    if (!granted && expected < state.version && now - state.at >= this.expiryMs)
      granted = (await storedVersion(this.client, object)) === expected
    if (granted) state = { version: expected + 1, at: now }
    this.known.set(key, state)
    return granted
  }

  private async latest(object: VersionedObject, key: string): Promise<number> {
    const stored = await storedVersion(this.client, object)
    if (!this.recorded) return stored
    const [row] = await queryRows<{ v: number }>(this.client, 'SELECT max(version) AS v FROM config_versions WHERE object = {o:String}', {
      o: key,
    })
    return Math.max(stored, Number(row?.v ?? 0))
  }
}

/** The greatest id in use or handed out, per kind. */
async function highestIds(client: ClickHouseClient): Promise<Map<IdKind, number>> {
  const handedOut = await queryRows<{ kind: IdKind; id: number }>(client, 'SELECT kind, max(id) AS id FROM config_ids GROUP BY kind')
  const highest = new Map<IdKind, number>(handedOut.map((r) => [r.kind, Number(r.id)]))
  for (const kind of ID_KINDS) {
    const [row] = await queryRows<{ id: number }>(client, `SELECT max(id) AS id FROM ${kind}`)
    highest.set(kind, Math.max(highest.get(kind) ?? 0, Number(row?.id ?? 0)))
  }
  return highest
}

abstract class Listeners {
  private readonly listeners: Array<(change: ConfigChange) => void> = []

  constructor(protected readonly logger: Logger) {}

  onChange(listener: (change: ConfigChange) => void): void {
    this.listeners.push(listener)
  }

  protected emit(change: ConfigChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change)
      } catch (err) {
        this.logger.error({ err, kind: change.kind }, 'applying a configuration change failed')
      }
    }
  }
}

/** Embedded mode: one process, so listeners in memory and a counter per kind. */
export class LocalConfigLog extends Listeners implements ConfigLog {
  private highest: Map<IdKind, number> | null = null
  private readonly serial = new SerialQueue()
  private readonly claims: VersionClaims

  constructor(
    private readonly client: ClickHouseClient,
    logger: Logger,
    options: { claimExpiryMs?: number } = {},
  ) {
    super(logger)
    this.claims = new VersionClaims(client, false, options.claimExpiryMs ?? CLAIM_EXPIRY_MS)
  }

  claimVersion(object: VersionedObject, expected: number): Promise<boolean> {
    return this.serial.run(() => this.claims.decide(object, expected, Date.now()))
  }

  nextId(kind: IdKind): Promise<number> {
    return this.serial.run(async () => {
      this.highest ??= await highestIds(this.client)
      const id = (this.highest.get(kind) ?? 0) + 1
      this.highest.set(kind, id)
      return id
    })
  }

  async publish(change: ConfigChange): Promise<void> {
    this.emit(change)
  }

  async stop(): Promise<void> {}
}

/** Cluster mode: the `wren_config` topic (see the top of this file). */
export class ClusterConfigLog extends Listeners implements ConfigLog {
  private readonly answers = new EventEmitter()
  private readonly reader: Subscription
  private allocator: Subscription | null = null
  private highest: Map<IdKind, number> | null = null
  private readonly claims: VersionClaims

  constructor(
    private readonly log: Log,
    private readonly client: ClickHouseClient,
    logger: Logger,
    options: { allocate: boolean; claimExpiryMs?: number },
  ) {
    super(logger)
    this.claims = new VersionClaims(client, true, options.claimExpiryMs ?? CLAIM_EXPIRY_MS)
    this.answers.setMaxListeners(0)
    this.reader = log.subscribe({
      ...subscription('config'),
      maxBatchRecords: 1000,
      maxWaitMs: 5,
      handler: async (batch) => {
        for (const wire of this.decode(batch)) {
          if (wire.type === 'change') this.emit(wire.change)
          else if (wire.type === 'ids') for (const [request, id] of wire.answers) this.answers.emit(request, id)
          else if (wire.type === 'claims') for (const [request, granted] of wire.answers) this.answers.emit(request, granted)
        }
      },
    })
    if (options.allocate) {
      this.allocator = log.subscribe({
        ...subscription('config-ids'),
        maxBatchRecords: 1000,
        maxWaitMs: 5,
        handler: (batch) => this.allocate(batch),
      })
    }
  }

  nextId(kind: IdKind): Promise<number> {
    const request = randomUUID()
    return this.ask<number>({ type: 'id', request, kind }, `no ${kind} id was handed out`)
  }

  claimVersion(object: VersionedObject, expected: number): Promise<boolean> {
    const request = randomUUID()
    return this.ask<boolean>({ type: 'claim', request, object, expected }, `no answer to a claim on ${objectKey(object)}`)
  }

  /** Appends a request and waits for the owner's answer to it. */
  private async ask<T>(wire: Extract<Wire, { request: string }>, missing: string): Promise<T> {
    const answered = new Promise<T>((resolve, reject) => {
      const answer = (value: T) => {
        clearTimeout(timer)
        resolve(value)
      }
      const timer = setTimeout(() => {
        this.answers.off(wire.request, answer)
        reject(new Error(`${missing} within ${ID_TIMEOUT_MS} ms: is an api process running?`))
      }, ID_TIMEOUT_MS)
      timer.unref()
      this.answers.once(wire.request, answer)
    })
    await this.append(wire)
    return answered
  }

  async publish(change: ConfigChange): Promise<void> {
    this.emit(change)
    await this.append({ type: 'change', change })
  }

  async stop(): Promise<void> {
    await this.allocator?.stop()
    await this.reader.stop()
  }

  /** The owner's work: answers a batch's id requests and version claims in log order. */
  private async allocate(batch: LogBatch): Promise<void> {
    const wires = this.decode(batch)
    if (batch.reassigned || batch.redelivered) this.claims.forget()
    await this.grant(wires.filter((w): w is Extract<Wire, { type: 'claim' }> => w.type === 'claim'))
    const requests = wires.filter((w): w is Extract<Wire, { type: 'id' }> => w.type === 'id')
    if (requests.length === 0) return
    if (!this.highest || batch.reassigned || batch.redelivered) this.highest = await highestIds(this.client)
    const highest = new Map(this.highest)
    const answers: Array<[string, number]> = requests.map(({ request, kind }) => {
      const id = (highest.get(kind) ?? 0) + 1
      highest.set(kind, id)
      return [request, id]
    })
    const kinds = requests.map((r) => r.kind)
    await insertRows(
      this.client,
      'config_ids',
      answers.map(([, id], i) => ({ kind: kinds[i], id })),
    )
    this.highest = highest
    await this.append({ type: 'ids', answers })
  }

  /** Decides claims in log order; the granted versions are recorded before anyone hears of them. */
  private async grant(claims: Array<Extract<Wire, { type: 'claim' }>>): Promise<void> {
    if (claims.length === 0) return
    const answers: Array<[string, boolean]> = []
    const granted: Array<{ object: string; version: number }> = []
    try {
      for (const { request, object, expected } of claims) {
        const ok = await this.claims.decide(object, expected, Date.now())
        answers.push([request, ok])
        if (ok) granted.push({ object: objectKey(object), version: expected + 1 })
      }
      if (granted.length > 0) await insertRows(this.client, 'config_versions', granted)
    } catch (err) {
      // What was decided in memory was not recorded: the retried batch decides again from storage.
      this.claims.forget()
      throw err
    }
    await this.append({ type: 'claims', answers })
  }

  private append(wire: Wire): Promise<void> {
    return this.log.append(TOPICS.config, [{ key: 'config', value: Buffer.from(JSON.stringify(wire)) }])
  }

  private decode(batch: LogBatch): Wire[] {
    const out: Wire[] = []
    for (const record of batch.records) {
      try {
        out.push(JSON.parse(record.value.toString()) as Wire)
      } catch (err) {
        this.logger.warn({ err, offset: record.offset }, 'unreadable configuration record skipped')
      }
    }
    return out
  }
}
