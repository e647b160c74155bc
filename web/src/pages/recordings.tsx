// Recordings: the list with PostHog's filters (events performed; event, person, cohort, recording and console
// log filters through the property filter component, all or any of them: what services/recordings/list-query.ts
// applies) and metadata columns, each linking to Wren's player page, and a sharing link to enable and copy.
import { useState } from 'preact/hooks'
import { get, patch, withQuery, type PropertyFilter } from '../api'
import type { RecordingPage, Sharing } from '../answers'
import { DefinitionOptions } from '../components/definitions'
import { completeFilters, PropertyFilters, type KeyChoice } from '../components/property-filters'
import { Empty, ErrorBox } from '../components/feedback'
import { PageHeader } from '../components/headers'
import { Listing } from '../components/listing'
import { useAction, useLoad } from '../components/load'
import { formatTime } from '../components/properties'
import { navigate } from '../router'
import { useSession } from '../session'
import { Snippet } from '../components/snippet'

const PAGE = 50
const ORDERS = ['start_time', 'duration', 'active_seconds', 'click_count', 'console_error_count', 'activity_score']

/** The filter types the list applies, and the keys of those whose keys are fixed (list-query.ts's). */
const FILTER_TYPES = ['event', 'person', 'cohort', 'recording', 'log_entry']
const TYPE_LABELS = { event: 'event property', person: 'person property', recording: 'recording', log_entry: 'console log' }
const FILTER_KEYS: Record<string, KeyChoice[]> = {
  recording: [
    { key: 'duration', label: 'duration (seconds)' },
    { key: 'active_seconds', label: 'active seconds' },
    { key: 'inactive_seconds', label: 'inactive seconds' },
    { key: 'click_count', label: 'clicks' },
    { key: 'keypress_count', label: 'key presses' },
    { key: 'mouse_activity_count', label: 'mouse activity' },
    { key: 'activity_score', label: 'activity score' },
    { key: 'console_log_count', label: 'console logs' },
    { key: 'console_warn_count', label: 'console warnings' },
    { key: 'console_error_count', label: 'console errors' },
    { key: 'visited_page', label: 'visited page (URL)' },
    { key: 'snapshot_source', label: 'source (web, mobile)', values: ['web', 'mobile'] },
  ],
  log_entry: [
    { key: 'level', label: 'level', values: ['log', 'info', 'warn', 'error'] },
    { key: 'message', label: 'message' },
  ],
}

/** A JSON list from the page's address, or none. */
function listParam<T>(params: URLSearchParams, name: string): T[] {
  try {
    const value: unknown = JSON.parse(params.get(name) ?? '[]')
    return Array.isArray(value) ? (value as T[]) : []
  } catch {
    return []
  }
}

export const duration = (seconds: number) => {
  const s = Math.round(seconds)
  return s >= 3600 ? `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m` : s >= 60 ? `${Math.floor(s / 60)}m ${s % 60}s` : `${s}s`
}

export function RecordingsPage({ search }: { search: string }) {
  const { path, base, project, can, refreshProjects } = useSession()
  const params = new URLSearchParams(search)
  const filters = {
    date_from: params.get('date_from') ?? '-7d',
    distinct_id: params.get('distinct_id') ?? '',
    events: listParam<string>(params, 'events').filter((e) => typeof e === 'string'),
    properties: listParam<PropertyFilter>(params, 'properties'),
    operand: params.get('operand') === 'OR' ? 'OR' : 'AND',
    order: params.get('order') ?? 'start_time',
    offset: Number(params.get('offset') ?? 0) || 0,
  }
  const go = (patchFilters: Partial<typeof filters>) => {
    const next = { ...filters, offset: 0, ...patchFilters }
    navigate(
      withQuery(`${base}/recordings`, {
        date_from: next.date_from === '-7d' ? null : next.date_from,
        distinct_id: next.distinct_id,
        events: next.events.length ? next.events : null,
        properties: next.properties.length ? next.properties : null,
        operand: next.operand === 'OR' ? 'OR' : null,
        order: next.order === 'start_time' ? null : next.order,
        offset: next.offset || null,
      }),
      { replace: true },
    )
  }
  // The API is asked only for complete filters and named events: a row being filled in changes the address, not the list.
  const events = filters.events.map((e) => e.trim()).filter(Boolean)
  const properties = completeFilters(filters.properties)
  const recordings = useLoad(
    () =>
      get<RecordingPage>(
        withQuery(path('session_recordings/'), {
          limit: PAGE,
          offset: filters.offset,
          date_from: filters.date_from,
          distinct_id: filters.distinct_id,
          events: events.length ? events.map((id) => ({ id, type: 'events' })) : null,
          properties: properties.length ? properties : null,
          operand: filters.operand === 'OR' && (events.length || properties.length) ? 'OR' : null,
          order: filters.order,
        }),
      ),
    [
      filters.date_from,
      filters.distinct_id,
      JSON.stringify(events),
      JSON.stringify(properties),
      filters.operand,
      filters.order,
      filters.offset,
    ],
  )
  const [shared, setShared] = useState<Record<string, string>>({})
  const [error, busy, run] = useAction()
  const recordSessions = () =>
    run(async () => {
      await patch(path(''), { session_recording_opt_in: true })
      refreshProjects()
    })
  const share = (id: string) =>
    run(async () => {
      const config = await patch<Sharing>(path(`session_recordings/${id}/sharing/`), { enabled: true })
      const link = `${location.origin}/shared/${config.access_token}`
      setShared({ ...shared, [id]: link })
      await navigator.clipboard?.writeText(link).catch(() => undefined)
    })
  return (
    <div>
      <PageHeader title="Recordings" />
      <section class="card controls">
        <label>
          Started
          <select aria-label="Started" value={filters.date_from} onChange={(e) => go({ date_from: e.currentTarget.value })}>
            <option value="-24h">Last 24 hours</option>
            <option value="-7d">Last 7 days</option>
            <option value="-30d">Last 30 days</option>
            <option value="all">Any time</option>
          </select>
        </label>
        <label>
          Distinct id
          <input
            aria-label="Recording distinct id"
            placeholder="anyone"
            value={filters.distinct_id}
            onChange={(e) => go({ distinct_id: e.currentTarget.value })}
          />
        </label>
        <label>
          Order by
          <select aria-label="Order by" value={filters.order} onChange={(e) => go({ order: e.currentTarget.value })}>
            {ORDERS.map((o) => (
              <option value={o}>{o.replace(/_/g, ' ')}</option>
            ))}
          </select>
        </label>
        <label>
          Match
          <select aria-label="Match" value={filters.operand} onChange={(e) => go({ operand: e.currentTarget.value })}>
            <option value="AND">all of the filters</option>
            <option value="OR">any of the filters</option>
          </select>
        </label>
        <fieldset class="filters performed">
          <legend>Performed events</legend>
          {filters.events.map((name, i) => (
            <div class="filter-row" key={i}>
              <input
                aria-label={`Performed event ${i + 1}`}
                list={`performed-${i}`}
                placeholder="event name, e.g. $pageview"
                value={name}
                onChange={(e) => go({ events: filters.events.map((n, j) => (j === i ? e.currentTarget.value : n)) })}
              />
              <DefinitionOptions id={`performed-${i}`} kind="event" search={name} />
              <button
                type="button"
                class="link"
                aria-label="Remove event"
                onClick={() => go({ events: filters.events.filter((_, j) => j !== i) })}
              >
                ✕
              </button>
            </div>
          ))}
          <button type="button" class="secondary small" onClick={() => go({ events: [...filters.events, ''] })}>
            + Add event
          </button>
        </fieldset>
        <PropertyFilters
          label="Filters"
          value={filters.properties}
          onChange={(next) => go({ properties: next })}
          types={FILTER_TYPES}
          typeLabels={TYPE_LABELS}
          keys={FILTER_KEYS}
        />
      </section>
      <Listing
        loaded={recordings}
        error={error}
        tableClass="list recordings"
        empty={
          <Empty title="No recordings here.">
            {project.session_recording_opt_in ? (
              <>
                <p>
                  Recording is on: sessions of pages with this posthog-js snippet show up here a few seconds after they start. Widen the
                  filters if you expected some.
                </p>
                <Snippet />
              </>
            ) : (
              <>
                <p>Recording is off for this project: turn it on, and posthog-js records sessions on pages with the snippet.</p>
                {can('project:write') ? (
                  <button type="button" disabled={busy} onClick={recordSessions}>
                    Turn recording on
                  </button>
                ) : (
                  <p>A key with the project:write scope turns it on in Settings.</p>
                )}
              </>
            )}
          </Empty>
        }
        head={
          <>
            <th>Person</th>
            <th>Duration</th>
            <th>Active</th>
            <th class="num">Clicks</th>
            <th class="num">Errors</th>
            <th>Start URL</th>
            <th>Started</th>
            <th />
          </>
        }
        row={(r) => (
          <tr>
            <td>
              <a data-external href={`${base}/replay/${encodeURIComponent(r.id)}`}>
                {r.person?.name ?? r.distinct_id}
              </a>
            </td>
            <td>{duration(r.recording_duration)}</td>
            <td>{duration(r.active_seconds)}</td>
            <td class="num">{r.click_count}</td>
            <td class={`num ${r.console_error_count ? 'danger-text' : ''}`}>{r.console_error_count}</td>
            <td class="truncate">{r.start_url ?? ''}</td>
            <td class="nowrap">{formatTime(r.start_time)}</td>
            <td>
              {shared[r.id] ? (
                <input
                  class="share-link"
                  readOnly
                  value={shared[r.id]}
                  aria-label="Sharing link"
                  onFocus={(e) => e.currentTarget.select()}
                />
              ) : can('sharing_configuration:write') ? (
                <button type="button" class="link" disabled={busy} onClick={() => share(r.id)}>
                  Share
                </button>
              ) : null}
            </td>
          </tr>
        )}
        footer={(page) => (
          <div class="pager">
            <button
              type="button"
              class="secondary"
              disabled={filters.offset === 0}
              onClick={() => go({ offset: Math.max(0, filters.offset - PAGE) })}
            >
              ← Previous
            </button>
            <button type="button" class="secondary" disabled={!page.has_next} onClick={() => go({ offset: filters.offset + PAGE })}>
              Next →
            </button>
          </div>
        )}
      />
    </div>
  )
}
