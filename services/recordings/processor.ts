// The recordings processor: consumes the snapshots topic in batches and stores each batch's snapshot
// blocks (blocks.ts) in ClickHouse. Offsets are committed (by the log) only after the batch is stored.
//
// Exactly once: a batch's blocks are computed from the batch alone (no state carried between batches), so
// the same range always makes the same rows, and they are inserted under a deduplication token named
// after the range. After a SIGKILL between the write and the commit the log hands out the same range
// again; its rows are dropped by ClickHouse as duplicates, and nothing the range held is lost.
//
// A message that cannot be decoded, or that PostHog's parser would drop (no valid rrweb event, or events
// 7 days or more from when capture received it), is skipped and counted; it never stops the stream. A
// batch whose write fails is handed back by the log (with backoff) and written again.
import type { Logger } from 'pino'
import type { Log, LogBatch, Subscription } from '../shared/log/log'
import { TOPICS } from '../shared/log/log'
import { decodeSnapshot, type SnapshotItem } from '../shared/log/contract'
import type { Metrics } from '../shared/metrics'
import { RepeatedFailures } from '../shared/repeated-failures'
import { dropReason, toBlocks, validEvents, type BatchRange, type BlockStore, type RrwebEvent, type SnapshotBlock } from './blocks'

/**
 * HOOK (issue 11, metadata): where per-session metadata is computed (recordings/metadata.ts, the
 * accumulator of reference §4.3). It is handed each batch's blocks after they are stored and before the
 * batch is committed; whatever it writes must carry deduplication tokens named after `range`, as the
 * blocks do, so a replayed batch stores its metadata once too. A throw makes the log hand the batch out
 * again (the blocks' rewrite is then dropped as a duplicate).
 */
export type BlockListener = (range: BatchRange, blocks: SnapshotBlock[]) => Promise<void>

export interface RecordingsProcessorOptions {
  maxBatchRecords: number
  maxWaitMs: number
  /** Failpoint for crash tests: die (SIGKILL) after this many batches are written, before their commit. */
  crashAfterBatches?: number | null
  /** The metadata hook (see BlockListener). */
  onBlocks?: BlockListener
}

export class RecordingsProcessor {
  private subscription: Subscription | null = null
  private batchesWritten = 0
  private readonly failures: RepeatedFailures

  constructor(
    private readonly log: Log,
    private readonly store: BlockStore,
    private readonly logger: Logger,
    private readonly metrics: Metrics,
    private readonly options: RecordingsProcessorOptions,
  ) {
    this.failures = new RepeatedFailures(logger, 'recordings batch failed; retrying')
  }

  start(): void {
    this.subscription = this.log.subscribe({
      topic: TOPICS.snapshots,
      group: 'recordings',
      maxBatchRecords: this.options.maxBatchRecords,
      maxWaitMs: this.options.maxWaitMs,
      handler: (batch) => this.handleBatch(batch),
      onError: (err, batch) =>
        this.failures.failure(err, { partition: batch.partition, firstOffset: batch.firstOffset, lastOffset: batch.lastOffset }),
    })
  }

  async stop(): Promise<void> {
    await this.subscription?.stop()
    this.subscription = null
  }

  /** Stores one batch's blocks (exported for tests that hand batches in directly). */
  async handleBatch(batch: LogBatch): Promise<void> {
    const messages: Array<{ item: SnapshotItem; events: RrwebEvent[] }> = []
    for (const record of batch.records) {
      let item: SnapshotItem
      let events: RrwebEvent[]
      try {
        item = decodeSnapshot(record.value)
        events = validEvents(JSON.parse(item.events))
      } catch (err) {
        this.drop('undecodable', { partition: batch.partition, offset: record.offset, err })
        continue
      }
      const reason = dropReason(item, events)
      if (reason) this.drop(reason, { partition: batch.partition, offset: record.offset, teamId: item.teamId, sessionId: item.sessionId })
      else messages.push({ item, events })
    }
    const blocks = toBlocks(messages)
    await this.store.write(batch, blocks)
    // HOOK (issue 11, metadata): per-session metadata from the stored blocks, before the commit.
    if (this.options.onBlocks) await this.options.onBlocks(batch, blocks)
    if (this.options.crashAfterBatches && ++this.batchesWritten >= this.options.crashAfterBatches) process.kill(process.pid, 'SIGKILL')
    this.failures.success({ partition: batch.partition, firstOffset: batch.firstOffset, lastOffset: batch.lastOffset })
    this.metrics.inc('wren_recording_blocks_total', blocks.length)
    this.metrics.inc(
      'wren_recording_events_total',
      messages.reduce((n, m) => n + m.events.length, 0),
    )
  }

  private drop(reason: string, context: Record<string, unknown>): void {
    this.metrics.inc('wren_recording_snapshots_dropped_total', 1, { reason })
    this.logger.warn({ ...context, reason }, 'snapshot message dropped')
  }
}
