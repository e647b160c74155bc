// What the runtime's builders share (stores.ts, stages.ts, jobs.ts, services.ts): the process's context, and
// building each part the first time something asks for it, once. A process builds only what its roles' route
// groups, streams and jobs use (a capture process never loads flags; a decide process never starts a
// materializer). Whatever has to stop registers on the lifecycle as it is built (a builder awaits its parts
// before it registers), under its step of the stop table (stop-order.ts), which stops it before them.
import type { Logger } from 'pino'
import type { Config } from '../platform/config'
import type { Clock } from '../platform/clock'
import type { Metrics } from '../platform/metrics'
import type { Lifecycle } from './lifecycle'
import type { Roles } from './roles'
import type { Storage } from './storage'

export interface RuntimeContext {
  config: Config
  logger: Logger
  clock: Clock
  storage: Storage
  metrics: Metrics
  lifecycle: Lifecycle
  roles: Roles
}

export class BuildOnce {
  private readonly built = new Map<string, Promise<unknown>>()

  constructor(readonly ctx: RuntimeContext) {}

  /** `build`'s result, built once; concurrent callers share the one build. */
  protected once<T>(name: string, build: () => Promise<T> | T): Promise<T> {
    let value = this.built.get(name) as Promise<T> | undefined
    if (!value) this.built.set(name, (value = Promise.resolve().then(build)))
    return value
  }

  protected child(service: string): Logger {
    return this.ctx.logger.child({ service })
  }

  protected get cluster(): string | null {
    return this.ctx.config.clickhouse?.cluster ?? null
  }
}
