// Events: the newest first, refreshed every few seconds, filtered by event name, person (distinct id) and
// properties; a click shows an event's full properties. Read through the Query API as an EventsQuery, as
// PostHog's app reads its events table.
import { useEffect, useMemo, useState } from 'preact/hooks'
import { post, withQuery, type PropertyFilter } from '../api'
import type { EventsQueryAnswer } from '../answers'
import { Empty, ErrorBox, Loading } from '../components/feedback'
import { PageHeader } from '../components/headers'
import { useLoad } from '../components/load'
import { formatTime, PropertiesTable } from '../components/properties'
import { completeFilters, PropertyFilters, useDraftFilters } from '../components/property-filters'
import { navigate } from '../router'
import { useSession } from '../session'
import { Snippet } from '../components/snippet'

const REFRESH_MS = 5_000
const PAGE = 100

export function EventsPage({ search }: { search: string }) {
  const { path, base } = useSession()
  const params = new URLSearchParams(search)
  const eventName = params.get('event') ?? ''
  const distinctId = params.get('distinct_id') ?? ''
  const filters = useMemo(() => {
    try {
      return JSON.parse(params.get('properties') ?? '[]') as PropertyFilter[]
    } catch {
      return []
    }
  }, [search])
  const set = (patch: Record<string, string | PropertyFilter[]>) => {
    const next = { event: eventName, distinct_id: distinctId, properties: filters as unknown, ...patch }
    const props = completeFilters(next.properties as PropertyFilter[])
    navigate(withQuery(`${base}/events`, { event: next.event, distinct_id: next.distinct_id, properties: props.length ? props : null }), {
      replace: true,
    })
  }
  const [rows, setRows] = useDraftFilters(filters, (properties) => set({ properties }))
  const [live, setLive] = useState(true)
  const [open, setOpen] = useState<string | null>(null)
  const [limit, setLimit] = useState(PAGE)
  const complete = completeFilters(filters)
  const events = useLoad(
    () => post<EventsQueryAnswer>(path('query/'), { query: eventsQuery(eventName, distinctId, complete, limit) }),
    [eventName, distinctId, JSON.stringify(complete), limit],
  )
  useEffect(() => {
    if (!live) return
    const timer = setInterval(events.reload, REFRESH_MS)
    return () => clearInterval(timer)
  }, [live, events.reload])

  return (
    <div>
      <PageHeader title="Events">
        <label class="check">
          <input type="checkbox" checked={live} onChange={(e) => setLive(e.currentTarget.checked)} /> Live (every {REFRESH_MS / 1000} s)
        </label>
      </PageHeader>
      <section class="card controls">
        <label>
          Event
          <input
            aria-label="Event name filter"
            placeholder="any event"
            value={eventName}
            onChange={(e) => set({ event: e.currentTarget.value })}
          />
        </label>
        <label>
          Person (distinct id)
          <input
            aria-label="Distinct id filter"
            placeholder="anyone"
            value={distinctId}
            onChange={(e) => set({ distinct_id: e.currentTarget.value })}
          />
        </label>
        <PropertyFilters value={rows} onChange={setRows} types={['event', 'person', 'cohort', 'element', 'hogql']} />
      </section>
      <ErrorBox error={events.error} />
      {events.loading && !events.data ? <Loading /> : null}
      {events.data && events.data.results.length === 0 ? (
        eventName || distinctId || complete.length ? (
          <Empty title="No events match.">
            <p>None match these filters: clear them to see every event.</p>
          </Empty>
        ) : (
          <Empty title="No events yet.">
            <p>
              Paste this snippet into your site’s <code>&lt;head&gt;</code> (or send events with any PostHog SDK to {location.origin}); they
              show up here within seconds.
            </p>
            <Snippet />
          </Empty>
        )
      ) : null}
      {events.data && events.data.results.length > 0 ? (
        <div class="card scroll">
          <table class="list events">
            <thead>
              <tr>
                <th>Event</th>
                <th>Person</th>
                <th>URL</th>
                <th>Time</th>
              </tr>
            </thead>
            <tbody>
              {events.data.results.map(([e, personId]) => (
                <>
                  <tr class="clickable" onClick={() => setOpen(open === e.uuid ? null : e.uuid)} aria-expanded={open === e.uuid}>
                    <td>
                      <strong>{e.event}</strong>
                    </td>
                    <td>
                      <a href={`${base}/persons/${personId}`} onClick={(ev) => ev.stopPropagation()}>
                        {e.distinct_id}
                      </a>
                    </td>
                    <td class="truncate">{String(e.properties.$current_url ?? '')}</td>
                    <td class="nowrap">{formatTime(e.timestamp)}</td>
                  </tr>
                  {open === e.uuid ? (
                    <tr class="detail">
                      <td colSpan={4}>
                        <PropertiesTable properties={e.properties} />
                      </td>
                    </tr>
                  ) : null}
                </>
              ))}
            </tbody>
          </table>
          {events.data.hasMore ? (
            <button type="button" class="secondary" onClick={() => setLimit(limit + PAGE)}>
              Show {PAGE} more
            </button>
          ) : null}
        </div>
      ) : null}
    </div>
  )
}

/**
 * The page's EventsQuery: every event (`after: 'all'`: the page shows the newest whatever their age) with its
 * person's id, newest first; the distinct id as a fixed filter on the event's own field.
 */
function eventsQuery(event: string, distinctId: string, properties: PropertyFilter[], limit: number): Record<string, unknown> {
  return {
    kind: 'EventsQuery',
    select: ['*', 'person_id'],
    orderBy: ['timestamp DESC'],
    after: 'all',
    limit,
    ...(event ? { event } : {}),
    ...(properties.length ? { properties } : {}),
    ...(distinctId ? { fixedProperties: [{ type: 'event_metadata', key: 'distinct_id', value: distinctId, operator: 'exact' }] } : {}),
  }
}
