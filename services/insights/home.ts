// The home dashboard every new project gets, and the app opens on (the project's primary_dashboard). Its
// insights are trends Wren computes; PostHog's own "Product analytics" template leans on retention,
// lifecycle and funnels, which Wren does not compute, so the tiles are the web basics instead. Recent
// recordings are a text tile pointing at the recordings page (PostHog has no recordings tile); flag usage is
// a trend of $feature_flag_called by flag, as PostHog's flag dashboards chart it.
import type { Dashboard, DashboardFields, NewDashboard } from './dashboard-store'
import type { Insight, InsightFields } from './store'
import type { ConfigObjects } from '../platform/config-objects'
import type { Project } from '../platform/tenancy'

/** What making a home dashboard writes: the stores (platform/config-objects.ts), or their fakes in a test. */
export interface HomeStores {
  insights: Pick<ConfigObjects<Insight, InsightFields>, 'create'>
  dashboards: Pick<ConfigObjects<Dashboard, DashboardFields, NewDashboard>, 'create' | 'update'>
}

const LAST_30_DAYS = { date_from: '-30d', date_to: null }

function trend(event: string, opts: { math?: string; breakdown?: string; display: string }): Record<string, unknown> {
  return {
    kind: 'InsightVizNode',
    source: {
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event, name: event, math: opts.math ?? 'total' }],
      interval: 'day',
      dateRange: LAST_30_DAYS,
      ...(opts.breakdown ? { breakdownFilter: { breakdown: opts.breakdown, breakdown_type: 'event' } } : {}),
      trendsFilter: { display: opts.display },
    },
  }
}

export const HOME_INSIGHTS: Array<{ name: string; description: string; query: Record<string, unknown> }> = [
  { name: 'Pageviews', description: 'Pageviews per day, last 30 days.', query: trend('$pageview', { display: 'ActionsLineGraph' }) },
  {
    name: 'Unique users',
    description: 'Users with a pageview, per day.',
    query: trend('$pageview', { math: 'dau', display: 'ActionsLineGraph' }),
  },
  {
    name: 'Top pages',
    description: 'Pageviews by URL.',
    query: trend('$pageview', { breakdown: '$current_url', display: 'ActionsTable' }),
  },
  { name: 'Browsers', description: 'Pageviews by browser.', query: trend('$pageview', { breakdown: '$browser', display: 'ActionsPie' }) },
  {
    name: 'Flag usage',
    description: 'Feature flag checks ($feature_flag_called) by flag.',
    query: trend('$feature_flag_called', { breakdown: '$feature_flag', display: 'ActionsTable' }),
  },
]

const RECORDINGS_TEXT = '**Recent recordings**\n\nWatch what your users did: open [Recordings](recordings) for the latest sessions.'

/** Two tiles a row on the wide grid, one a row on the narrow one, as PostHog lays out its templates. */
function layout(index: number): Record<string, unknown> {
  return {
    sm: { x: (index % 2) * 6, y: Math.floor(index / 2) * 5, w: 6, h: 5, minW: 3, minH: 5 },
    xs: { x: 0, y: index * 5, w: 1, h: 5, minW: 1, minH: 5 },
  }
}

export async function createHomeDashboard(stores: HomeStores, teamId: number): Promise<Dashboard> {
  const insights = []
  for (const item of HOME_INSIGHTS)
    insights.push(
      await stores.insights.create(teamId, {
        ...item,
        filters: {},
        saved: true,
        favorited: false,
        tags: [],
      }),
    )
  return stores.dashboards.create(teamId, {
    name: 'Home',
    description: 'What your product is doing: traffic, users, pages, browsers, flags and recordings.',
    pinned: true,
    filters: {},
    tags: [],
    tiles: [
      ...insights.map((insight, i) => ({ insightId: insight.id, text: null, layouts: layout(i), color: null })),
      { insightId: null, text: { body: RECORDINGS_TEXT }, layouts: layout(insights.length), color: null },
    ],
  })
}

/** What the job needs of the project store: its projects, a hook on creation, and a settings update. */
interface HomeProjects {
  list(): Project[]
  onCreated(hook: (project: Project) => Promise<void>): void
  updateProject(id: number, patch: (stored: Project) => Partial<Pick<Project, 'settings'>>): Promise<Project>
}

/**
 * The api role's job: every project opens on a home dashboard (PostHog's primary_dashboard). A project this
 * process creates gets one before its creation is answered; at start, any project without one (the
 * bootstrap project, when a process of another role made it) gets one. Two api processes starting at once
 * may each make one: the first to set primary_dashboard wins (the update is compare-and-set on the
 * project), and the other's dashboard is deleted.
 */
export class HomeDashboards {
  constructor(
    private readonly projects: HomeProjects,
    private readonly stores: HomeStores,
  ) {}

  async start(): Promise<void> {
    this.projects.onCreated((project) => this.give(project))
    for (const project of this.projects.list()) if (!project.settings.primary_dashboard) await this.give(project)
  }

  async stop(): Promise<void> {}

  private async give(project: Project): Promise<void> {
    const home = await createHomeDashboard(this.stores, project.id)
    const stored = await this.projects.updateProject(project.id, (current) =>
      current.settings.primary_dashboard ? {} : { settings: { ...current.settings, primary_dashboard: home.id } },
    )
    if (stored.settings.primary_dashboard !== home.id) await this.stores.dashboards.update(project.id, home.id, () => ({ deleted: true }))
  }
}
