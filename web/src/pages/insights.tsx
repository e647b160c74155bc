// Saved insights: the list (name, favorite, the dashboards each is on), and a saved insight opened in its
// editor (/insights/:id): its kind's editor (insight-kinds.tsx), or the SQL page for a SQL insight.
import { useMemo, useState } from 'preact/hooks'
import { get, patch, WHOLE_LIST, withQuery } from '../api'
import type { Insight, Paginated } from '../answers'
import { Empty, ErrorBox, Loading } from '../components/feedback'
import { PageHeader } from '../components/headers'
import { Listing } from '../components/listing'
import { useAction, useLoad } from '../components/load'
import { formatTime } from '../components/properties'
import { DashboardLinks, SavedContext, useDashboards } from '../components/save-insight'
import { useSession } from '../session'
import { insightKind } from '../insight-kinds'
import { SqlPage } from './sql'
import { insightSql } from '../sql'

export function SavedInsightsPage() {
  const { path, base, can } = useSession()
  const insights = useLoad(() => get<Paginated<Insight>>(withQuery(path('insights/'), { saved: 'true', limit: WHOLE_LIST })), [])
  const dashboards = useDashboards()
  const [error, busy, run] = useAction()
  const [onlyFavorites, setOnlyFavorites] = useState(false)
  const shown = useMemo(
    () =>
      insights.data && {
        ...insights.data,
        results: insights.data.results.filter((i) => !onlyFavorites || i.favorited),
      },
    [insights.data, onlyFavorites],
  )
  const favorite = (insight: Insight) =>
    run(async () => {
      await patch(path(`insights/${insight.id}/`), { favorited: !insight.favorited })
      insights.reload()
    })
  return (
    <div>
      <PageHeader title="Saved insights">
        <label class="check">
          <input type="checkbox" checked={onlyFavorites} onChange={(e) => setOnlyFavorites(e.currentTarget.checked)} /> Favorites only
        </label>
        <a class="button" href={`${base}/trends`}>
          New insight
        </a>
      </PageHeader>
      <Listing
        loaded={{ ...insights, data: shown }}
        error={error ?? dashboards.error}
        empty={
          <Empty title={onlyFavorites ? 'No favorite insights yet.' : 'No saved insights yet.'}>
            <p>
              Build a trend in <a href={`${base}/trends`}>Trends</a> or a funnel in <a href={`${base}/funnels`}>Funnels</a> and press Save;
              it is listed here, and you can put it on a dashboard.
            </p>
          </Empty>
        }
        head={
          <>
            <th class="row-actions">
              <span class="sr-only">Favorite</span>
            </th>
            <th>Name</th>
            <th>Dashboards</th>
            <th>Last modified</th>
          </>
        }
        row={(insight) => (
          <tr data-insight={insight.id}>
            <td class="row-actions">
              <button
                type="button"
                class={`link star ${insight.favorited ? 'on' : ''}`}
                aria-label={insight.favorited ? 'Unfavorite' : 'Favorite'}
                aria-pressed={insight.favorited}
                disabled={busy || !can('insight:write')}
                onClick={() => favorite(insight)}
              >
                {insight.favorited ? '★' : '☆'}
              </button>
            </td>
            <td>
              <a href={`${base}/insights/${insight.id}`}>{insight.name ?? 'Untitled insight'}</a>
              {insight.description ? <div class="muted small">{insight.description}</div> : null}
            </td>
            <td>
              <DashboardLinks ids={insight.dashboards} dashboards={dashboards.data} />
            </td>
            <td class="nowrap">{formatTime(insight.last_modified_at)}</td>
          </tr>
        )}
      />
    </div>
  )
}

/** A saved insight in its kind's editor (or the SQL page): its query, unless the URL already holds edits of it (a reload). */
export function InsightPage({ id, search }: { id: string; search: string }) {
  const { path } = useSession()
  const loaded = useLoad(() => get<Insight>(path(`insights/${encodeURIComponent(id)}/`)), [id])
  const [insight, setInsight] = useState<Insight | null>(null)
  const current = insight ?? loaded.data
  if (loaded.error) return <ErrorBox error={loaded.error} />
  if (!current) return <Loading />
  if (insightSql(current.query) !== null)
    return (
      <SavedContext.Provider value={setInsight}>
        <SqlPage search={search} insight={current} />
      </SavedContext.Provider>
    )
  const kind = insightKind(current)
  const opened = kind?.open(current)
  if (!kind || !opened)
    return (
      <Empty title={current.name ?? 'Untitled insight'}>
        <p>{current.result_unavailable ?? 'Wren has no editor for this kind of insight.'}</p>
      </Empty>
    )
  return (
    <SavedContext.Provider value={setInsight}>
      <kind.Editor search={search || opened.search} insight={current} />
    </SavedContext.Provider>
  )
}
