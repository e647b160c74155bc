// Groups: $groups → $group_<index> event properties, $groupidentify → group upserts, and the group
// properties each event carries. Only for events that process persons.
import type { PersonRepo } from './repo'
import { copyProperties, earlierTimestamp, hasOwn, isPlainObject, jsonEqual, setOwn } from './properties'
import type { IngestEvent, Properties } from '../types'

export type GroupPropertiesTuple = [Properties, Properties, Properties, Properties, Properties]

/** (group type, key) pairs an event refers to, as the lookups need them. */
export function groupReferences(eventName: string, properties: Properties): Array<{ groupType: string; groupKey: string }> {
  const refs: Array<{ groupType: string; groupKey: string }> = []
  const groups = properties.$groups
  if (isPlainObject(groups)) {
    for (const [groupType, key] of Object.entries(groups)) {
      if (key !== null && key !== undefined) refs.push({ groupType, groupKey: String(key) })
    }
  }
  const identify = groupIdentify(eventName, properties)
  if (identify) refs.push({ groupType: identify.groupType, groupKey: identify.groupKey })
  return refs
}

function groupIdentify(eventName: string, properties: Properties): { groupType: string; groupKey: string; set: Properties } | undefined {
  if (eventName !== '$groupidentify') return undefined
  const { $group_type: groupType, $group_key: groupKey } = properties
  if (typeof groupType !== 'string' || !groupType || !groupKey) return undefined
  return { groupType, groupKey: String(groupKey), set: copyProperties(properties.$group_set) }
}

/**
 * Adds $group_<index> to `properties` (mutated), upserts the group of a $groupidentify, and returns the
 * group properties the event carries (those of the groups named in $groups, after the upsert).
 */
export function processGroups(repo: PersonRepo, event: IngestEvent, properties: Properties): GroupPropertiesTuple {
  const teamId = event.teamId
  const named: Array<[number, string]> = []
  const groups = properties.$groups
  if (isPlainObject(groups)) {
    for (const [groupType, key] of Object.entries(groups)) {
      const index = repo.ensureGroupType(teamId, groupType)
      if (index === null) continue
      setOwn(properties, `$group_${index}`, key)
      if (key !== null && key !== undefined) named.push([index, String(key)])
    }
  }

  const identify = groupIdentify(event.event, properties)
  if (identify) {
    const index = repo.ensureGroupType(teamId, identify.groupType)
    if (index !== null) upsertGroup(repo, teamId, index, identify.groupKey, identify.set, event.timestamp)
  }

  // A group's properties are one object per version, never changed in place (upsertGroup): the event
  // carries that object, as it carries its person's (rows.ts encodes each version once).
  const out: GroupPropertiesTuple = [NO_PROPERTIES, NO_PROPERTIES, NO_PROPERTIES, NO_PROPERTIES, NO_PROPERTIES]
  for (const [index, key] of named) out[index] = repo.group(teamId, index, key)?.properties ?? NO_PROPERTIES
  return out
}

/** The properties of a group an event does not name. */
const NO_PROPERTIES: Properties = Object.freeze({})

function upsertGroup(repo: PersonRepo, teamId: number, index: number, key: string, set: Properties, timestamp: string): void {
  const existing = repo.group(teamId, index, key)
  if (!existing) {
    repo.putGroup({ teamId, groupTypeIndex: index, groupKey: key, properties: set, createdAt: timestamp, version: 1 })
    return
  }
  const changed = Object.entries(set).some(([k, v]) => !hasOwn(existing.properties, k) || !jsonEqual(existing.properties[k], v))
  if (!changed) return
  const properties: Properties = { ...existing.properties }
  for (const [k, v] of Object.entries(set)) setOwn(properties, k, v)
  repo.putGroup({ ...existing, properties, createdAt: earlierTimestamp(existing.createdAt, timestamp), version: existing.version + 1 })
}
