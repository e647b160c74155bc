// How an API process learns that a person command it appended was applied, and with what result.
// In one process (`wren all`, or `ingest,api`) the processor tells it directly (processor.waitForCommand).
// An `api` process without the processor (cluster mode) reads the results the processor publishes on the
// command-results topic: each api process reads it with a group of its own, from the topic's start (the
// topic keeps minutes of results, see kafka-log.ts), so no result published after the command was
// appended can be missed, whenever the subscription caught up.
import { EventEmitter } from 'node:events'
import type { Log, Subscription } from './log'
import { TOPICS } from './log'
import { subscription } from './streams'

/**
 * A person command's outcome as the processor publishes it: applied, with the person it left (ingestion's
 * row, see ingestion/person-commands.ts; null once deleted), or refused. 500: the command could not be
 * applied at all and went to dead letters with `detail` as its error.
 */
export type CommandResult<Person = unknown> = { ok: true; person: Person | null } | { ok: false; status: 404 | 400 | 500; detail: string }

/**
 * What the persons API needs to answer once its command is applied: the processor itself in one process,
 * a LogCommandWaiter in an `api` process without it.
 */
export interface CommandWaiter {
  /** Resolves with the command's result once it is applied and stored; rejects after timeoutMs. */
  waitForCommand(commandId: string, timeoutMs?: number): Promise<CommandResult>
}

/** Pending waits for command results, resolved by whoever learns a result (processor or topic reader). */
export class CommandWaiters implements CommandWaiter {
  private readonly applied = new EventEmitter()

  constructor() {
    this.applied.setMaxListeners(0)
  }

  resolve(commandId: string, result: CommandResult): void {
    this.applied.emit(commandId, result)
  }

  waitForCommand(commandId: string, timeoutMs = 30_000): Promise<CommandResult> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.applied.off(commandId, onApplied)
        reject(new Error(`command ${commandId} was not applied within ${timeoutMs} ms`))
      }, timeoutMs)
      timer.unref()
      const onApplied = (result: CommandResult) => {
        clearTimeout(timer)
        resolve(result)
      }
      this.applied.once(commandId, onApplied)
    })
  }
}

export type CommandResultPublisher = (results: Array<[string, CommandResult]>) => Promise<void>

export function publishCommandResults(log: Log): CommandResultPublisher {
  return async (results) => {
    if (results.length === 0) return
    await log.append(
      TOPICS.commandResults,
      results.map(([commandId, result]) => ({ key: commandId, value: Buffer.from(JSON.stringify(result)) })),
    )
  }
}

export class LogCommandWaiter implements CommandWaiter {
  private readonly waiters = new CommandWaiters()
  private subscription: Subscription | null = null

  constructor(private readonly log: Log) {}

  start(): void {
    this.subscription = this.log.subscribe({
      ...subscription('command-results'),
      maxBatchRecords: 1000,
      maxWaitMs: 5,
      handler: async (batch) => {
        for (const record of batch.records) {
          try {
            this.waiters.resolve(record.key, JSON.parse(record.value.toString()) as CommandResult)
          } catch {
            // Not a result we can read: nobody waits for it.
          }
        }
      },
    })
  }

  async stop(): Promise<void> {
    await this.subscription?.stop()
    this.subscription = null
  }

  waitForCommand(commandId: string, timeoutMs?: number): Promise<CommandResult> {
    return this.waiters.waitForCommand(commandId, timeoutMs)
  }
}
