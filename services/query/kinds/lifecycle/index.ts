// LifecycleQuery: how the actors of one series come and go. Its model is read from a LifecycleQuery node or
// from the legacy filter dialect (a saved insight's `filters`, insight LIFECYCLE) (model.ts); its SQL finds each
// actor's status per period in one pass over the events (plan.ts); its answer is PostHog's four series (compute.ts).
import type { QueryKind } from '../../kind'
import { computeLifecycle, type LifecycleDeps } from './compute'
import { lifecycleWithDashboardFilters, parseLifecycleQuery, type LifecycleRequest } from './model'
import { lifecycleDefinitions } from './plan'
import { lifecycleActors } from './actors'

export type { LifecycleDeps } from './compute'
export { parseLifecycleFilter, type LifecycleRequest } from './model'

export const lifecycleKind: QueryKind<LifecycleRequest, LifecycleDeps> = {
  kind: 'LifecycleQuery',
  insight: true,
  parse: parseLifecycleQuery,
  withDashboardFilters: lifecycleWithDashboardFilters,
  definitions: async (deps, project, query) => {
    const { globalProperties, actions, cohorts } = await lifecycleDefinitions(deps, project, query)
    return { globalProperties, actions: [...actions.values()], cohorts: [...cohorts.values()] }
  },
  staleInterval: (query) => query.interval,
  check: async (deps, project, query) => void (await lifecycleDefinitions(deps, project, query)),
  run: computeLifecycle,
  actors: lifecycleActors,
}
