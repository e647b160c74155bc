// Components register how they stop as they start; stopping runs those steps in reverse order, so each
// part stops before the parts it was built on (the server before the processors, the log before storage).
import type { Logger } from 'pino'

export class Lifecycle {
  private readonly steps: Array<{ name: string; stop: () => Promise<void> | void }> = []
  private stopping: Promise<void> | null = null

  constructor(private readonly logger: Logger) {}

  /** Registers what stops `name`, which has just started. Returns `value` for chaining. */
  started<T>(name: string, value: T, stop: (value: T) => Promise<void> | void): T {
    this.steps.push({ name, stop: () => stop(value) })
    return value
  }

  /**
   * Stops every component, last started first. A step that fails is logged and the rest still run (the
   * storage is still closed and the data directory unlocked); the first failure is thrown at the end.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      let failure: unknown = null
      for (const step of this.steps.reverse()) {
        try {
          await step.stop()
        } catch (err) {
          this.logger.error({ err, component: step.name }, 'stopping a component failed')
          failure ??= err
        }
      }
      if (failure) throw failure
    })()
    return this.stopping
  }
}
