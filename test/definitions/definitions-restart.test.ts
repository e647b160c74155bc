// Definitions live in ClickHouse, not in a process's memory: batch after batch of the same names stays one
// definition each (with the same id), and a restarted Wren lists what the one before it saw.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { api, captureBatch, spawnWren, waitFor, type WrenProcess } from '../support/wren'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'

describe('definitions across batches and a restart', () => {
  const env = { WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX), WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX) }
  let dataDir = ''
  let wren: WrenProcess | null = null
  const call = () => api({ url: wren!.url, personalKey: env.WREN_PERSONAL_API_KEY })
  const definitions = async () => ({
    events: (await call()('GET', '/api/projects/1/event_definitions/?ordering=name')).body,
    properties: (await call()('GET', '/api/projects/1/property_definitions/')).body,
  })
  /** One batch of the same two events, and its wait until both have been counted. */
  const batch = async (volume: number) => {
    await captureBatch({ url: wren!.url, projectKey: env.WREN_PROJECT_API_KEY }, [
      { event: 'opened_app', distinct_id: 'd1', properties: { screen: 'home', taps: 3 } },
      { event: 'closed_app', distinct_id: 'd1', properties: { screen: 'settings' } },
    ])
    await waitFor(
      async () => {
        const counted: any[] = (await definitions()).events?.results ?? []
        return counted.length === 2 && counted.every((d) => d.volume_30_day === volume)
      },
      { what: `both events counted ${volume} times` },
    )
  }

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wren-definitions-restart-'))
    wren = await spawnWren(dataDir, env)
  })
  afterAll(async () => {
    await wren?.stop()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  it('keeps one definition per name over batches, and all of them after a restart', async () => {
    await batch(1)
    const first = await definitions()
    await batch(2)
    await batch(3)
    const third = await definitions()
    expect(third.events.count).toBe(2)
    expect(third.events.results.map((d: any) => [d.name, d.id, d.created_at])).toEqual(
      first.events.results.map((d: any) => [d.name, d.id, d.created_at]),
    )
    expect(third.properties.results.map((p: any) => [p.name, p.property_type])).toEqual([
      ['$ip', 'String'],
      ['screen', 'String'],
      ['taps', 'Numeric'],
    ])

    expect(await wren!.stop()).toBe(0)
    wren = await spawnWren(dataDir, env)
    expect(await definitions()).toEqual(third)
    await batch(4)
    expect((await definitions()).events.count).toBe(2)
  })
})
