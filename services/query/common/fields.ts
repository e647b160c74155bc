// Reading a query's fields, as every kind's parse does: optional strings and integers, PostHog's truthy
// values, lists; a bad value is a 400 naming its field (`prefix` says where the field sits in the node).
import { wrenError } from '../../platform/errors'
import { isRecord } from '../../platform/json'
import { parsePropertyGroup, type PropertyGroup } from '../../analytics/property-filters/parse'

export const truthy = (v: unknown) => v === true || (typeof v === 'string' && ['true', '1', 'yes'].includes(v.toLowerCase()))

export function optString(input: Record<string, unknown>, key: string, prefix = ''): string | null {
  const v = input[key]
  if (v === undefined || v === null || v === '') return null
  if (typeof v !== 'string') throw wrenError('invalid_input', `${prefix}${key} must be a string.`, prefix + key)
  return v
}

export function optInt(input: Record<string, unknown>, key: string, min: number, max: number, prefix = ''): number | null {
  const v = input[key]
  if (v === undefined || v === null || v === '') return null
  const n = Number(v)
  if (!Number.isInteger(n) || n < min || n > max)
    throw wrenError('invalid_input', `${prefix}${key} must be an integer between ${min} and ${max}.`, prefix + key)
  return n
}

/** An object, or nothing (then {}); anything else is a 400 naming it. */
export function optRecord(input: Record<string, unknown>, key: string, prefix = ''): Record<string, unknown> {
  const v = input[key]
  if (v === undefined || v === null) return {}
  if (!isRecord(v)) throw wrenError('invalid_input', `${prefix}${key} must be an object.`, prefix + key)
  return v
}

/** A list, or nothing; anything else is a 400 naming it. */
export function listOf(raw: unknown, attr: string): unknown[] {
  if (raw === undefined || raw === null) return []
  if (!Array.isArray(raw)) throw wrenError('invalid_input', `${attr} must be a list.`, attr)
  return raw
}

/** The filters and dates every insight's model reads alike. */
export interface InsightFilters {
  properties: PropertyGroup
  filterTestAccounts: boolean
  dateFrom: string | null
  dateTo: string | null
  explicitDate: boolean
}

/** A query node's filters and its dateRange (read by the caller, so its error comes where the kind reads it). */
export const nodeFilters = (node: Record<string, unknown>, dateRange: Record<string, unknown>): InsightFilters => ({
  properties: parsePropertyGroup(node.properties, 'properties'),
  filterTestAccounts: truthy(node.filterTestAccounts),
  dateFrom: optString(dateRange, 'date_from', 'dateRange.'),
  dateTo: optString(dateRange, 'date_to', 'dateRange.'),
  explicitDate: truthy(dateRange.explicitDate),
})

/** The legacy filter dialect's (a saved insight's `filters`). */
export const legacyFilters = (input: Record<string, unknown>): InsightFilters => ({
  properties: parsePropertyGroup(input.properties, 'properties'),
  filterTestAccounts: truthy(input.filter_test_accounts),
  dateFrom: optString(input, 'date_from'),
  dateTo: optString(input, 'date_to'),
  explicitDate: truthy(input.explicit_date),
})
