// The recordings processor: consumes the snapshots topic in batches and stores each batch's snapshot
// blocks (blocks.ts) in ClickHouse. Offsets are committed (by the log) only after the batch is stored.
//
// Exactly once: a batch's blocks are computed from the batch alone (no state carried between batches), so
// the same range always makes the same rows, and they are inserted under a deduplication token named
// after the range. After a SIGKILL between the write and the commit the log hands out the same range
// again; its rows are dropped by ClickHouse as duplicates, and nothing the range held is lost. A range is
// written in parts of `partRecords` messages from its first (each a range of its own, stored while the
// next is worked); the runner isolates a range at a multiple of that, so every part of a half is a part of
// the range, with the same rows and tokens.
//
// A message that PostHog's parser would drop (no valid rrweb event, or events 7 days or more from when
// capture received it) is skipped and counted. A message that does not decode is a dead letter. A batch
// whose write keeps failing is isolated by the batch runner (platform/processing/runner.ts): its halves are
// written as ranges of their own until the messages that fail alone are found, and those go to dead
// letters, so one poison snapshot cannot stall everyone's recordings. Each part's blocks are computed from
// the part alone and written under its own range's tokens, which is what isolation needs to be
// exactly-once through a crash. The metadata is computed before anything is written (BlockListener), so a
// snapshot it cannot read fails its range before the blocks are stored. What remains: a range whose
// blocks insert succeeds in part (a multi-chunk insert) or whose metadata insert keeps failing after its
// blocks were stored would, once split, store those blocks again under the halves' tokens; both need
// ClickHouse itself to keep refusing one range's rows while taking others'.
import type { Logger } from 'pino'
import type { Log, LogBatch } from '../platform/log/log'
import { handedOutBefore } from '../platform/log/log'
import { decodeSnapshot, type SnapshotItem } from '../platform/log/contract'
import type { Metrics } from '../platform/metrics'
import { subscription } from '../platform/log/streams'
import { BatchRunner, partsOf, type DeadLetter, type DeadLetterRecorder, type Stage, type Written } from '../platform/processing/runner'
import { errorText } from '../platform/errors'
import { dropReason, eventsOf, toBlocks, type BatchRange, type BlockStore, type MessageEvents, type SnapshotBlock } from './blocks'

/**
 * The metadata hook (recordings/metadata-store.ts): handed each range's blocks before anything of the range
 * is written, it computes what it will store at once — throwing for snapshots it cannot read, so that such a
 * range leaves nothing behind and isolation's halves are the only copies written — and returns the write,
 * which runs after the blocks are stored and before the commit. The write must carry deduplication tokens
 * named after `range`, as the blocks do, so a replayed range stores its metadata once too; `replayed` says the
 * range was handed out before, so its tokens may have been left without their rows (replayTokens).
 */
export type BlockListener = (range: BatchRange, blocks: SnapshotBlock[]) => (replayed: boolean) => Promise<void>

export interface RecordingsProcessorOptions {
  maxBatchRecords: number
  /** Most bytes of snapshot messages per batch (the log's SubscribeOptions.maxBatchBytes). */
  maxBatchBytes?: number
  maxWaitMs: number
  /** Messages per part of a range: one part is stored while the next is worked (partsOf). */
  partRecords: number
  /** Failures of the same range before it is isolated (split until the failing messages are found). */
  maxRetries?: number
  /** Where messages that cannot be handled go (the dead_letters table, dead-letters/store.ts). */
  deadLetters: DeadLetterRecorder
  /** Failpoint for crash tests: die (SIGKILL) after this many batches are written, before their commit. */
  crashAfterBatches?: number | null
  /** Failpoint for tests: writing a batch that holds a snapshot of this session fails, as if ClickHouse refused it. */
  poisonSession?: string | null
  /** The metadata hook (see BlockListener). */
  onBlocks?: BlockListener
}

/** The snapshots stream's processor: the recordings stage under the batch runner, which owns the subscription and failures. */
export class RecordingsProcessor {
  private readonly runner: BatchRunner

  constructor(log: Log, store: BlockStore, logger: Logger, metrics: Metrics, options: RecordingsProcessorOptions) {
    this.runner = new BatchRunner(log, new RecordingsStage(store, logger, metrics, options), logger, metrics, {
      name: 'recordings',
      ...subscription('snapshots'),
      maxBatchRecords: options.maxBatchRecords,
      maxBatchBytes: options.maxBatchBytes,
      maxWaitMs: options.maxWaitMs,
      maxRetries: options.maxRetries ?? 3,
      partRecords: options.partRecords,
      deadLetters: options.deadLetters,
      crashAfterBatches: options.crashAfterBatches,
      metrics: {
        retries: 'wren_recording_batch_retries_total',
        splits: 'wren_recording_batches_split_total',
        duration: 'wren_recording_batch_duration_seconds',
      },
    })
  }

  start(): void {
    this.runner.start()
  }

  stop(): Promise<void> {
    return this.runner.stop()
  }

  /** The log's handler: stores one batch's blocks, or isolates the batch (exported for tests that hand batches in directly). */
  handleBatch(batch: LogBatch): Promise<void> {
    return this.runner.handleBatch(batch)
  }
}

/** Writes a range of the snapshots topic: its blocks, then its metadata. */
class RecordingsStage implements Stage {
  constructor(
    private readonly store: BlockStore,
    private readonly logger: Logger,
    private readonly metrics: Metrics,
    private readonly options: Pick<RecordingsProcessorOptions, 'poisonSession' | 'onBlocks' | 'partRecords'>,
  ) {}

  ping(): Promise<{ success: boolean; error?: Error }> {
    return this.store.ping()
  }

  teamOf(payload: Buffer): number | null {
    try {
      return decodeSnapshot(payload).teamId
    } catch {
      return null
    }
  }

  /**
   * Stores one range's blocks and metadata, in parts (partsOf): each part's are stored while the next part is
   * worked. Throws when the range cannot be written, or when `stopping` is aborted before one of its parts (the
   * parts written so far are what a replay writes again, under the same tokens).
   */
  async write(batch: LogBatch, stopping?: AbortSignal): Promise<Written> {
    const letters: DeadLetter[] = []
    let blocks = 0
    let events = 0
    let writes = Promise.resolve()
    try {
      for (const part of partsOf(batch, this.options.partRecords)) {
        stopping?.throwIfAborted()
        const messages = this.read(part, letters)
        const partBlocks = toBlocks(messages)
        const poison = this.options.poisonSession
        if (poison && messages.some((m) => m.item.sessionId === poison))
          throw new Error(`failpoint: ClickHouse refuses a batch holding a snapshot of session ${JSON.stringify(poison)}`)
        const writeMetadata = this.options.onBlocks?.(part, partBlocks)
        const replayed = handedOutBefore(batch)
        writes = writes.then(async () => {
          await this.store.write(part, partBlocks, replayed)
          await writeMetadata?.(replayed)
        })
        // Awaited below, after the work: a failed write is never left unhandled meanwhile.
        writes.catch(() => undefined)
        blocks += partBlocks.length
        for (const m of messages) events += m.events.length
        // The part's inserts start (chDB works them on its own threads) before the next part is worked.
        await new Promise(setImmediate)
      }
      await writes
    } catch (err) {
      // No write of this range may still be running when the log hands it out again; a write's own error is the range's.
      const failedWrite = await writes.then(
        () => null,
        (writeErr: unknown) => ({ writeErr }),
      )
      throw failedWrite ? failedWrite.writeErr : err
    }
    return {
      letters,
      stored: () => {
        this.metrics.inc('wren_recording_blocks_total', blocks)
        this.metrics.inc('wren_recording_events_total', events)
      },
    }
  }

  /** A part's messages that make blocks: decoded, their events read; a message that does not decode is a dead letter, one PostHog would drop is dropped. */
  private read(part: LogBatch, letters: DeadLetter[]): Array<{ item: SnapshotItem } & MessageEvents> {
    const messages: Array<{ item: SnapshotItem } & MessageEvents> = []
    for (const record of part.records) {
      let item: SnapshotItem
      let events: MessageEvents
      try {
        item = decodeSnapshot(record.value)
        events = eventsOf(item.events)
      } catch (err) {
        letters.push({ offset: record.offset, error: errorText(err), payload: record.value, teamId: null })
        continue
      }
      const reason = dropReason(item, events.events)
      if (reason) this.drop(reason, { partition: part.partition, offset: record.offset, teamId: item.teamId, sessionId: item.sessionId })
      else messages.push({ item, ...events })
    }
    return messages
  }

  private drop(reason: string, context: Record<string, unknown>): void {
    this.metrics.inc('wren_recording_snapshots_dropped_total', 1, { reason })
    this.logger.warn({ ...context, reason }, 'snapshot message dropped')
  }
}
