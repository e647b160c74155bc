// The ingestion processor: consumes the ingest topic, is the single writer of person state, and writes
// events with their persons to its person store (persons/store.ts: ClickHouse, or a fake in unit tests) in
// batches. Offsets are committed (by the log) only after the batch is stored; a batch replayed after a
// crash is rebuilt from the state before it.
//
// The batch runner (platform/processing/runner.ts) owns the subscription, the commit, retries, and the
// isolation of a range that keeps failing until its failing messages are dead letters (no batch stalls
// the stream); the ingestion stage here writes a range. It does the I/O: the store's lookups
// and writes, results and change announcements. The CPU work of a range (decoding, person rules, encoding
// rows: person-work.ts) runs where its RangeWork runs it: on a worker thread in Wren
// (worker-person-work.ts), in this thread in unit tests. A range comes back in parts, written in order
// while the next part is worked.
//
// Across ranges: while a range is written, the next one the log has (SubscribeOptions.lookahead) is
// worked, its lookups and first part ready by the time the last part before it is stored. It writes
// nothing until the log hands it to the runner, after the range before it is committed: only memory is
// ahead, and anything but that range coming next (a failure, a redelivery, a stop, a rebalance) drops it
// and clears memory, so every write is still computed from what was stored (or worked) before it.
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
import type { Log, LogBatch, LogRecord } from '../platform/log/log'
import { handedOutBefore } from '../platform/log/log'
import { decodeIngest } from '../platform/log/contract'
import type { Metrics } from '../platform/metrics'
import type { CopiesWaiting } from '../platform/ingestion-lag'
import { subscription } from '../platform/log/streams'
import { BatchRunner, type DeadLetter, type DeadLetterRecorder, type Stage, type Written } from '../platform/processing/runner'
import type { PersonStore, PingResult } from './persons/store'
import { CommandWaiters, type CommandResult, type CommandResultPublisher } from '../platform/log/command-results'
import type { PersonChangePublisher } from '../platform/log/person-changes'
import type { PersonChanges, PersonCommand } from './types'
import type { CityLookup } from '../platform/geoip'
import { PersonWork, type PartOutput, type RangeOutput, type RangeWork } from './person-work'

export interface ProcessorOptions {
  maxBatchRecords: number
  /** Most bytes of log messages per batch (the log's SubscribeOptions.maxBatchBytes). */
  maxBatchBytes?: number
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
  /** Cluster mode: where applied commands' results go for api processes elsewhere (platform/log/command-results.ts). */
  publishResults?: CommandResultPublisher
  /** Cluster mode: where stored person changes go for decide processes elsewhere (platform/log/person-changes.ts). */
  publishChanges?: PersonChangePublisher
  /** Adds $geoip_* from each event's $ip before person processing (geoip.ts); none without it. */
  geoip?: CityLookup | null
}

/** Where the person work runs: in this thread (the default) or on a worker (compute-worker.ts), whose options it then has. */
export interface ProcessorWork<Prepared> {
  work?: RangeWork<Prepared>
}

/** The ingest stream's processor: the ingestion stage under the batch runner, which owns the subscription and failures. */
export class IngestionProcessor<Prepared = unknown> {
  private readonly stage: IngestionStage<Prepared>
  private readonly runner: BatchRunner

  constructor(
    log: Log,
    private readonly store: PersonStore<Prepared>,
    logger: Logger,
    metrics: Metrics,
    options: ProcessorOptions & ProcessorWork<Prepared>,
  ) {
    this.stage = new IngestionStage(log, store, logger, metrics, options)
    this.runner = new BatchRunner(log, this.stage, logger, metrics, {
      name: 'ingestion',
      ...subscription('events'),
      maxBatchRecords: options.maxBatchRecords,
      maxBatchBytes: options.maxBatchBytes,
      maxWaitMs: options.maxWaitMs,
      maxRetries: options.maxRetries ?? 3,
      deadLetters: options.deadLetters,
      crashAfterBatches: options.crashAfterBatches,
      metrics: {
        retries: 'wren_ingestion_batch_retries_total',
        splits: 'wren_ingestion_batches_split_total',
        duration: 'wren_ingestion_batch_duration_seconds',
      },
    })
  }

  start(): void {
    this.stage.start()
    this.runner.start()
  }

  /** Stops taking batches (start() takes them again). */
  async stop(): Promise<void> {
    await this.runner.stop()
    await this.stage.dropLookahead()
    await this.stage.stopCopying()
  }

  /** Stored parts whose wide events wait for their copy (not in queries yet); null: not known now, or none set aside. */
  copiesWaiting(): CopiesWaiting | null {
    return this.store.copiesWaiting?.() ?? null
  }

  /** Stops for good: the worker, if the work runs on one, too. */
  async close(): Promise<void> {
    await this.stop()
    await this.stage.close()
  }

  /** Hears each batch's person changes once they are stored (decide's snapshot keeps fresh this way). */
  onPersonChanges(listener: (changes: PersonChanges) => void): void {
    this.stage.onPersonChanges(listener)
  }

  /** Resolves with the command's result once it is applied and stored. */
  waitForCommand(commandId: string, timeoutMs?: number): Promise<CommandResult> {
    return this.stage.waitForCommand(commandId, timeoutMs)
  }
}

/** A range being worked (IngestionStage.begin). */
interface Running {
  batch: LogBatch
  /** Settles once its last part is handed over to be written. */
  output: Promise<RangeOutput>
  /** The writes of the parts handed over so far, in order. */
  writes(): Promise<void>
  /** Its parts may be written now (write() took it), each unless `stopping` is aborted by then. */
  take(stopping: AbortSignal | undefined): void
  /** Its parts are never written: the work ends at its next part, with an error. */
  drop(): void
}

/** Writes a range of the ingest topic: its events with their persons, its commands' results, its person changes. */
class IngestionStage<Prepared> implements Stage {
  private readonly work: RangeWork<Prepared>
  /** The range worked ahead (lookahead), until write() takes or drops it. */
  private ahead: Running | null = null
  private readonly waiters = new CommandWaiters()
  private readonly changeListeners: Array<(changes: PersonChanges) => void> = []
  /** Partitions of the ingest topic (person ids step by it, persons/ids.ts); read again after a rebalance or a failure. */
  private partitions: number | null = null
  /** Per partition, the last offset of the ranges stored so far: the store may copy their wide events (copyWide). */
  private readonly storedUpTo = new Map<number, number>()
  /** The copy of wide events under way, if any; `copyAgain`: a range was stored meanwhile. */
  private copying: Promise<void> | null = null
  private copyAgain = false
  private copyStopping = false
  private copyRetry: NodeJS.Timeout | null = null
  /** Ranges stored so far, and how many there were when a chunk of copies last went while ingestion was busy. */
  private rangesStored = 0
  private copiedAtRange = 0
  /** Ranges being written (write() under way); `writesDone`: who waits for there to be none. */
  private writing = 0
  private writesDone: Array<() => void> = []

  constructor(
    private readonly log: Log,
    private readonly store: PersonStore<Prepared>,
    private readonly logger: Logger,
    private readonly metrics: Metrics,
    private readonly options: ProcessorOptions & ProcessorWork<Prepared>,
  ) {
    this.work =
      options.work ??
      new PersonWork({
        prepare: (range, changes, events, rows, definitions) => store.prepare(range, changes, events, rows, definitions),
        encodeEvent: (event) => store.encodeEvent(event),
        geoip: options.geoip ?? null,
        maxCachedPersons: options.maxCachedPersons,
        poisonEvent: options.poisonEvent,
      })
  }

  /** The worker (if the work runs on one) starts now, not with the first batch; wide events an earlier run left are copied. */
  start(): void {
    void this.work.ping()
    this.copyStopping = false
    if (!this.store.copyWide) return
    const { topic, group } = subscription('events')
    this.log.stats(topic, [group]).then(
      (stats) => {
        for (const [partition, committed] of Object.entries(stats.committedByPartition?.[group] ?? {}))
          if (committed > 0) this.storedUp(Number(partition), committed - 1)
      },
      (err: unknown) => this.logger.error({ err }, 'could not read the committed offsets: wide events are copied after the next batch'),
    )
  }

  /** Stops copying wide events (at the next chunk); start() copies again. */
  async stopCopying(): Promise<void> {
    this.copyStopping = true
    if (this.copyRetry) clearTimeout(this.copyRetry)
    this.copyRetry = null
    for (const done of this.writesDone.splice(0)) done()
    await this.copying
  }

  /**
   * Whether the next chunk of copies may go, once it may. ClickHouse runs one statement at a time in
   * embedded mode, so while ingestion has messages waiting a chunk goes only between two ranges, one per
   * range stored: an event of another project waits for at most one chunk per range ahead of it, and a
   * steady stream still moves the copies on. False once stopping.
   */
  private async nextCopy(): Promise<boolean> {
    // Reading the offsets costs two admin requests on Kafka: while nothing changes, look less and less often
    // (50 ms, doubling to a second); a range stored wakes it at once.
    for (let pause = 50; ; pause = Math.min(pause * 2, MAX_COPY_PAUSE_MS)) {
      if (this.copyStopping) return false
      if (this.writing === 0) {
        if (!(await this.waiting())) return true
        if (this.rangesStored > this.copiedAtRange) {
          this.copiedAtRange = this.rangesStored
          return true
        }
      }
      let timer: NodeJS.Timeout | undefined
      await new Promise<void>((resolve) => {
        this.writesDone.push(resolve)
        timer = setTimeout(resolve, pause)
      })
      clearTimeout(timer)
    }
  }

  /** Whether the ingest topic has messages this group has not committed. */
  private async waiting(): Promise<boolean> {
    try {
      const { topic, group } = subscription('events')
      const stats = await this.log.stats(topic, [group])
      return stats.endOffset > (stats.committed[group] ?? 0)
    } catch {
      return false
    }
  }

  /** Ranges of `partition` up to `lastOffset` are stored: their wide events may be copied into events now. */
  private storedUp(partition: number, lastOffset: number): void {
    this.storedUpTo.set(partition, Math.max(lastOffset, this.storedUpTo.get(partition) ?? -1))
    this.copyWide()
  }

  /**
   * Copies the wide events of stored ranges (persons/wide.ts), in the background: one chunk at a time, so
   * that the next ranges' writes come between chunks. A failure is tried again a few seconds later.
   */
  private copyWide(): void {
    const copy = this.store.copyWide?.bind(this.store)
    if (!copy || this.copyStopping) return
    if (this.copying) {
      this.copyAgain = true
      return
    }
    this.copying = (async () => {
      do {
        this.copyAgain = false
        await copy(new Map(this.storedUpTo), () => this.nextCopy())
      } while (this.copyAgain && !this.copyStopping)
    })()
      .catch((err: unknown) => {
        this.logger.error({ err }, 'copying wide events failed; trying again in a few seconds')
        if (this.copyStopping) return
        this.copyRetry = setTimeout(() => ((this.copyRetry = null), this.copyWide()), COPY_RETRY_MS)
        this.copyRetry.unref()
      })
      .finally(() => (this.copying = null))
  }

  close(): Promise<void> {
    return this.work.close()
  }

  onPersonChanges(listener: (changes: PersonChanges) => void): void {
    this.changeListeners.push(listener)
  }

  waitForCommand(commandId: string, timeoutMs?: number): Promise<CommandResult> {
    return this.waiters.waitForCommand(commandId, timeoutMs)
  }

  async ping(): Promise<PingResult> {
    const storage = await this.store.ping()
    return storage.success ? this.work.ping() : storage
  }

  teamOf(payload: Buffer): number | null {
    try {
      const item = decodeIngest(payload)
      return item.kind === 'event' ? item.event.teamId : item.command.teamId
    } catch {
      return null
    }
  }

  /** A command dead-lettered alone: whoever waits for its result hears that it failed. */
  async deadLettered(record: LogRecord, letter: DeadLetter): Promise<void> {
    const command = commandIn(record.value)
    if (!command) return
    const result: [string, CommandResult] = [command.commandId, { ok: false, status: 500, detail: letter.error }]
    if (this.options.publishResults) await this.options.publishResults([result])
    this.waiters.resolve(...result)
  }

  /**
   * Starts working the range the log means to hand out next, while this one is written: its lookups and
   * first part are done by the time this range's last part is stored. None of its parts is written before
   * write() takes it; anything else write() is handed (another range, or this one handed out again) drops
   * it and what it did to memory.
   */
  lookahead(next: LogBatch): void {
    if (this.ahead || handedOutBefore(next)) return
    this.ahead = this.begin(next, false)
  }

  /** Drops the range worked ahead, if any (the runner stopped, or a write failed): memory forgets what it did. */
  async dropLookahead(): Promise<void> {
    const ahead = this.ahead
    this.ahead = null
    if (!ahead) return
    ahead.drop()
    await ahead.output.catch(() => undefined)
    this.work.clear()
  }

  /**
   * Works one range of the log and writes its output. Throws when the range cannot be written, or when
   * `stopping` is aborted before one of its parts (the parts written so far are a prefix a replay rebuilds).
   */
  async write(batch: LogBatch, stopping?: AbortSignal): Promise<Written> {
    this.writing++
    try {
      return await this.writeRange(batch, stopping)
    } finally {
      if (--this.writing === 0) for (const done of this.writesDone.splice(0)) done()
    }
  }

  private async writeRange(batch: LogBatch, stopping?: AbortSignal): Promise<Written> {
    let replayed = handedOutBefore(batch)
    if (this.ahead && (replayed || !sameRange(this.ahead.batch, batch))) {
      await this.dropLookahead()
      // Memory was forgotten: the range is rebuilt from storage, as a replay.
      replayed = true
    }
    if (replayed) this.partitions = null
    const running = this.ahead ?? this.begin(batch, replayed)
    this.ahead = null
    running.take(stopping)
    let output: RangeOutput
    try {
      output = await running.output
      await running.writes()
      if (this.options.publishResults) await this.options.publishResults(output.results)
    } catch (err) {
      // No write of this range may still be running when the log hands it out again; a write's own error
      // is the range's (the work only passes it on, as text when it runs on a worker).
      const failedWrite = await running.writes().then(
        () => null,
        (writeErr: unknown) => ({ writeErr }),
      )
      // Memory may now be ahead of storage, and so is a range worked ahead on it: the log redelivers this
      // batch and it is rebuilt from storage.
      await this.dropLookahead()
      this.work.clear()
      this.partitions = null
      throw failedWrite ? failedWrite.writeErr : err
    }
    return { letters: lettersOf(batch, output.failed), stored: () => this.stored(batch, output) }
  }

  /**
   * Starts working a range. Its parts are written in order while the next ones are worked
   * (person-work.ts PartOutput), once take() is called: at once by write(), later for a lookahead.
   */
  private begin(batch: LogBatch, replayed: boolean): Running {
    let take: (stopping: AbortSignal | undefined) => void = () => {}
    let drop: (err: Error) => void = () => {}
    const taken = new Promise<AbortSignal | undefined>((resolve, reject) => ((take = resolve), (drop = reject)))
    let writes: Promise<unknown> = taken
    writes.catch(() => undefined)
    const write = async (part: PartOutput<Prepared>, stopping: AbortSignal | undefined) => {
      stopping?.throwIfAborted()
      if (part.poisoned)
        throw new Error(`failpoint: ClickHouse refuses a batch holding a ${JSON.stringify(this.options.poisonEvent)} event`)
      await this.store.write(part.prepared, replayed)
      this.metrics.observe('wren_ingestion_part_bytes', part.bytes)
      if (this.options.publishChanges) await this.options.publishChanges(part.changes)
      this.announce(part.changes)
    }
    const output = (async () => {
      this.partitions ??= await this.log.partitions(batch.topic)
      return this.work.compute(
        {
          topic: batch.topic,
          partition: batch.partition,
          firstOffset: batch.firstOffset,
          lastOffset: batch.lastOffset,
          values: batch.records.map((r) => r.value),
          replayed,
          partitions: this.partitions,
        },
        (wanted, bound) => this.store.load(wanted, bound),
        (part) => {
          const stored = writes.then(() => taken).then((stopping) => write(part, stopping))
          // Awaited by write(), after the work: a failed write is never left unhandled meanwhile.
          stored.catch(() => undefined)
          writes = stored
          return stored
        },
      )
    })()
    output.catch(() => undefined)
    return {
      batch,
      output,
      writes: () => writes.then(() => undefined),
      take,
      drop: () => drop(new Error('a range worked ahead was dropped: the log handed out another')),
    }
  }

  private stored(batch: LogBatch, output: RangeOutput): void {
    this.work.stored()
    this.rangesStored++
    this.storedUp(batch.partition, batch.lastOffset)
    this.metrics.inc('wren_ingested_events_total', output.events)
    this.metrics.inc('wren_ingestion_warnings_total', output.warnings.length)
    for (const w of output.warnings.slice(0, 20)) this.logger.info({ teamId: w.teamId, details: w.details }, `ingestion warning: ${w.type}`)
    for (const [commandId, result] of output.results) this.waiters.resolve(commandId, result)
  }

  /** Stored person changes, to whoever listens in this process (decide's snapshot). */
  private announce(changes: PersonChanges): void {
    for (const listener of this.changeListeners) {
      try {
        listener(changes)
      } catch (err) {
        this.logger.error({ err }, 'person change listener failed')
      }
    }
  }
}

/** How long after a failed copy of wide events it is tried again. */
/** The longest the wide copies wait between two looks at the ingest topic while ingestion is busy. */
const MAX_COPY_PAUSE_MS = 1_000
const COPY_RETRY_MS = 5000

function sameRange(a: LogBatch, b: LogBatch): boolean {
  return a.topic === b.topic && a.partition === b.partition && a.firstOffset === b.firstOffset && a.lastOffset === b.lastOffset
}

/** The dead letters of a range's messages that could not be handled. */
function lettersOf(batch: LogBatch, failed: RangeOutput['failed']): DeadLetter[] {
  return failed.map(({ index, error, teamId }) => ({
    offset: batch.records[index].offset,
    error,
    payload: batch.records[index].value,
    teamId,
  }))
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
