// Components register how they stop as they start; stopping runs those steps in the stop table's order
// (stop-order.ts), so each part stops before the parts it was built on (the server before the processors,
// the log before ClickHouse), and a step the table does not name cannot be registered.
import type { Logger } from 'pino'
import { STOP_ORDER, type StopStep } from './stop-order'

const RANK = new Map<string, number>(STOP_ORDER.map((row, i) => [row.name, i]))

export class Lifecycle {
  private readonly steps: Array<{ name: StopStep; stop: () => Promise<void> | void }> = []
  private stopping: Promise<void> | null = null

  constructor(private readonly logger: Logger) {}

  /** Registers what stops `name`, which has just started. Returns `value` for chaining. */
  started<T>(name: StopStep, value: T, stop: (value: T) => Promise<void> | void): T {
    if (!RANK.has(name)) throw new Error(`'${name}' is not a step of the stop table (stop-order.ts)`)
    this.steps.push({ name, stop: () => stop(value) })
    return value
  }

  /** The registered steps in the order stop() runs them. */
  order(): StopStep[] {
    return this.ordered().map((step) => step.name)
  }

  /**
   * Stops every component, in the stop table's order. A step that fails is logged and the rest still run (the
   * storage is still closed and the data directory unlocked); the first failure is thrown at the end.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      let failure: unknown = null
      for (const step of this.ordered()) {
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

  /** Steps of one name (none today) stop last registered first, as a sort that keeps ties in reverse order. */
  private ordered() {
    return [...this.steps].reverse().sort((a, b) => RANK.get(a.name)! - RANK.get(b.name)!)
  }
}
