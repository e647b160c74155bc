// Person property rules: which event properties become person properties ($set / $set_once / $unset,
// first-touch $initial_* values) and which changes are worth a write. Pure functions.
import type { Properties } from '../types'

/** Event properties copied to the person ($set) and as first-touch values ($set_once: $initial_<key>). */
export const EVENT_TO_PERSON_PROPERTIES: readonly string[] = [
  // mobile
  '$app_build',
  '$app_name',
  '$app_namespace',
  '$app_version',
  // web
  '$browser',
  '$browser_version',
  '$device_type',
  '$current_url',
  '$pathname',
  '$os',
  '$os_name', // an alias of $os, see addInitialProperties
  '$os_version',
  '$referring_domain',
  '$referrer',
  '$screen_height',
  '$screen_width',
  '$viewport_height',
  '$viewport_width',
  '$raw_user_agent',
]

export const CAMPAIGN_PROPERTIES: readonly string[] = [
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_content',
  'utm_name',
  'utm_term',
  'gclid',
  'gad_source',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  'fbclid',
  'msclkid',
  'twclid',
  'li_fat_id',
  'mc_cid',
  'igshid',
  'ttclid',
  'rdt_cid',
  'irclid',
  '_kx',
  'epik',
  'qclid',
  'sccid',
]

const AUTOMATIC_PROPERTIES = [...EVENT_TO_PERSON_PROPERTIES, ...CAMPAIGN_PROPERTIES]

/** Keys that change often and, alone, do not justify writing an existing person (on non-person events). */
export const FILTERED_PERSON_UPDATE_PROPERTIES: ReadonlySet<string> = new Set([
  '$current_url',
  '$pathname',
  '$referring_domain',
  '$referrer',
  '$screen_height',
  '$screen_width',
  '$viewport_height',
  '$viewport_width',
  '$browser',
  '$browser_version',
  '$device_type',
  '$raw_user_agent',
  '$os',
  '$os_name',
  '$os_version',
  '$geoip_postal_code',
  '$geoip_time_zone',
  '$geoip_latitude',
  '$geoip_longitude',
  '$geoip_accuracy_radius',
  '$geoip_subdivision_1_code',
  '$geoip_subdivision_1_name',
  '$geoip_subdivision_2_code',
  '$geoip_subdivision_2_name',
  '$geoip_subdivision_3_code',
  '$geoip_subdivision_3_name',
  '$geoip_city_confidence',
  '$geoip_country_confidence',
  '$geoip_postal_code_confidence',
  '$geoip_subdivision_1_confidence',
  '$geoip_subdivision_2_confidence',
])

/** Events that always write the person when something changed. */
export const PERSON_EVENTS: ReadonlySet<string> = new Set([
  '$identify',
  '$create_alias',
  '$merge_dangerously',
  '$set',
  '$delete_person_property',
])
/** Events handled outside the person pipeline in PostHog: they never update an existing person. */
export const NO_PERSON_UPDATE_EVENTS: ReadonlySet<string> = new Set(['$exception', '$$heatmap'])
/** Events that get no automatic person properties. */
export const NO_INITIAL_PROPERTIES_EVENTS: ReadonlySet<string> = new Set(['$snapshot', '$performance_event'])

export const SURVEY_SHOWN_EVENT = 'survey shown'
export const SURVEY_LAST_SEEN_PROPERTY = '$survey_last_seen_date'

export function isPlainObject(value: unknown): value is Properties {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function hasOwn(object: Properties, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key)
}

export function ownValue(object: Properties, key: string): unknown {
  return hasOwn(object, key) ? object[key] : undefined
}

/** Sets a key as an own data property (safe for keys such as "__proto__"). */
export function setOwn(object: Properties, key: string, value: unknown): void {
  // Plain assignment is much cheaper; only '__proto__' needs defineProperty to stay an own key.
  if (key === '__proto__') Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true })
  else object[key] = value
}

export function copyProperties(value: unknown): Properties {
  const out: Properties = {}
  if (isPlainObject(value)) for (const [k, v] of Object.entries(value)) setOwn(out, k, v)
  return out
}

/** Structural equality for JSON values. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) {
    const other = b as unknown[]
    return a.length === other.length && a.every((v, i) => jsonEqual(v, other[i]))
  }
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  if (ka.length !== kb.length) return false
  return ka.every((k) => hasOwn(b as Properties, k) && jsonEqual((a as Properties)[k], (b as Properties)[k]))
}

const initialKey = (key: string) => `$initial_${key.replace('$', '')}`

/**
 * Adds the automatic person properties of an event: each known key present goes into $set (unless the
 * SDK set it explicitly) and, when not null, into $set_once as $initial_<key>. Server SDKs ($is_server)
 * do not lift $os / $os_version. $os_name only serves as a fallback for $initial_os.
 * Returns `properties` itself when nothing applies, otherwise a new object.
 */
export function addInitialProperties(properties: Properties): Properties {
  const skipServerOs = properties.$is_server === true
  let set: Properties | undefined
  let setOnce: Properties | undefined
  for (const key of AUTOMATIC_PROPERTIES) {
    if (!hasOwn(properties, key)) continue
    if (skipServerOs && (key === '$os' || key === '$os_version')) continue
    if (!set || !setOnce) {
      set = copyProperties(properties.$set)
      setOnce = copyProperties(properties.$set_once)
    }
    const value = properties[key]
    if (!hasOwn(set, key)) setOwn(set, key, value)
    const initial = initialKey(key)
    if (value !== null && value !== undefined && !hasOwn(setOnce, initial)) setOwn(setOnce, initial, value)
  }
  if (!set || !setOnce) return properties
  const osName = ownValue(properties, '$os_name')
  if (osName !== undefined && !skipServerOs) {
    if (osName !== null && !hasOwn(setOnce, '$initial_os')) setOwn(setOnce, '$initial_os', osName)
    delete set.$os_name
    delete setOnce.$initial_os_name
  }
  const out: Properties = { ...properties }
  setOwn(out, '$set', set)
  setOwn(out, '$set_once', setOnce)
  return out
}

export interface PropertyUpdates {
  toSet: Properties
  toUnset: string[]
}

/** Properties a new person starts with: $set_once, then $set (a key in both ends with the $set value). */
export function initialPersonProperties(
  eventName: string,
  properties: Properties,
  timestamp: string,
  creatorEventUuid: string,
): Properties {
  const out: Properties = {}
  for (const [k, v] of Object.entries(copyProperties(properties.$set_once))) setOwn(out, k, v)
  for (const [k, v] of Object.entries(eventSet(eventName, properties, timestamp))) setOwn(out, k, v)
  setOwn(out, '$creator_event_uuid', creatorEventUuid)
  return out
}

function eventSet(eventName: string, properties: Properties, timestamp: string): Properties {
  const set: Properties = {}
  if (eventName === SURVEY_SHOWN_EVENT) setOwn(set, SURVEY_LAST_SEEN_PROPERTY, timestamp)
  for (const [k, v] of Object.entries(copyProperties(properties.$set))) setOwn(set, k, v)
  return set
}

/**
 * What an event changes on a person with properties `current`: $set_once for keys the person lacks,
 * then $set for values that differ, then $unset for keys the person had before the event.
 */
export function computeUpdates(eventName: string, properties: Properties, current: Properties, timestamp: string): PropertyUpdates {
  const toSet: Properties = {}
  const toUnset: string[] = []
  if (NO_PERSON_UPDATE_EVENTS.has(eventName)) return { toSet, toUnset }
  for (const [k, v] of Object.entries(copyProperties(properties.$set_once))) {
    if (ownValue(current, k) === undefined) setOwn(toSet, k, v)
  }
  for (const [k, v] of Object.entries(eventSet(eventName, properties, timestamp))) {
    if (!jsonEqual(ownValue(current, k), v)) setOwn(toSet, k, v)
  }
  const unset = properties.$unset
  const keys = Array.isArray(unset) ? unset : isPlainObject(unset) ? Object.keys(unset) : []
  for (const k of keys) {
    if (typeof k === 'string' && hasOwn(current, k) && !toUnset.includes(k)) toUnset.push(k)
  }
  return { toSet, toUnset }
}

/** The properties after the updates: `current` itself when there are none (a version's properties never change in place). */
export function applyUpdates(current: Properties, updates: PropertyUpdates): Properties {
  if (updates.toUnset.length === 0 && isEmpty(updates.toSet)) return current
  const out: Properties = { ...current }
  for (const [k, v] of Object.entries(updates.toSet)) setOwn(out, k, v)
  for (const k of updates.toUnset) delete out[k]
  return out
}

export interface PropertyChange {
  field: string
  before: unknown
  after: unknown
}

/** Keys whose value differs between two property sets (absent shown as null), in a stable order. */
export function propertyChanges(before: Properties, after: Properties): PropertyChange[] {
  const changes: PropertyChange[] = []
  if (before === after) return changes
  for (const [k, v] of Object.entries(after)) {
    const old = ownValue(before, k)
    if (!hasOwn(before, k) || !jsonEqual(old, v)) changes.push({ field: k, before: old ?? null, after: v ?? null })
  }
  for (const [k, v] of Object.entries(before)) {
    if (!hasOwn(after, k)) changes.push({ field: k, before: v ?? null, after: null })
  }
  return changes
}

/** Changes a user would care about in the activity log: filtered keys left out. */
export function meaningfulChanges(before: Properties, after: Properties): PropertyChange[] {
  return propertyChanges(before, after).filter((c) => !FILTERED_PERSON_UPDATE_PROPERTIES.has(c.field))
}

/**
 * Whether applying `updates` to a person is worth a write. On non-person events a change made only of
 * filtered keys the person already had is not; a new key, a non-filtered key or an $unset is.
 */
export function updateTriggersWrite(eventName: string, current: Properties, changes: PropertyChange[], updates: PropertyUpdates): boolean {
  if (changes.length === 0) return false
  if (PERSON_EVENTS.has(eventName) || updates.toUnset.length > 0) return true
  return changes.some((c) => !hasOwn(current, c.field) || !FILTERED_PERSON_UPDATE_PROPERTIES.has(c.field))
}

/** The earlier of two ISO timestamps. */
export function earlierTimestamp(a: string, b: string): string {
  const ta = Date.parse(a)
  const tb = Date.parse(b)
  if (Number.isFinite(ta) && Number.isFinite(tb) && ta !== tb) return ta < tb ? a : b
  return a <= b ? a : b
}

function isEmpty(properties: Properties): boolean {
  for (const _ in properties) return false
  return true
}
