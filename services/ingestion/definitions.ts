// Event and property definitions, kept by ingestion at no extra query: a range's parts (person-work.ts)
// fold their events into one row per key (a project's event name; a property name per kind; an event's
// property) in memory, and the store writes those rows with the range's last part
// (persons/clickhouse-store.ts). The tables (schemas/clickhouse/046_definitions.sql) fold rows of the same
// key, so a name seen in every batch is still one definition; the API (definitions/) reads them.
//
// PostHog's property-defs service (rust/property-defs-rs/src/types.rs) is what this follows: which
// properties count, and how a type is read from a value. A property keeps the first type it was seen with
// (its upsert sets property_type only while it is NULL), so the row carries the time of each sighting and
// the table keeps the earliest typed one.
import type { GroupRow, ProcessedEvent, Properties } from './types'

export type PropertyType = 'DateTime' | 'String' | 'Numeric' | 'Boolean'

/** The kinds of property definitions, as PostHog's `type` query parameter names them. */
export type PropertyKind = 'event' | 'person' | 'group'

/** The rows of a range, per table: plain objects for encodeRows. */
export interface DefinitionRows {
  event_definitions: object[]
  property_definitions: object[]
  event_properties: object[]
}

// Properties with a meaning of their own to ingestion, never event property definitions (types.rs SKIP_PROPERTIES).
const SKIP_EVENT_PROPERTIES = new Set([
  '$set',
  '$set_once',
  '$unset',
  '$group_0',
  '$group_1',
  '$group_2',
  '$group_3',
  '$group_4',
  '$groups',
])
// Events PostHog generates for itself, with no definitions (types.rs EVENTS_WITHOUT_PROPERTIES).
const EVENTS_WITHOUT_DEFINITIONS = new Set(['$$plugin_metrics'])
// PostHog's names live in a Postgres column of 400 characters: longer names make no definition (types.rs).
const MAX_NAME_LENGTH = 200
/** A sighting without a type sorts after every typed one: the table keeps the earliest typed sighting. */
const UNTYPED_AT = '2299-12-31T23:59:59.000000Z'

const DATETIME_NAME_KEYWORDS = ['time', 'timestamp', 'date', '_at', '-at', 'createdat', 'updatedat']
// A date, optionally with a time: 2026-03-15, 2026/03/15 12:00:00, 15-03-2026T12:00:00Z (types.rs DATETIME_PREFIX_REGEX).
const DATE_PREFIX =
  /^(([0-9]{4}[/-][0-2][0-9][/-][0-3][0-9])|([0-2][0-9][/-][0-3][0-9][/-][0-9]{4}))([ T][0-2][0-9]:[0-6][0-9]:[0-6][0-9].*)?$/
// RFC 3339 (what JavaScript's toISOString and most SDKs send) and RFC 2822 (Date's toUTCString).
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/
const RFC2822 =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}(:\d{2})? ([+-]\d{4}|GMT|UT|UTC|[A-Z]{3})$/
const SIX_MONTHS_SECONDS = 15_768_000

/**
 * The type PostHog gives a property from one value (types.rs detect_property_type), or null (objects,
 * arrays, null). `nowSeconds` is when the value was seen: a number counts as a Unix timestamp in a
 * date-named property when it is no older than six months before then.
 */
export function detectPropertyType(name: string, value: unknown, nowSeconds: number): PropertyType | null {
  const key = name.toLowerCase()
  // Values that look like numbers or booleans at first and are not later (PostHog issue 12529, flag values).
  if (key.startsWith('utm_') || key.startsWith('$feature/') || key === '$feature_flag_response' || key.startsWith('$survey_response'))
    return 'String'
  if (DATETIME_NAME_KEYWORDS.some((word) => key.includes(word))) {
    if (typeof value === 'string' && isLikelyDate(value)) return 'DateTime'
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value >= nowSeconds - SIX_MONTHS_SECONDS) return 'DateTime'
  }
  if (typeof value === 'string') {
    const s = value.trim()
    if (s === 'true' || s === 'false' || s === 'TRUE' || s === 'FALSE') return 'Boolean'
    return isLikelyDate(s) ? 'DateTime' : 'String'
  }
  if (typeof value === 'number') return 'Numeric'
  if (typeof value === 'boolean') return 'Boolean'
  return null
}

function isLikelyDate(s: string): boolean {
  return RFC3339.test(s) || RFC2822.test(s) || DATE_PREFIX.test(s)
}

/**
 * The definition rows of a range: its events' names and properties, their $set/$set_once, and its changed
 * groups', gathered part by part (add) and written once, with the range's last part (person-work.ts): a
 * definitions insert per part cost as much as the part's event insert. Rows of the same key fold in memory
 * here and in the tables, so a replay that cuts the range otherwise writes rows that fold the same.
 */
export class DefinitionSightings {
  private readonly eventDefs = new Map<string, { team_id: number; name: string; created_at: string; last_seen_at: string }>()
  // Rows in the order their keys were first seen, and an index by scope, then name: the names of an
  // event's properties are looked up as they are, with no key built per property.
  private readonly propertyDefs: PropertySighting[] = []
  private readonly propertyScopes = new Map<string, Map<string, PropertySighting>>()
  private readonly eventProperties: object[] = []
  private readonly eventPropertyScopes = new Map<string, Set<string>>()
  private latest = ''

  /** One part's events, and the groups its $groupidentify events changed. */
  add(events: readonly ProcessedEvent[], groups: readonly GroupRow[]): this {
    for (const e of events) {
      if (EVENTS_WITHOUT_DEFINITIONS.has(e.event) || e.event.length > MAX_NAME_LENGTH) continue
      // When ingestion saw the event (capture's clock, the same on a replay), as PostHog's last_seen_at is.
      const seenAt = e.createdAt
      if (seenAt > this.latest) this.latest = seenAt
      const key = `${e.teamId}\u0000${e.event}`
      const def = this.eventDefs.get(key)
      if (!def) this.eventDefs.set(key, { team_id: e.teamId, name: e.event, created_at: seenAt, last_seen_at: seenAt })
      else {
        if (seenAt < def.created_at) def.created_at = seenAt
        if (seenAt > def.last_seen_at) def.last_seen_at = seenAt
      }
      // A $groupidentify's properties are its group's (below), not event properties (types.rs).
      if (e.event === '$groupidentify') continue
      this.properties(e.teamId, 'event', e.properties, seenAt, e.event)
      this.properties(e.teamId, 'person', e.properties.$set, seenAt)
      this.properties(e.teamId, 'person', e.properties.$set_once, seenAt)
    }
    // Groups changed by $groupidentify events, by their type's index (what the API's group_type_index names).
    if (this.latest)
      for (const g of groups) {
        const names = this.scope(g.teamId, 'group', g.groupTypeIndex)
        for (const [name, value] of Object.entries(g.properties))
          this.property(names, g.teamId, 'group', g.groupTypeIndex, name, value, this.latest)
      }
    return this
  }

  rows(): DefinitionRows {
    return {
      event_definitions: [...this.eventDefs.values()],
      property_definitions: this.propertyDefs.map((p) => p.row),
      event_properties: this.eventProperties,
    }
  }

  private scope(teamId: number, kind: PropertyKind, groupTypeIndex: number): Map<string, PropertySighting> {
    const key = `${teamId}\u0000${kind}\u0000${groupTypeIndex}`
    let names = this.propertyScopes.get(key)
    if (!names) this.propertyScopes.set(key, (names = new Map()))
    return names
  }

  private property(
    names: Map<string, PropertySighting>,
    teamId: number,
    kind: PropertyKind,
    groupTypeIndex: number,
    name: string,
    value: unknown,
    seenAt: string,
  ): void {
    if (name.length > MAX_NAME_LENGTH) return
    const known = names.get(name)
    // The earliest sighting with a type is the one that counts; an untyped one only makes the name known.
    if (known && known.row.first_type[1] !== '' && known.seenAt <= seenAt) return
    const type = detectPropertyType(name, value, Date.parse(seenAt) / 1000)
    if (known && !type) return
    const row: PropertyRow = {
      team_id: teamId,
      type: kind,
      group_type_index: groupTypeIndex,
      name,
      first_type: type ? [seenAt, type] : [UNTYPED_AT, ''],
    }
    if (known) {
      known.seenAt = seenAt
      known.row = row
    } else {
      const sighting = { seenAt, row }
      names.set(name, sighting)
      this.propertyDefs.push(sighting)
    }
  }

  private properties(teamId: number, kind: PropertyKind, values: unknown, seenAt: string, event?: string): void {
    if (!isObject(values)) return
    const names = this.scope(teamId, kind, -1)
    let seen: Set<string> | undefined
    if (event !== undefined) {
      const key = `${teamId}\u0000${event}`
      seen = this.eventPropertyScopes.get(key)
      if (!seen) this.eventPropertyScopes.set(key, (seen = new Set()))
    }
    for (const name of Object.keys(values)) {
      if (kind === 'event' && SKIP_EVENT_PROPERTIES.has(name)) continue
      this.property(names, teamId, kind, -1, name, values[name], seenAt)
      if (seen && name.length <= MAX_NAME_LENGTH && !seen.has(name)) {
        seen.add(name)
        this.eventProperties.push({ team_id: teamId, event, property: name })
      }
    }
  }
}

/** The definition rows of one set of events and groups. */
export function definitionRows(events: readonly ProcessedEvent[], groups: readonly GroupRow[]): DefinitionRows {
  return new DefinitionSightings().add(events, groups).rows()
}

interface PropertySighting {
  seenAt: string
  row: PropertyRow
}

interface PropertyRow {
  team_id: number
  type: PropertyKind
  group_type_index: number
  name: string
  /** When the type was first seen, and the type ('' when none was: UNTYPED_AT). */
  first_type: [string, PropertyType | '']
}

function isObject(value: unknown): value is Properties {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
