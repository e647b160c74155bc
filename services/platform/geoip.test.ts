import { describe, expect, it } from 'vitest'
import type { CityResponse } from 'maxmind'
import { locationOf, openGeoIpReader } from './geoip'

describe('geoip', () => {
  it('reads a record as $geoip_<field> fields, only those it has, subdivisions numbered', () => {
    const record = {
      country: { iso_code: 'FR', names: { en: 'France' } },
      city: { names: { en: 'Paris' } },
      subdivisions: [{ iso_code: 'IDF', names: { en: 'Île-de-France' } }],
      location: { latitude: 48.85, longitude: 2.35 },
    } as unknown as CityResponse
    expect(locationOf(record)).toEqual({
      city_name: 'Paris',
      country_name: 'France',
      country_code: 'FR',
      latitude: 48.85,
      longitude: 2.35,
      subdivision_1_code: 'IDF',
      subdivision_1_name: 'Île-de-France',
    })
  })

  it('finds nothing for private, loopback and invalid addresses', async () => {
    const lookup = await openGeoIpReader(null)
    for (const ip of ['127.0.0.1', '10.1.2.3', '192.168.0.1', '172.16.0.1', '::1', 'fd00::1', 'not an ip']) expect(lookup(ip)).toBeNull()
  })

  it('names WREN_GEOIP_DATABASE and the path when the file is not a MaxMind database', async () => {
    await expect(openGeoIpReader('/nonexistent/GeoLite2-City.mmdb')).rejects.toThrow(/WREN_GEOIP_DATABASE.*nonexistent/)
  })
})
