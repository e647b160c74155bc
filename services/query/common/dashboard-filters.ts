// PostHog's apply_dashboard_filters for an insight kind: a dashboard's properties ANDed with the query's; its
// date range, breakdown, interval and test-account filter replace the query's. Each kind applies it to its own
// model, which has these fields.
import { parsePropertyGroup, type PropertyGroup } from '../../analytics/property-filters/parse'
import type { DashboardFilter } from '../kind'
import { breakdownOf, type BreakdownFields } from './breakdown'
import { intervalOf, type Interval } from './dates'

/** The fields of an insight's model a dashboard's filters replace (a kind without a breakdown). */
export interface DashboardDated {
  dateFrom: string | null
  dateTo: string | null
  explicitDate: boolean
  properties: PropertyGroup
  interval: Interval
  filterTestAccounts: boolean
}

/** The fields of an insight's model with a breakdown a dashboard's filters replace. */
export interface DashboardFiltered extends DashboardDated, BreakdownFields {}

/** `query` with `filters` applied; a breakdown takes `breakdownLimit` values by default (`lists`: see breakdownOf). */
export function withDashboardFilters<Q extends DashboardFiltered>(
  query: Q,
  filters: DashboardFilter,
  breakdownLimit: number,
  lists?: { propertyLists: boolean },
): Q {
  const out = withDashboardDates(query, filters)
  if (filters.breakdown_filter)
    Object.assign(out, breakdownOf(filters.breakdown_filter, breakdownLimit, 'filters_override.breakdown_filter.', lists))
  return out
}

/** `query` with `filters` applied but a breakdown (a kind without one ignores it, as PostHog's does). */
export function withDashboardDates<Q extends DashboardDated>(query: Q, filters: DashboardFilter): Q {
  const out = { ...query }
  if (filters.date_from || filters.date_to) {
    out.dateFrom = filters.date_from ?? null
    out.dateTo = filters.date_to ?? null
    out.explicitDate = filters.explicitDate === true
  }
  if (hasProperties(filters)) {
    const added = parsePropertyGroup(filters.properties, 'filters_override.properties')
    out.properties = query.properties.values.length ? { type: 'AND', values: [query.properties, added] } : added
  }
  if (filters.interval) out.interval = intervalOf(filters.interval, 'filters_override.interval')
  if (filters.filterTestAccounts !== undefined && filters.filterTestAccounts !== null) out.filterTestAccounts = filters.filterTestAccounts
  return out
}

/** Whether a dashboard's filters add properties (an empty list adds none). */
export const hasProperties = (filters: DashboardFilter): boolean =>
  filters.properties !== undefined && filters.properties !== null && !(Array.isArray(filters.properties) && filters.properties.length === 0)
