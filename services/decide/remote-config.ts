// The config fields posthog-js reads (reference §4.4): returned by decide, by /flags?config=true and by
// GET /array/:token/config. Defaults are PostHog's; a project changes them with
// `settings.remote_config` (merged over the defaults) and turns recordings on with
// `settings.session_recording_opt_in`.
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
    sessionRecording: recordings
      ? {
          endpoint: '/s/',
          consoleLogRecordingEnabled: s.capture_console_log_opt_in !== false,
          recorderVersion: 'v2',
          sampleRate: null,
          minimumDurationMilliseconds: null,
          linkedFlag: null,
          networkPayloadCapture: null,
          masking: null,
          urlTriggers: [],
          urlBlocklist: [],
          eventTriggers: [],
          triggerMatchType: null,
          scriptConfig: null,
        }
      : false,
    captureDeadClicks: false,
    capturePerformance: false,
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
  return isRecord(s.remote_config) ? { ...base, ...s.remote_config } : base
}
