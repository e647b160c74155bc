// Dashboards: the list (and a new one), a dashboard's tiles (Home is the project's primary dashboard, where the
// app opens), each insight tile drawn from the API's cached result; Refresh recomputes every tile in parallel
// (?refresh=true), and the dashboard's date range overrides its tiles' (the dashboard's filters): one picked here
// is this view's (the URL's ?date_from, sent as filters_override) until Save range makes it the dashboard's. A SQL
// insight's tile is its table of rows; each tile recomputes alone too. With dashboard:write: the name and
// description edited, the dashboard duplicated or deleted (not Home), and each tile moved up or down, made wider
// or narrower, or taken off.
import { useEffect, useState } from 'preact/hooks'
import type { ComponentChildren } from 'preact'
import { get, patch, post, WHOLE_LIST, withQuery } from '../api'
import type { Dashboard, DashboardSummary, Insight, Paginated, RecordingPage, Tile } from '../answers'
import { Empty, ErrorBox, Loading } from '../components/feedback'
import { PageHeader } from '../components/headers'
import { Listing } from '../components/listing'
import { useAction, useLoad } from '../components/load'
import { formatTime } from '../components/properties'
import { SqlResult } from '../components/sql-result'
import { OnDashboard } from '../components/annotations'
import { insightSql, sqlAnswer } from '../sql'
import { editorQuery } from '../insight-query'
import { insightKind, type TrendPoint } from '../insight-kinds'
import { PointPersons } from '../components/point-persons'
import { DATE_PRESETS } from '../query'
import { navigate, usePlace } from '../router'
import { useSession } from '../session'
import { duration } from './recordings'
import { Snippet, useAnyEvents } from '../components/snippet'

export function DashboardsPage() {
  const { path, base, can, project } = useSession()
  const dashboards = useLoad(() => get<Paginated<DashboardSummary>>(withQuery(path('dashboards/'), { limit: WHOLE_LIST })), [])
  const [name, setName] = useState('')
  const [error, busy, run] = useAction()
  const create = (e: Event) => {
    e.preventDefault()
    void run(async () => {
      const created = await post<Dashboard>(path('dashboards/'), { name: name.trim() })
      navigate(`${base}/dashboards/${created.id}`)
    })
  }
  return (
    <div>
      <PageHeader title="Dashboards">
        {can('dashboard:write') ? (
          <form class="inline" onSubmit={create}>
            <input
              aria-label="New dashboard name"
              placeholder="New dashboard name"
              required
              value={name}
              onInput={(e) => setName(e.currentTarget.value)}
            />
            <button type="submit" disabled={busy || !name.trim()}>
              New dashboard
            </button>
          </form>
        ) : null}
      </PageHeader>
      <Listing
        loaded={dashboards}
        error={error}
        empty={
          <Empty title="No dashboards yet.">
            <p>Name one above, then put saved insights on it from the trends editor (Add to dashboard).</p>
          </Empty>
        }
        head={
          <>
            <th>Name</th>
            <th>Description</th>
            <th>Last modified</th>
          </>
        }
        row={(d) => (
          <tr>
            <td>
              <a href={d.id === project.primary_dashboard ? `${base}/home` : `${base}/dashboards/${d.id}`}>{d.name}</a>
              {d.id === project.primary_dashboard && d.name !== 'Home' ? (
                <span class="tag" title="The project’s home dashboard: the app opens on it.">
                  home
                </span>
              ) : null}
            </td>
            <td class="muted">{d.description}</td>
            <td class="nowrap">{formatTime(d.last_modified_at)}</td>
          </tr>
        )}
      />
    </div>
  )
}

/** The project's primary dashboard (every project gets one: services/insights/home.ts). */
export function HomePage() {
  const { project, base } = useSession()
  if (!project.primary_dashboard)
    return (
      <Empty title="This project has no home dashboard.">
        <p>
          Pick one of the <a href={`${base}/dashboards`}>dashboards</a>, or build a trend in <a href={`${base}/trends`}>Trends</a>.
        </p>
      </Empty>
    )
  return <DashboardPage id={String(project.primary_dashboard)} home />
}

const rangeLabel = (from: string | null | undefined, to: string | null | undefined) =>
  to ? `${from} – ${to}` : (DATE_PRESETS.find((p) => p.value === from)?.label ?? (from ? `From ${from}` : 'Last 7 days'))

/** "just now", "5 minutes ago", …: when a result was computed. */
function ago(iso: string | null | undefined, now: number): string {
  if (!iso) return 'not computed'
  const seconds = Math.max(0, Math.round((now - new Date(iso).getTime()) / 1000))
  if (seconds < 45) return 'just now'
  const minutes = Math.round(seconds / 60)
  if (minutes < 60) return `${minutes} min ago`
  const hours = Math.round(minutes / 60)
  return hours < 24 ? `${hours} h ago` : formatTime(iso)
}

export function DashboardPage({ id, home = false }: { id: string; home?: boolean }) {
  const { path, base, can, project } = useSession()
  // A date range picked here is this view's (?date_from in the URL, sent as filters_override) until it is saved.
  const place = usePlace()
  const viewed = new URLSearchParams(place.search).get('date_from')
  const override = viewed === null ? null : { date_from: viewed || null, date_to: null }
  const overrideParam = override ? { filters_override: JSON.stringify(override) } : {}
  const loaded = useLoad(
    () => get<Dashboard>(withQuery(path(`dashboards/${encodeURIComponent(id)}/`), overrideParam)),
    [id, JSON.stringify(override)],
  )
  const [dashboard, setDashboard] = useState<Dashboard | null>(null)
  useEffect(() => setDashboard(loaded.data), [loaded.data])
  const [refreshing, setRefreshing] = useState<Set<number>>(new Set())
  const [error, busy, run] = useAction()
  const [editing, setEditing] = useState(false)
  const [now, setNow] = useState(Date.now())
  /** A clicked point of a tile's trend: the persons behind it are listed under the tiles. */
  const [point, setPoint] = useState<(TrendPoint & { tile: number }) | null>(null)
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000)
    return () => clearInterval(timer)
  }, [])
  // Whether the project has any event yet: a dashboard of an empty project says to install the snippet.
  const anyEvents = useAnyEvents(can('query:read'))

  if (loaded.error) return <ErrorBox error={loaded.error} />
  if (!dashboard) return <Loading />

  const tiles = [...dashboard.tiles].sort((a, b) => position(a) - position(b))
  /** Insight tiles recomputed at once (every one, or one), each drawn as soon as its own answer comes. */
  const refresh = (only?: Tile) =>
    run(async () => {
      const insightTiles = tiles.filter((t) => t.insight && (!only || t.id === only.id))
      setRefreshing(new Set(insightTiles.map((t) => t.id)))
      const replace = (tile: Tile, insight: Insight) => {
        setDashboard((d) => d && { ...d, tiles: d.tiles.map((t) => (t.id === tile.id ? { ...t, insight } : t)) })
        setRefreshing((s) => new Set([...s].filter((x) => x !== tile.id)))
      }
      try {
        await Promise.all(
          insightTiles.map((tile) =>
            get<Insight>(
              withQuery(path(`insights/${tile.insight!.id}/`), { refresh: 'true', from_dashboard: dashboard.id, ...overrideParam }),
            ).then((i) => replace(tile, i)),
          ),
        )
      } finally {
        setRefreshing(new Set())
        setNow(Date.now())
      }
    })
  const saved = (dashboard.persisted_filters ?? {}) as Dashboard['filters']
  const savedFrom = saved.date_from ?? ''
  const shownFrom = viewed ?? savedFrom
  /** A range picked: this view's only (in the URL), or none when it is the saved one. */
  const setRange = (dateFrom: string) =>
    navigate(dateFrom === savedFrom ? place.path : `${place.path}?${new URLSearchParams({ date_from: dateFrom })}`, { replace: true })
  /** The viewed range saved as the dashboard's, for everyone. */
  const saveRange = () =>
    run(async () => {
      const filters = { ...saved, date_from: shownFrom || null, date_to: null }
      setDashboard(await patch<Dashboard>(path(`dashboards/${dashboard.id}/`), { filters }))
      navigate(place.path, { replace: true })
    })
  const computed = tiles.flatMap((t) => (t.insight?.last_refresh ? [t.insight.last_refresh] : [])).sort()[0]
  const writable = can('dashboard:write')
  /** A change to the dashboard (PATCH), drawn from the API's answer. */
  const change = (body: Record<string, unknown>) =>
    run(async () => setDashboard(await patch<Dashboard>(path(`dashboards/${dashboard.id}/`), body)))
  /** Every tile's place written in the order given: top to bottom, each keeping its width. */
  const reorder = (order: Tile[]) =>
    change({ tiles: order.map((t, i) => ({ id: t.id, layouts: { ...t.layouts, sm: { ...smOf(t), x: 0, y: i } } })) })
  const tileActions: TileActions = {
    move: (tile, by) => {
      const i = tiles.findIndex((t) => t.id === tile.id)
      const j = i + by
      if (j < 0 || j >= tiles.length) return
      const order = [...tiles]
      ;[order[i], order[j]] = [order[j], order[i]]
      void reorder(order)
    },
    resize: (tile, by) => {
      const w = Math.min(12, Math.max(3, layoutOf(tile).w + by))
      void change({ tiles: [{ id: tile.id, layouts: { ...tile.layouts, sm: { ...smOf(tile), w } } }] })
    },
    remove: (tile) => void change({ tiles: [{ id: tile.id, deleted: true }] }),
  }
  const duplicate = () =>
    run(async () => {
      const copy = await post<Dashboard>(path('dashboards/'), { name: `${dashboard.name} (copy)`, use_dashboard: dashboard.id })
      navigate(`${base}/dashboards/${copy.id}`)
    })
  const remove = () => {
    if (!confirm(`Delete the dashboard “${dashboard.name}”? Its insights stay in the saved insights.`)) return
    void run(async () => {
      await patch(path(`dashboards/${dashboard.id}/`), { deleted: true })
      navigate(`${base}/dashboards`)
    })
  }

  return (
    <div class="dashboard" data-dashboard={dashboard.id}>
      <PageHeader title={home ? `${dashboard.name} · ${project.name}` : dashboard.name}>
        <label class="inline">
          <span class="sr-only">Date range</span>
          <select aria-label="Dashboard date range" value={shownFrom} disabled={busy} onChange={(e) => setRange(e.currentTarget.value)}>
            <option value="">Each tile’s own range</option>
            {DATE_PRESETS.map((p) => (
              <option value={p.value}>{p.label}</option>
            ))}
          </select>
        </label>
        {viewed !== null && viewed !== savedFrom && writable ? (
          <button type="button" disabled={busy} onClick={saveRange}>
            Save range
          </button>
        ) : null}
        <button type="button" class="secondary" disabled={busy} onClick={() => refresh()}>
          {refreshing.size ? 'Refreshing…' : 'Refresh'}
        </button>
        {writable ? (
          <button type="button" class="secondary" aria-expanded={editing} onClick={() => setEditing(!editing)}>
            Edit
          </button>
        ) : null}
        {writable ? (
          <button type="button" class="secondary" disabled={busy} onClick={duplicate}>
            Duplicate
          </button>
        ) : null}
        {writable && !home && dashboard.id !== project.primary_dashboard ? (
          <button type="button" class="secondary danger-text" disabled={busy} onClick={remove}>
            Delete
          </button>
        ) : null}
      </PageHeader>
      {editing ? (
        <DashboardEditor
          dashboard={dashboard}
          busy={busy}
          onSave={(fields) => change(fields).then((ok) => ok && setEditing(false))}
          onCancel={() => setEditing(false)}
        />
      ) : null}
      <p class="muted dashboard-meta">
        {dashboard.description ? `${dashboard.description} ` : ''}
        {/* A dashboard with no insight computed yet (none on it, or text only) says nothing of it. */}
        {computed ? (
          <>
            <span class="nowrap" data-testid="computed">
              Computed {ago(computed, now)}.
            </span>{' '}
          </>
        ) : null}
        <a href={`${base}/dashboards`}>All dashboards</a>
      </p>
      <ErrorBox error={error} />
      {anyEvents.data === false ? (
        <section class="card banner" data-testid="no-events">
          <div>
            <h3>No events yet — install the snippet</h3>
            <p class="muted">
              Paste the posthog-js snippet into your site’s &lt;head&gt; (or send events with any PostHog SDK to this Wren). Pageviews,
              users, pages and browsers show up here within seconds.
            </p>
          </div>
          <a class="button" href={`${base}/settings`}>
            Settings: the snippet
          </a>
          <details class="banner-snippet">
            <summary>Show the snippet here</summary>
            <Snippet />
          </details>
        </section>
      ) : null}
      {tiles.length === 0 ? (
        <Empty title="This dashboard has no tiles yet.">
          <p>
            Build a trend in <a href={`${base}/trends`}>Trends</a> (or open one of the <a href={`${base}/insights`}>saved insights</a>
            ), then choose Add to dashboard.
          </p>
        </Empty>
      ) : (
        <OnDashboard.Provider value={dashboard.id}>
          <div class="tiles">
            {tiles.map((tile) => (
              <TileCard
                tile={tile}
                dashboard={dashboard}
                refreshing={refreshing.has(tile.id)}
                now={now}
                noEvents={anyEvents.data === false}
                actions={writable && !busy ? tileActions : null}
                onRefresh={busy ? null : () => void refresh(tile)}
                onPoint={(p) => setPoint({ ...p, tile: tile.id })}
              />
            ))}
          </div>
        </OnDashboard.Provider>
      )}
      {point ? (
        <PointPersons
          key={JSON.stringify([point.tile, point.series.order, point.series.breakdown_value, point.series.compare_label, point.bucket])}
          point={point}
          // The tile was computed with the dashboard's date range (a temporary one too): so are its persons.
          source={
            dashboard.filters.date_from
              ? { ...point.source, dateRange: { date_from: dashboard.filters.date_from, date_to: dashboard.filters.date_to ?? null } }
              : point.source
          }
          onClose={() => setPoint(null)}
        />
      ) : null}
    </div>
  )
}

/** The name and description of a dashboard, edited in place. */
function DashboardEditor({
  dashboard,
  busy,
  onSave,
  onCancel,
}: {
  dashboard: Dashboard
  busy: boolean
  onSave: (fields: { name: string; description: string }) => void
  onCancel: () => void
}) {
  const [name, setName] = useState(dashboard.name)
  const [description, setDescription] = useState(dashboard.description ?? '')
  return (
    <form
      class="card inline dashboard-editor"
      onSubmit={(e) => {
        e.preventDefault()
        onSave({ name: name.trim(), description: description.trim() })
      }}
    >
      <label>
        Name
        <input aria-label="Dashboard name" value={name} onInput={(e) => setName(e.currentTarget.value)} required />
      </label>
      <label class="grow">
        Description
        <input aria-label="Dashboard description" value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </label>
      <button type="submit" disabled={busy || !name.trim()}>
        Save
      </button>
      <button type="button" class="secondary" onClick={onCancel}>
        Cancel
      </button>
    </form>
  )
}

/** What a tile's own buttons do: move it up or down the dashboard (by one), widen or narrow it, take it off. */
interface TileActions {
  move(tile: Tile, by: -1 | 1): void
  resize(tile: Tile, by: number): void
  remove(tile: Tile): void
}

/** A tile's layout on the wide grid as stored (PostHog's layouts.sm). */
const smOf = (tile: Tile): Record<string, unknown> =>
  ((tile.layouts as { sm?: Record<string, unknown> }).sm ?? {}) as Record<string, unknown>

/** The tile's place on the wide grid (PostHog's layouts.sm), top to bottom then left to right. */
function layoutOf(tile: Tile): { x: number; y: number; w: number } {
  const sm = smOf(tile)
  const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback)
  return { x: num(sm.x, 0), y: num(sm.y, 1e6), w: Math.min(12, Math.max(3, num(sm.w, 6))) }
}
const position = (tile: Tile) => layoutOf(tile).y * 100 + layoutOf(tile).x

function TileCard({
  tile,
  dashboard,
  refreshing,
  now,
  noEvents,
  actions,
  onRefresh,
  onPoint,
}: {
  tile: Tile
  dashboard: Dashboard
  refreshing: boolean
  now: number
  /** The project has no event at all: an empty tile waits for the first ones. */
  noEvents: boolean
  /** The tile's buttons (a key that may change the dashboard); null: none. */
  actions: TileActions | null
  /** Recomputes this tile alone; null while the dashboard is busy. */
  onRefresh: (() => void) | null
  /** A click on a point of the tile's trend. */
  onPoint: (point: TrendPoint) => void
}) {
  const { base } = useSession()
  const insight = tile.insight
  const width = layoutOf(tile).w
  const own = insight ? (insightKind(insight)?.open(insight)?.range ?? null) : null
  const range = dashboard.filters.date_from
    ? rangeLabel(dashboard.filters.date_from, dashboard.filters.date_to)
    : own
      ? rangeLabel(own.dateFrom, own.dateTo)
      : null
  return (
    <article
      class={`card tile ${insight ? 'insight-tile' : 'text-tile'}`}
      style={{ '--span': String(width) }}
      data-tile={tile.id}
      data-insight={insight?.id}
      data-last-refresh={insight?.last_refresh ?? undefined}
      aria-busy={refreshing}
    >
      {insight ? (
        <>
          <header class="tile-header">
            <h3>
              <a href={`${base}/insights/${insight.id}`}>{insight.name ?? 'Untitled insight'}</a>
            </h3>
            {insight.description ? <p class="muted small">{insight.description}</p> : null}
          </header>
          <div class="tile-body">
            <InsightTileBody insight={insight} noEvents={noEvents} onPoint={onPoint} />
            {refreshing ? <div class="tile-busy">Refreshing…</div> : null}
          </div>
          <footer class="tile-footer muted small">
            {range ? <span>{range}</span> : null}
            <span>Computed {ago(insight.last_refresh, now)}</span>
            <button
              type="button"
              class="link small"
              aria-label={`Refresh ${insight.name ?? 'Untitled insight'}`}
              disabled={!onRefresh}
              onClick={() => onRefresh?.()}
            >
              Refresh
            </button>
            {actions ? <TileButtons tile={tile} name={insight.name ?? 'Untitled insight'} actions={actions} /> : null}
          </footer>
        </>
      ) : (
        <>
          <TextTile body={tile.text?.body ?? ''} />
          {actions ? (
            <footer class="tile-footer muted small">
              <TileButtons tile={tile} name="the text" actions={actions} />
            </footer>
          ) : null}
        </>
      )}
    </article>
  )
}

function TileButtons({ tile, name, actions }: { tile: Tile; name: string; actions: TileActions }) {
  const w = layoutOf(tile).w
  const button = (label: string, text: string, onClick: () => void, disabled = false) => (
    <button type="button" class="link small" aria-label={label} title={label} disabled={disabled} onClick={onClick}>
      {text}
    </button>
  )
  return (
    <span class="tile-buttons">
      {button(`Move ${name} up`, '↑', () => actions.move(tile, -1))}
      {button(`Move ${name} down`, '↓', () => actions.move(tile, 1))}
      {button(`Make ${name} narrower`, '−', () => actions.resize(tile, -3), w <= 3)}
      {button(`Make ${name} wider`, '+', () => actions.resize(tile, 3), w >= 12)}
      {button(`Remove ${name} from the dashboard`, 'Remove', () => actions.remove(tile))}
    </span>
  )
}

/** What a tile whose insight has nothing to draw says, by what the insight counts. */
function nothingYet(insight: Insight, base: string): ComponentChildren {
  const events = editorQuery(insight)?.series.map((s) => s.id) ?? []
  if (events.includes('$feature_flag_called'))
    return (
      <>
        No flag checks in this range. posthog-js reports each flag it evaluates; see <a href={`${base}/feature_flags`}>Feature flags</a>.
      </>
    )
  return (
    <>
      No data in this range. Widen the range, or see what arrives on <a href={`${base}/events`}>Events</a>.
    </>
  )
}

function InsightTileBody({ insight, noEvents, onPoint }: { insight: Insight; noEvents: boolean; onPoint: (point: TrendPoint) => void }) {
  const { base } = useSession()
  if (insight.result_unavailable) return <p class="muted tile-note">{insight.result_unavailable}</p>
  if (insightSql(insight.query) !== null) {
    const answer = sqlAnswer(insight)
    return answer ? <SqlResult answer={answer} compact /> : <p class="muted tile-note">Not computed yet: Refresh computes it.</p>
  }
  const kind = insightKind(insight)
  if (!kind) return <p class="muted tile-note">Wren has no chart for this kind of insight.</p>
  if (!kind.hasData(insight))
    return (
      <p class="muted tile-note">
        {noEvents ? 'Waiting for the first events: this fills in once the snippet sends some.' : nothingYet(insight, base)}
      </p>
    )
  return <kind.Result insight={insight} compact onPoint={onPoint} />
}

/**
 * A text tile: its markdown's paragraphs, **bold** and [links](to) (a relative link is a page of this project;
 * no HTML is rendered). A tile that links to the recordings also lists the latest ones.
 */
function TextTile({ body }: { body: string }) {
  const { base, can } = useSession()
  const paragraphs = body.split(/\n{2,}/).filter((p) => p.trim())
  const recordings = /\]\(recordings\)/.test(body) && can('session_recording:read')
  return (
    <div class="text-body">
      {paragraphs.map((p, i) => {
        const heading = /^\*\*[^*]+\*\*$/.test(p.trim())
        return heading ? <h3 key={i}>{p.trim().slice(2, -2)}</h3> : <p key={i}>{inline(p, base)}</p>
      })}
      {recordings ? <RecentRecordings /> : null}
    </div>
  )
}

function inline(text: string, base: string): ComponentChildren[] {
  const out: ComponentChildren[] = []
  const pattern = /\*\*([^*]+)\*\*|\[([^\]]+)\]\(([^)\s]+)\)/g
  let last = 0
  for (const m of text.matchAll(pattern)) {
    out.push(text.slice(last, m.index))
    if (m[1] !== undefined) out.push(<strong>{m[1]}</strong>)
    else if (/^https?:\/\//.test(m[3]))
      out.push(
        <a href={m[3]} target="_blank" rel="noopener noreferrer" data-external>
          {m[2]}
        </a>,
      )
    else if (/^[\w-]+(\/[\w-]+)*$/.test(m[3])) out.push(<a href={`${base}/${m[3]}`}>{m[2]}</a>)
    else out.push(m[2])
    last = m.index + m[0].length
  }
  out.push(text.slice(last))
  return out
}

function RecentRecordings() {
  const { path, base } = useSession()
  const recordings = useLoad(() => get<RecordingPage>(withQuery(path('session_recordings/'), { limit: 5 })), [])
  if (recordings.error) return null
  if (!recordings.data) return <Loading />
  if (!recordings.data.results.length)
    return (
      <p class="muted small">
        No recordings yet: turn recording on in <a href={`${base}/settings`}>Settings</a>.
      </p>
    )
  return (
    <ul class="recent-recordings">
      {recordings.data.results.map((r) => (
        <li>
          <a data-external href={`${base}/replay/${encodeURIComponent(r.id)}`}>
            {r.person?.name ?? r.distinct_id}
          </a>
          <span class="muted small">
            {duration(r.recording_duration)} · {formatTime(r.start_time)}
          </span>
        </li>
      ))}
    </ul>
  )
}
