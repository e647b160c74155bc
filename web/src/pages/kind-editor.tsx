// What the lifecycle, stickiness, retention and paths editors share: their state kept in a store mirrored into the
// URL (kind-state.ts), the query asked of the Query API once edits settle, the project's actions and cohorts for
// the pickers, and the page around the controls: its title, the insight type switch, Save, and the result's card.
import { useMemo } from 'preact/hooks'
import type { ComponentChildren } from 'preact'
import { get, post, WHOLE_LIST, withQuery } from '../api'
import type { Insight, Paginated } from '../answers'
import { Empty, ErrorBox, Loading } from '../components/feedback'
import { PageHeader } from '../components/headers'
import { useLoad, type Loaded } from '../components/load'
import { InsightTypeTabs, type NamedThing } from '../components/insight-controls'
import { SaveInsight } from '../components/save-insight'
import { useDebounced, useUrlStore } from '../components/url-store'
import { createPatchStore, decodeState, encodeState, type PatchStore } from '../kind-state'
import { useSession } from '../session'

type Json = Record<string, unknown>

export interface KindEditorSpec<Q extends object> {
  section: string
  title: string
  defaults: Q
  /** A saved insight's state, or null when it is not of this kind. */
  state(insight: Insight): Q | null
  /** The query asked of the Query API, and the one saved (an InsightVizNode). */
  query(state: Q): Json
  saved(state: Q): Json
  ready(state: Q): boolean
  name(state: Q, actionName: (id: string) => string): string
}

export interface KindEditor<Q extends object> {
  store: PatchStore<Q>
  state: Q
  /** The query last asked (the settled edits'), and its answer's `results`. */
  asked: Json
  result: Loaded<unknown>
  actions: NamedThing[]
  cohorts: NamedThing[]
  ready: boolean
}

export function useKindEditor<Q extends object>(spec: KindEditorSpec<Q>, search: string, insight: Insight | null): KindEditor<Q> {
  const { path, base, project } = useSession()
  const [store, state] = useUrlStore(
    search,
    insight ? `${base}/insights/${insight.id}` : `${base}/${spec.section}`,
    (initial: Q) => createPatchStore(initial),
    (s) => decodeState(s, spec.defaults),
    (q) => encodeState(q, spec.defaults),
  )
  const asked = useDebounced(spec.query(state), 350)
  const settled = useDebounced(state, 350)
  const ready = spec.ready(settled)
  const result = useLoad<unknown>(
    () => (ready ? post<{ results: unknown }>(path('query/'), { query: asked }).then((a) => a.results) : Promise.resolve(null)),
    [JSON.stringify(asked), ready],
  )
  // The pickers' actions and cohorts are asked once the insight has answered (or failed): chDB answers one query at a time.
  const answered = result.data !== null || result.error !== null || !ready
  const list = (what: string) => () =>
    answered ? get<Paginated<NamedThing>>(withQuery(path(what), { limit: WHOLE_LIST })).then((r) => r.results) : Promise.resolve(null)
  const actions = useLoad(list('actions/'), [project.id, answered])
  const cohorts = useLoad(list('cohorts/'), [project.id, answered])
  return { store, state, asked, result, actions: actions.data ?? [], cohorts: cohorts.data ?? [], ready }
}

/** The page around an editor's controls (`children`) and its result (`result`, drawn once there is data). */
export function KindEditorPage<Q extends object>({
  spec,
  editor,
  insight,
  children,
  hasData,
  waiting,
  result,
  after,
}: {
  spec: KindEditorSpec<Q>
  editor: KindEditor<Q>
  insight: Insight | null
  children: ComponentChildren
  hasData: (result: unknown) => boolean
  /** What the result's card says before the query is complete. */
  waiting: string
  result: (answer: unknown) => ComponentChildren
  /** Below the result: a persons list. */
  after?: ComponentChildren
}) {
  const { base, can } = useSession()
  const savedQuery = useMemo(() => {
    const saved = insight ? spec.state(insight) : null
    return saved ? spec.saved(saved) : null
  }, [insight])
  const { state, result: answer, actions } = editor
  return (
    <div class={`insight-editor ${spec.section}`}>
      <PageHeader title={insight ? (insight.name ?? 'Untitled insight') : spec.title} />
      {insight ? null : <InsightTypeTabs current={spec.section} />}
      {can('insight:write') ? (
        <SaveInsight
          query={spec.saved(state)}
          saved={savedQuery}
          derivedName={spec.name(state, (id) => actions.find((a) => String(a.id) === id)?.name ?? `Action ${id}`)}
          ready={spec.ready(state)}
          insight={insight}
          pageOf={(saved) => `${base}/insights/${saved.id}?${encodeState(state, spec.defaults)}`}
        />
      ) : null}
      <section class="card query">{children}</section>
      <section class="card result" aria-busy={answer.loading}>
        <ErrorBox error={answer.error} />
        {answer.loading && answer.data === null && editor.ready ? <Loading /> : null}
        {!editor.ready ? <Empty title={waiting} /> : null}
        {editor.ready && answer.data !== null && !hasData(answer.data) ? (
          <Empty title="No events match this query.">
            <p>
              Widen the date range, pick other events or remove filters. The events this project has are on the{' '}
              <a href={`${base}/events`}>Events</a> page.
            </p>
          </Empty>
        ) : null}
        {editor.ready && answer.data !== null && hasData(answer.data) ? result(answer.data) : null}
      </section>
      {after}
    </div>
  )
}
