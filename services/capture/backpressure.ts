// Capture's backpressure: past a bound on what waits for a stage (messages for ingestion; messages and
// log bytes for recordings), capture answers 503 with Retry-After instead of growing the log without limit
// (a flood, or a stall, would otherwise fill the disk while every request is acknowledged). It accepts
// again once every bound is below 80% of its limit, so it does not flap around it. The backlog comes from
// the stage's lag monitor's last sample.
import { backlogFull, type ErrorCode } from '../platform/errors'

const RESUME_BELOW = 0.8
/** What Retry-After says: long enough for the stage to drain a good part of the backlog. */
export const RETRY_AFTER_SECONDS = 10

export interface BacklogBound {
  /** The setting of the limit, named in the refusal. */
  setting: string
  /** The limit; 0 never refuses. */
  max: number
  /** What waits now; null when unknown (log bytes on Kafka): the bound is not checked. */
  current: () => number | null
  /** The refusal's first words, e.g. "Ingestion is 150 messages behind". */
  says: (current: number) => string
}

export class CaptureBackpressure {
  private refusing = false

  constructor(
    /** What is refused ("events", "snapshots"), for the refusal's message. */
    private readonly refused: string,
    /** The refusal's code: which stage is behind. */
    private readonly code: Extract<ErrorCode, 'ingestion_backlog_full' | 'recordings_backlog_full'>,
    private readonly bounds: BacklogBound[],
  ) {}

  /** True while capture refuses. */
  get active(): boolean {
    this.update()
    return this.refusing
  }

  /** Throws the 503 a capture request gets while the backlog is too long. */
  admit(): void {
    if (!this.active) return
    // The bound furthest past its limit says why.
    const [bound, current] = this.bounds
      .filter((b) => b.max > 0)
      .map((b) => [b, b.current() ?? 0] as const)
      .reduce((a, b) => (b[1] / b[0].max > a[1] / a[0].max ? b : a))
    throw backlogFull(
      this.code,
      `${bound.says(current)} (limit ${bound.setting}=${bound.max}): ${this.refused} are not accepted until it catches up. Retry after ${RETRY_AFTER_SECONDS} s.`,
      RETRY_AFTER_SECONDS,
    )
  }

  private update(): void {
    const ratios = this.bounds.filter((b) => b.max > 0).map((b) => (b.current() ?? 0) / b.max)
    if (this.refusing && ratios.every((r) => r < RESUME_BELOW)) this.refusing = false
    else if (!this.refusing && ratios.some((r) => r >= 1)) this.refusing = true
  }
}

/** Events: refused past WREN_MAX_BACKLOG messages waiting for ingestion. */
export function eventBackpressure(messages: () => number, maxBacklog: number): CaptureBackpressure {
  return new CaptureBackpressure('events', 'ingestion_backlog_full', [
    { setting: 'WREN_MAX_BACKLOG', max: maxBacklog, current: messages, says: (n) => `Ingestion is ${n} messages behind` },
  ])
}

/**
 * Snapshots (/s/): refused past a bound on messages waiting for the recordings stage, or on the bytes the
 * embedded log keeps for them (Kafka does not report bytes: there only messages count).
 */
export function recordingsBackpressure(
  lag: () => { messages: number; logBytes: number | null },
  limits: { maxBacklog: number; maxBacklogBytes: number },
): CaptureBackpressure {
  return new CaptureBackpressure('snapshots', 'recordings_backlog_full', [
    {
      setting: 'WREN_MAX_RECORDINGS_BACKLOG',
      max: limits.maxBacklog,
      current: () => lag().messages,
      says: (n) => `Recordings processing is ${n} messages behind`,
    },
    {
      setting: 'WREN_MAX_RECORDINGS_BACKLOG_BYTES',
      max: limits.maxBacklogBytes,
      current: () => lag().logBytes,
      says: (n) => `The snapshots log holds ${n} bytes`,
    },
  ])
}
