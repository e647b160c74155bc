// Lifecycle (who is new, returning, resurrecting or dormant in each interval) and stickiness (how many intervals
// of the range each person was active in): an event or action (stickiness: several series, and the previous
// period to compare), the interval, the date range, property filters and the test-account filter.
import { useEffect, useState } from 'preact/hooks'
import type { Insight } from '../answers'
import { DateRange, IntervalSelect, TestAccounts } from '../components/insight-controls'
import { EntityPicker } from '../components/entity-picker'
import { PropertyFilters } from '../components/property-filters'
import {
  LifecycleResult,
  lifecycleHasData,
  STATUS_LABELS,
  StickinessResult,
  stickinessHasData,
  type StickinessBar,
} from '../components/lifecycle-result'
import { PersonsPanel } from '../components/persons-panel'
import { entityComplete } from '../kind-state'
import { seriesLetter } from '../query'
import {
  DEFAULT_LIFECYCLE,
  DEFAULT_STICKINESS,
  lifecycleInsight,
  lifecycleName,
  lifecycleQuery,
  lifecycleState,
  stickinessInsight,
  stickinessName,
  stickinessQuery,
  stickinessState,
  type LifecycleState,
  type StickinessState,
} from '../insight-queries'
import { KindEditorPage, useKindEditor, type KindEditorSpec } from './kind-editor'

const LIFECYCLE: KindEditorSpec<LifecycleState> = {
  section: 'lifecycle',
  title: 'Lifecycle',
  defaults: DEFAULT_LIFECYCLE,
  state: lifecycleState,
  query: lifecycleQuery,
  saved: lifecycleInsight,
  ready: (s) => entityComplete(s.series),
  name: lifecycleName,
}

export function LifecyclePage({ search, insight = null }: { search: string; insight?: Insight | null }) {
  const editor = useKindEditor(LIFECYCLE, search, insight)
  const { store, state, actions, asked } = editor
  const [bar, setBar] = useState<{ status: LifecycleState['toggled'][number]; day: string; label: string } | null>(null)
  // The persons listed are of the lifecycle asked: another closes the list.
  useEffect(() => setBar(null), [JSON.stringify(asked)])
  const toggle = (status: LifecycleState['toggled'][number]) =>
    store.set({ toggled: state.toggled.includes(status) ? state.toggled.filter((s) => s !== status) : [...state.toggled, status] })
  return (
    <KindEditorPage
      spec={LIFECYCLE}
      editor={editor}
      insight={insight}
      hasData={lifecycleHasData}
      waiting="Pick an event or an action to see its lifecycle."
      result={(answer) => <LifecycleResult result={answer} toggled={state.toggled} onToggle={toggle} onBar={setBar} />}
      after={
        bar ? (
          <PersonsPanel
            title={`${STATUS_LABELS[bar.status]} · ${bar.label}`}
            className="lifecycle-persons"
            attributes={{ 'data-status': bar.status, 'data-day': bar.day }}
            onClose={() => setBar(null)}
            source={{ kind: 'InsightActorsQuery', source: asked, day: bar.day, status: bar.status }}
          />
        ) : null
      }
    >
      <div class="series-list">
        <div class="series" data-series="A">
          <span class="letter">A</span>
          <EntityPicker label="Series A" entity={state.series} actions={actions} onChange={(series) => store.set({ series })} />
        </div>
      </div>
      <div class="controls">
        <DateRange range={state} onChange={(range) => store.set(range)} />
        <IntervalSelect value={state.interval} onChange={(interval) => store.set({ interval })} />
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

const STICKINESS: KindEditorSpec<StickinessState> = {
  section: 'stickiness',
  title: 'Stickiness',
  defaults: DEFAULT_STICKINESS,
  state: stickinessState,
  query: stickinessQuery,
  saved: stickinessInsight,
  ready: (s) => s.series.some(entityComplete),
  name: stickinessName,
}

export function StickinessPage({ search, insight = null }: { search: string; insight?: Insight | null }) {
  const editor = useKindEditor(STICKINESS, search, insight)
  const { store, state, actions, asked } = editor
  const [bar, setBar] = useState<StickinessBar | null>(null)
  useEffect(() => setBar(null), [JSON.stringify(asked)])
  return (
    <KindEditorPage
      spec={STICKINESS}
      editor={editor}
      insight={insight}
      hasData={stickinessHasData}
      waiting="Pick an event or an action to see how often persons do it."
      result={(answer) => <StickinessResult result={answer} onBar={setBar} />}
      after={
        bar ? (
          <PersonsPanel
            title={bar.label}
            className="stickiness-persons"
            attributes={{ 'data-series': bar.series, 'data-day': bar.day, 'data-compare': bar.compare ?? 'current' }}
            onClose={() => setBar(null)}
            source={{
              kind: 'InsightActorsQuery',
              source: asked,
              day: bar.day,
              series: bar.series,
              ...(bar.compare ? { compare: bar.compare } : {}),
            }}
          />
        ) : null
      }
    >
      <div class="series-list">
        {state.series.map((s, i) => {
          const letter = seriesLetter(i)
          return (
            <div class="series" data-series={letter}>
              <span class="letter">{letter}</span>
              <EntityPicker
                label={`Series ${letter}`}
                entity={s}
                actions={actions}
                onChange={(e) => store.set({ series: state.series.map((x, j) => (j === i ? e : x)) })}
              />
              {state.series.length > 1 ? (
                <button
                  type="button"
                  class="link"
                  aria-label={`Remove series ${letter}`}
                  onClick={() => store.set({ series: state.series.filter((_, j) => j !== i) })}
                >
                  ✕
                </button>
              ) : null}
            </div>
          )
        })}
        <button type="button" class="secondary small" onClick={() => store.set({ series: [...state.series, { kind: 'events', id: '' }] })}>
          + Add series
        </button>
      </div>
      <div class="controls">
        <DateRange range={state} onChange={(range) => store.set(range)} />
        <IntervalSelect value={state.interval} onChange={(interval) => store.set({ interval })} />
        <label class="check">
          <input
            type="checkbox"
            aria-label="Compare to previous period"
            checked={state.compare}
            onChange={(e) => store.set({ compare: e.currentTarget.checked })}
          />{' '}
          Compare to previous period
        </label>
        <label class="check">
          <input
            type="checkbox"
            aria-label="Cumulative"
            checked={state.cumulative}
            onChange={(e) => store.set({ cumulative: e.currentTarget.checked })}
          />{' '}
          N or more intervals (cumulative)
        </label>
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
