// How far behind a stream processor is (ingestion on wren_ingest, recordings on wren_snapshots), as
// readiness, /_health, /_metrics and capture's backpressure see it. Measured from outside the processor,
// on the log: every few seconds the topic's end offset and the processor group's committed offset are
// sampled. Lag in messages is end - committed; lag in seconds
// is how long ago the oldest uncommitted message was appended, estimated from when the sampled end first
// passed it; "stalled" is how long the committed offset has not moved while messages wait.
//
// On Kafka the offsets are sums over partitions, so one stuck partition among busy ones shows as a growing
// lag in messages sooner than as a stall.
import type { Log } from './log/log'
import { RepeatedFailures, type FailureLogger } from './repeated-failures'
import { errorText } from './errors'

/** Samples kept while a stall lasts; beyond it every other one is dropped (the oldest always stays). */
const MAX_SAMPLES = 2_000

export interface IngestionLag {
  /** Messages appended to the topic that the processor's group has not committed. */
  messages: number
  /** Seconds since the oldest of them was appended (0 when none waits). */
  seconds: number
  /** Seconds the committed offset has not moved while messages wait (0 when it moves or none waits). */
  stalledSeconds: number
  endOffset: number
  committedOffset: number
  /** Bytes the log keeps on disk for the topic (the embedded log; null on Kafka). */
  logBytes: number | null
  /** When the offsets were last read (null before the first read), and why the last read failed. */
  sampledAt: Date | null
  error: string | null
}

/** The arithmetic on samples, apart from the log and the timer so it can be tested on its own. */
export class LagEstimator {
  /** (time, end offset) with strictly increasing end offsets, each still past the committed offset. */
  private samples: Array<{ at: number; end: number }> = []
  private end = 0
  private committed = 0
  private progressAt: number | null = null

  record(at: number, end: number, committed: number): void {
    // Progress: the committed offset moved, or nothing waited (idle time is not a stall).
    if (this.progressAt === null || committed !== this.committed || this.committed >= this.end) this.progressAt = at
    this.end = end
    this.committed = committed
    const last = this.samples[this.samples.length - 1]
    if (!last || end > last.end) this.samples.push({ at, end })
    // A sample whose end is committed says nothing about what still waits.
    let consumed = 0
    while (consumed < this.samples.length && this.samples[consumed].end <= committed) consumed++
    if (consumed) this.samples.splice(0, consumed)
    if (this.samples.length > MAX_SAMPLES) this.samples = this.samples.filter((_, i) => i % 2 === 0)
  }

  messages(): number {
    return Math.max(0, this.end - this.committed)
  }

  /** The oldest waiting message was appended no later than the first sample whose end is past it. */
  seconds(now: number): number {
    if (this.messages() === 0 || this.samples.length === 0) return 0
    return Math.max(0, (now - this.samples[0].at) / 1000)
  }

  stalledSeconds(now: number): number {
    if (this.messages() === 0 || this.progressAt === null) return 0
    return Math.max(0, (now - this.progressAt) / 1000)
  }

  offsets(): { end: number; committed: number } {
    return { end: this.end, committed: this.committed }
  }
}

export interface LagMonitorOptions {
  /** The topic and the consumer group whose lag is measured. */
  topic: string
  group: string
  /** How often to read the offsets: the embedded log's are in memory, Kafka's cost two admin requests. */
  intervalMs: number
  logger: FailureLogger
  now?: () => number
}

export class IngestionLagMonitor {
  private readonly estimator = new LagEstimator()
  private readonly failures: RepeatedFailures
  private readonly now: () => number
  private timer: NodeJS.Timeout | null = null
  private sampling: Promise<void> | null = null
  private sampledAt: number | null = null
  private logBytes: number | null = null
  private error: string | null = null

  constructor(
    private readonly log: Log,
    private readonly options: LagMonitorOptions,
  ) {
    this.now = options.now ?? Date.now
    this.failures = new RepeatedFailures(options.logger, `reading the lag of ${options.group} on ${options.topic} from the log failed`)
  }

  /** Samples now, then every intervalMs until stop(). */
  async start(): Promise<void> {
    await this.sample()
    this.timer = setInterval(() => void this.sample(), this.options.intervalMs)
    this.timer.unref()
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
  }

  /** Reads the offsets once (a read still under way is joined, not doubled). */
  sample(): Promise<void> {
    this.sampling ??= (async () => {
      try {
        const { topic, group } = this.options
        const stats = await this.log.stats(topic, [group])
        const at = this.now()
        // Before the processor's first commit the group has no offset: everything in the topic waits.
        this.estimator.record(at, stats.endOffset, stats.committed[group] ?? 0)
        this.sampledAt = at
        this.logBytes = stats.bytes ?? null
        this.error = null
        this.failures.success()
      } catch (err) {
        this.error = errorText(err)
        this.failures.failure(err)
      }
    })().finally(() => (this.sampling = null))
    return this.sampling
  }

  /** Messages waiting (current().messages without the rest: capture asks on every request). */
  messages(): number {
    return this.estimator.messages()
  }

  current(): IngestionLag {
    const now = this.now()
    const { end, committed } = this.estimator.offsets()
    return {
      messages: this.estimator.messages(),
      seconds: this.estimator.seconds(now),
      stalledSeconds: this.estimator.stalledSeconds(now),
      endOffset: end,
      committedOffset: committed,
      logBytes: this.logBytes,
      sampledAt: this.sampledAt === null ? null : new Date(this.sampledAt),
      error: this.error,
    }
  }
}

/**
 * Ingestion's other backlog, which the log's offsets do not show: parts whose wide persons' events are
 * committed and stored aside, not yet copied into events (ingestion/persons/wide.ts), so not in queries.
 */
export interface CopiesWaiting {
  parts: number
  /** How long the oldest of them has waited. */
  seconds: number
}

export interface ReadinessBounds {
  /** Not ready once the oldest waiting message is older than this. */
  maxLagSeconds: number
  /** Not ready once the committed offset has not moved for this long while messages wait. */
  stallSeconds: number
}

/** The processors readiness speaks of: ingestion (events, persons) and recordings (snapshots). */
export type Stream = 'ingestion' | 'recordings'

export interface NotReady {
  code: `${Stream}_stalled` | `${Stream}_lagging`
  detail: string
}

/** Why a processor (`stream`) makes this process not ready; empty when it keeps up. */
export function lagProblems(lag: IngestionLag, bounds: ReadinessBounds, stream: Stream, copies: CopiesWaiting | null = null): NotReady[] {
  const problems: NotReady[] = []
  const s = (n: number) => Math.floor(n)
  if (lag.stalledSeconds >= bounds.stallSeconds) {
    problems.push({
      code: `${stream}_stalled`,
      detail: `${stream} has committed nothing for ${s(lag.stalledSeconds)} s while ${lag.messages} messages wait (bound: WREN_READY_STALL_SECONDS=${bounds.stallSeconds})`,
    })
  }
  if (lag.seconds > bounds.maxLagSeconds) {
    problems.push({
      code: `${stream}_lagging`,
      detail: `the oldest of ${lag.messages} waiting messages was appended ${s(lag.seconds)} s ago (bound: WREN_READY_MAX_LAG_SECONDS=${bounds.maxLagSeconds})`,
    })
  }
  if (copies && copies.seconds > bounds.maxLagSeconds) {
    problems.push({
      code: `${stream}_lagging`,
      detail: `the events of ${copies.parts} stored parts with wide persons wait for their copy into events (not in queries yet); the oldest for ${s(copies.seconds)} s (bound: WREN_READY_MAX_LAG_SECONDS=${bounds.maxLagSeconds})`,
    })
  }
  return problems
}

/** The lag as /_health and /_readyz show it (with the copies waiting, in the process that runs ingestion). */
export function lagJson(lag: IngestionLag, copies?: CopiesWaiting | null): Record<string, unknown> {
  return {
    ...(copies ? { copies_waiting: copies.parts, copies_waiting_seconds: Math.round(copies.seconds * 10) / 10 } : {}),
    lag_messages: lag.messages,
    lag_seconds: Math.round(lag.seconds * 10) / 10,
    stalled_seconds: Math.round(lag.stalledSeconds * 10) / 10,
    end_offset: lag.endOffset,
    committed_offset: lag.committedOffset,
    log_bytes: lag.logBytes,
    sampled_at: lag.sampledAt?.toISOString() ?? null,
    ...(lag.error ? { error: lag.error } : {}),
  }
}
