// Settings: the project's name, timezone, test-account filters, recording opt-in and the domains it records
// on, its authorized URLs, its project API key, and the posthog-js snippet pointed at this Wren.
import { useState } from 'preact/hooks'
import { patch, type PropertyFilter } from '../api'
import type { Project } from '../answers'
import { ErrorBox } from '../components/feedback'
import { PageHeader } from '../components/headers'
import { useAction } from '../components/load'
import { completeFilters, PropertyFilters } from '../components/property-filters'
import { CopyButton } from '../components/copy'
import { useSession } from '../session'

/** PostHog's HTML snippet (the stub that queues calls and loads posthog-js from api_host's /static/array.js, which Wren serves), pointed at this Wren. */
export function snippet(host: string, token: string): string {
  return `<script>
  ${STUB}
  posthog.init(${JSON.stringify(token)}, { api_host: ${JSON.stringify(host)} })
</script>`
}

const STUB = `!function(t,e){var o,n,p,r;e.__SV||(window.posthog && window.posthog.__loaded)||(window.posthog=e,e._i=[],e.init=function(i,s,a){function g(t,e){var o=e.split(".");2==o.length&&(t=t[o[0]],e=o[1]),t[e]=function(){t.push([e].concat(Array.prototype.slice.call(arguments,0)))}}(p=t.createElement("script")).type="text/javascript",p.crossOrigin="anonymous",p.async=!0,p.src=s.api_host.replace(".i.posthog.com","-assets.i.posthog.com")+"/static/array.js",(r=t.getElementsByTagName("script")[0]).parentNode.insertBefore(p,r);var u=e;for(void 0!==a?u=e[a]=[]:a="posthog",u.people=u.people||[],u.toString=function(t){var e="posthog";return"posthog"!==a&&(e+="."+a),t||(e+=" (stub)"),e},u.people.toString=function(){return u.toString(1)+".people (stub)"},o="init capture register register_once register_for_session unregister unregister_for_session getFeatureFlag getFeatureFlagPayload isFeatureEnabled reloadFeatureFlags updateEarlyAccessFeatureEnrollment getEarlyAccessFeatures on onFeatureFlags onSessionId getSurveys getActiveMatchingSurveys renderSurvey canRenderSurvey getNextSurveyStep identify setPersonProperties group resetGroups setPersonPropertiesForFlags resetPersonPropertiesForFlags setGroupPropertiesForFlags resetGroupPropertiesForFlags reset get_distinct_id getGroups get_session_id get_session_replay_url alias set_config startSessionRecording stopSessionRecording sessionRecordingStarted captureException loadToolbar get_property getSessionProperty createPersonProfile opt_in_capturing opt_out_capturing has_opted_in_capturing has_opted_out_capturing clear_opt_in_out_capturing debug".split(" "),n=0;n<o.length;n++)g(u,o[n]);e._i.push([i,s,a])},e.__SV=1)}(document,window.posthog||[]);`

const TIMEZONES: string[] = (() => {
  try {
    return (Intl as unknown as { supportedValuesOf(kind: string): string[] }).supportedValuesOf('timeZone')
  } catch {
    return ['UTC']
  }
})()

/** The snippet for this project and this Wren, with a copy button (or why it is not shown). */
export function Snippet() {
  const { project } = useSession()
  // A key without project:read signs in knowing the project by id alone (main.tsx), not its project API key.
  if (!project.api_token)
    return (
      <p class="muted">The posthog-js snippet needs the project API key, which a key with the project:read scope can see in Settings.</p>
    )
  const code = snippet(location.origin, project.api_token)
  return (
    <>
      <pre class="snippet" data-testid="snippet">
        {code}
      </pre>
      <div class="inline">
        <CopyButton text={code} label="Copy snippet" />
      </div>
    </>
  )
}

/** A list setting as the textarea shows it (one per line), and back. */
const linesOf = (list: string[] | undefined) => (list ?? []).join('\n')
const listOf = (lines: string) =>
  lines
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)

export function SettingsPage() {
  const { project, path, can, refreshProjects } = useSession()
  const writable = can('project:write')
  const [name, setName] = useState(project.name)
  const [timezone, setTimezone] = useState(project.timezone)
  const [filters, setFilters] = useState<PropertyFilter[]>(project.test_account_filters ?? [])
  const [recording, setRecording] = useState(project.session_recording_opt_in === true)
  const [consoleLogs, setConsoleLogs] = useState(project.capture_console_log_opt_in !== false)
  const [recordingDomains, setRecordingDomains] = useState(linesOf(project.recording_domains))
  const [appUrls, setAppUrls] = useState(linesOf(project.app_urls))
  const [saved, setSaved] = useState(false)
  const [error, busy, run] = useAction()
  const save = (event: Event) => {
    event.preventDefault()
    setSaved(false)
    run(async () => {
      await patch<Project>(path(''), {
        name,
        timezone,
        test_account_filters: completeFilters(filters),
        session_recording_opt_in: recording,
        capture_console_log_opt_in: consoleLogs,
        recording_domains: listOf(recordingDomains),
        app_urls: listOf(appUrls),
      })
      setSaved(true)
      refreshProjects()
    })
  }
  return (
    <div>
      <PageHeader title="Settings" />
      <section class="card">
        <h2>Send events to this project</h2>
        <p>
          Paste this into your site’s <code>&lt;head&gt;</code>: posthog-js then sends pageviews and events to this Wren ({location.origin}
          ). Any PostHog SDK works with the same key and host.
        </p>
        <Snippet />
        <dl class="facts">
          <dt>Project API key</dt>
          <dd>
            <code data-testid="project-api-key">{project.api_token}</code>
          </dd>
          <dt>Project id</dt>
          <dd>
            <code>{project.id}</code>
          </dd>
        </dl>
      </section>
      <form class="card" onSubmit={save}>
        <h2>Project</h2>
        <ErrorBox error={error} />
        <div class="grid">
          <label>
            Name
            <input name="name" required value={name} onInput={(e) => setName(e.currentTarget.value)} disabled={!writable} />
          </label>
          <label>
            Timezone
            <select name="timezone" value={timezone} onChange={(e) => setTimezone(e.currentTarget.value)} disabled={!writable}>
              {(TIMEZONES.includes(timezone) ? TIMEZONES : [timezone, ...TIMEZONES]).map((tz) => (
                <option value={tz}>{tz}</option>
              ))}
            </select>
          </label>
        </div>
        <PropertyFilters
          label="Test accounts (left out of trends when “Filter out test accounts” is on)"
          value={filters}
          onChange={setFilters}
          types={['person', 'event', 'cohort']}
        />
        <label class="check">
          <input type="checkbox" checked={recording} onChange={(e) => setRecording(e.currentTarget.checked)} disabled={!writable} /> Record
          sessions (posthog-js starts recording on pages with the snippet)
        </label>
        <label class="check">
          <input type="checkbox" checked={consoleLogs} onChange={(e) => setConsoleLogs(e.currentTarget.checked)} disabled={!writable} />{' '}
          Keep console logs in recordings
        </label>
        <div class="grid">
          <label>
            Record only on these sites (one per line, e.g. https://shop.example or https://*.example.com; none: every site)
            <textarea
              name="recording_domains"
              rows={3}
              value={recordingDomains}
              onInput={(e) => setRecordingDomains(e.currentTarget.value)}
              disabled={!writable}
            />
          </label>
          <label>
            Authorized URLs (PostHog’s app_urls, one per line: kept for tools that read them; Wren itself does not filter by them)
            <textarea name="app_urls" rows={3} value={appUrls} onInput={(e) => setAppUrls(e.currentTarget.value)} disabled={!writable} />
          </label>
        </div>
        <div class="form-actions">
          <button type="submit" disabled={busy || !writable}>
            Save settings
          </button>
          {saved ? <span class="ok">Saved.</span> : null}
        </div>
      </form>
    </div>
  )
}
