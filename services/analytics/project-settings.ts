// Project settings: an allow-list of the PostHog team fields Wren keeps, each with its type. Anything
// else in a PATCH is refused with a 400 naming the key, so settings can never shadow a project's own
// fields (id, api_token) or grow unbounded junk. `null` puts a setting back to its default. In shared/:
// the projects API writes the settings, and every feature that reads one (trends, remote config,
// recordings) reads it here, never through projects/.
import { wrenError } from '../platform/errors'
import { isRecord } from '../platform/json'
import { parsePropertyGroup } from './property-filters/parse'
import { checkHogqlFilters } from './property-filters/sql'

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
const list: Check = (v, attr) => {
  if (!Array.isArray(v)) throw wrenError('invalid_input', `${attr} must be a list.`, attr)
  return v
}
const object: Check = (v, attr) => {
  if (!isRecord(v)) throw wrenError('invalid_input', `${attr} must be an object.`, attr)
  return v
}

/** PostHog's session_recording_retention_period choices, in days: how long a project's recordings are kept. */
export const RECORDING_RETENTION_DAYS: Record<string, number> = { '30d': 30, '90d': 90, '1y': 365, '5y': 1825 }
export const DEFAULT_RECORDING_RETENTION = '30d'

/** The project's recording retention in days (PostHog's default, 30 days, unless the setting says otherwise). */
export function recordingRetentionDays(settings: Record<string, unknown>): number {
  const period = settings.session_recording_retention_period
  return (
    (typeof period === 'string' && Object.hasOwn(RECORDING_RETENTION_DAYS, period) ? RECORDING_RETENTION_DAYS[period] : undefined) ??
    RECORDING_RETENTION_DAYS[DEFAULT_RECORDING_RETENTION]
  )
}

/**
 * What a new project's test-account filters are, as PostHog sets them for a new team: leave out traffic
 * from a local development server. (PostHog also adds the organization's email domain; Wren has no
 * members to take it from.) Change them with PATCH /api/projects/:id/ {"test_account_filters": [...]}.
 */
export const DEFAULT_TEST_ACCOUNT_FILTERS = [
  { key: '$host', operator: 'not_regex', value: '^(localhost|127\\.0\\.0\\.1)($|:)', type: 'event' },
]

/** Known settings: what Wren reads (trends, remote config) and PostHog team fields clients round-trip. */
export const PROJECT_SETTINGS: Record<string, Check> = {
  // trends
  test_account_filters: (v, attr) => {
    if (!Array.isArray(v)) throw wrenError('invalid_input', `${attr} must be a list of property filters.`, attr)
    checkHogqlFilters(parsePropertyGroup(v, attr), 'events', attr)
    return v
  },
  test_account_filters_default_checked: bool,
  // paths: the rules a PathsQuery with pathReplacements cleans its items with (pathCleaningRules)
  path_cleaning_filters: (v, attr) => {
    if (!Array.isArray(v) || v.length > 100) throw wrenError('invalid_input', `${attr} must be a list of at most 100 rules.`, attr)
    for (const [i, rule] of v.entries())
      if (!isRecord(rule) || !['regex', 'alias'].every((k) => rule[k] === undefined || rule[k] === null || typeof rule[k] === 'string'))
        throw wrenError('invalid_input', `${attr}[${i}] must be an object like {"regex": "/\\d+", "alias": "/:id"}.`, `${attr}[${i}]`)
    return v
  },
  week_start_day: (v, attr) => {
    if (v !== 0 && v !== 1) throw wrenError('invalid_choice', `${attr} must be 0 (Sunday) or 1 (Monday).`, attr)
    return v
  },
  // remote config read by posthog-js (decide/remote-config.ts)
  session_recording_opt_in: bool,
  capture_console_log_opt_in: bool,
  // PostHog's recording settings, handed to posthog-js in the remote config's sessionRecording
  session_recording_sample_rate: (v, attr) => {
    // PostHog keeps a decimal with two places and takes it as a number or a numeric string.
    const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v
    if (typeof n !== 'number' || !(n >= 0 && n <= 1)) throw wrenError('invalid_input', `${attr} must be a number from 0 to 1.`, attr)
    return Math.round(n * 100) / 100
  },
  session_recording_minimum_duration_milliseconds: (v, attr) => {
    if (!Number.isInteger(v) || (v as number) < 0 || (v as number) > 30_000)
      throw wrenError('invalid_input', `${attr} must be a whole number of milliseconds from 0 to 30000.`, attr)
    return v
  },
  session_recording_linked_flag: (v, attr) => {
    if (!isRecord(v) || typeof v.key !== 'string' || v.key === '')
      throw wrenError('invalid_input', `${attr} must be an object with the flag's key (and optionally id and variant).`, attr)
    if (v.variant !== undefined && v.variant !== null && typeof v.variant !== 'string')
      throw wrenError('invalid_input', `${attr}.variant must be a string or null.`, attr)
    return v
  },
  session_recording_retention_period: (v, attr) => {
    if (typeof v !== 'string' || !Object.hasOwn(RECORDING_RETENTION_DAYS, v))
      throw wrenError('invalid_choice', `${attr} must be one of ${Object.keys(RECORDING_RETENTION_DAYS).join(', ')}.`, attr)
    return v
  },
  session_recording_network_payload_capture_config: object,
  session_recording_masking_config: object,
  session_recording_url_trigger_config: list,
  session_recording_url_blocklist_config: list,
  session_recording_event_trigger_config: stringList,
  session_recording_trigger_match_type_config: (v, attr) => {
    if (v !== 'any' && v !== 'all') throw wrenError('invalid_choice', `${attr} must be 'any' or 'all'.`, attr)
    return v
  },
  autocapture_opt_out: bool,
  // the dashboard the app opens on: a new project's home dashboard (insights/home.ts)
  primary_dashboard: (v, attr) => {
    if (!Number.isSafeInteger(v) || (v as number) <= 0) throw wrenError('invalid_input', `${attr} must be a dashboard id.`, attr)
    return v
  },
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
export const READ_ONLY_FIELDS = ['id', 'uuid', 'organization', 'api_token', 'created_at'] as const

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

/** The project's path cleaning rules (PostHog's team.path_cleaning_filters), in order: each replaces every match of `regex` by `alias`. */
export function pathCleaningRules(settings: Record<string, unknown>): Array<{ regex: string; alias: string }> {
  const rules = Array.isArray(settings.path_cleaning_filters) ? settings.path_cleaning_filters : []
  return rules.filter(isRecord).map((r) => ({ regex: String(r.regex ?? ''), alias: String(r.alias ?? '') }))
}

/**
 * Whether a project captures console logs in its recordings: PostHog's `capture_console_log_opt_in`, on
 * unless set to false. The remote config tells posthog-js so, and the recordings processor keeps (counts
 * and stores) console lines only for such projects.
 */
export function capturesConsoleLogs(settings: Record<string, unknown>): boolean {
  return settings.capture_console_log_opt_in !== false
}
