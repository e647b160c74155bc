// FunnelsQuery: the second insight kind. Its model is the funnel request (model.ts), read from a FunnelsQuery
// node or from the legacy filter dialect (a saved insight's `filters`, insight FUNNELS); its SQL folds each
// actor's events in ClickHouse (sql.ts); its answer is PostHog's per viz type (compute.ts).
import type { QueryKind } from '../../kind'
import { computeFunnel, type FunnelDeps } from './compute'
import { funnelWithDashboardFilters, parseFunnelsQuery, type FunnelRequest } from './model'
import { funnelDefinitions } from './plan'
import { funnelActors } from './actors'

export type { FunnelDeps } from './compute'
export { parseFunnelFilter, type FunnelRequest } from './model'

export const funnelsKind: QueryKind<FunnelRequest, FunnelDeps> = {
  kind: 'FunnelsQuery',
  insight: true,
  parse: parseFunnelsQuery,
  withDashboardFilters: funnelWithDashboardFilters,
  definitions: async (deps, project, query) => {
    const { globalProperties, actions, cohorts } = await funnelDefinitions(deps, project, query)
    return { globalProperties, actions: [...actions.values()], cohorts: [...cohorts.values()] }
  },
  staleInterval: (query) => query.interval,
  check: async (deps, project, query) => void (await funnelDefinitions(deps, project, query)),
  run: computeFunnel,
  actors: funnelActors,
}
