// StickinessQuery: how many of the intervals of a range each actor was active on. Its model is read from a
// StickinessQuery node or from the legacy filter dialect (a saved insight's `filters`, insight STICKINESS)
// (model.ts); its SQL counts each actor's active intervals in one pass over the events (plan.ts); its answer is
// PostHog's series by number of intervals (compute.ts).
import type { QueryKind } from '../../kind'
import { computeStickiness, type StickinessDeps } from './compute'
import { parseStickinessQuery, stickinessWithDashboardFilters, type StickinessRequest } from './model'
import { stickinessDefinitions } from './plan'
import { stickinessActors } from './actors'

export type { StickinessDeps } from './compute'
export { parseStickinessFilter, type StickinessRequest } from './model'

export const stickinessKind: QueryKind<StickinessRequest, StickinessDeps> = {
  kind: 'StickinessQuery',
  insight: true,
  parse: parseStickinessQuery,
  withDashboardFilters: stickinessWithDashboardFilters,
  definitions: async (deps, project, query) => {
    const { globalProperties, actions, cohorts } = await stickinessDefinitions(deps, project, query)
    return { globalProperties, actions: [...actions.values()], cohorts: [...cohorts.values()] }
  },
  staleInterval: (query) => query.interval,
  check: async (deps, project, query) => void (await stickinessDefinitions(deps, project, query)),
  run: computeStickiness,
  actors: stickinessActors,
}
