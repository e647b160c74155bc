// RetentionQuery: do actors come back. Its model is the retention request (model.ts), read from a RetentionQuery
// node or from the legacy filter dialect (a saved insight's `filters`, insight RETENTION); its SQL groups each
// actor's events into cohort and return intervals in ClickHouse (sql.ts); its answer is PostHog's cohort rows
// (compute.ts); the actors behind a cohort are its InsightActorsQuery's (actors.ts).
import type { QueryKind } from '../../kind'
import { computeRetention, type RetentionDeps } from './compute'
import { parseRetentionQuery, retentionWithDashboardFilters, type RetentionRequest } from './model'
import { retentionDefinitions } from './plan'
import { retentionActors } from './actors'

export type { RetentionDeps } from './compute'
export { parseRetentionFilter, type RetentionRequest } from './model'

export const retentionKind: QueryKind<RetentionRequest, RetentionDeps> = {
  kind: 'RetentionQuery',
  insight: true,
  parse: parseRetentionQuery,
  withDashboardFilters: retentionWithDashboardFilters,
  definitions: async (deps, project, query) => {
    const { globalProperties, actions, cohorts } = await retentionDefinitions(deps, project, query)
    return { globalProperties, actions: [...actions.values()], cohorts: [...cohorts.values()] }
  },
  staleInterval: (query) => query.period,
  check: async (deps, project, query) => void (await retentionDefinitions(deps, project, query)),
  run: computeRetention,
  actors: retentionActors,
}
