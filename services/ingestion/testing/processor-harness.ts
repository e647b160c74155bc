// Test support: the real ingestion processor on the fake person store (fake-person-store.ts), fed by an
// in-memory log whose deliveries a test drives one at a time. The log keeps the real logs' contract
// (platform/log/log.ts): a batch whose handler throws is handed out again, marked redelivered, and a range
// handed out but never committed (the process died) is handed out again, exactly, to the next subscriber.
import pino from 'pino'
import type { Log, LogBatch, LogMessage, LogRecord, SubscribeOptions, Subscription, TopicStats } from '../../platform/log/log'
import { TOPICS } from '../../platform/log/log'
import { encodeIngest } from '../../platform/log/contract'
import { Metrics } from '../../platform/metrics'
import { FakePersonStore, type FakeWrite } from './fake-person-store'
import { IngestionProcessor, type ProcessorOptions, type ProcessorWork } from '../processor'
import type { CommandResult } from '../../platform/log/command-results'
import type { IngestEvent, IngestionWarning, PersonChanges, PersonCommand, ProcessedEvent, Properties } from '../types'

export interface Delivery {
  batch: LogBatch
  /** Whether the range was committed (false: it stays pending and the next delivery hands it out again). */
  committed: boolean
  /** How many times the handler threw. */
  failures: number
}

/** One partition per topic, delivered only when a test calls deliver(). */
export class MemoryLog implements Log {
  private readonly topics = new Map<string, LogRecord[]>()
  private readonly committed = new Map<string, number>()
  /** A range handed out and not committed: the next delivery hands out exactly it, marked redelivered. */
  private readonly pending = new Map<string, { first: number; last: number }>()
  private subscription: SubscribeOptions | null = null

  async append(topic: string, messages: LogMessage[]): Promise<void> {
    const records = this.records(topic)
    for (const m of messages) records.push({ ...m, partition: 0, offset: records.length })
  }

  /** The newest subscriber takes over (as after a restart); the one before it gets nothing more. */
  subscribe(options: SubscribeOptions): Subscription {
    this.subscription = options
    return {
      stop: async () => {
        if (this.subscription === options) this.subscription = null
      },
    }
  }

  async stats(topic: string): Promise<TopicStats> {
    return {
      topic,
      endOffset: this.records(topic).length,
      committed: this.subscription ? { [this.subscription.group]: this.committed.get(topic) ?? 0 } : {},
    }
  }

  async partitions(): Promise<number> {
    return 1
  }

  async close(): Promise<void> {
    this.subscription = null
  }

  /**
   * Hands the subscriber its next batch (the pending range, else up to maxBatchRecords new records) and
   * hands it again, marked redelivered, each time the handler throws, at most `attempts` times.
   * With `crash`, the handler's success is not committed, as when the process dies before the commit.
   * With `lookahead`, the subscriber is told of the batch that follows while its handler first runs this
   * one (SubscribeOptions.lookahead), as the real logs do when that batch is there.
   */
  async deliver(options: { attempts?: number; crash?: boolean; reassigned?: boolean; lookahead?: boolean } = {}): Promise<Delivery> {
    const subscription = this.subscription
    if (!subscription) throw new Error('nothing is subscribed')
    const { topic, maxBatchRecords } = subscription
    const records = this.records(topic)
    const next = this.committed.get(topic) ?? 0
    const pending = this.pending.get(topic)
    const first = pending?.first ?? next
    const last = pending?.last ?? Math.min(records.length, next + maxBatchRecords) - 1
    if (last < first) throw new Error(`no records to deliver on ${topic}`)
    let batch: LogBatch = {
      topic,
      partition: 0,
      records: records.slice(first, last + 1),
      firstOffset: first,
      lastOffset: last,
      redelivered: pending !== undefined,
      reassigned: options.reassigned,
    }
    this.pending.set(topic, { first, last })
    const attempts = options.attempts ?? 20
    for (let failures = 0; failures < attempts; failures++) {
      try {
        const handled = subscription.handler(batch)
        const after = records.slice(last + 1, last + 1 + maxBatchRecords)
        if (options.lookahead && failures === 0 && after.length)
          subscription.lookahead?.({
            topic,
            partition: 0,
            records: after,
            firstOffset: last + 1,
            lastOffset: last + after.length,
            redelivered: false,
          })
        await handled
      } catch (err) {
        subscription.onError?.(err, batch)
        batch = { ...batch, redelivered: true, reassigned: undefined }
        continue
      }
      if (options.crash) return { batch, committed: false, failures }
      this.pending.delete(topic)
      this.committed.set(topic, last + 1)
      return { batch, committed: true, failures }
    }
    return { batch, committed: false, failures: attempts }
  }

  private records(topic: string): LogRecord[] {
    let records = this.topics.get(topic)
    if (!records) this.topics.set(topic, (records = []))
    return records
  }
}

export type Item = IngestEvent | PersonCommand
export type Output = ProcessedEvent | CommandResult | undefined

export interface Run {
  /** Per item: the event as stored (undefined when it was not stored) or the command's result. */
  outputs: Output[]
  /** The person changes the processor stored for the delivery. */
  changes: PersonChanges
  delivery: Delivery
}

const WARNING = 'ingestion warning: '

export interface LogLine {
  level: number
  msg: string
  [key: string]: unknown
}

/**
 * An IngestionProcessor on a FakePersonStore and a MemoryLog. run() appends items and delivers them as
 * one batch; restart() replaces the processor by a new one (no memory) on the same log and store.
 */
export function ingestion(options: { store?: FakePersonStore; processor?: Partial<ProcessorOptions & ProcessorWork<FakeWrite>> } = {}) {
  const store = options.store ?? new FakePersonStore()
  const log = new MemoryLog()
  const lines: LogLine[] = []
  const results: Array<[string, CommandResult]> = []
  const changes: PersonChanges[] = []
  const start = () => {
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) })
    const metrics = new Metrics()
    const processor = new IngestionProcessor(log, store, logger, metrics, {
      maxBatchRecords: 10_000,
      maxWaitMs: 0,
      deadLetters: store.deadLetters,
      publishResults: async (published) => void results.push(...published),
      ...options.processor,
    })
    processor.onPersonChanges((c) => changes.push(c))
    processor.start()
    return { processor, metrics }
  }
  let current = start()
  let warningsSeen = 0

  const harness = {
    store,
    log,
    lines,
    get processor() {
      return current.processor
    },
    get metrics() {
      return current.metrics
    },
    /** Appends the items (events and commands, or raw messages) to the ingest topic. */
    async append(...items: Array<Item | Buffer>): Promise<void> {
      await log.append(
        TOPICS.ingest,
        items.map((item) => ({ key: String(Buffer.isBuffer(item) ? 0 : item.teamId), value: Buffer.isBuffer(item) ? item : encode(item) })),
      )
    },
    /** Appends the items and delivers them as one batch. */
    async run(...items: Item[]): Promise<Run> {
      await harness.append(...items)
      return harness.deliver(items)
    },
    /** Delivers the next batch; `items` (what it holds) name the outputs. */
    async deliver(items: Item[], deliverOptions: Parameters<MemoryLog['deliver']>[0] = {}): Promise<Run> {
      const resultsBefore = results.length
      const changesBefore = changes.length
      const eventsBefore = store.events().length
      const delivery = await log.deliver(deliverOptions)
      const stored = store.events().slice(eventsBefore)
      const published = new Map(results.slice(resultsBefore))
      const outputs = items.map((item) => ('action' in item ? published.get(item.commandId) : stored.findLast((e) => e.uuid === item.uuid)))
      return { outputs, changes: mergeChanges(changes.slice(changesBefore)), delivery }
    },
    /** A new processor (no memory of the old one's) on the same log and store, as after a crash. */
    async restart(processorOptions: Partial<ProcessorOptions> = {}): Promise<void> {
      await current.processor.stop()
      options.processor = { ...options.processor, ...processorOptions }
      current = start()
    },
    /** The ingestion warnings logged since the last call, oldest first. */
    warnings(): IngestionWarning[] {
      const all = lines.filter((l) => l.msg.startsWith(WARNING))
      const fresh = all.slice(warningsSeen)
      warningsSeen = all.length
      return fresh.map((l) => ({ teamId: l.teamId as number, type: l.msg.slice(WARNING.length), details: l.details as Properties }))
    },
  }
  return harness
}

function encode(item: Item): Buffer {
  return 'action' in item ? encodeIngest({ kind: 'command', command: item }) : encodeIngest({ kind: 'event', event: item })
}

function mergeChanges(all: PersonChanges[]): PersonChanges {
  return {
    persons: all.flatMap((c) => c.persons),
    distinctIds: all.flatMap((c) => c.distinctIds),
    activity: all.flatMap((c) => c.activity),
    groups: all.flatMap((c) => c.groups),
    groupTypes: all.flatMap((c) => c.groupTypes),
  }
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
