// GeoIP for flags (reference §7.2: the first X-Forwarded-For address, seven $geoip_* properties, non-empty
// strings only), from the one reader the process opens (platform/geoip.ts).
import { isIP } from 'node:net'
import { locationOf, type CityLookup } from '../platform/geoip'

export type GeoLookup = (ip: string) => Record<string, string>

/** The $geoip_* properties flags read (reference §7.2). */
const FLAG_FIELDS = ['city_name', 'country_name', 'country_code', 'continent_name', 'continent_code', 'postal_code', 'time_zone']

/** Decide's view: the seven $geoip_* flag properties, non-empty strings only. */
export function flagGeoProperties(reader: CityLookup): GeoLookup {
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
