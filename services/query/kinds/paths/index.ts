// PathsQuery: what users do before and after a point. Its model is the paths request (model.ts), read from a
// PathsQuery node or from the legacy filter dialect (a saved insight's `filters`, insight PATHS); its SQL
// splits each person's events into sessions and steps in ClickHouse (sql.ts); its answer is PostHog's edges
// (compute.ts), and the persons behind an edge or a drop-off (actors.ts). Paths from a funnel's step read the
// funnel's actors through the funnel's own kind: kinds.ts gives the kind how (`funnelOf`).
import type { QueryKind } from '../../kind'
import { computePaths, type PathsDeps } from './compute'
import { nestedAttrs } from '../../common/nested'
import { funnelAttr, parsePathsFilter, parsePathsQuery, pathsWithDashboardFilters, type FunnelActorsOf, type PathsRequest } from './model'
import { pathsDefinitions } from './plan'
import { pathsActors } from './actors'

export type { PathsDeps } from './compute'
export type { FunnelActorsOf, FunnelSource, PathsRequest } from './model'

export interface PathsKind<D extends PathsDeps> extends QueryKind<PathsRequest, D> {
  /** The legacy filter dialect (a saved insight's `filters`, insight PATHS) read into the same model. */
  parseFilter(filters: Record<string, unknown>): PathsRequest
}

export function pathsQueryKind<D extends PathsDeps>(funnelOf: FunnelActorsOf): PathsKind<D> {
  return {
    kind: 'PathsQuery',
    insight: true,
    parse: (node) => parsePathsQuery(node, funnelOf),
    parseFilter: (filters) => parsePathsFilter(filters, funnelOf),
    withDashboardFilters: pathsWithDashboardFilters,
    definitions: async (deps, project, query) => {
      const { globalProperties, cohorts, cleaning } = await pathsDefinitions(deps, project, query)
      const { funnel: f } = query
      const funnel = f ? await nestedAttrs(funnelAttr(f), () => f.read.definitions(deps, project)) : null
      return { globalProperties, cohorts: [...cohorts.values()], cleaning, funnel }
    },
    // No interval: PostHog's paths round their dates as a day's.
    staleInterval: () => 'day',
    check: async (deps, project, query) => {
      await pathsDefinitions(deps, project, query)
      // The funnel's own check: another project's action is a 400.
      const { funnel } = query
      if (funnel) await nestedAttrs(funnelAttr(funnel), () => funnel.read.definitions(deps, project))
    },
    run: computePaths,
    actors: pathsActors,
  }
}
