// Project settings: an allow-list of the PostHog team fields Wren keeps, each with its type. Anything
// else in a PATCH is refused with a 400 naming the key, so settings can never shadow a project's own
// fields (id, api_token) or grow unbounded junk. `null` puts a setting back to its default.
import { wrenError } from '../shared/errors'
import { isRecord } from '../shared/http'
import { parsePropertyGroup } from '../shared/property-filters/parse'

type Check = (value: unknown, attr: string) => unknown

const bool: Check = (v, attr) => {
  if (typeof v !== 'boolean') throw wrenError('invalid_input', `${attr} must be true or false.`, attr)
  return v
}
const stringList: Check = (v, attr) => {
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string'))
    throw wrenError('invalid_input', `${attr} must be a list of strings.`, attr)
  return v
}
const object: Check = (v, attr) => {
  if (!isRecord(v)) throw wrenError('invalid_input', `${attr} must be an object.`, attr)
  return v
}

/** Known settings: what Wren reads (trends, remote config) and PostHog team fields clients round-trip. */
export const PROJECT_SETTINGS: Record<string, Check> = {
  // trends
  test_account_filters: (v, attr) => {
    if (!Array.isArray(v)) throw wrenError('invalid_input', `${attr} must be a list of property filters.`, attr)
    parsePropertyGroup(v, attr)
    return v
  },
  test_account_filters_default_checked: bool,
  week_start_day: (v, attr) => {
    if (v !== 0 && v !== 1) throw wrenError('invalid_choice', `${attr} must be 0 (Sunday) or 1 (Monday).`, attr)
    return v
  },
  // remote config read by posthog-js (flags/remote-config.ts)
  session_recording_opt_in: bool,
  capture_console_log_opt_in: bool,
  autocapture_opt_out: bool,
  remote_config: object,
  // PostHog team fields kept as given
  app_urls: stringList,
  recording_domains: stringList,
  data_attributes: stringList,
  person_display_name_properties: stringList,
  anonymize_ips: bool,
  capture_performance_opt_in: bool,
  autocapture_exceptions_opt_in: bool,
  heatmaps_opt_in: bool,
  surveys_opt_in: bool,
}

/** Fields of the project itself: a PATCH may send them back unchanged (a read-modify-write), never change them. */
export const READ_ONLY_FIELDS = ['id', 'uuid', 'api_token', 'created_at'] as const

/** The settings after applying `patch` (already without name/timezone and the read-only fields). */
export function applySettings(current: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const next = { ...current }
  for (const [key, value] of Object.entries(patch)) {
    const check = Object.hasOwn(PROJECT_SETTINGS, key) ? PROJECT_SETTINGS[key] : undefined
    if (!check)
      throw wrenError(
        'unknown_field',
        `'${key}' is not a project setting. Known settings: ${Object.keys(PROJECT_SETTINGS).join(', ')}.`,
        key,
      )
    if (value === null) delete next[key]
    else next[key] = check(value, key)
  }
  return next
}
