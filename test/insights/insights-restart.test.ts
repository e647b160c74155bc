// Insights and dashboards live in ClickHouse, not in a process's memory: after a restart on the same data
// directory the home dashboard, a saved insight and the tile that puts it on a dashboard are all there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { api, spawnWren, type WrenProcess } from '../support/wren'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'

describe('insights and dashboards across a restart', () => {
  const env = { WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX), WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX) }
  let dataDir = ''
  let wren: WrenProcess | null = null
  const call = () => api({ url: wren!.url, personalKey: env.WREN_PERSONAL_API_KEY })

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wren-insights-restart-'))
    wren = await spawnWren(dataDir, env)
  })
  afterAll(async () => {
    await wren?.stop()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  it('keeps the home dashboard, saved insights and their tiles', async () => {
    const home = (await call()('GET', '/api/projects/1/')).body.primary_dashboard
    expect(home).toEqual(expect.any(Number))
    const dashboard = await call()('POST', '/api/projects/1/dashboards/', { name: 'Kept', filters: { date_from: '-90d' } })
    const insight = await call()('POST', '/api/projects/1/insights/', {
      name: 'Signups',
      filters: { events: [{ id: 'signed_up' }] },
      dashboards: [dashboard.body.id],
    })
    expect(insight.status).toBe(201)

    await wren!.stop()
    wren = await spawnWren(dataDir, env)

    expect((await call()('GET', '/api/projects/1/')).body.primary_dashboard).toBe(home)
    // The restart gave the project no second home dashboard.
    const boards = (await call()('GET', '/api/projects/1/dashboards/')).body.results.map((d: any) => d.name)
    expect(boards.sort()).toEqual(['Home', 'Kept'])
    const homeAfter = await call()('GET', `/api/projects/1/dashboards/${home}/`)
    expect(homeAfter.body.tiles).toHaveLength(6)
    const kept = await call()('GET', `/api/environments/1/dashboards/${dashboard.body.id}/`)
    expect(kept.body).toMatchObject({ name: 'Kept', filters: { date_from: '-90d' } })
    expect(kept.body.tiles.map((t: any) => t.insight.name)).toEqual(['Signups'])
    expect((await call()('GET', `/api/projects/1/insights/${insight.body.id}/`)).body.dashboards).toEqual([dashboard.body.id])
    // New ids do not reuse the old ones.
    const next = await call()('POST', '/api/projects/1/insights/', { name: 'Next', filters: { events: [{ id: 'x' }] } })
    expect(next.body.id).toBeGreaterThan(insight.body.id)
  })
})
