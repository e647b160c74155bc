// Read-modify-write of a versioned configuration object (projects, keys, flags, actions, cohorts, recording
// sharing), so that no update is lost: within a process, updates of one object run one at a time; across
// processes, the write of version N + 1 needs the configuration log's grant for "I read N"
// (log/config-log.ts claimVersion). The change is applied to the record as it is stored now, never to a
// copy read before, and a writer that lost the race re-reads and applies its change again.
import { wrenError } from './errors'
import type { ConfigLog, VersionedObject } from './log/config-log'
import { objectKey } from './log/config-log'
import { KeyedSerialQueue } from './serial'

/** Tries before a writer that keeps losing gets 409 (another process keeps writing the same object). */
const ATTEMPTS = 6

export interface VersionedUpdate<T extends { version: number }> {
  object: VersionedObject
  /** The object as stored now (undefined: there is none; a record at version 0 is one not saved yet). */
  read: () => Promise<T | undefined>
  /** The next record from the current one, or null when the update changes nothing. */
  change: (current: T) => Promise<T | null> | T | null
  /** Stores `next` (its version already set to the current one + 1) and publishes it. */
  write: (next: T, current: T) => Promise<void>
}

export type UpdateOutcome<T> = { status: 'missing' } | { status: 'unchanged'; current: T } | { status: 'written'; next: T }

export class VersionedUpdates {
  private readonly queue = new KeyedSerialQueue()

  constructor(private readonly config: Pick<ConfigLog, 'claimVersion'>) {}

  update<T extends { version: number }>(u: VersionedUpdate<T>): Promise<UpdateOutcome<T>> {
    return this.queue.run(objectKey(u.object), async () => {
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        if (attempt > 0) await sleep(10 * 2 ** attempt * (0.5 + Math.random()))
        const current = await u.read()
        if (!current) return { status: 'missing' }
        const changed = await u.change(current)
        if (!changed) return { status: 'unchanged', current }
        if (!(await this.config.claimVersion(u.object, current.version))) continue
        const next = { ...changed, version: current.version + 1 }
        await u.write(next, current)
        return { status: 'written', next }
      }
      throw wrenError('conflict')
    })
  }

  /** `update`, answering the object afterwards: the record written, the current one if nothing changed, undefined if none. */
  async apply<T extends { version: number }>(u: VersionedUpdate<T>): Promise<T | undefined> {
    const outcome = await this.update(u)
    return outcome.status === 'missing' ? undefined : outcome.status === 'written' ? outcome.next : outcome.current
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
