// PathsQuery: what users do before and after a point. Its model is the paths request (model.ts), read from a
// PathsQuery node or from the legacy filter dialect (a saved insight's `filters`, insight PATHS); its SQL
// splits each person's events into sessions and steps in ClickHouse (sql.ts); its answer is PostHog's edges
// (compute.ts), and the persons behind an edge or a drop-off (actors.ts).
import type { QueryKind } from '../../kind'
import { computePaths, type PathsDeps } from './compute'
import { parsePathsQuery, pathsWithDashboardFilters, type PathsRequest } from './model'
import { pathsDefinitions } from './plan'
import { pathsActors } from './actors'

export type { PathsDeps } from './compute'
export { parsePathsFilter, type PathsRequest } from './model'

export const pathsKind: QueryKind<PathsRequest, PathsDeps> = {
  kind: 'PathsQuery',
  insight: true,
  parse: parsePathsQuery,
  withDashboardFilters: pathsWithDashboardFilters,
  definitions: async (deps, project, query) => {
    const { globalProperties, cohorts, cleaning } = await pathsDefinitions(deps, project, query)
    return { globalProperties, cohorts: [...cohorts.values()], cleaning }
  },
  // No interval: PostHog's paths round their dates as a day's.
  staleInterval: () => 'day',
  check: async (deps, project, query) => void (await pathsDefinitions(deps, project, query)),
  run: computePaths,
  actors: pathsActors,
}
