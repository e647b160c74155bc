// Person changes as a log feed: how decide processes keep their snapshot (decide/flags snapshot.ts) fresh
// when the ingestion processor runs elsewhere (cluster mode).
//
// After a batch is stored, the processor publishes what changed for decide, in a compact form (persons'
// uuid, properties and deletion; distinct id → person; group properties; group types; no activity, no
// versions) on the person-changes topic, one record per project keyed by project, so a project's changes
// keep their order. Every decide process reads the topic with a consumer group of its own, from the
// topic's end when it starts: what came before is in storage, which the snapshot loads on a miss (an
// older change replayed after such a load would bring back old properties). Publishing happens before
// the batch's offsets are committed, so a change is never lost; a batch replayed after a crash publishes
// its changes again, which is harmless (the same state applied twice).
//
// Embedded mode (one process) has no feed: the processor tells the snapshot directly
// (processor.onPersonChanges). Either way the snapshot gets each change once.
import type { Logger } from 'pino'
import type { Properties } from './contract'
import type { Log, Subscription } from './log'
import { TOPICS } from './log'
import { subscription } from './streams'

/**
 * What decide's snapshot needs of a batch's person changes: the fields of ingestion's rows (ingestion/types.ts)
 * that the feed carries. A batch's changes (PersonChanges) have these and more; only these are published.
 */
export interface SnapshotChanges {
  persons: Array<{ teamId: number; uuid: string; properties: Properties; isDeleted: boolean }>
  distinctIds: Array<{ teamId: number; distinctId: string; personUuid: string; isDeleted: boolean }>
  groups: Array<{ teamId: number; groupTypeIndex: number; groupKey: string; properties: Properties }>
  groupTypes: Array<{ teamId: number; groupType: string; groupTypeIndex: number }>
}

export type PersonChangePublisher = (changes: SnapshotChanges) => Promise<void>

/** Appends a stored batch's changes to the person-changes topic, one record per project. */
export function publishPersonChanges(log: Log): PersonChangePublisher {
  return async (changes) => {
    const byTeam = new Map<number, SnapshotChanges>()
    const of = (teamId: number) => {
      let c = byTeam.get(teamId)
      if (!c) byTeam.set(teamId, (c = { persons: [], distinctIds: [], groups: [], groupTypes: [] }))
      return c
    }
    for (const p of changes.persons)
      of(p.teamId).persons.push({ teamId: p.teamId, uuid: p.uuid, properties: p.properties, isDeleted: p.isDeleted })
    for (const d of changes.distinctIds)
      of(d.teamId).distinctIds.push({ teamId: d.teamId, distinctId: d.distinctId, personUuid: d.personUuid, isDeleted: d.isDeleted })
    for (const g of changes.groups)
      of(g.teamId).groups.push({ teamId: g.teamId, groupTypeIndex: g.groupTypeIndex, groupKey: g.groupKey, properties: g.properties })
    for (const t of changes.groupTypes) of(t.teamId).groupTypes.push(t)
    if (byTeam.size === 0) return
    await log.append(
      TOPICS.personChanges,
      [...byTeam].map(([teamId, c]) => ({ key: String(teamId), value: Buffer.from(JSON.stringify(c)) })),
    )
  }
}

/** Reads the person-changes topic from now on (a group of this process's own) and hands each change to `apply`. */
export function followPersonChanges(log: Log, apply: (changes: SnapshotChanges) => void, logger: Logger): Subscription {
  return log.subscribe({
    ...subscription('person-changes'),
    maxBatchRecords: 1000,
    maxWaitMs: 5,
    handler: async (batch) => {
      for (const record of batch.records) {
        let changes: SnapshotChanges
        try {
          changes = JSON.parse(record.value.toString()) as SnapshotChanges
        } catch (err) {
          logger.warn({ err, offset: record.offset }, 'unreadable person change skipped')
          continue
        }
        apply(changes)
      }
    },
  })
}
