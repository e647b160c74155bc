// TrendsQuery: the first kind. Its model is the trend request (request.ts), read from a TrendsQuery node
// (node.ts) or from the legacy filter dialect (request.ts parseTrendRequest: insights/trend/ and a saved
// insight's `filters`); one plan, one query, one shape for both.
import type { QueryKind } from '../../kind'
import { computeTrend, type TrendDeps } from './compute'
import { parseTrendsQuery, trendWithDashboardFilters } from './node'
import { seriesActions, trendDefinitions } from './plan'
import type { TrendRequest } from './request'

export type { TrendDeps } from './compute'
export { parseTrendRequest } from './request'

export const trendsKind: QueryKind<TrendRequest, TrendDeps> = {
  kind: 'TrendsQuery',
  insight: true,
  parse: parseTrendsQuery,
  withDashboardFilters: trendWithDashboardFilters,
  definitions: async (deps, project, query) => {
    const { globalProperties, actions, cohorts } = await trendDefinitions(deps, project, query)
    return { globalProperties, actions: [...actions.values()], cohorts: [...cohorts.values()] }
  },
  staleInterval: (query) => query.interval,
  check: async (deps, project, query) => void (await seriesActions(deps, project, query)),
  run: computeTrend,
}
