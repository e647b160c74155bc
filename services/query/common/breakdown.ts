// Breakdowns: PostHog's breakdown fields (the legacy filter names them at its top level, a query node in its
// `breakdownFilter`, a dashboard in `breakdown_filter`), read into one shape the insight kinds share.
import { wrenError } from '../../platform/errors'
import { isRecord, jsonTooDeep, jsonTooDeepIn } from '../../platform/json'
import { optInt, optString, truthy } from './fields'

export const BREAKDOWN_TYPES = ['event', 'person', 'cohort', 'group', 'session', 'hogql', 'event_metadata'] as const
export type BreakdownType = (typeof BREAKDOWN_TYPES)[number]

export interface BreakdownSpec {
  property: string
  type: Exclude<BreakdownType, 'cohort'>
  normalizeUrl: boolean
  groupTypeIndex: number | null
}

/** A query's breakdown, read. */
export interface BreakdownFields {
  breakdown: string | number | Array<string | number> | null
  breakdownType: BreakdownType
  breakdownLimit: number
  breakdownGroupTypeIndex: number | null
  breakdownNormalizeUrl: boolean
  breakdownHideOtherAggregation: boolean
  /** `breakdowns`: up to three properties at once; `breakdown` then names the first. */
  breakdowns: BreakdownSpec[] | null
}

/**
 * The breakdown fields, which both dialects name alike (the legacy filter at its top level, a TrendsQuery in
 * its `breakdownFilter`); `prefix` is where they sit, for the 400's attr. With `propertyLists` (funnels), a
 * list `breakdown` of a type other than cohort names several properties of that type, read as `breakdowns`.
 */
export function breakdownOf(
  input: Record<string, unknown>,
  defaultLimit: number,
  prefix: string,
  opts: { propertyLists?: boolean } = {},
): BreakdownFields {
  let breakdown = input.breakdown as BreakdownFields['breakdown'] | undefined
  if (breakdown === undefined || breakdown === '' || (Array.isArray(breakdown) && breakdown.length === 0)) breakdown = null
  if (Array.isArray(breakdown)) breakdown = breakdown.filter((b) => b !== null)
  if (breakdown !== null && typeof breakdown !== 'string' && typeof breakdown !== 'number' && !Array.isArray(breakdown))
    throw wrenError('invalid_input', 'breakdown must be a property key, a cohort id or a list of cohort ids.', `${prefix}breakdown`)
  let breakdownType = (optString(input, 'breakdown_type', prefix) ?? 'event') as BreakdownType
  if ((breakdownType as string) === 'events') breakdownType = 'event'
  if (!BREAKDOWN_TYPES.includes(breakdownType))
    throw wrenError(
      'invalid_input',
      `breakdown_type must be one of ${BREAKDOWN_TYPES.join(', ')}; got '${breakdownType}'.`,
      `${prefix}breakdown_type`,
    )
  const breakdownGroupTypeIndex = optInt(input, 'breakdown_group_type_index', 0, 4, prefix)
  let listed: BreakdownSpec[] | null = null
  if (breakdown !== null && breakdownType !== 'cohort' && typeof breakdown !== 'string') {
    if (typeof breakdown === 'number') breakdown = String(breakdown)
    else if (opts.propertyLists && breakdown.length > 0) {
      const type = breakdownType
      listed = breakdown.map((property) => ({
        property: String(property),
        type,
        normalizeUrl: truthy(input.breakdown_normalize_url),
        groupTypeIndex: breakdownGroupTypeIndex,
      }))
    } else throw wrenError('invalid_input', `A ${breakdownType} breakdown takes one property key as a string.`, `${prefix}breakdown`)
  }
  const breakdowns = parseBreakdowns(input.breakdowns, `${prefix}breakdowns`) ?? listed
  if (breakdowns) {
    breakdown = breakdowns[0].property
    breakdownType = breakdowns[0].type
  }
  if (breakdown !== null && breakdownType === 'group' && breakdownGroupTypeIndex === null)
    throw wrenError('required', 'A group breakdown needs breakdown_group_type_index.', `${prefix}breakdown_group_type_index`)
  return {
    breakdown,
    breakdownType,
    breakdownLimit: optInt(input, 'breakdown_limit', 1, 10_000, prefix) ?? defaultLimit,
    breakdownGroupTypeIndex,
    breakdownNormalizeUrl: truthy(input.breakdown_normalize_url),
    breakdownHideOtherAggregation: truthy(input.breakdown_hide_other_aggregation),
    breakdowns,
  }
}

function parseBreakdowns(raw: unknown, attr: string): BreakdownSpec[] | null {
  let value = raw
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw)
    } catch {
      throw wrenError('invalid_input', 'breakdowns must be a JSON list like [{"property": "$browser", "type": "event"}].', attr)
    }
    if (jsonTooDeepIn(value)) throw jsonTooDeep('breakdowns')
  }
  if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) return null
  if (!Array.isArray(value)) throw wrenError('invalid_input', 'breakdowns must be a list of {property, type}.', attr)
  return value.slice(0, 3).map((b, i) => {
    if (!isRecord(b) || typeof b.property !== 'string' || !b.property)
      throw wrenError('invalid_input', `breakdowns[${i}] needs a string property.`, attr)
    const type = (b.type ?? 'event') as BreakdownType
    if (!BREAKDOWN_TYPES.includes(type) || type === 'cohort')
      throw wrenError(
        'invalid_input',
        `breakdowns[${i}].type must be one of ${BREAKDOWN_TYPES.filter((t) => t !== 'cohort').join(', ')}.`,
        attr,
      )
    const idx = b.group_type_index === undefined || b.group_type_index === null ? null : Number(b.group_type_index)
    if (type === 'group' && (idx === null || !Number.isInteger(idx) || idx < 0 || idx > 4))
      throw wrenError('required', `breakdowns[${i}]: a group breakdown needs group_type_index 0-4.`, attr)
    return { property: b.property, type: type as BreakdownSpec['type'], normalizeUrl: truthy(b.normalize_url), groupTypeIndex: idx }
  })
}
