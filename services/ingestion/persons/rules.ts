// The person rules of ingestion (PostHog compatible): which person an event belongs to, what it changes
// on that person and its groups, and what the event row records. Pure and synchronous over PersonRepo;
// given the same repository state and inputs, the outputs are the same.
import type { PersonRepo } from './repo'
import { LookupSet, type Lookups } from './store'
import { personUuid, normalizeUuid } from './uuid'
import { createPerson, updatePersonFromEvent } from './ops'
import { handleIdentifyOrAlias, mergeSource } from './identity'
import { groupReferences, processGroups, type GroupPropertiesTuple } from './groups'
import { addInitialProperties, initialPersonProperties, NO_INITIAL_PROPERTIES_EVENTS } from './properties'
import type { IngestEvent, Person, PersonCommand, PersonMode, ProcessedEvent, Properties } from '../types'

export { applyCommand, type CommandResult } from './commands'
export { isDistinctIdIllegal } from './identity'

/** person_created_at of events without a person (PostHog's marker value, 5 s after the epoch). */
export const PERSONLESS_CREATED_AT = '1970-01-01T00:00:05.000Z'

/** Events PostHog drops when sent with $process_person_profile: false. */
const PERSON_ONLY_EVENTS: ReadonlySet<string> = new Set(['$identify', '$create_alias', '$merge_dangerously', '$groupidentify'])

function isCommand(item: IngestEvent | PersonCommand): item is PersonCommand {
  return 'action' in item
}

function processesPerson(event: IngestEvent): boolean {
  return event.properties.$process_person_profile !== false
}

/**
 * True for a person-only event ($identify, $create_alias, $merge_dangerously, $groupidentify) sent
 * with $process_person_profile: false. PostHog drops these (warning invalid_event_when_process_person_profile_is_false);
 * processEvent stores them as personless events, so a caller that wants PostHog's behaviour skips them.
 */
export function isDroppedPersonlessEvent(event: IngestEvent): boolean {
  return !processesPerson(event) && PERSON_ONLY_EVENTS.has(event.event)
}

/** Records PostHog's warning for an event isDroppedPersonlessEvent drops; true when it is one. */
export function warnIfDroppedPersonless(repo: PersonRepo, event: IngestEvent): boolean {
  if (!isDroppedPersonlessEvent(event)) return false
  repo.warn({
    teamId: event.teamId,
    type: 'invalid_event_when_process_person_profile_is_false',
    details: { eventUuid: event.uuid, event: event.event, distinctId: event.distinctId },
  })
  return true
}

/** Everything the rules may read for these items. */
export function lookupsFor(items: Array<IngestEvent | PersonCommand>): Lookups {
  const out = new LookupSet()
  for (const item of items) {
    out.team(item.teamId)
    if (isCommand(item)) {
      const uuid = normalizeUuid(item.personUuid)
      if (uuid) out.personUuid(item.teamId, uuid)
      continue
    }
    const ids = [item.distinctId]
    const other = mergeSource(item.event, item.properties)
    if (other !== undefined) ids.push(other)
    for (const id of ids) {
      out.distinctId(item.teamId, id)
      out.personUuid(item.teamId, personUuid(item.teamId, id))
    }
    if (processesPerson(item)) {
      for (const ref of groupReferences(item.event, item.properties)) out.group(item.teamId, ref.groupType, ref.groupKey)
    }
  }
  return out.lookups()
}

export function processEvent(repo: PersonRepo, event: IngestEvent): ProcessedEvent {
  return repo.atomically(() => process(repo, event))
}

function process(repo: PersonRepo, event: IngestEvent): ProcessedEvent {
  const teamId = event.teamId
  const flag = event.properties.$process_person_profile
  const processPerson = flag !== false
  if (flag !== undefined && typeof flag !== 'boolean') {
    repo.warn({
      teamId,
      type: 'invalid_process_person_profile',
      details: { eventUuid: event.uuid, event: event.event, distinctId: event.distinctId, $process_person_profile: flag },
    })
  }
  warnIfDroppedPersonless(repo, event)

  // The row's properties are a copy (one: addInitialProperties makes it when it adds anything); the event's stay as they came.
  let properties = NO_INITIAL_PROPERTIES_EVENTS.has(event.event) ? event.properties : addInitialProperties(event.properties)
  if (properties === event.properties) properties = { ...properties }
  if (!processPerson || event.event === '$groupidentify') {
    delete properties.$set
    delete properties.$set_once
    delete properties.$unset
  }
  if (processPerson) delete properties.$process_person_profile
  else properties.$process_person_profile = false

  if (!processPerson) return personlessEvent(repo, event, properties)

  const { person, personProperties } = resolvePerson(repo, event, properties)
  const groupProperties = processGroups(repo, event, properties)
  return eventRow(event, properties, person.uuid, personProperties, person.createdAt, 'full', groupProperties)
}

/** The person this event belongs to after identify / alias handling, creation and property updates. */
function resolvePerson(repo: PersonRepo, event: IngestEvent, properties: Properties): { person: Person; personProperties: Properties } {
  const merge = handleIdentifyOrAlias(repo, event, properties)
  if (merge?.handled) return { person: merge.person, personProperties: merge.person.properties }

  let person = merge?.person ?? repo.personForDistinctId(event.teamId, event.distinctId)
  if (!person) {
    const created = createPerson(repo, {
      teamId: event.teamId,
      uuid: personUuid(event.teamId, event.distinctId),
      distinctIds: [event.distinctId],
      properties: initialPersonProperties(event.event, properties, event.timestamp, event.uuid),
      isIdentified: false,
      createdAt: event.timestamp,
      at: event.timestamp,
    })
    if (created.created) return { person: created.person, personProperties: created.person.properties }
    person = created.person
  }
  const updated = updatePersonFromEvent(repo, person, {
    eventName: event.event,
    properties,
    timestamp: event.timestamp,
    identify: merge !== undefined,
    minVersion: merge?.minVersion,
  })
  return { person: updated.person, personProperties: updated.eventProperties }
}

/** $process_person_profile: false — attach to an existing person if there is one, never write. */
function personlessEvent(repo: PersonRepo, event: IngestEvent, properties: Properties): ProcessedEvent {
  const empty: GroupPropertiesTuple = [{}, {}, {}, {}, {}]
  const existing = repo.personForDistinctId(event.teamId, event.distinctId)
  if (existing) return eventRow(event, properties, existing.uuid, existing.properties, existing.createdAt, 'force_upgrade', empty)
  return eventRow(event, properties, personUuid(event.teamId, event.distinctId), {}, PERSONLESS_CREATED_AT, 'propertyless', empty)
}

function eventRow(
  event: IngestEvent,
  properties: Properties,
  personId: string,
  personProperties: Properties,
  personCreatedAt: string,
  personMode: PersonMode,
  groupProperties: GroupPropertiesTuple,
): ProcessedEvent {
  return {
    teamId: event.teamId,
    uuid: event.uuid,
    event: event.event,
    distinctId: event.distinctId,
    properties,
    timestamp: event.timestamp,
    createdAt: event.now,
    elementsChain: event.elementsChain,
    personId,
    personProperties,
    personCreatedAt,
    personMode,
    groupProperties,
  }
}
