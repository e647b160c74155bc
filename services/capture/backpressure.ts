// Capture's backpressure: past a bound on messages waiting for ingestion, capture answers 503 with
// Retry-After instead of growing the log without limit (a flood, or a stall, would otherwise fill the
// disk while every request is acknowledged). It accepts again once the backlog is below 80% of the
// bound, so it does not flap around the bound. The backlog comes from the lag monitor's last sample.
import { backlogFull } from '../shared/errors'

const RESUME_BELOW = 0.8
/** What Retry-After says: long enough for ingestion to drain a good part of the backlog. */
export const RETRY_AFTER_SECONDS = 10

export class CaptureBackpressure {
  private refusing = false

  constructor(
    private readonly backlog: () => number,
    /** Messages waiting for ingestion past which capture refuses events; 0 never refuses. */
    private readonly maxBacklog: number,
  ) {}

  /** True while capture refuses events. */
  get active(): boolean {
    this.update()
    return this.refusing
  }

  /** Throws the 503 a capture request gets while the backlog is too long. */
  admit(): void {
    if (!this.active) return
    throw backlogFull(
      `Ingestion is ${this.backlog()} messages behind (limit WREN_MAX_BACKLOG=${this.maxBacklog}): events are not accepted until it catches up. Retry after ${RETRY_AFTER_SECONDS} s.`,
      RETRY_AFTER_SECONDS,
    )
  }

  private update(): void {
    if (this.maxBacklog <= 0) return
    const waiting = this.backlog()
    if (this.refusing && waiting < this.maxBacklog * RESUME_BELOW) this.refusing = false
    else if (!this.refusing && waiting >= this.maxBacklog) this.refusing = true
  }
}
