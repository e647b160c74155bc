// Person changes asked for through the persons API, applied by the processor (the single writer).
import type { PersonRepo } from './repo'
import { normalizeUuid, personUuid } from './uuid'
import { createPerson, recordUpdated } from './ops'
import { hasOwn, isPlainObject, jsonEqual, propertyChanges, setOwn } from './properties'
import type { Person, PersonCommand, Properties } from '../types'
import type { CommandResult as PublishedResult } from '../../platform/log/command-results'

/** The result the processor publishes (platform/log/command-results.ts), with this folder's person. */
export type CommandResult = PublishedResult<Person>

export function applyCommand(repo: PersonRepo, command: PersonCommand): CommandResult {
  return repo.atomically(() => apply(repo, command))
}

function apply(repo: PersonRepo, command: PersonCommand): CommandResult {
  const uuid = normalizeUuid(command.personUuid)
  const person = uuid ? repo.person(command.teamId, uuid) : null
  if (!person || person.isDeleted) return { ok: false, status: 404, detail: 'Not found.' }
  switch (command.action) {
    case 'update_properties':
      return updateProperties(repo, person, command.set, command.at)
    case 'delete_property':
      return deleteProperty(repo, person, command.key, command.at)
    case 'split':
      return split(repo, person, command.mainDistinctId, command.at)
    case 'delete':
      return deletePerson(repo, person, command.at)
    default:
      return { ok: false, status: 400, detail: `Unknown action ${JSON.stringify((command as { action: unknown }).action)}.` }
  }
}

/** A $set merge: listed keys change, the others stay. */
function updateProperties(repo: PersonRepo, person: Person, set: Properties, at: string): CommandResult {
  if (!isPlainObject(set)) return { ok: false, status: 400, detail: 'properties must be an object.' }
  const properties: Properties = { ...person.properties }
  for (const [k, v] of Object.entries(set)) {
    if (!hasOwn(properties, k) || !jsonEqual(properties[k], v)) setOwn(properties, k, v)
  }
  return writeProperties(repo, person, properties, at)
}

function deleteProperty(repo: PersonRepo, person: Person, key: string, at: string): CommandResult {
  if (typeof key !== 'string') return { ok: false, status: 400, detail: 'key must be a string.' }
  if (!hasOwn(person.properties, key)) return { ok: true, person }
  const properties: Properties = { ...person.properties }
  delete properties[key]
  return writeProperties(repo, person, properties, at)
}

function writeProperties(repo: PersonRepo, person: Person, properties: Properties, at: string): CommandResult {
  if (propertyChanges(person.properties, properties).length === 0) return { ok: true, person }
  const written = repo.putPerson({ ...person, properties, version: person.version + 1 })
  const changes = propertyChanges(person.properties, written.properties)
  if (changes.length) repo.addActivity({ teamId: person.teamId, personUuid: person.uuid, activity: 'updated', detail: { changes }, at })
  return { ok: true, person: written }
}

/**
 * Every distinct id except the main one moves to a person of its own (uuid derived from the id, empty
 * properties). Without a main id the first distinct id stays and the original's properties are cleared.
 */
function split(repo: PersonRepo, person: Person, mainDistinctId: string | undefined, at: string): CommandResult {
  const teamId = person.teamId
  const ids = repo.distinctIdsOf(teamId, person.uuid)
  if (mainDistinctId && !ids.includes(mainDistinctId)) {
    return { ok: false, status: 400, detail: `${JSON.stringify(mainDistinctId)} is not a distinct id of this person.` }
  }
  let original = person
  const main = mainDistinctId || ids[0]
  if (!mainDistinctId && Object.keys(person.properties).length > 0) {
    original = { ...person, properties: {}, version: person.version + 1 }
    repo.putPerson(original)
    recordUpdated(repo, person, original, at)
  }
  const splitOff: Array<{ uuid: string; distinctId: string }> = []
  for (const distinctId of ids) {
    if (distinctId === main) continue
    const uuid = personUuid(teamId, distinctId)
    if (uuid === person.uuid) continue // its own uuid: the id already sits on "its" person
    // A merge leaves the merged person at max(version) + 1, so original.version + 1 out-versions any
    // deleted person this uuid had; a known deleted version is honoured as well.
    const { person: created } = createPerson(repo, {
      teamId,
      uuid,
      distinctIds: [distinctId],
      properties: {},
      isIdentified: false,
      createdAt: at,
      minVersion: original.version + 1,
      at,
      uuidMayBeUnloaded: true,
      detail: { splitFrom: person.uuid },
    })
    splitOff.push({ uuid: created.uuid, distinctId })
  }
  repo.addActivity({
    teamId,
    personUuid: person.uuid,
    activity: 'split',
    detail: { split: { mainDistinctId: main ?? null, persons: splitOff } },
    at,
  })
  return { ok: true, person: original }
}

function deletePerson(repo: PersonRepo, person: Person, at: string): CommandResult {
  const ids = repo.distinctIdsOf(person.teamId, person.uuid)
  for (const distinctId of ids) {
    const row = repo.distinctIdRow(person.teamId, distinctId)
    if (row) repo.putDistinctId({ ...row, isDeleted: true, version: row.version + 1 })
  }
  repo.putPerson({ ...person, isDeleted: true, version: person.version + 1 })
  repo.addActivity({ teamId: person.teamId, personUuid: person.uuid, activity: 'deleted', detail: { distinctIds: ids }, at })
  return { ok: true, person: null }
}
