// The ingestion processor: consumes the ingest topic, is the single writer of person state, and writes
// events with their persons to ClickHouse in batches. Offsets are committed (by the log) only after the
// batch is in ClickHouse; a batch replayed after a crash is rebuilt from the state before it.
import type { Logger } from 'pino'
import type { ClickHouseClient } from '../shared/clickhouse'
import type { Log, LogBatch, Subscription } from '../shared/log/log'
import { TOPICS } from '../shared/log/log'
import { decodeIngest, type IngestItem } from '../shared/log/messages'
import type { Metrics } from '../shared/metrics'
import { PersonRepo } from './person-repo'
import { applyCommand, isDroppedPersonlessEvent, lookupsFor, processEvent, type CommandResult } from './person-rules'
import { loadPersonState } from './person-loader'
import { writeBatch } from './writer'
import { clickHouseDeadLetters, type DeadLetter, type DeadLetterSink } from './dead-letters'
import { CommandWaiters, type CommandResultPublisher } from './command-results'
import type { PersonChanges, ProcessedEvent } from './types'

// Person rules run this many items between turns of the event loop.
const YIELD_EVERY = 250

export interface ProcessorOptions {
  maxBatchRecords: number
  maxWaitMs: number
  /** Failpoint for crash tests: die (SIGKILL) after this many batches are written, before their commit. */
  crashAfterBatches?: number | null
  /** Where undecodable or unprocessable messages go; the dead_letters table unless told otherwise. */
  deadLetters?: DeadLetterSink
  /** Cluster mode: where applied commands' results go for api processes elsewhere (command-results.ts). */
  publishResults?: CommandResultPublisher
}

export class IngestionProcessor {
  private readonly repo = new PersonRepo()
  private readonly waiters = new CommandWaiters()
  private subscription: Subscription | null = null
  private batchesWritten = 0
  private readonly changeListeners: Array<(changes: PersonChanges) => void> = []
  private readonly deadLetters: DeadLetterSink

  constructor(
    private readonly log: Log,
    private readonly client: ClickHouseClient,
    private readonly logger: Logger,
    private readonly metrics: Metrics,
    private readonly options: ProcessorOptions,
  ) {
    this.deadLetters = options.deadLetters ?? clickHouseDeadLetters(client)
  }

  start(): void {
    this.subscription = this.log.subscribe({
      topic: TOPICS.ingest,
      group: 'ingestion',
      maxBatchRecords: this.options.maxBatchRecords,
      maxWaitMs: this.options.maxWaitMs,
      handler: (batch) => this.handleBatch(batch),
      onError: (err, batch) => this.logger.error({ err, firstOffset: batch.firstOffset, lastOffset: batch.lastOffset }, 'ingestion batch failed; retrying'),
    })
  }

  async stop(): Promise<void> {
    await this.subscription?.stop()
    this.subscription = null
  }

  /** Hears each batch's person changes once they are in ClickHouse (decide's snapshot keeps fresh this way). */
  onPersonChanges(listener: (changes: PersonChanges) => void): void {
    this.changeListeners.push(listener)
  }

  /** Resolves with the command's result once it is applied and stored. */
  waitForCommand(commandId: string, timeoutMs?: number): Promise<CommandResult> {
    return this.waiters.waitForCommand(commandId, timeoutMs)
  }

  private async handleBatch(batch: LogBatch): Promise<void> {
    const items: Array<{ offset: number; index: number; item: IngestItem }> = []
    const deadLetters: DeadLetter[] = []
    for (const [index, record] of batch.records.entries()) {
      try {
        items.push({ offset: record.offset, index, item: decodeIngest(record.value) })
      } catch (err) {
        deadLetters.push({ offset: record.offset, error: errorText(err), payload: record.value })
      }
    }

    // A redelivered batch may be partly in ClickHouse already: forget what memory holds and rebuild the
    // state from before the batch, so the replay writes the same rows and deduplication drops them.
    // A partition this process just got (a Kafka rebalance) may have been written by another process.
    if (batch.redelivered || batch.reassigned) this.repo.clear()
    const bound = batch.redelivered ? { partition: batch.partition, firstOffset: batch.firstOffset } : null
    const wanted = this.repo.unknown(lookupsFor(items.map(({ item }) => (item.kind === 'event' ? item.event : item.command))))
    this.repo.load(wanted, await loadPersonState(this.client, wanted, bound))

    const events: ProcessedEvent[] = []
    const results: Array<[string, CommandResult]> = []
    for (const [n, { offset, index, item }] of items.entries()) {
      // Give capture's requests a turn now and then: a 10,000-item batch is tens of ms of pure CPU.
      if (n > 0 && n % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve))
      try {
        // An item that throws leaves no half-applied person change behind.
        this.repo.atomically(() => {
          if (item.kind === 'command') results.push([item.command.commandId, applyCommand(this.repo, item.command)])
          else if (!isDroppedPersonlessEvent(item.event)) events.push(processEvent(this.repo, item.event))
        })
      } catch (err) {
        deadLetters.push({ offset, error: errorText(err), payload: batch.records[index].value })
      }
    }

    const changes = this.repo.takeChanges()
    try {
      await writeBatch(this.client, batch, changes, events)
      await this.deadLetters(batch, deadLetters)
      if (this.options.publishResults) await this.options.publishResults(results)
    } catch (err) {
      // Memory is now ahead of ClickHouse; the log redelivers this batch and we rebuild from storage.
      this.repo.clear()
      throw err
    }
    if (this.options.crashAfterBatches && ++this.batchesWritten >= this.options.crashAfterBatches) process.kill(process.pid, 'SIGKILL')
    for (const listener of this.changeListeners) {
      try {
        listener(changes)
      } catch (err) {
        this.logger.error({ err }, 'person change listener failed')
      }
    }
    this.repo.evict()
    this.metrics.inc('wren_ingested_events_total', events.length)
    this.metrics.inc('wren_dead_letters_total', deadLetters.length)
    const warnings = this.repo.takeWarnings()
    this.metrics.inc('wren_ingestion_warnings_total', warnings.length)
    for (const w of warnings.slice(0, 20)) this.logger.info({ teamId: w.teamId, details: w.details }, `ingestion warning: ${w.type}`)
    if (deadLetters.length) this.logger.warn({ count: deadLetters.length, first: deadLetters[0].error }, 'messages sent to the dead-letter store')
    for (const [commandId, result] of results) this.waiters.resolve(commandId, result)
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}
