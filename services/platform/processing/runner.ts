// The runner of every batch processor (ingestion, recordings): it subscribes to its topic as its consumer
// group, hands each batch to its stage, and lets the log commit the batch only once the stage has stored
// it. A stage's one job is to write a range of messages; everything about failure is here, once.
//
// No batch stalls the stream. A batch whose write fails is handed back by the log (with backoff) and
// written again; after maxRetries failures of the same range it is isolated: the halves of the range are
// written, each as a range of its own, splitting again whichever half fails, until the messages that fail
// alone are found. Those go to dead letters with their error; everything else is stored, in order, and the
// whole range is committed. A storage that does not answer fails every write, which is no message's
// fault: nothing is split or dead-lettered while the stage's ping fails.
//
// Exactly once through isolation, given a stage whose write of a range depends only on what was stored
// before the range (its replay rebuilds the same rows) and carries deduplication tokens named after the
// range: after a crash in the middle of isolation the log hands out the whole range again. Dead letters
// already recorded in it are durable proof that it was being isolated, so it is isolated at once, walking
// the same halves in the same order: each part written before the crash makes the same rows under the same
// tokens (ClickHouse drops them), each message dead-lettered before is recorded under the same token
// (dropped too), and the walk goes on where it stopped. A crash before any letter was recorded retries
// the whole range first, which rewrites what it wrote before.
//
// Stopping does not wait for a long range to end: the stage is told (an abort signal) and stops at its next
// part, throwing `interrupted`. Nothing of the range is committed, so the log hands it out again at the next
// start, and the parts already written are dropped by their tokens as after a crash.
import type { Logger } from 'pino'
import type { Log, LogBatch, LogRecord, Subscription } from '../log/log'
import type { CounterName, HistogramName, Metrics } from '../metrics'
import { RepeatedFailures } from '../repeated-failures'
import { errorText } from '../errors'

/** A message a stage could not handle, kept with its error (dead-letters/store.ts). */
export interface DeadLetter {
  offset: number
  error: string
  payload: Buffer
  /** The project the message belongs to, when it could be decoded. */
  teamId: number | null
}

/** Where the runner records dead letters (the dead_letters table: dead-letters/store.ts). */
export interface DeadLetterRecorder {
  /** Records a range's letters under a deduplication token named after the range: a replay records them once. */
  record(range: LogBatch, letters: DeadLetter[]): Promise<void>
  /** Offsets of `topic`/`partition` between first and last that already have a letter. */
  offsetsIn(topic: string, partition: number, first: number, last: number): Promise<number[]>
}

/** What a stage wrote of a range. */
export interface Written {
  /** Messages of the range the stage could not handle (they do not fail the range); recorded before the commit. */
  letters: DeadLetter[]
  /** Runs once the range and its letters are stored, before the commit: what the stage keeps or tells of a stored range. */
  stored?: () => void
}

/** One kind of batch processing: writes a range of its topic. It never calls the runner. */
export interface Stage {
  /**
   * Writes one range (a batch, or a part of one being isolated) and resolves once it is stored; throws
   * when the range cannot be written. The same range must always make the same rows, under deduplication
   * tokens named after it (see the top).
   */
  write(range: LogBatch, stopping?: AbortSignal): Promise<Written>
  /** Whether storage (and whatever else every write needs) answers. */
  ping(): Promise<{ success: boolean; error?: Error }>
  /** The project a message belongs to, when it decodes (kept with its dead letter). */
  teamOf(payload: Buffer): number | null
  /** Hears each message that fails alone, once its letter is recorded. */
  deadLettered?(record: LogRecord, letter: DeadLetter): Promise<void>
  /**
   * The range the log means to hand out next, while one is being written (SubscribeOptions.lookahead): the
   * stage may start on it, but stores nothing of it before write() is handed that range.
   */
  lookahead?(next: LogBatch): void
}

export interface RunnerOptions {
  /** Names the processor in log lines ('ingestion', 'recordings'). */
  name: string
  topic: string
  group: string
  maxBatchRecords: number
  /** Most bytes of messages per batch (the log's SubscribeOptions.maxBatchBytes). */
  maxBatchBytes?: number
  maxWaitMs: number
  /** Failures of the same range before it is isolated. */
  maxRetries: number
  /**
   * A stage that writes a range in parts of this many records (partsOf) and whose stored rows do not fold
   * copies: isolation cuts a range at a multiple of it, so each part of a half is a part of the range, with the
   * same rows and tokens, and what the range's failed writes stored is never stored again under other tokens.
   */
  partRecords?: number
  deadLetters: DeadLetterRecorder
  /** Failpoint for crash tests: die (SIGKILL) after this many ranges are written, before their commit. */
  crashAfterBatches?: number | null
  /** The processor's own metrics (the names users scrape); dead letters count under wren_dead_letters_total by topic. */
  metrics: { retries: CounterName; splits: CounterName; duration?: HistogramName }
}

export class BatchRunner {
  private subscription: Subscription | null = null
  /** Aborted by stop(): the range being written ends at its next part (see the top). */
  private stopping = new AbortController()
  private rangesWritten = 0
  /** Per topic/partition: the range that is failing, how often, and its log (once, then once a minute). */
  private readonly failing = new Map<string, { range: string; count: number; log: RepeatedFailures }>()

  constructor(
    private readonly log: Log,
    private readonly stage: Stage,
    private readonly logger: Logger,
    private readonly metrics: Metrics,
    private readonly options: RunnerOptions,
  ) {}

  start(): void {
    this.stopping = new AbortController()
    this.subscription = this.log.subscribe({
      topic: this.options.topic,
      group: this.options.group,
      maxBatchRecords: this.options.maxBatchRecords,
      maxBatchBytes: this.options.maxBatchBytes,
      maxWaitMs: this.options.maxWaitMs,
      handler: (batch) => this.handleBatch(batch),
      lookahead: this.stage.lookahead && ((next) => this.stage.lookahead!(next)),
      onError: (err, batch) => this.reportFailure(err, batch),
    })
  }

  /**
   * Stops taking batches; the one in flight is committed, or interrupted at its next part and left for the
   * next start (start() takes them again).
   */
  async stop(): Promise<void> {
    this.stopping.abort()
    await this.subscription?.stop()
    this.subscription = null
  }

  /** The log's handler: writes the batch, or isolates it once it has failed maxRetries times. */
  async handleBatch(batch: LogBatch): Promise<void> {
    const started = performance.now()
    const where = `${batch.topic}:${batch.partition}`
    const range = `${batch.firstOffset}-${batch.lastOffset}`
    const failing = this.failing.get(where)
    const failures = failing?.range === range ? failing.count : 0
    // After a crash (or a rebalance) the failure count is gone; letters already recorded in the range
    // are the durable sign that it was being isolated.
    const isolating =
      failures >= this.options.maxRetries ||
      (batch.redelivered &&
        failures === 0 &&
        (await this.options.deadLetters.offsetsIn(batch.topic, batch.partition, batch.firstOffset, batch.lastOffset)).length > 0)
    try {
      if (isolating) await this.isolate(batch, null)
      else await this.write(batch)
    } catch (err) {
      // Not a failure: the range is handed out again at the next start.
      if (this.stopping.signal.aborted) throw err
      const log = failing?.range === range ? failing.log : new RepeatedFailures(this.logger, `${this.options.name} batch failed; retrying`)
      this.failing.set(where, { range, count: failures + 1, log })
      this.metrics.inc(this.options.metrics.retries)
      throw err
    }
    if (failing?.range === range) {
      this.failing.delete(where)
      failing.log.success({ partition: batch.partition, firstOffset: batch.firstOffset, lastOffset: batch.lastOffset, isolated: isolating })
    }
    if (this.options.metrics.duration) this.metrics.observe(this.options.metrics.duration, (performance.now() - started) / 1000)
  }

  /** The log's onError: a failing batch is logged once, then at most once a minute with the number of failures since. */
  private reportFailure(err: unknown, batch: LogBatch): void {
    const entry = this.failing.get(`${batch.topic}:${batch.partition}`)
    const context = { partition: batch.partition, firstOffset: batch.firstOffset, lastOffset: batch.lastOffset }
    if (this.stopping.signal.aborted)
      return this.logger.info(context, `${this.options.name} stopped in the middle of a batch: the next start writes it again`)
    // Not a handler failure of a known range (an offset write, say): log it as it comes.
    if (entry?.range !== `${batch.firstOffset}-${batch.lastOffset}`)
      this.logger.error({ err, ...context }, `${this.options.name} failed; retrying`)
    else entry.log.failure(err, context)
  }

  /** Has the stage write one range, then records the letters it found. Throws when the range cannot be written. */
  private async write(range: LogBatch): Promise<void> {
    const { letters, stored } = await this.stage.write(range, this.stopping.signal)
    await this.options.deadLetters.record(range, letters)
    if (this.options.crashAfterBatches && ++this.rangesWritten >= this.options.crashAfterBatches) process.kill(process.pid, 'SIGKILL')
    stored?.()
    this.metrics.inc('wren_dead_letters_total', letters.length, { topic: range.topic })
    if (letters.length)
      this.logger.warn({ topic: range.topic, count: letters.length, first: letters[0].error }, 'messages sent to the dead-letter store')
  }

  /** Writes the halves of a range that keeps failing, splitting again each half that fails (see the top). */
  private async isolate(range: LogBatch, error: unknown): Promise<void> {
    const ping = await this.stage.ping()
    if (!ping.success) throw error ?? ping.error
    if (range.records.length === 1) {
      if (error === null) {
        try {
          return await this.write(range)
        } catch (err) {
          if (this.stopping.signal.aborted) throw err
          error = err
        }
      }
      return this.deadLetterAlone(range, error)
    }
    this.metrics.inc(this.options.metrics.splits)
    for (const part of halves(range, this.options.partRecords)) {
      try {
        await this.write(part)
      } catch (err) {
        if (this.stopping.signal.aborted) throw err
        await this.isolate(part, err)
      }
    }
  }

  private async deadLetterAlone(range: LogBatch, error: unknown): Promise<void> {
    const [record] = range.records
    const letter: DeadLetter = {
      offset: record.offset,
      error: errorText(error),
      payload: record.value,
      teamId: this.stage.teamOf(record.value),
    }
    await this.options.deadLetters.record(range, [letter])
    await this.stage.deadLettered?.(record, letter)
    this.metrics.inc('wren_dead_letters_total', 1, { topic: range.topic })
    this.logger.warn(
      { topic: range.topic, partition: range.partition, offset: record.offset, teamId: letter.teamId, error: letter.error },
      'a message that fails alone was sent to the dead-letter store',
    )
  }
}

/**
 * A range of two or more messages cut in two, each half a range of its own (handed out before: redelivered);
 * a range of more than `partRecords` at a multiple of it.
 */
function halves(range: LogBatch, partRecords = 1): LogBatch[] {
  const parts = Math.ceil(range.records.length / partRecords)
  const half = parts > 1 ? Math.ceil(parts / 2) * partRecords : Math.ceil(range.records.length / 2)
  return [range.records.slice(0, half), range.records.slice(half)].map((records) => subRange(range, records, true))
}

/** A range in parts of `partRecords` records from its first (the last part may be shorter), each a range of its own. */
export function partsOf(range: LogBatch, partRecords: number): LogBatch[] {
  if (range.records.length <= partRecords) return [range]
  const parts: LogBatch[] = []
  for (let i = 0; i < range.records.length; i += partRecords)
    parts.push(subRange(range, range.records.slice(i, i + partRecords), range.redelivered))
  return parts
}

function subRange(range: LogBatch, records: LogRecord[], redelivered: boolean): LogBatch {
  return {
    topic: range.topic,
    partition: range.partition,
    records,
    firstOffset: records[0].offset,
    lastOffset: records[records.length - 1].offset,
    redelivered,
  }
}
