// GeoIP at ingestion, with the semantics of PostHog's GeoIP transformation: before person processing, an
// event's `$ip` is looked up and
// - every field the database has becomes an event property `$geoip_<field>`;
// - the person gets `$set` of `$geoip_<field>` and `$set_once` of `$initial_geoip_<field>` for each of the
//   standard fields, null where this lookup has none (so a person who moved loses the old city), and for
//   every subdivision the database lists.
// Nothing is added when `$geoip_disable` is set, when there is no `$ip`, or when the lookup finds nothing
// (private and loopback addresses included: PostHog's development-only stand-in for 127.0.0.1 is not
// copied). The database and its reader are platform/geoip.ts.
import { locationOf, type CityLookup } from '../platform/geoip'
import type { IngestEvent, Properties } from './types'

/** The fields PostHog's transformation always writes on the person ($set / $set_once), null when unknown. */
const PERSON_FIELDS = [
  'city_name',
  'city_confidence',
  'subdivision_2_name',
  'subdivision_2_code',
  'subdivision_1_name',
  'subdivision_1_code',
  'country_name',
  'country_code',
  'continent_name',
  'continent_code',
  'postal_code',
  'latitude',
  'longitude',
  'accuracy_radius',
  'time_zone',
]

/** The event with its $geoip_* properties and person updates, or the event itself when none apply. */
export function withGeoIp(event: IngestEvent, lookup: CityLookup): IngestEvent {
  const { $ip: ip, $geoip_disable: disabled } = event.properties
  if (disabled || typeof ip !== 'string' || ip === '') return event
  const found = lookup(ip)
  if (!found) return event
  const location = locationOf(found)
  const properties: Properties = { ...event.properties }
  const set: Properties = isObject(properties.$set) ? { ...properties.$set } : {}
  const setOnce: Properties = isObject(properties.$set_once) ? { ...properties.$set_once } : {}
  for (const field of PERSON_FIELDS) {
    set[`$geoip_${field}`] = null
    setOnce[`$initial_geoip_${field}`] = null
  }
  for (const [field, value] of Object.entries(location)) {
    properties[`$geoip_${field}`] = value
    set[`$geoip_${field}`] = value
    setOnce[`$initial_geoip_${field}`] = value
  }
  properties.$set = set
  properties.$set_once = setOnce
  return { ...event, properties }
}

function isObject(value: unknown): value is Properties {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
