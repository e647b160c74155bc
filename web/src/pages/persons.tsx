// Persons: search, property filters and pages of 50; a person's page with their properties (edit, delete
// one; empty ones folded away), distinct ids, events, recordings, properties timeline, and split and delete
// behind a confirmation.
import { useState } from 'preact/hooks'
import { del, get, patch, post, withQuery, type PropertyFilter } from '../api'
import type { EventPage, Paginated, Person, PropertiesTimeline, RecordingPage } from '../answers'
import { Empty, ErrorBox, Loading } from '../components/feedback'
import { PageHeader } from '../components/headers'
import { Listing, Pager } from '../components/listing'
import { useAction, useLoad } from '../components/load'
import { formatTime, PropertiesTable } from '../components/properties'
import { completeFilters, PropertyFilters, useDraftFilters } from '../components/property-filters'
import { navigate } from '../router'
import { useSession } from '../session'
import { duration } from './recordings'
import { Snippet } from '../components/snippet'

const PAGE = 50
const TABS = ['properties', 'events', 'recordings', 'timeline'] as const

/** A property with nothing in it (null, '', [] or {}): folded away under its toggle. */
const isEmptyValue = (value: unknown): boolean =>
  value === null ||
  value === undefined ||
  value === '' ||
  (Array.isArray(value) && value.length === 0) ||
  (typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0)

export function PersonsPage({ search }: { search: string }) {
  const { path, base } = useSession()
  const params = new URLSearchParams(search)
  const text = params.get('search') ?? ''
  const offset = Number(params.get('offset') ?? 0) || 0
  let filters: PropertyFilter[] = []
  try {
    filters = JSON.parse(params.get('properties') ?? '[]') as PropertyFilter[]
  } catch {
    filters = []
  }
  const go = (next: { search?: string; offset?: number; properties?: PropertyFilter[] }) => {
    const props = completeFilters(next.properties ?? filters)
    navigate(
      withQuery(`${base}/persons`, {
        search: next.search ?? text,
        offset: next.offset || null,
        properties: props.length ? props.map((f) => ({ ...f, type: f.type ?? 'person' })) : null,
      }),
      { replace: true },
    )
  }
  const [rows, setRows] = useDraftFilters(filters, (properties) => go({ properties, offset: 0 }))
  const complete = completeFilters(filters)
  const persons = useLoad(
    () =>
      get<Paginated<Person>>(
        withQuery(path('persons/'), { search: text, limit: PAGE, offset, properties: complete.length ? complete : null }),
      ),
    [text, offset, JSON.stringify(complete)],
  )
  return (
    <div>
      <PageHeader title="Persons" />
      <section class="card controls">
        <label>
          Search
          <input
            type="search"
            aria-label="Search persons"
            placeholder="email, name or distinct id"
            value={text}
            onChange={(e) => go({ search: e.currentTarget.value, offset: 0 })}
          />
        </label>
        <PropertyFilters value={rows} onChange={setRows} types={['person', 'cohort']} />
      </section>
      <Listing
        loaded={persons}
        empty={
          text || complete.length ? (
            <Empty title="No persons match.">
              <p>Try another search or remove a filter.</p>
            </Empty>
          ) : (
            <Empty title="No persons yet.">
              <p>
                Persons appear when events arrive: paste this snippet into your site’s <code>&lt;head&gt;</code>, and call{' '}
                <code>posthog.identify()</code> to name them.
              </p>
              <Snippet />
            </Empty>
          )
        }
        {...personColumns(base)}
        footer={(page) => <Pager offset={offset} size={PAGE} page={page} onOffset={(next) => go({ offset: next })} />}
      />
    </div>
  )
}

/** A list of persons' columns: who (a link to their page), their distinct ids, when first seen. */
export const personColumns = (base: string) => ({
  head: (
    <>
      <th>Person</th>
      <th>Distinct ids</th>
      <th>First seen</th>
    </>
  ),
  row: (p: Person) => (
    <tr>
      <td>
        <a href={`${base}/persons/${p.uuid}`}>{p.name}</a>
      </td>
      <td class="truncate">{p.distinct_ids.join(', ')}</td>
      <td class="nowrap">{formatTime(p.created_at)}</td>
    </tr>
  ),
})

export function PersonPage({ id }: { id: string }) {
  const { path, base, can } = useSession()
  const person = useLoad(() => get<Person>(path(`persons/${encodeURIComponent(id)}/`)), [id])
  const [tab, setTab] = useState<(typeof TABS)[number]>('properties')
  const [showEmpty, setShowEmpty] = useState(false)
  const [actionError, busy, run] = useAction()
  const [newKey, setNewKey] = useState('')
  const [newValue, setNewValue] = useState('')
  const [editing, setEditing] = useState<{ key: string; value: string } | null>(null)
  const [confirming, setConfirming] = useState<'split' | 'delete' | null>(null)
  const [deleteEvents, setDeleteEvents] = useState(false)

  if (person.error) return <ErrorBox error={person.error} />
  if (!person.data) return <Loading />
  const p = person.data
  const personPath = path(`persons/${p.uuid}/`)
  /** A typed value: JSON when it reads as JSON (numbers, true, lists), else the text. */
  const typed = (text: string): unknown => {
    try {
      return JSON.parse(text)
    } catch {
      return text
    }
  }
  const setProperty = (key: string, value: string) =>
    run(async () => {
      await patch(personPath, { properties: { [key]: typed(value) } })
      setEditing(null)
      setNewKey('')
      setNewValue('')
      person.reload()
    })
  const deleteProperty = (key: string) => {
    if (!confirm(`Delete the property ${key} from this person?`)) return
    run(async () => {
      await post(personPath + 'delete_property/', { $unset: key })
      person.reload()
    })
  }
  const split = () =>
    run(async () => {
      await post(personPath + 'split/', {})
      navigate(`${base}/persons`)
    })
  const remove = () =>
    run(async () => {
      await del(personPath + (deleteEvents ? '?delete_events=true' : ''))
      navigate(`${base}/persons`)
    })
  const writable = can('person:write')
  const allKeys = Object.keys(p.properties ?? {}).sort()
  const emptyCount = allKeys.filter((k) => isEmptyValue(p.properties[k])).length
  const keys = showEmpty ? allKeys : allKeys.filter((k) => !isEmptyValue(p.properties[k]))
  return (
    <div>
      <PageHeader title={p.name}>
        {writable && p.distinct_ids.length > 1 ? (
          <button type="button" class="secondary" disabled={busy} onClick={() => setConfirming('split')}>
            Split
          </button>
        ) : null}
        {writable ? (
          <button type="button" class="danger" disabled={busy} onClick={() => setConfirming('delete')}>
            Delete person
          </button>
        ) : null}
      </PageHeader>
      <ErrorBox error={actionError} />
      {confirming === 'split' ? (
        <section class="card confirm" role="alertdialog" aria-label="Confirm split">
          <p>
            Split {p.name} into {p.distinct_ids.length} persons, one for each distinct id? This cannot be undone.
          </p>
          <div class="inline">
            <button type="button" class="danger" disabled={busy} onClick={split}>
              Split into {p.distinct_ids.length} persons
            </button>
            <button type="button" class="secondary" onClick={() => setConfirming(null)}>
              Cancel
            </button>
          </div>
        </section>
      ) : null}
      {confirming === 'delete' ? (
        <section class="card confirm" role="alertdialog" aria-label="Confirm delete">
          <p>Delete {p.name}? Their distinct ids then start a new person if they send events again.</p>
          <label class="check">
            <input type="checkbox" checked={deleteEvents} onChange={(e) => setDeleteEvents(e.currentTarget.checked)} /> Also delete their
            events (in the background)
          </label>
          <div class="inline">
            <button type="button" class="danger" disabled={busy} onClick={remove}>
              Delete person
            </button>
            <button type="button" class="secondary" onClick={() => setConfirming(null)}>
              Cancel
            </button>
          </div>
        </section>
      ) : null}
      <section class="card">
        <dl class="facts">
          <dt>Distinct ids</dt>
          <dd class="distinct-ids">
            {p.distinct_ids.map((d) => (
              <code>{d}</code>
            ))}
          </dd>
          <dt>First seen</dt>
          <dd>{formatTime(p.created_at)}</dd>
          <dt>UUID</dt>
          <dd>
            <code>{p.uuid}</code>
          </dd>
        </dl>
      </section>
      <div class="tabs" role="tablist">
        {TABS.map((t) => (
          <button type="button" role="tab" aria-selected={tab === t} class={tab === t ? 'active' : 'secondary'} onClick={() => setTab(t)}>
            {t === 'timeline' ? 'Properties timeline' : t[0].toUpperCase() + t.slice(1)}
          </button>
        ))}
      </div>
      {tab === 'properties' ? (
        <section class="card">
          {allKeys.length === 0 ? <p class="muted">No properties yet: posthog.identify() or $set on an event adds them.</p> : null}
          <table class="props person-props">
            <tbody>
              {keys.map((k) => (
                <tr data-key={k}>
                  <th scope="row">{k}</th>
                  <td>
                    {editing?.key === k ? (
                      <form
                        class="inline"
                        onSubmit={(e) => {
                          e.preventDefault()
                          setProperty(k, editing.value)
                        }}
                      >
                        <input
                          aria-label={`New value of ${k}`}
                          value={editing.value}
                          onInput={(e) => setEditing({ key: k, value: e.currentTarget.value })}
                        />
                        <button type="submit" disabled={busy}>
                          Save
                        </button>
                        <button type="button" class="secondary" onClick={() => setEditing(null)}>
                          Cancel
                        </button>
                      </form>
                    ) : (
                      <span class="value">
                        {typeof p.properties[k] === 'string' ? (p.properties[k] as string) : JSON.stringify(p.properties[k])}
                      </span>
                    )}
                  </td>
                  {writable ? (
                    <td class="row-actions">
                      <button
                        type="button"
                        class="link"
                        aria-label={`Edit ${k}`}
                        onClick={() =>
                          setEditing({
                            key: k,
                            value: typeof p.properties[k] === 'string' ? (p.properties[k] as string) : JSON.stringify(p.properties[k]),
                          })
                        }
                      >
                        Edit
                      </button>
                      <button type="button" class="link danger-text" aria-label={`Delete ${k}`} onClick={() => deleteProperty(k)}>
                        Delete
                      </button>
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
          {emptyCount > 0 ? (
            <button type="button" class="link" aria-expanded={showEmpty} onClick={() => setShowEmpty(!showEmpty)}>
              {showEmpty
                ? `Hide ${emptyCount} empty ${emptyCount === 1 ? 'property' : 'properties'}`
                : `Show ${emptyCount} empty ${emptyCount === 1 ? 'property' : 'properties'}`}
            </button>
          ) : null}
          {writable ? (
            <form
              class="inline add-property"
              onSubmit={(e) => {
                e.preventDefault()
                if (newKey.trim()) setProperty(newKey.trim(), newValue)
              }}
            >
              <input
                aria-label="New property name"
                placeholder="property"
                value={newKey}
                onInput={(e) => setNewKey(e.currentTarget.value)}
              />
              <input
                aria-label="New property value"
                placeholder="value"
                value={newValue}
                onInput={(e) => setNewValue(e.currentTarget.value)}
              />
              <button type="submit" disabled={busy}>
                Add property
              </button>
            </form>
          ) : null}
        </section>
      ) : null}
      {tab === 'events' ? <PersonEvents uuid={p.uuid} /> : null}
      {tab === 'recordings' ? <PersonRecordings uuid={p.uuid} /> : null}
      {tab === 'timeline' ? <Timeline personPath={personPath} /> : null}
    </div>
  )
}

function PersonEvents({ uuid }: { uuid: string }) {
  const { path, base } = useSession()
  const events = useLoad(() => get<EventPage>(withQuery(path('events/'), { person_id: uuid, limit: 50 })), [uuid])
  if (events.error) return <ErrorBox error={events.error} />
  if (!events.data) return <Loading />
  if (!events.data.results.length) return <Empty title="No events for this person." />
  return (
    <section class="card scroll">
      <table class="list">
        <tbody>
          {events.data.results.map((e) => (
            <tr>
              <td>
                <strong>{e.event}</strong>
              </td>
              <td class="truncate">{String(e.properties.$current_url ?? '')}</td>
              <td class="nowrap">{formatTime(e.timestamp)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>
        <a href={withQuery(`${base}/events`, { distinct_id: events.data.results[0].distinct_id })}>All of this person’s events →</a>
      </p>
    </section>
  )
}

/** The person's recordings (of any of their distinct ids), newest first, each opening Wren's player. */
function PersonRecordings({ uuid }: { uuid: string }) {
  const { path, base } = useSession()
  const recordings = useLoad(
    () => get<RecordingPage>(withQuery(path('session_recordings/'), { person_uuid: uuid, date_from: 'all', limit: PAGE })),
    [uuid],
  )
  if (recordings.error) return <ErrorBox error={recordings.error} />
  if (!recordings.data) return <Loading />
  if (!recordings.data.results.length)
    return (
      <Empty title="No recordings of this person.">
        <p>posthog-js records sessions when recording is on for the project (Settings).</p>
      </Empty>
    )
  return (
    <section class="card scroll">
      <table class="list recordings">
        <thead>
          <tr>
            <th>Started</th>
            <th>Duration</th>
            <th class="num">Clicks</th>
            <th class="num">Errors</th>
            <th>Start URL</th>
          </tr>
        </thead>
        <tbody>
          {recordings.data.results.map((r) => (
            <tr>
              <td class="nowrap">
                <a data-external href={`${base}/replay/${encodeURIComponent(r.id)}`}>
                  {formatTime(r.start_time)}
                </a>
              </td>
              <td>{duration(r.recording_duration)}</td>
              <td class="num">{r.click_count}</td>
              <td class={`num ${r.console_error_count ? 'danger-text' : ''}`}>{r.console_error_count}</td>
              <td class="truncate">{r.start_url ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {recordings.data.has_next ? <p class="muted">The {PAGE} newest.</p> : null}
    </section>
  )
}

function Timeline({ personPath }: { personPath: string }) {
  const timeline = useLoad(() => get<PropertiesTimeline>(personPath + 'properties_timeline/'), [personPath])
  if (timeline.error) return <ErrorBox error={timeline.error} />
  if (!timeline.data) return <Loading />
  if (!timeline.data.points.length) return <Empty title="No events carry this person’s properties yet." />
  return (
    <section class="card timeline">
      {timeline.data.points.map((point) => (
        <details>
          <summary>
            {formatTime(point.timestamp)} <span class="muted">· {point.relevant_event_count} events</span>
          </summary>
          <PropertiesTable properties={point.properties} />
        </details>
      ))}
    </section>
  )
}
