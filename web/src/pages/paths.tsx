// Paths: what persons did step after step in their sessions (page views, screens, custom events), from a start
// point or to an end point, with how many steps and edges, the edges' weights, excluded events, groupings of items
// (wildcards), a HogQL expression as the item, the date range, property filters and the test-account filter; or the
// paths after, before or between a funnel's steps, opened from the funnel's chart. Drawn as a Sankey diagram; a
// step's node lists the persons who reached it.
import { useEffect, useState } from 'preact/hooks'
import type { Insight } from '../answers'
import { DateRange, TestAccounts } from '../components/insight-controls'
import { DefinitionOptions } from '../components/definitions'
import { PropertyFilters } from '../components/property-filters'
import { PersonsPanel } from '../components/persons-panel'
import { PathsResult, pathsHasData, splitKey } from '../components/paths-result'
import {
  DEFAULT_PATHS,
  PATH_TYPES,
  funnelPaths,
  funnelPathsLabel,
  pathsInsight,
  pathsName,
  pathsQuery,
  pathsState,
  type PathsState,
} from '../insight-queries'
import { entityName, nodeEntity } from '../kind-state'
import { KindEditorPage, useKindEditor, type KindEditorSpec } from './kind-editor'

type Json = Record<string, unknown>

const PATHS: KindEditorSpec<PathsState> = {
  section: 'paths',
  title: 'Paths',
  defaults: DEFAULT_PATHS,
  state: pathsState,
  query: pathsQuery,
  saved: pathsInsight,
  ready: () => true,
  name: (s) => pathsName(s),
}

/** A whole number input kept within `min`…`max`. */
function Count({
  label,
  value,
  min,
  max,
  onChange,
}: {
  label: string
  value: number
  min: number
  max: number
  onChange: (n: number) => void
}) {
  return (
    <label>
      {label}
      <input
        type="number"
        min={String(min)}
        max={String(max)}
        class="window-interval"
        aria-label={label}
        value={value}
        onInput={(e) => {
          const n = Number(e.currentTarget.value)
          if (Number.isInteger(n) && n >= min && n <= max) onChange(n)
        }}
      />
    </label>
  )
}

/** A whole number of at least 1, or empty for none. */
function Bound({ label, value, onChange }: { label: string; value: number | null; onChange: (n: number | null) => void }) {
  return (
    <label>
      {label}
      <input
        type="number"
        min="1"
        class="window-interval"
        aria-label={label}
        placeholder="none"
        value={value ?? ''}
        onInput={(e) => {
          const text = e.currentTarget.value.trim()
          const n = Number(text)
          if (text === '') onChange(null)
          else if (Number.isInteger(n) && n >= 1) onChange(n)
        }}
      />
    </label>
  )
}

export function PathsPage({ search, insight = null }: { search: string; insight?: Insight | null }) {
  const editor = useKindEditor(PATHS, search, insight)
  const { store, state, asked } = editor
  const [node, setNode] = useState<string | null>(null)
  useEffect(() => setNode(null), [JSON.stringify(asked)])
  const funnel = funnelPaths(state.funnel)
  const actionName = (id: string) => editor.actions.find((a) => String(a.id) === id)?.name ?? `action ${id}`
  const funnelSteps = funnel && Array.isArray(funnel.funnelSource.series) ? funnel.funnelSource.series : []
  const pointKind = state.types.length === 1 && state.types[0] === '$pageview' ? 'URL, e.g. /pricing' : 'event or URL'
  return (
    <KindEditorPage
      spec={PATHS}
      editor={editor}
      insight={insight}
      hasData={pathsHasData}
      waiting="Pick what the paths are made of."
      result={(answer) => <PathsResult result={answer} onNode={setNode} />}
      after={
        node ? (
          <PersonsPanel
            title={`Persons at step ${splitKey(node).step}: ${splitKey(node).name}`}
            className="paths-persons"
            attributes={{ 'data-node': node }}
            onClose={() => setNode(null)}
            source={{
              kind: 'InsightActorsQuery',
              source: { ...asked, pathsFilter: { ...(asked.pathsFilter as Json), pathEndKey: node } },
            }}
          />
        ) : null
      }
    >
      {funnel ? (
        <p class="funnel-paths" data-testid="funnel-paths">
          <span>
            Paths {funnelPathsLabel(funnel)}:{' '}
            <strong>{funnelSteps.map((node) => entityName(nodeEntity(node), actionName) || 'any event').join(' → ')}</strong>
          </span>{' '}
          <button type="button" class="link small" onClick={() => store.set({ funnel: '' })}>
            Remove the funnel
          </button>
        </p>
      ) : null}
      <fieldset class="filters path-types">
        <legend>Paths of</legend>
        {PATH_TYPES.map((t) => (
          <label class="check">
            <input
              type="checkbox"
              aria-label={t.label}
              checked={state.types.includes(t.value)}
              onChange={(e) =>
                store.set({
                  types: e.currentTarget.checked ? [...state.types, t.value] : state.types.filter((x) => x !== t.value),
                })
              }
            />{' '}
            {t.label}
          </label>
        ))}
      </fieldset>
      <div class="controls">
        <label>
          Starts at
          <input
            aria-label="Start point"
            placeholder={pointKind}
            value={state.startPoint}
            onInput={(e) => store.set({ startPoint: e.currentTarget.value })}
          />
        </label>
        <label>
          Ends at
          <input
            aria-label="End point"
            placeholder={pointKind}
            value={state.endPoint}
            onInput={(e) => store.set({ endPoint: e.currentTarget.value })}
          />
        </label>
        <Count label="Steps" value={state.stepLimit} min={2} max={20} onChange={(stepLimit) => store.set({ stepLimit })} />
        <Count label="Edges" value={state.edgeLimit} min={1} max={500} onChange={(edgeLimit) => store.set({ edgeLimit })} />
        <Bound label="Min edge weight" value={state.minEdgeWeight} onChange={(minEdgeWeight) => store.set({ minEdgeWeight })} />
        <Bound label="Max edge weight" value={state.maxEdgeWeight} onChange={(maxEdgeWeight) => store.set({ maxEdgeWeight })} />
        <label>
          Excluded events
          <input
            aria-label="Excluded events"
            list="paths-excluded"
            placeholder="comma-separated"
            value={state.excludeEvents.join(',')}
            onInput={(e) => store.set({ excludeEvents: e.currentTarget.value.split(',') })}
          />
          <DefinitionOptions id="paths-excluded" kind="event" search={state.excludeEvents[state.excludeEvents.length - 1] ?? ''} />
        </label>
        <label>
          Path groupings
          <input
            aria-label="Path groupings"
            placeholder="e.g. /product/*, comma-separated"
            value={state.pathGroupings.join(',')}
            onInput={(e) => store.set({ pathGroupings: e.currentTarget.value.split(',') })}
          />
        </label>
        {state.types.includes('hogql') ? (
          <label>
            HogQL item
            <input
              aria-label="HogQL path expression"
              placeholder="e.g. properties.$screen_name"
              value={state.hogql}
              onInput={(e) => store.set({ hogql: e.currentTarget.value })}
            />
          </label>
        ) : null}
        <DateRange range={state} onChange={(range) => store.set(range)} />
        <TestAccounts checked={state.filterTestAccounts} onChange={(filterTestAccounts) => store.set({ filterTestAccounts })} />
      </div>
      <PropertyFilters
        value={state.properties}
        onChange={(properties) => store.set({ properties })}
        types={['event', 'person', 'cohort']}
      />
    </KindEditorPage>
  )
}
