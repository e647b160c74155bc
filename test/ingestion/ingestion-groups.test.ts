// Groups reach ClickHouse whatever the processor already knows: a new key of a group type it has seen
// (in the same process, or before a restart) is looked up in storage, and the events that name it are
// stored with the group's properties. This used to stall ingestion for every project, for good.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { api, captureBatch, spawnWren, waitFor, type WrenProcess } from '../support/wren'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'

const NULL = '$$_posthog_breakdown_null_$$'

describe('groups across batches and restarts', () => {
  const env = {
    WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX),
    WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX),
    WREN_NOW: '2026-03-15T12:00:00Z',
  }
  let dataDir = ''
  let wren: WrenProcess | null = null
  const target = () => ({ url: wren!.url, projectKey: env.WREN_PROJECT_API_KEY, personalKey: env.WREN_PERSONAL_API_KEY })
  const pageview = (distinctId: string, company: string, n: number) => ({
    event: '$pageview',
    distinct_id: distinctId,
    timestamp: `2026-03-1${n}T10:00:00Z`,
    properties: { n, $groups: { company } },
  })
  const groupIdentify = (key: string, industry: string) => ({
    event: '$groupidentify',
    distinct_id: 'admin',
    timestamp: '2026-03-01T00:00:00Z',
    properties: { $group_type: 'company', $group_key: key, $group_set: { industry } },
  })

  const storedPageviews = async (count: number) =>
    waitFor(
      async () => {
        const res = await api(target())('GET', '/api/projects/1/events/?event=$pageview&limit=100')
        return res.body?.results?.length >= count ? res.body.results : false
      },
      { timeoutMs: 20_000, what: `${count} pageviews stored` },
    )
  // What a user sees of group properties: a trend broken down by the company's industry.
  const byIndustry = async () => {
    const res = await api(target())('POST', '/api/environments/1/insights/trend/', {
      events: [{ id: '$pageview' }],
      date_from: '2026-03-09',
      date_to: '2026-03-15',
      breakdown_type: 'group',
      breakdown: 'industry',
      breakdown_group_type_index: 0,
      display: 'ActionsTable',
    })
    expect(res.status, res.text).toBe(200)
    return Object.fromEntries(res.body.result.map((s: any) => [s.breakdown_value, s.aggregated_value]))
  }

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wren-groups-'))
    wren = await spawnWren(dataDir, env)
  })
  afterAll(async () => {
    await wren?.stop()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  it('an event naming a new key of a group type seen in an earlier batch is stored, and so is a new group', async () => {
    await captureBatch(target(), [groupIdentify('acme', 'retail'), pageview('u1', 'acme', 0)])
    await storedPageviews(1)
    // The type `company` is known in memory now, `newco` is not: the processor must look it up.
    await captureBatch(target(), [pageview('u2', 'newco', 1)])
    await storedPageviews(2)
    // Likewise a $groupidentify of a new key.
    await captureBatch(target(), [groupIdentify('globex', 'tech')])
    await captureBatch(target(), [pageview('u3', 'globex', 2)])
    const events = await storedPageviews(3)
    expect(events.map((e: any) => e.properties.$group_0).sort()).toEqual(['acme', 'globex', 'newco'])
    expect(await byIndustry()).toEqual({ retail: 1, tech: 1, [NULL]: 1 })
  })

  it('after a restart, events naming stored groups carry their properties', async () => {
    expect(await wren!.stop()).toBe(0)
    wren = await spawnWren(dataDir, env)
    // The restarted process knows the type (from storage) but neither key.
    await captureBatch(target(), [pageview('u4', 'acme', 3), pageview('u5', 'globex', 4)])
    await storedPageviews(5)
    expect(await byIndustry()).toEqual({ retail: 2, tech: 2, [NULL]: 1 })
  })
})
