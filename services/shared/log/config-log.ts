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
//   - Changes are appended to the same topic. Every process (any role) reads the topic with a consumer
//     group of its own, from the topic's start (it keeps minutes: a change appended while the process was
//     joining is not missed, old ones are ignored as older), applies changes and resolves its waits for ids.
import { EventEmitter } from 'node:events'
import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import type { ClickHouseClient } from '../clickhouse'
import { insertRows, queryRows } from '../clickhouse'
import type { Log, LogBatch, Subscription } from './log'
import { processGroup, TOPICS } from './log'
import { SerialQueue } from '../serial'

/** Tables whose integer ids the allocator hands out. */
export type IdKind = 'projects' | 'feature_flags' | 'actions' | 'cohorts' | 'insights' | 'dashboards'
const ID_KINDS: IdKind[] = ['projects', 'feature_flags', 'actions', 'cohorts', 'insights', 'dashboards']

/** A stored configuration record (the store's own shape, with its version), or a signal to reload. */
export type ConfigChange =
  | { kind: 'project'; record: unknown }
  | { kind: 'key'; record: unknown }
  | { kind: 'flag'; record: unknown }
  | { kind: 'action'; teamId: number; id: number }
  | { kind: 'cohort'; teamId: number }

export interface ConfigLog {
  /** A new id for a row of `kind`, unique across every process. */
  nextId(kind: IdKind): Promise<number>
  /** Tells every process (this one first) about a change that is stored. */
  publish(change: ConfigChange): Promise<void>
  onChange(listener: (change: ConfigChange) => void): void
  stop(): Promise<void>
}

type Wire =
  | { type: 'id'; request: string; kind: IdKind }
  | { type: 'ids'; answers: Array<[string, number]> }
  | { type: 'change'; change: ConfigChange }

const ID_TIMEOUT_MS = 30_000

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

  constructor(
    private readonly client: ClickHouseClient,
    logger: Logger,
  ) {
    super(logger)
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

  constructor(
    private readonly log: Log,
    private readonly client: ClickHouseClient,
    logger: Logger,
    options: { allocate: boolean },
  ) {
    super(logger)
    this.answers.setMaxListeners(0)
    this.reader = log.subscribe({
      topic: TOPICS.config,
      group: processGroup('wren-config'),
      maxBatchRecords: 1000,
      maxWaitMs: 5,
      handler: async (batch) => {
        for (const wire of this.decode(batch)) {
          if (wire.type === 'change') this.emit(wire.change)
          else if (wire.type === 'ids') for (const [request, id] of wire.answers) this.answers.emit(request, id)
        }
      },
    })
    if (options.allocate) {
      this.allocator = log.subscribe({
        topic: TOPICS.config,
        group: 'wren-config-ids',
        maxBatchRecords: 1000,
        maxWaitMs: 5,
        handler: (batch) => this.allocate(batch),
      })
    }
  }

  async nextId(kind: IdKind): Promise<number> {
    const request = randomUUID()
    const answered = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.answers.off(request, resolve)
        reject(new Error(`no ${kind} id was handed out within ${ID_TIMEOUT_MS} ms: is an api process running?`))
      }, ID_TIMEOUT_MS)
      timer.unref()
      this.answers.once(request, (id: number) => {
        clearTimeout(timer)
        resolve(id)
      })
    })
    await this.append({ type: 'id', request, kind })
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

  /** The owner's work: answers a batch's id requests in log order. */
  private async allocate(batch: LogBatch): Promise<void> {
    const requests = this.decode(batch).filter((w): w is Extract<Wire, { type: 'id' }> => w.type === 'id')
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
