// Logging for loops that retry on failure (a consumer redelivering a batch, a reload timer): the first
// failure is logged with its error, then at most one line a minute saying how many more happened, so a
// failure that lasts hours leaves a readable log instead of a stack trace every few seconds.
import { errorText } from './errors'

export interface FailureLogger {
  warn(obj: object, msg: string): void
  info?(obj: object, msg: string): void
}

const MINUTE_MS = 60_000

export class RepeatedFailures {
  /** Failures since the last line written. */
  private unlogged = 0
  /** Failures since the last success. */
  private total = 0
  private loggedAt = -Infinity
  private lastError = ''

  constructor(
    private readonly logger: FailureLogger,
    private readonly message: string,
    private readonly options: { everyMs?: number; now?: () => number } = {},
  ) {}

  /** Reports one failure; writes a line only for the first one and then once per interval. */
  failure(err: unknown, fields: object = {}): void {
    const now = (this.options.now ?? Date.now)()
    this.total++
    this.unlogged++
    this.lastError = errorText(err)
    if (this.total === 1) {
      this.logger.warn({ ...fields, err }, this.message)
    } else if (now - this.loggedAt >= (this.options.everyMs ?? MINUTE_MS)) {
      // The stack was in the first line; now only the count and the latest message.
      this.logger.warn(
        { ...fields, failures: this.unlogged, failuresInARow: this.total, lastError: this.lastError },
        `${this.message} (${this.unlogged} times since the last report)`,
      )
    } else {
      return
    }
    this.loggedAt = now
    this.unlogged = 0
  }

  /** Reports that the loop works again; says so once if it had failed. */
  success(fields: object = {}): void {
    if (this.total === 0) return
    const log = this.logger.info?.bind(this.logger) ?? this.logger.warn.bind(this.logger)
    log({ ...fields, failuresInARow: this.total }, `${this.message}: recovered after ${this.total} failures`)
    this.total = 0
    this.unlogged = 0
    this.loggedAt = -Infinity
  }
}
