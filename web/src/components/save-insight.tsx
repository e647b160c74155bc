// An editor's query saved as an insight: Save and Add to dashboard (the trends editor's and the SQL page's),
// and the dashboards an insight is on, as links.
import { createContext } from 'preact'
import { useContext, useState } from 'preact/hooks'
import { get, patch, post, WHOLE_LIST, withQuery } from '../api'
import type { DashboardSummary, Insight, Paginated } from '../answers'
import { navigate } from '../router'
import { useSession } from '../session'
import { ErrorBox } from './feedback'
import { useAction, useLoad } from './load'

/** The project's dashboards (none when the key may not read them: the insights still show). */
export function useDashboards() {
  const { path, can, project } = useSession()
  return useLoad(
    () =>
      can('dashboard:read')
        ? get<Paginated<DashboardSummary>>(withQuery(path('dashboards/'), { limit: WHOLE_LIST })).then((r) => r.results)
        : Promise.resolve([]),
    [project.id],
  )
}

/** Links to the dashboards `ids` names; `dashboards` null while their list loads (no name is guessed meanwhile). */
export function DashboardLinks({ ids, dashboards }: { ids: number[]; dashboards: DashboardSummary[] | null }) {
  const { base } = useSession()
  if (!ids.length) return <span class="muted">–</span>
  if (!dashboards) return <span class="muted">…</span>
  return (
    <span class="tags">
      {ids.map((id) => (
        <a class="tag" href={`${base}/dashboards/${id}`}>
          {dashboards.find((d) => d.id === id)?.name ?? `Dashboard ${id}`}
        </a>
      ))}
    </span>
  )
}

/** How the editor of a saved insight hears of its saves (its name and dashboards shown change). */
export const SavedContext = createContext<((insight: Insight) => void) | null>(null)

/**
 * Save (a name; creates the insight, or updates the one being edited) and Add to dashboard (saves too, with the
 * dashboard added to the insight's), for any editor: `query` is the insight's query as it would be saved,
 * `saved` the one it has (the button says Saved while they match). A new insight's page then becomes its own
 * (`pageOf`).
 */
export function SaveInsight({
  query,
  saved,
  derivedName,
  ready,
  insight,
  pageOf,
}: {
  query: Record<string, unknown>
  saved: Record<string, unknown> | null
  /** The name an unnamed insight gets (the field's placeholder). */
  derivedName: string
  /** Whether there is anything to save yet. */
  ready: boolean
  insight: Insight | null
  pageOf: (insight: Insight) => string
}) {
  const { path, can } = useSession()
  const onSaved = useContext(SavedContext)
  const dashboards = useDashboards()
  const [name, setName] = useState(insight?.name ?? '')
  const [target, setTarget] = useState('')
  const [error, busy, run] = useAction()
  const [note, setNote] = useState<string | null>(null)
  const changed = !insight || !saved || JSON.stringify(saved) !== JSON.stringify(query) || (insight.name ?? '') !== name.trim()

  const save = (extra: { dashboards?: number[] }, done: string) =>
    run(async () => {
      const body = { name: name.trim() || derivedName, query, saved: true, ...extra }
      const answer = insight ? await patch<Insight>(path(`insights/${insight.id}/`), body) : await post<Insight>(path('insights/'), body)
      setName(answer.name ?? '')
      setNote(done)
      if (insight) onSaved?.(answer)
      else navigate(pageOf(answer), { replace: true })
    })
  const addTo = () => {
    const id = Number(target)
    const board = dashboards.data?.find((d) => d.id === id)
    if (!board) return
    void save({ dashboards: [...new Set([...(insight?.dashboards ?? []), id])] }, `Added to ${board.name}.`)
  }

  return (
    <section class="card save-insight" aria-label="Save insight">
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault()
          void save({}, 'Saved.')
        }}
      >
        <input
          aria-label="Insight name"
          placeholder={derivedName}
          value={name}
          onInput={(e) => {
            setName(e.currentTarget.value)
            setNote(null)
          }}
        />
        <button type="submit" disabled={busy || !ready || (!!insight && !changed)}>
          {insight ? (changed ? 'Save changes' : 'Saved') : 'Save'}
        </button>
      </form>
      {can('dashboard:read') ? (
        <div class="inline">
          <select aria-label="Dashboard" value={target} onChange={(e) => setTarget(e.currentTarget.value)}>
            <option value="">Add to dashboard…</option>
            {(dashboards.data ?? []).map((d) => (
              <option value={String(d.id)} disabled={insight?.dashboards.includes(d.id)}>
                {d.name}
              </option>
            ))}
          </select>
          <button type="button" class="secondary" disabled={busy || !ready || !target} onClick={addTo}>
            Add to dashboard
          </button>
        </div>
      ) : null}
      {insight?.dashboards.length ? (
        <span class="small muted">
          On <DashboardLinks ids={insight.dashboards} dashboards={dashboards.data} />
        </span>
      ) : null}
      {note ? (
        <span class="ok small" role="status">
          {note}
        </span>
      ) : null}
      <ErrorBox error={error} />
    </section>
  )
}
