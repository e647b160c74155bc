// Building blocks shared by the event rules and the commands: creating persons, pointing distinct ids
// at persons, writing property updates. Every write bumps the version of what it writes.
import type { PersonRepo } from './repo'
import { personUuid } from './uuid'
import { applyUpdates, computeUpdates, meaningfulChanges, propertyChanges, updateTriggersWrite, type PropertyChange } from './properties'
import { jsonBytesBound } from './size'
import type { Person, Properties } from '../types'

/** How much unstored property changes (filtered keys only) may add to the properties an event carries. */
const UNSTORED_CHANGES_ALLOWANCE_BYTES = 16 * 1024

/** Points a distinct id at a person (a new row, a move, or a revival of a tombstone). */
export function assignDistinctId(repo: PersonRepo, teamId: number, distinctId: string, toPersonUuid: string): void {
  const row = repo.distinctIdRow(teamId, distinctId)
  if (row && !row.isDeleted && row.personUuid === toPersonUuid) return
  let version = row ? row.version + 1 : 0
  // Events may already be stored under the id's own deterministic uuid (personless events): a row with
  // version >= 1 is what makes ClickHouse override their person_id. Wren keeps no personless table, so
  // every id that joins a person other than its own uuid gets one.
  if (personUuid(teamId, distinctId) !== toPersonUuid) version = Math.max(version, 1)
  repo.putDistinctId({ teamId, distinctId, personUuid: toPersonUuid, isDeleted: false, version })
}

export interface NewPerson {
  teamId: number
  uuid: string
  distinctIds: string[]
  properties: Properties
  isIdentified: boolean
  createdAt: string
  /** Lowest version the new row may have. */
  minVersion?: number
  /** ActivityEntry.at */
  at: string
  /** The uuid's stored state may not be loaded (split targets); otherwise reading it unloaded is a bug. */
  uuidMayBeUnloaded?: boolean
  detail?: Properties
}

/**
 * Creates a person (or re-creates a deleted uuid, continuing its version). If a live person already
 * holds the uuid, the distinct ids join it instead and it is returned unchanged.
 */
export function createPerson(repo: PersonRepo, spec: NewPerson): { person: Person; created: boolean } {
  const existing = spec.uuidMayBeUnloaded ? repo.peekPerson(spec.teamId, spec.uuid) : repo.person(spec.teamId, spec.uuid)
  if (existing && !existing.isDeleted) {
    for (const id of spec.distinctIds) assignDistinctId(repo, spec.teamId, id, existing.uuid)
    return { person: existing, created: false }
  }
  const person = repo.putPerson({
    teamId: spec.teamId,
    id: repo.allocatePersonId(),
    uuid: spec.uuid,
    properties: spec.properties,
    isIdentified: spec.isIdentified,
    createdAt: spec.createdAt,
    version: Math.max(existing ? existing.version + 1 : 0, spec.minVersion ?? 0),
    isDeleted: false,
  })
  for (const id of spec.distinctIds) assignDistinctId(repo, spec.teamId, id, person.uuid)
  repo.addActivity({
    teamId: spec.teamId,
    personUuid: person.uuid,
    activity: 'created',
    detail: { distinctIds: [...spec.distinctIds], ...spec.detail },
    at: spec.at,
  })
  return { person, created: true }
}

/** Lowest version a person must take so a later split can out-version the deleted uuid of `distinctId`. */
export function versionFloorFor(repo: PersonRepo, teamId: number, distinctId: string, holderUuid: string): number {
  const uuid = personUuid(teamId, distinctId)
  if (uuid === holderUuid) return 0
  const own = repo.person(teamId, uuid)
  return own ? own.version + 1 : 0
}

export interface EventUpdate {
  eventName: string
  properties: Properties
  timestamp: string
  /** A valid identify / alias ran: the person becomes identified. */
  identify: boolean
  /** Write with at least this version even when nothing else changed (see versionFloorFor). */
  minVersion?: number
}

/**
 * Applies an event's $set / $set_once / $unset to an existing person. Returns the person's properties
 * as the event sees them: when the change is only filtered keys, it shows on the event but is not stored.
 */
export function updatePersonFromEvent(
  repo: PersonRepo,
  person: Person,
  update: EventUpdate,
): { person: Person; eventProperties: Properties } {
  const updates = computeUpdates(update.eventName, update.properties, person.properties, update.timestamp)
  const next = applyUpdates(person.properties, updates)
  const changes = propertyChanges(person.properties, next)
  const identifyChange = update.identify && !person.isIdentified
  const versionChange = update.minVersion !== undefined && update.minVersion > person.version
  const write = identifyChange || versionChange || updateTriggersWrite(update.eventName, person.properties, changes, updates)
  if (!write) return { person, eventProperties: changes.length && !growsPastLimit(changes) ? next : person.properties }
  const written = repo.putPerson({
    ...person,
    properties: changes.length ? next : person.properties,
    isIdentified: person.isIdentified || update.identify,
    version: Math.max(person.version + 1, update.minVersion ?? 0),
  })
  recordUpdated(repo, person, written, update.timestamp)
  return { person: written, eventProperties: written.properties }
}

/**
 * Whether unstored changes are too big to show on the event: the stored properties are within the
 * person size limit (size.ts), and what an event shows may pass it only by this allowance.
 */
function growsPastLimit(changes: PropertyChange[]): boolean {
  let bytes = 0
  for (const c of changes) bytes += jsonBytesBound(c.field) + jsonBytesBound(c.after)
  return bytes > UNSTORED_CHANGES_ALLOWANCE_BYTES
}

/** Activity 'updated' when properties a user cares about changed. */
export function recordUpdated(repo: PersonRepo, before: Person, after: Person, at: string): void {
  const changes = meaningfulChanges(before.properties, after.properties)
  if (changes.length) repo.addActivity({ teamId: after.teamId, personUuid: after.uuid, activity: 'updated', detail: { changes }, at })
}
