// PostHog's cap on a person's properties. Every event row carries a copy of its person's properties, so
// one person with megabytes of properties makes every one of its events that big. PostHog's Postgres
// refuses person properties past 640 KiB (a check constraint): a create or update that would pass it is
// rejected with a `person_properties_size_violation` ingestion warning, and a person already past it
// (stored before the limit) is trimmed to 512 KiB by dropping keys in sorted order, sparing email, name
// and the properties PostHog sets itself. Wren measures the JSON text in UTF-8 bytes.
import { CAMPAIGN_PROPERTIES, EVENT_TO_PERSON_PROPERTIES } from './properties'
import type { IngestionWarning, Person, Properties } from '../types'

export const PERSON_PROPERTIES_LIMIT_BYTES = 640 * 1024
export const PERSON_PROPERTIES_TRIM_TARGET_BYTES = 512 * 1024

const PROTECTED: ReadonlySet<string> = new Set([
  'email',
  'name',
  ...EVENT_TO_PERSON_PROPERTIES,
  ...CAMPAIGN_PROPERTIES,
  '$session_id',
  '$window_id',
  '$pageview_id',
  '$host',
  '$user_id',
  '$device_id',
  '$anon_distinct_id',
  '$initial_referrer',
  '$initial_referring_domain',
  '$initial_utm_source',
  '$initial_utm_medium',
  '$initial_utm_campaign',
  '$initial_utm_content',
  '$initial_utm_term',
])

export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? 'null', 'utf8')
}

/**
 * An upper bound of jsonBytes(value) that serializes nothing (about 5x cheaper on a person's
 * properties): a string's JSON takes at most 6 bytes per UTF-16 unit (`\u00XX`).
 */
export function jsonBytesBound(value: unknown): number {
  if (typeof value === 'string') return 6 * value.length + 2
  if (value === null || typeof value !== 'object') return 24
  let bytes = 2
  if (Array.isArray(value)) {
    for (const item of value) bytes += jsonBytesBound(item) + 1
    return bytes
  }
  for (const key of Object.keys(value)) bytes += 6 * key.length + 4 + jsonBytesBound((value as Properties)[key])
  return bytes
}

function fits(properties: Properties): boolean {
  return jsonBytesBound(properties) <= PERSON_PROPERTIES_LIMIT_BYTES || jsonBytes(properties) <= PERSON_PROPERTIES_LIMIT_BYTES
}

/**
 * The person as it may be stored, given the live version it replaces (if any): within the limit it is
 * unchanged; past it, the previous properties stay (the change is refused), or, with no previous
 * properties within the limit to fall back on, the properties are trimmed.
 */
export function capPersonProperties(
  person: Person,
  previous: Person | null | undefined,
): { person: Person; warning: IngestionWarning | null } {
  // Unchanged properties (an identify, a version bump) were checked when they were written.
  if (person.isDeleted || person.properties === previous?.properties || fits(person.properties)) return { person, warning: null }
  const fallback = previous && !previous.isDeleted ? previous.properties : person.properties
  const properties = fits(fallback) ? fallback : trimProperties(fallback, PERSON_PROPERTIES_TRIM_TARGET_BYTES)
  const warning: IngestionWarning = {
    teamId: person.teamId,
    type: 'person_properties_size_violation',
    details: {
      personId: person.uuid,
      message: `Person properties exceed the size limit (${PERSON_PROPERTIES_LIMIT_BYTES} bytes) and the change was rejected`,
    },
  }
  return { person: { ...person, properties }, warning }
}

/** Drops unprotected keys in sorted order until the properties fit `targetBytes` (or nothing is left to drop). */
export function trimProperties(properties: Properties, targetBytes: number): Properties {
  const out: Properties = { ...properties }
  let bytes = jsonBytes(out)
  for (const key of Object.keys(out).sort()) {
    if (bytes <= targetBytes) break
    if (PROTECTED.has(key)) continue
    bytes -= jsonBytes(key) + jsonBytes(out[key]) + 2 // "key":value,
    delete out[key]
  }
  return out
}
