// Insights and the definitions they use: builds the trend service from
// what the composition root hands over, and registers their routes as one plugin.
import type { FastifyInstance } from 'fastify'
import type { ClickHouseClient } from '../shared/clickhouse'
import type { Clock } from '../shared/clock'
import type { ProjectStore } from '../projects/store'
import type { ActionStore } from '../actions/store'
import { actionRoutes } from '../actions/routes'
import type { CohortStore } from '../cohorts/store'
import { cohortRoutes } from '../cohorts/routes'
import { TrendService } from './service'
import { trendRoutes } from './routes'

export async function insightRoutes(app: FastifyInstance, deps: { projects: ProjectStore; clickhouse: ClickHouseClient; clock: Clock; actions: ActionStore; cohorts: CohortStore; siteUrl?: string | null }): Promise<void> {
  const actions = deps.actions
  const cohorts = deps.cohorts
  const trends = new TrendService({ clickhouse: deps.clickhouse, clock: deps.clock, actions, cohorts })
  await app.register(actionRoutes, { projects: deps.projects, actions })
  await app.register(cohortRoutes, { projects: deps.projects, cohorts })
  await app.register(trendRoutes, { projects: deps.projects, trends, siteUrl: deps.siteUrl ?? null })
}
