// The config fields posthog-js reads (reference §4.4): returned by decide, by /flags?config=true and by
// GET /array/:token/config. Defaults are PostHog's; a project changes them with
// `settings.remote_config` (merged over the defaults) and turns recordings on with
// `settings.session_recording_opt_in`: only then does posthog-js record (and /s/ store anything), with
// PostHog's recording settings (sample rate, minimum duration, linked flag, network payloads, masking,
// triggers) as PostHog's decide hands them over.
import { isRecord } from '../shared/http'
import type { Project } from '../shared/tenancy'

export function remoteConfig(project: Project, hasFeatureFlags: boolean): Record<string, unknown> {
  const s = project.settings
  const recordings = s.session_recording_opt_in === true
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
    surveys: false,
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
    consoleLogRecordingEnabled: s.capture_console_log_opt_in !== false,
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
