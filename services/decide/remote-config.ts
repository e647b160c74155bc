// The config fields posthog-js reads (reference §4.4): returned by decide, by /flags?config=true and by
// GET /array/:token/config. Defaults are PostHog's; a project changes them with
// `settings.remote_config` (merged over the defaults) and turns recordings on with
// `settings.session_recording_opt_in`: only then does posthog-js record (and /s/ store anything), with
// PostHog's recording settings (sample rate, minimum duration, linked flag, network payloads, masking,
// triggers) as PostHog's decide hands them over. A project with `recording_domains` gets
// `sessionRecording: false` on a page of any other site (by the request's Origin or Referer), as in PostHog.
// `surveys` is the project's running surveys (false: none, or the project set `surveys_opt_in: false`): with any,
// posthog-js loads its surveys bundle and shows them.
import { capturesConsoleLogs } from '../analytics/project-settings'
import { isRecord } from '../platform/json'
import { escapeRegex } from '../analytics/property-filters/sql'
import type { Project } from '../platform/tenancy'

/** The request headers the remote config depends on (`recording_domains`). */
export interface ConfigRequest {
  origin?: string
  referer?: string
  'user-agent'?: string
}

/** The running surveys of a project, in posthog-js's shape (surveys/running.ts). */
export interface SurveyReader {
  running(teamId: number): Array<Record<string, unknown>>
}
export const NO_SURVEYS: SurveyReader = { running: () => [] }

/** What posthog-js is handed of a project's surveys: its running ones, none when it set `surveys_opt_in: false`. */
export function surveysOf(project: Project, surveys: SurveyReader): Array<Record<string, unknown>> {
  return project.settings.surveys_opt_in === false ? [] : surveys.running(project.id)
}

export function remoteConfig(
  project: Project,
  hasFeatureFlags: boolean,
  surveys: SurveyReader,
  request: ConfigRequest = {},
): Record<string, unknown> {
  const s = project.settings
  const running = surveysOf(project, surveys)
  const recordings = s.session_recording_opt_in === true && onPermittedRecordingDomain(s.recording_domains, request)
  const base: Record<string, unknown> = {
    config: { enable_collect_everything: true },
    toolbarParams: {},
    isAuthenticated: false,
    supportedCompression: ['gzip', 'gzip-js'],
    hasFeatureFlags,
    sessionRecording: recordings ? sessionRecording(s) : false,
    captureDeadClicks: false,
    capturePerformance:
      s.capture_performance_opt_in === true ? { network_timing: true, web_vitals: false, web_vitals_allowed_metrics: null } : false,
    autocapture_opt_out: s.autocapture_opt_out === true,
    autocaptureExceptions: false,
    analytics: { endpoint: '/i/v0/e/' },
    elementsChainAsString: true,
    surveys: running.length > 0 ? running : false,
    heatmaps: false,
    flagsPersistenceDefault: false,
    defaultIdentifiedOnly: true,
    siteApps: [],
    errorTracking: { autocaptureExceptions: false, suppressionRules: [] },
  }
  if (!isRecord(s.remote_config)) return base
  // remote_config may adjust sessionRecording, never turn it on: recordings a project did not opt in to
  // would be sent to /s/ and dropped there.
  const overrides = s.remote_config
  const merged = { ...base, ...overrides }
  const adjust = overrides.sessionRecording
  merged.sessionRecording =
    !recordings || adjust === false ? false : isRecord(adjust) ? { ...sessionRecording(s), ...adjust } : base.sessionRecording
  return merged
}

/** PostHog decide's sessionRecording for an opted-in project (its _session_recording_config_response). */
function sessionRecording(s: Project['settings']): Record<string, unknown> {
  const rate = typeof s.session_recording_sample_rate === 'number' ? s.session_recording_sample_rate.toFixed(2) : null
  const linked = isRecord(s.session_recording_linked_flag) ? s.session_recording_linked_flag : null
  const minimum = s.session_recording_minimum_duration_milliseconds
  return {
    endpoint: '/s/',
    consoleLogRecordingEnabled: capturesConsoleLogs(s),
    recorderVersion: 'v2',
    // A string with two decimals, as PostHog sends it; a rate of 1 is no sampling at all.
    sampleRate: rate === '1.00' ? null : rate,
    minimumDurationMilliseconds: typeof minimum === 'number' && minimum > 0 ? minimum : null,
    linkedFlag: linked ? (typeof linked.variant === 'string' ? { flag: linked.key, variant: linked.variant } : linked.key) : null,
    networkPayloadCapture: orNull(s.session_recording_network_payload_capture_config),
    masking: orNull(s.session_recording_masking_config),
    urlTriggers: s.session_recording_url_trigger_config ?? [],
    urlBlocklist: s.session_recording_url_blocklist_config ?? [],
    eventTriggers: s.session_recording_event_trigger_config ?? [],
    triggerMatchType: s.session_recording_trigger_match_type_config ?? null,
    scriptConfig: null,
  }
}

/** An empty configuration object counts as none, as in PostHog (`x or None`). */
function orNull(value: unknown): unknown {
  return isRecord(value) && Object.keys(value).length > 0 ? value : null
}

// PostHog's mobile SDKs send no Origin: their user agents are let through.
const MOBILE_CLIENTS = ['posthog-android', 'posthog-ios', 'posthog-react-native', 'posthog-flutter']

/** The hostname of a URL, or null for anything that is not one (a bare `example.com` included, as in PostHog). */
function hostnameOf(url: unknown): string | null {
  if (typeof url !== 'string' || url === '') return null
  try {
    return new URL(url).hostname || null
  } catch {
    return null
  }
}

/** Whether `host` is one of the domains' hosts; `*` in one matches any characters (`https://*.example.com`). */
function hostAllowed(domains: string[], host: string | null): boolean {
  if (!host) return false
  return domains.some((domain) => {
    const allowed = hostnameOf(domain)
    if (!allowed) return false
    if (!allowed.includes('*')) return allowed === host
    return new RegExp(`^${allowed.split('*').map(escapeRegex).join('.*')}$`).test(host)
  })
}

/** PostHog's on_permitted_recording_domain: no domains (or an empty list) allows every site. */
function onPermittedRecordingDomain(domains: unknown, request: ConfigRequest): boolean {
  if (!Array.isArray(domains) || domains.length === 0) return true
  const list = domains.filter((d): d is string => typeof d === 'string')
  const agent = request['user-agent']
  return (
    hostAllowed(list, hostnameOf(request.origin)) ||
    hostAllowed(list, hostnameOf(request.referer)) ||
    (typeof agent === 'string' && MOBILE_CLIENTS.some((client) => agent.includes(client)))
  )
}
