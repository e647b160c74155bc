// The log is Wren's source of truth: capture appends, stream processors consume. Two implementations of
// this one interface: the embedded segment log (single machine) and Kafka (cluster mode).
import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'

export interface LogMessage {
  /** Partition key: every message with the same key is delivered in append order. */
  key: string
  value: Buffer
}

export interface LogRecord extends LogMessage {
  partition: number
  offset: number
}

export interface LogBatch {
  topic: string
  partition: number
  /** Consecutive offsets, firstOffset..lastOffset inclusive, never empty. */
  records: LogRecord[]
  firstOffset: number
  lastOffset: number
  /**
   * True when exactly this batch was handed to a handler before (the process died before the handler
   * finished) and is handed out again. Handlers use it to rebuild the state they had before the batch,
   * so that the replay produces the same output and insert deduplication drops what was already written.
   */
  redelivered: boolean
  /**
   * True on the first batch of a partition after this consumer was (re)assigned it (Kafka rebalances):
   * another consumer may have written state for this partition's keys since this one last saw it, so
   * anything cached from earlier batches must be reloaded. The embedded log has one consumer and never
   * sets it.
   */
  reassigned?: boolean
}

/**
 * Whether a batch may have been written before, in whole or in part: handed out again, or the first of a
 * partition just got. A crash may have cut an earlier write of it anywhere, so its writes look first
 * (platform/clickhouse replayTokens, insertMissing).
 */
export function handedOutBefore(batch: LogBatch): boolean {
  return batch.redelivered || Boolean(batch.reassigned)
}

export interface SubscribeOptions {
  topic: string
  group: string
  maxBatchRecords: number
  /**
   * Most bytes (keys and values) per batch: a batch ends before the record that would pass it, and always
   * holds at least one record. Unset: no bound but the count.
   */
  maxBatchBytes?: number
  /** How long to wait for more records before delivering a partial batch. */
  maxWaitMs: number
  /**
   * Called with one batch at a time per partition. When it resolves, the offset after the batch is
   * committed durably. When it throws, the same batch is delivered again after a backoff.
   */
  handler: (batch: LogBatch) => Promise<void>
  /**
   * Told, while the handler runs a batch, of the batch the subscription means to hand it next (its records
   * already read), so that work on it can start early. A hint only: nothing of it is pending or committed,
   * and the next handler call may be another range, or this one redelivered or reassigned (a failure, a
   * stop, a rebalance). Work started on it must store nothing until the handler is handed it.
   */
  lookahead?: (next: LogBatch) => void
  onError?: (err: unknown, batch: LogBatch) => void
  /**
   * Where a group with no committed offset starts: 'start' (the default: everything the topic still
   * holds) or 'end' (only what is appended from now on: a process's own reader of change feeds, which
   * loads the state before that from storage).
   */
  from?: 'start' | 'end'
}

export interface Subscription {
  /** Stops delivering; waits for the batch in flight to finish and be committed. */
  stop(): Promise<void>
}

export interface TopicStats {
  topic: string
  /** Offset the next appended record will get (sum over partitions). */
  endOffset: number
  /** Committed offsets per consumer group (sum over partitions). */
  committed: Record<string, number>
  /**
   * Committed offsets per consumer group and partition (the next offset that group will be handed there;
   * while a range is pending, its first offset). Person compaction (ingestion/persons/compaction.ts) reads it.
   */
  committedByPartition?: Record<string, Record<number, number>>
  /** Bytes the topic takes on disk, where the log knows it cheaply (the embedded log). */
  bytes?: number
}

export interface Log {
  /** Appends the messages; resolves only once they are durable. All or nothing per call. */
  append(topic: string, messages: LogMessage[]): Promise<void>
  subscribe(options: SubscribeOptions): Subscription
  /** Offsets of the topic and of every consumer group, or only of `groups` when given (cheaper on Kafka). */
  stats(topic: string, groups?: string[]): Promise<TopicStats>
  /** How many partitions the topic has (the embedded log: one). */
  partitions(topic: string): Promise<number>
  close(): Promise<void>
}

/** The bytes a record counts for against SubscribeOptions.maxBatchBytes. */
export function recordBytes(record: LogMessage): number {
  return Buffer.byteLength(record.key) + record.value.length
}

/** The longest run of `records` from the first that stays within `maxBytes` (never fewer than one record). */
export function withinBytes<T extends LogMessage>(records: T[], maxBytes: number | undefined): T[] {
  if (maxBytes === undefined) return records
  let bytes = 0
  for (let i = 0; i < records.length; i++) {
    bytes += recordBytes(records[i])
    if (i > 0 && bytes > maxBytes) return records.slice(0, i)
  }
  return records
}

export const TOPICS = {
  /** Captured events and person commands, keyed by project so one writer owns a project's persons. */
  ingest: 'wren_ingest',
  /** Session recording snapshots. */
  snapshots: 'wren_snapshots',
  /** Cluster mode: messages a processor could not handle (embedded mode keeps them in ClickHouse). */
  deadLetters: 'wren_dead_letters',
  /** Cluster mode: results of applied person commands, for api processes that wait on them. */
  commandResults: 'wren_command_results',
  /** Cluster mode: person changes the processor stored, for decide processes' snapshots (person-changes.ts). */
  personChanges: 'wren_person_changes',
  /** Cluster mode: configuration changes and id allocation, all keyed 'config' (config-log.ts). */
  config: 'wren_config',
} as const

/**
 * A consumer group of this process alone, for a topic every process reads in full (command results,
 * person changes, configuration): each process gets every record, none shares its offsets.
 */
export function processGroup(prefix: string): string {
  return `${prefix}-${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`
}
