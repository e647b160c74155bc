// The ingestion processor: consumes the ingest topic, is the single writer of person state, and writes
// events with their persons to its person store (person-store.ts: ClickHouse, or a fake in unit tests) in
// batches. Offsets are committed (by the log) only after the batch is stored; a batch replayed after a
// crash is rebuilt from the state before it.
//
// No batch stalls the stream: a batch that keeps failing is isolated (dead-letters/isolation.ts) until
// the messages that fail alone are found; they go to dead letters, everything else is stored.
//
// Exactly once through isolation. Every write, of a whole range or of a part, is computed from the state
// stored before its first offset (the replay bound: rows written by this part or later ones are left
// out) and carries deduplication tokens named after its own range, which is what isolation needs to
// replay a range after a crash. Two things are not undone: a failed write may have stored part of its
// rows before failing (the person tables are written before the events), so persons can show the
// changes of a message that was then dead-lettered, as PostHog's person updates land before their event
// is produced; and events of such a partial write are stored again by the parts, under the same uuids,
// which the events table (a ReplacingMergeTree) folds.
import type { Logger } from 'pino'
import type { Log, LogBatch, Subscription } from '../shared/log/log'
import { TOPICS } from '../shared/log/log'
import { decodeIngest, type IngestItem } from '../shared/log/contract'
import type { Metrics } from '../shared/metrics'
import type { DeadLetter, DeadLetterRecorder } from '../dead-letters/store'
import { BatchIsolation, errorText } from '../dead-letters/isolation'
import { PersonRepo } from './person-repo'
import { applyCommand, lookupsFor, processEvent, warnIfDroppedPersonless, type CommandResult } from './person-rules'
import type { PersonStore } from './person-store'
import { CommandWaiters, type CommandResultPublisher } from './command-results'
import type { PersonChangePublisher } from './person-feed'
import type { PersonChanges, PersonCommand, ProcessedEvent } from './types'
import { withGeoIp, type CityLookup } from './geoip'
import { EventLoopTurns } from '../shared/turns'

export interface ProcessorOptions {
  maxBatchRecords: number
  maxWaitMs: number
  /** Failures of the same range before it is isolated (split until the failing messages are found). */
  maxRetries?: number
  /** Failpoint for crash tests: die (SIGKILL) after this many batches are written, before their commit. */
  crashAfterBatches?: number | null
  /** Failpoint for tests: writing a batch that holds an event of this name fails, as if ClickHouse refused it. */
  poisonEvent?: string | null
  /** Where messages that cannot be handled go (the dead_letters table, dead-letters/store.ts). */
  deadLetters: DeadLetterRecorder
  /** Persons (and their distinct ids and groups) kept in memory between batches; the least recently used go first. */
  maxCachedPersons?: number
  /** Cluster mode: where applied commands' results go for api processes elsewhere (command-results.ts). */
  publishResults?: CommandResultPublisher
  /** Cluster mode: where stored person changes go for decide processes elsewhere (person-feed.ts). */
  publishChanges?: PersonChangePublisher
  /** Adds $geoip_* from each event's $ip before person processing (geoip.ts); none without it. */
  geoip?: CityLookup | null
}

export class IngestionProcessor {
  private readonly repo: PersonRepo
  private readonly waiters = new CommandWaiters()
  private subscription: Subscription | null = null
  private batchesWritten = 0
  private readonly changeListeners: Array<(changes: PersonChanges) => void> = []
  private readonly deadLetters: DeadLetterRecorder
  private readonly isolation: BatchIsolation
  /** Partitions of the ingest topic (person ids step by it, person-ids.ts); read again after a rebalance or a failure. */
  private partitions: number | null = null

  constructor(
    private readonly log: Log,
    private readonly store: PersonStore,
    private readonly logger: Logger,
    private readonly metrics: Metrics,
    private readonly options: ProcessorOptions,
  ) {
    this.deadLetters = options.deadLetters
    this.repo = new PersonRepo({ maxPersons: options.maxCachedPersons })
    this.isolation = new BatchIsolation(logger, metrics, {
      name: 'ingestion',
      maxRetries: options.maxRetries ?? 3,
      deadLetters: options.deadLetters,
      write: (batch) => this.processRange(batch),
      ping: () => this.store.ping(),
      onDeadLetter: (record, letter) => this.commandFailed(record.value, letter),
      metrics: { retries: 'wren_ingestion_batch_retries_total', splits: 'wren_ingestion_batches_split_total' },
    })
  }

  start(): void {
    this.subscription = this.log.subscribe({
      topic: TOPICS.ingest,
      group: 'ingestion',
      maxBatchRecords: this.options.maxBatchRecords,
      maxWaitMs: this.options.maxWaitMs,
      handler: (batch) => this.handleBatch(batch),
      onError: (err, batch) => this.isolation.reportFailure(err, batch),
    })
  }

  async stop(): Promise<void> {
    await this.subscription?.stop()
    this.subscription = null
  }

  /** Hears each batch's person changes once they are stored (decide's snapshot keeps fresh this way). */
  onPersonChanges(listener: (changes: PersonChanges) => void): void {
    this.changeListeners.push(listener)
  }

  /** Resolves with the command's result once it is applied and stored. */
  waitForCommand(commandId: string, timeoutMs?: number): Promise<CommandResult> {
    return this.waiters.waitForCommand(commandId, timeoutMs)
  }

  private async handleBatch(batch: LogBatch): Promise<void> {
    const started = performance.now()
    await this.isolation.handle(batch)
    this.metrics.observe('wren_ingestion_batch_duration_seconds', (performance.now() - started) / 1000)
  }

  /** A command dead-lettered alone: whoever waits for its result hears that it failed. */
  private async commandFailed(value: Buffer, letter: DeadLetter): Promise<void> {
    const command = commandIn(value)
    if (!command) return
    const result: [string, CommandResult] = [command.commandId, { ok: false, status: 500, detail: letter.error }]
    if (this.options.publishResults) await this.options.publishResults([result])
    this.waiters.resolve(...result)
  }

  /** Processes one range of the log and writes its output. Throws when the range cannot be written. */
  private async processRange(batch: LogBatch): Promise<void> {
    // Capture's requests share this thread: a 10,000-item batch is hundreds of ms of pure CPU, done in turns.
    const turns = new EventLoopTurns()
    const items: Array<{ offset: number; index: number; item: IngestItem }> = []
    const deadLetters: DeadLetter[] = []
    for (const [index, record] of batch.records.entries()) {
      if (turns.due()) await turns.take()
      try {
        const item = decodeIngest(record.value)
        const geoip = this.options.geoip
        items.push({
          offset: record.offset,
          index,
          item: item.kind === 'event' && geoip ? { ...item, event: withGeoIp(item.event, geoip) } : item,
        })
      } catch (err) {
        deadLetters.push({ offset: record.offset, error: errorText(err), payload: record.value, teamId: null })
      }
    }

    // A redelivered batch may be partly stored already: forget what memory holds and rebuild the
    // state from before the batch, so the replay writes the same rows and deduplication drops them.
    // A partition this process just got (a Kafka rebalance) may have been written by another process.
    if (batch.redelivered || batch.reassigned) {
      this.repo.clear()
      this.partitions = null
    }
    this.partitions ??= await this.log.partitions(batch.topic)
    const personIds = { partition: batch.partition, partitions: this.partitions }
    this.repo.useIdSpace(personIds)
    const bound = batch.redelivered ? { partition: batch.partition, firstOffset: batch.firstOffset } : null
    const wanted = this.repo.unknown({
      ...lookupsFor(items.map(({ item }) => (item.kind === 'event' ? item.event : item.command))),
      personIds,
    })
    this.repo.load(wanted, await this.store.load(wanted, bound))

    const events: ProcessedEvent[] = []
    const results: Array<[string, CommandResult]> = []
    for (const { offset, index, item } of items) {
      if (turns.due()) await turns.take()
      try {
        // An item that throws leaves no half-applied person change behind.
        this.repo.atomically(() => {
          if (item.kind === 'command') results.push([item.command.commandId, applyCommand(this.repo, item.command)])
          else if (!warnIfDroppedPersonless(this.repo, item.event)) events.push(processEvent(this.repo, item.event))
        })
      } catch (err) {
        deadLetters.push({
          offset,
          error: errorText(err),
          payload: batch.records[index].value,
          teamId: item.kind === 'event' ? item.event.teamId : item.command.teamId,
        })
        // Whoever waits for a command that cannot be applied hears so now, not after its timeout.
        if (item.kind === 'command') results.push([item.command.commandId, { ok: false, status: 500, detail: errorText(err) }])
      }
    }

    const changes = this.repo.takeChanges()
    try {
      const poison = this.options.poisonEvent
      if (poison && events.some((e) => e.event === poison))
        throw new Error(`failpoint: ClickHouse refuses a batch holding a ${JSON.stringify(poison)} event`)
      await this.store.write(batch, changes, events)
      await this.deadLetters.record(batch, deadLetters)
      if (this.options.publishResults) await this.options.publishResults(results)
      if (this.options.publishChanges) await this.options.publishChanges(changes)
    } catch (err) {
      // Memory is now ahead of storage; the log redelivers this batch and we rebuild from storage.
      this.repo.clear()
      this.partitions = null
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
    this.metrics.inc('wren_dead_letters_total', deadLetters.length, { topic: batch.topic })
    const warnings = this.repo.takeWarnings()
    this.metrics.inc('wren_ingestion_warnings_total', warnings.length)
    for (const w of warnings.slice(0, 20)) this.logger.info({ teamId: w.teamId, details: w.details }, `ingestion warning: ${w.type}`)
    if (deadLetters.length)
      this.logger.warn({ count: deadLetters.length, first: deadLetters[0].error }, 'messages sent to the dead-letter store')
    for (const [commandId, result] of results) this.waiters.resolve(commandId, result)
  }
}

/** The person command a log message holds, if it holds one and decodes. */
function commandIn(value: Buffer): PersonCommand | null {
  try {
    const item = decodeIngest(value)
    return item.kind === 'command' ? item.command : null
  } catch {
    return null
  }
}
