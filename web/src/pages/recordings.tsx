// Recordings: the list with its filters and metadata columns, each linking to Wren's player page, and a
// sharing link to enable and copy.
import { useState } from 'preact/hooks'
import { get, patch, withQuery } from '../api'
import type { RecordingPage, Sharing } from '../answers'
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
    min_duration: params.get('min_duration') ?? '',
    errors: params.get('errors') === 'true',
    order: params.get('order') ?? 'start_time',
    offset: Number(params.get('offset') ?? 0) || 0,
  }
  const go = (patchFilters: Partial<typeof filters>) => {
    const next = { ...filters, offset: 0, ...patchFilters }
    navigate(
      withQuery(`${base}/recordings`, {
        date_from: next.date_from === '-7d' ? null : next.date_from,
        distinct_id: next.distinct_id,
        min_duration: next.min_duration,
        errors: next.errors ? 'true' : null,
        order: next.order === 'start_time' ? null : next.order,
        offset: next.offset || null,
      }),
      { replace: true },
    )
  }
  const recordings = useLoad(
    () =>
      get<RecordingPage>(
        withQuery(path('session_recordings/'), {
          limit: PAGE,
          offset: filters.offset,
          date_from: filters.date_from,
          distinct_id: filters.distinct_id,
          min_duration: filters.min_duration,
          order: filters.order,
          having_predicates: filters.errors ? [{ type: 'recording', key: 'console_error_count', operator: 'gt', value: 0 }] : null,
        }),
      ),
    [search],
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
          At least (seconds)
          <input
            type="number"
            min={0}
            aria-label="Minimum duration"
            value={filters.min_duration}
            onChange={(e) => go({ min_duration: e.currentTarget.value })}
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
        <label class="check">
          <input type="checkbox" checked={filters.errors} onChange={(e) => go({ errors: e.currentTarget.checked })} /> With console errors
        </label>
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
            <th class="hide-narrow">Active</th>
            <th class="hide-narrow num">Clicks</th>
            <th class="hide-narrow num">Errors</th>
            <th class="hide-narrow">Start URL</th>
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
            <td class="hide-narrow">{duration(r.active_seconds)}</td>
            <td class="hide-narrow num">{r.click_count}</td>
            <td class={`hide-narrow num ${r.console_error_count ? 'danger-text' : ''}`}>{r.console_error_count}</td>
            <td class="hide-narrow truncate">{r.start_url ?? ''}</td>
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
