// $identify / $create_alias / $merge_dangerously: linking two distinct ids, merging their persons.
import type { PersonRepo } from './repo'
import { personUuid } from './uuid'
import { assignDistinctId, createPerson, versionFloorFor } from './ops'
import { applyUpdates, computeUpdates, earlierTimestamp, initialPersonProperties, meaningfulChanges } from './properties'
import type { IngestEvent, Person, Properties } from '../types'

const CASE_INSENSITIVE_ILLEGAL = [
  'anonymous',
  'guest',
  'distinctid',
  'distinct_id',
  'id',
  'not_authenticated',
  'email',
  'undefined',
  'true',
  'false',
]
const CASE_SENSITIVE_ILLEGAL = ['[object Object]', 'NaN', 'None', 'none', 'null', '0', 'undefined']
const quoted = (ids: string[]) => [...ids, ...ids.map((id) => `'${id}'`), ...ids.map((id) => `"${id}"`)]
const ILLEGAL_ANY_CASE = new Set(quoted(CASE_INSENSITIVE_ILLEGAL))
const ILLEGAL_EXACT = new Set(quoted(CASE_SENSITIVE_ILLEGAL))

/** Distinct ids that identify / alias refuse to merge with (generic values that stem from SDK misuse). */
export function isDistinctIdIllegal(id: string): boolean {
  return id.trim() === '' || ILLEGAL_ANY_CASE.has(id.toLowerCase()) || ILLEGAL_EXACT.has(id)
}

/** The distinct id an identify / alias event merges into its own distinct id, if any. */
export function mergeSource(eventName: string, properties: Properties): string | undefined {
  if ((eventName === '$create_alias' || eventName === '$merge_dangerously') && properties.alias) return String(properties.alias)
  if (eventName === '$identify' && Object.prototype.hasOwnProperty.call(properties, '$anon_distinct_id'))
    return String(properties.$anon_distinct_id)
  return undefined
}

export interface MergeOutcome {
  person: Person
  /** The event's property updates were already applied (new or merged person). */
  handled: boolean
  /** Minimum version for the follow-up write (see versionFloorFor). */
  minVersion?: number
}

/**
 * Runs the identify / alias logic of an event. Returns undefined when the event is not one, or is a
 * no-op (same ids, illegal id); the caller then processes the event normally.
 */
export function handleIdentifyOrAlias(repo: PersonRepo, event: IngestEvent, properties: Properties): MergeOutcome | undefined {
  const other = mergeSource(event.event, properties)
  if (other === undefined) return undefined
  const into = event.distinctId
  const teamId = event.teamId
  if (into === other) return undefined
  for (const [illegal, otherId] of [
    [into, other],
    [other, into],
  ]) {
    if (isDistinctIdIllegal(illegal)) {
      repo.warn({
        teamId,
        type: 'cannot_merge_with_illegal_distinct_id',
        details: { illegalDistinctId: illegal, otherDistinctId: otherId, eventUuid: event.uuid },
      })
      return undefined
    }
  }

  const otherPerson = repo.personForDistinctId(teamId, other)
  const intoPerson = repo.personForDistinctId(teamId, into)

  if (otherPerson && intoPerson) {
    if (otherPerson.uuid === intoPerson.uuid) return { person: intoPerson, handled: false }
    return mergePeople(repo, event, properties, intoPerson, otherPerson)
  }

  if (otherPerson || intoPerson) {
    const existing = (otherPerson ?? intoPerson) as Person
    const added = otherPerson ? into : other
    const minVersion = versionFloorFor(repo, teamId, added, existing.uuid)
    assignDistinctId(repo, teamId, added, existing.uuid)
    return { person: existing, handled: false, minVersion: minVersion > existing.version ? minVersion : undefined }
  }

  // Neither id has a person: one identified person with both, named after the event's distinct id.
  const uuid = personUuid(teamId, into)
  const { person, created } = createPerson(repo, {
    teamId,
    uuid,
    distinctIds: [into, other],
    properties: initialPersonProperties(event.event, properties, event.timestamp, event.uuid),
    isIdentified: true,
    createdAt: event.timestamp,
    minVersion: versionFloorFor(repo, teamId, other, uuid),
    at: event.timestamp,
  })
  return { person, handled: created }
}

function mergePeople(repo: PersonRepo, event: IngestEvent, properties: Properties, target: Person, source: Person): MergeOutcome {
  const teamId = event.teamId
  if (event.event !== '$merge_dangerously' && source.isIdentified) {
    repo.warn({
      teamId,
      type: 'cannot_merge_already_identified',
      details: {
        sourcePersonDistinctId: mergeSource(event.event, properties),
        targetPersonDistinctId: event.distinctId,
        eventUuid: event.uuid,
      },
    })
    return { person: target, handled: false }
  }

  // The target wins on conflicts; then this event's own updates apply.
  const combined: Properties = { ...source.properties, ...target.properties }
  const merged = applyUpdates(combined, computeUpdates(event.event, properties, combined, event.timestamp))
  const movedIds = repo.distinctIdsOf(teamId, source.uuid)
  for (const id of movedIds) assignDistinctId(repo, teamId, id, target.uuid)
  repo.putPerson({ ...source, isDeleted: true, version: source.version + 1 })
  const result = repo.putPerson({
    ...target,
    properties: merged,
    createdAt: earlierTimestamp(target.createdAt, source.createdAt),
    isIdentified: true,
    version: Math.max(target.version, source.version) + 1,
  })
  repo.addActivity({
    teamId,
    personUuid: target.uuid,
    activity: 'merged',
    detail: { merge: { source: source.uuid, distinctIds: movedIds }, changes: meaningfulChanges(target.properties, result.properties) },
    at: event.timestamp,
  })
  return { person: result, handled: true }
}
