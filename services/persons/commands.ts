// Changes to persons. Ingestion's processor is the single writer of person state, so each change is a
// command appended to the ingest topic; the caller gets its answer once the processor has applied it (or
// the reason it could not), as PostHog's API answers after its write.
import { randomUUID } from 'node:crypto'
import type { Clock } from '../platform/clock'
import { wrenError } from '../platform/errors'
import { encodeIngest, type PersonCommand, type Properties } from '../platform/log/contract'
import { TOPICS, type Log } from '../platform/log/log'
import type { DeletionScheduler } from './deletions'
import type { PersonQueries, PersonRecord } from './queries'

export interface PersonCommandsDeps {
  log: Pick<Log, 'append'>
  /** Who learns that an appended command was applied: the processor itself, or the command-results reader. */
  processor: { waitForCommand(commandId: string): Promise<{ ok: true } | { ok: false; status: number; detail: string }> }
  queries: Pick<PersonQueries, 'get'>
  deletions: Pick<DeletionScheduler, 'enqueuePersonEvents'>
  clock: Clock
}

export class PersonCommands {
  constructor(private readonly deps: PersonCommandsDeps) {}

  /** Merges `set` into the person's properties; the person as stored afterwards. */
  async setProperties(teamId: number, person: PersonRecord, set: Properties): Promise<PersonRecord> {
    await this.run({ action: 'update_properties', ...this.base(teamId, person), set })
    const updated = await this.deps.queries.get(teamId, { uuid: person.uuid })
    if (!updated) throw wrenError('not_found', 'Person was deleted while it was being updated.')
    return updated
  }

  async deleteProperty(teamId: number, person: PersonRecord, key: string): Promise<void> {
    await this.run({ action: 'delete_property', ...this.base(teamId, person), key })
  }

  /** Each distinct id becomes its own person; `mainDistinctId` (one of the person's own) keeps this one. */
  async split(teamId: number, person: PersonRecord, mainDistinctId: string | null | undefined): Promise<void> {
    if (typeof mainDistinctId === 'string' && !person.distinctIds.includes(mainDistinctId))
      throw wrenError('invalid_input', 'main_distinct_id must be one of the person’s distinct ids.', 'main_distinct_id')
    await this.run({
      action: 'split',
      ...this.base(teamId, person),
      ...(typeof mainDistinctId === 'string' ? { mainDistinctId } : {}),
    })
  }

  /** Deletes the person; with `deleteEvents`, its events too, in the background. */
  async delete(teamId: number, person: PersonRecord, opts: { deleteEvents: boolean }): Promise<void> {
    await this.run({ action: 'delete', ...this.base(teamId, person) })
    if (opts.deleteEvents) await this.deps.deletions.enqueuePersonEvents(teamId, person.uuid, person.distinctIds)
  }

  private base(teamId: number, person: PersonRecord) {
    return { commandId: randomUUID(), teamId, personUuid: person.uuid, at: this.deps.clock.now().toISOString() }
  }

  /** Appends the command and waits until it is applied; its failure as the caller's error. */
  private async run(cmd: PersonCommand): Promise<void> {
    // Listen before appending, so a fast processor cannot apply the command before anyone waits for it.
    const applied = this.deps.processor.waitForCommand(cmd.commandId)
    applied.catch(() => {}) // handled below; keeps an append failure from leaving an unhandled rejection
    await this.deps.log.append(TOPICS.ingest, [{ key: String(cmd.teamId), value: encodeIngest({ kind: 'command', command: cmd }) }])
    let result
    try {
      result = await applied
    } catch {
      throw wrenError('unavailable', 'The change is queued but was not applied in time; it will still be applied. Retry the read shortly.')
    }
    if (!result.ok) {
      const code = result.status === 404 ? 'not_found' : result.status === 400 ? 'invalid_input' : 'dead_lettered'
      throw wrenError(
        code,
        result.status === 500 ? `The change could not be applied and was kept as a dead letter: ${result.detail}` : result.detail,
      )
    }
  }
}
