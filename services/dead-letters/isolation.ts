// No batch stalls a stream processor (ingestion, recordings). A batch whose write fails is handed back by
// the log (with backoff) and retried; after maxRetries failures of the same range it is isolated: the
// halves of the range are written, each as a batch of its own, splitting again whichever half fails,
// until the messages that fail alone are found. Those go to dead letters with their error; everything
// else is stored, in order, and the whole range is committed.
//
// Exactly once through isolation, given a processor whose write of a range depends only on what was
// stored before the range (its replay rebuilds the same rows) and carries deduplication tokens named
// after the range: after a crash in the middle of isolation the log hands out the whole range again.
// Dead letters already recorded in it are durable proof that it was being isolated, so it is isolated at
// once, walking the same halves in the same order: each part written before the crash makes the same
// rows under the same tokens (ClickHouse drops them), each message dead-lettered before is recorded
// under the same token (dropped too), and the walk goes on where it stopped. A crash before any letter
// was recorded retries the whole range first, which rewrites what it wrote before.
import type { Logger } from 'pino'
import type { LogBatch, LogRecord } from '../shared/log/log'
import type { CounterName, Metrics } from '../shared/metrics'
import { RepeatedFailures } from '../shared/repeated-failures'
import { errorText } from '../shared/errors'
import { teamOf, type DeadLetter, type DeadLetterRecorder } from './store'

export interface IsolationOptions {
  /** Names the processor in log lines ('ingestion', 'recordings'). */
  name: string
  /** Failures of the same range before it is isolated. */
  maxRetries: number
  deadLetters: DeadLetterRecorder
  /** Writes one range (a batch, or a part of one being isolated); throws when it cannot be written. */
  write: (batch: LogBatch) => Promise<void>
  /** Whether storage answers: a store that does not answer fails every write, which is no message's fault. */
  ping: () => Promise<{ success: boolean; error?: Error }>
  /** Hears each message that fails alone, once its letter is recorded. */
  onDeadLetter?: (record: LogRecord, letter: DeadLetter) => Promise<void>
  metrics: { retries: CounterName; splits: CounterName }
}

export class BatchIsolation {
  /** Per topic/partition: the range that is failing, how often, and its log (once, then once a minute). */
  private readonly failing = new Map<string, { range: string; count: number; log: RepeatedFailures }>()

  constructor(
    private readonly logger: Logger,
    private readonly metrics: Metrics,
    private readonly options: IsolationOptions,
  ) {}

  /** The log's handler: writes the batch, or isolates it once it has failed maxRetries times. */
  async handle(batch: LogBatch): Promise<void> {
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
      else await this.options.write(batch)
    } catch (err) {
      const log = failing?.range === range ? failing.log : new RepeatedFailures(this.logger, `${this.options.name} batch failed; retrying`)
      this.failing.set(where, { range, count: failures + 1, log })
      this.metrics.inc(this.options.metrics.retries)
      throw err
    }
    if (failing?.range === range) {
      this.failing.delete(where)
      failing.log.success({ partition: batch.partition, firstOffset: batch.firstOffset, lastOffset: batch.lastOffset, isolated: isolating })
    }
  }

  /** The log's onError: a failing batch is logged once, then at most once a minute with the number of failures since. */
  reportFailure(err: unknown, batch: LogBatch): void {
    const entry = this.failing.get(`${batch.topic}:${batch.partition}`)
    const context = { partition: batch.partition, firstOffset: batch.firstOffset, lastOffset: batch.lastOffset }
    // Not a handler failure of a known range (an offset write, say): log it as it comes.
    if (entry?.range !== `${batch.firstOffset}-${batch.lastOffset}`)
      this.logger.error({ err, ...context }, `${this.options.name} failed; retrying`)
    else entry.log.failure(err, context)
  }

  /** Writes the halves of a range that keeps failing, splitting again each half that fails (see the top). */
  private async isolate(batch: LogBatch, error: unknown): Promise<void> {
    const ping = await this.options.ping()
    if (!ping.success) throw error ?? ping.error
    if (batch.records.length === 1) {
      if (error === null) {
        try {
          return await this.options.write(batch)
        } catch (err) {
          error = err
        }
      }
      return this.deadLetterAlone(batch, error)
    }
    this.metrics.inc(this.options.metrics.splits)
    const half = Math.ceil(batch.records.length / 2)
    for (const records of [batch.records.slice(0, half), batch.records.slice(half)]) {
      const part: LogBatch = {
        topic: batch.topic,
        partition: batch.partition,
        records,
        firstOffset: records[0].offset,
        lastOffset: records[records.length - 1].offset,
        redelivered: true,
      }
      try {
        await this.options.write(part)
      } catch (err) {
        await this.isolate(part, err)
      }
    }
  }

  private async deadLetterAlone(batch: LogBatch, error: unknown): Promise<void> {
    const [record] = batch.records
    const letter: DeadLetter = {
      offset: record.offset,
      error: errorText(error),
      payload: record.value,
      teamId: teamOf(batch.topic, record.value),
    }
    await this.options.deadLetters.record(batch, [letter])
    await this.options.onDeadLetter?.(record, letter)
    this.metrics.inc('wren_dead_letters_total', 1, { topic: batch.topic })
    this.logger.warn(
      { topic: batch.topic, partition: batch.partition, offset: record.offset, teamId: letter.teamId, error: letter.error },
      'a message that fails alone was sent to the dead-letter store',
    )
  }
}
