import { describe, expect, it } from 'vitest'
import type { CityResponse } from 'maxmind'
import { withGeoIp } from './geoip'
import type { IngestEvent } from './types'

const event = (properties: Record<string, unknown>): IngestEvent => ({
  teamId: 1,
  uuid: '00000000-0000-4000-8000-000000000001',
  event: 'e',
  distinctId: 'd',
  properties,
  timestamp: '2026-01-01T00:00:00.000Z',
  now: '2026-01-01T00:00:00.000Z',
  elementsChain: '',
})

const paris = { country: { iso_code: 'FR', names: { en: 'France' } }, city: { names: { en: 'Paris' } } } as unknown as CityResponse
const lookup = (ip: string) => (ip === '192.0.2.1' ? paris : null)

describe('withGeoIp', () => {
  it('adds what the lookup found and keeps the caller’s own $set and $set_once', () => {
    const out = withGeoIp(event({ $ip: '192.0.2.1', $set: { plan: 'pro' }, $set_once: { first: 1 } }), lookup)
    expect(out.properties).toMatchObject({ $geoip_country_code: 'FR', $geoip_country_name: 'France', $geoip_city_name: 'Paris' })
    expect(out.properties).not.toHaveProperty('$geoip_postal_code')
    expect(out.properties.$set).toMatchObject({ plan: 'pro', $geoip_city_name: 'Paris', $geoip_postal_code: null })
    expect(out.properties.$set_once).toMatchObject({ first: 1, $initial_geoip_country_code: 'FR', $initial_geoip_time_zone: null })
  })

  it('leaves the event alone when disabled, without an $ip, or when the lookup finds nothing', () => {
    for (const properties of [{ $ip: '192.0.2.1', $geoip_disable: true }, {}, { $ip: 42 }, { $ip: '198.51.100.7' }]) {
      const e = event(properties)
      expect(withGeoIp(e, lookup)).toBe(e)
    }
  })
})
