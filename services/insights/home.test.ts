// Home dashboards on the configuration-object fakes: a project without one gets its tiles and becomes its
// primary_dashboard; when another process set a primary_dashboard first, the one made here is deleted.
import { describe, expect, it } from 'vitest'
import { FakeConfigObjects } from '../platform/testing/fake-config-objects'
import { fixedClock } from '../platform/clock'
import type { Project } from '../platform/tenancy'
import { DASHBOARDS } from './dashboard-store'
import { HOME_INSIGHTS, HomeDashboards } from './home'
import { INSIGHTS } from './store'

const clock = fixedClock(new Date('2026-01-01T00:00:00Z'))

function setup(primaryFromElsewhere: number | null) {
  const stores = { insights: new FakeConfigObjects(INSIGHTS, clock), dashboards: new FakeConfigObjects(DASHBOARDS, clock) }
  let project = { id: 7, settings: {} } as unknown as Project
  const projects = {
    list: () => [project],
    onCreated: () => {},
    // Another process may have set it between this one's read and its write: the update applies to the stored project.
    async updateProject(_id: number, patch: (stored: Project) => Partial<Pick<Project, 'settings'>>) {
      const stored = primaryFromElsewhere === null ? project : { ...project, settings: { primary_dashboard: primaryFromElsewhere } }
      project = { ...stored, ...patch(stored) } as Project
      return project
    },
  }
  return { stores, home: new HomeDashboards(projects, stores), project: () => project }
}

describe('home dashboards', () => {
  it('gives a project without one its home dashboard, with a tile per home insight and the recordings text', async () => {
    const { stores, home, project } = setup(null)
    await home.start()
    const [dashboard] = await stores.dashboards.list(7)
    expect(project().settings.primary_dashboard).toBe(dashboard.id)
    expect(dashboard).toMatchObject({ name: 'Home', pinned: true, version: 1 })
    const insights = await stores.insights.list(7)
    expect(insights.map((i) => i.name)).toEqual(HOME_INSIGHTS.map((i) => i.name))
    expect(dashboard.tiles.map((t) => t.insightId)).toEqual([...insights.map((i) => i.id), null])
    expect(dashboard.tiles.map((t) => t.id)).toEqual([1, 2, 3, 4, 5, 6])
    expect(dashboard.tiles.at(-1)?.text?.body).toMatch(/Recordings/)
  })

  it('deletes the dashboard it made when another process set the primary dashboard first', async () => {
    const { stores, home, project } = setup(99)
    await home.start()
    expect(project().settings.primary_dashboard).toBe(99)
    expect(await stores.dashboards.list(7)).toEqual([])
    expect(await stores.dashboards.list(7, { includeDeleted: true })).toMatchObject([{ deleted: true, version: 2 }])
  })
})
