// Settings: the project's name, timezone, test-account filters, recording opt-in and the domains it records
// on, its authorized URLs, its project API key, and the posthog-js snippet pointed at this Wren.
import { useState } from 'preact/hooks'
import { patch, type PropertyFilter } from '../api'
import type { Project } from '../answers'
import { ErrorBox } from '../components/feedback'
import { PageHeader } from '../components/headers'
import { useAction } from '../components/load'
import { completeFilters, PropertyFilters } from '../components/property-filters'
import { Snippet } from '../components/snippet'
import { useSession } from '../session'

const TIMEZONES: string[] = (() => {
  try {
    return (Intl as unknown as { supportedValuesOf(kind: string): string[] }).supportedValuesOf('timeZone')
  } catch {
    return ['UTC']
  }
})()

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
