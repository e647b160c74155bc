// PostHog's ?filters_override=<JSON> on a dashboard's or an insight's read: dashboard filters (date_from, date_to,
// properties) applied to that read only, over the dashboard's own — a view someone is looking at, never saved.
import { wrenError } from '../platform/errors'
import { isRecord, parsedOrUndefined } from '../platform/json'
import type { DashboardFilters } from './dashboard-store'

export const FILTERS_OVERRIDE_DESCRIPTION =
  'JSON of {date_from, date_to, properties}: applied over the dashboard’s filters for this read only, not saved.'

/** The override a query string holds; null when none. A 400 naming the field for anything else. */
export function filtersOverride(raw: string | undefined): DashboardFilters | null {
  if (raw === undefined || raw === '') return null
  const value = parsedOrUndefined(raw)
  if (!isRecord(value)) throw wrenError('invalid_input', 'filters_override must be a JSON object.', 'filters_override')
  const out: DashboardFilters = {}
  for (const [key, v] of Object.entries(value)) {
    if (key === 'date_from' || key === 'date_to') {
      if (v !== null && typeof v !== 'string')
        throw wrenError('invalid_input', `filters_override.${key} must be a date string or null.`, `filters_override.${key}`)
      out[key] = v
    } else if (key === 'properties') out.properties = v
    else throw wrenError('unknown_field', `filters_override has no field '${key}' that Wren applies.`, `filters_override.${key}`)
  }
  return out
}
