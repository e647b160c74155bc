// Retention: of the persons who did a target event (for the first time, or in each period), how many came back
// to do the returning event in each period after; the period, how many periods, the date range, a breakdown,
// property filters and the test-account filter. Drawn as the cohort table and the retention curve; a cell of the
// table lists its persons.
import { useEffect, useState } from 'preact/hooks'
import type { Insight } from '../answers'
import { Breakdown, DateRange, TestAccounts } from '../components/insight-controls'
import { EntityPicker } from '../components/entity-picker'
import { PropertyFilters } from '../components/property-filters'
import { PersonsPanel } from '../components/persons-panel'
import { RetentionResult, retentionHasData, type RetentionCell } from '../components/retention-result'
import type { BreakdownType } from '../query'
import {
  DEFAULT_RETENTION,
  RETENTION_PERIODS,
  RETENTION_TYPES,
  retentionInsight,
  retentionName,
  retentionQuery,
  retentionReady,
  retentionState,
  type RetentionPeriod,
  type RetentionState,
  type RetentionType,
} from '../insight-queries'
import { KindEditorPage, useKindEditor, type KindEditorSpec } from './kind-editor'

const RETENTION: KindEditorSpec<RetentionState> = {
  section: 'retention',
  title: 'Retention',
  defaults: DEFAULT_RETENTION,
  state: retentionState,
  query: retentionQuery,
  saved: retentionInsight,
  ready: retentionReady,
  name: retentionName,
}

export function RetentionPage({ search, insight = null }: { search: string; insight?: Insight | null }) {
  const editor = useKindEditor(RETENTION, search, insight)
  const { store, state, actions, cohorts, asked } = editor
  const [cell, setCell] = useState<RetentionCell | null>(null)
  // The persons listed are of the retention asked: another closes the list.
  useEffect(() => setCell(null), [JSON.stringify(asked)])
  const breakdownEdits = {
    setBreakdownType: (type: BreakdownType) =>
      type !== state.breakdownType &&
      store.set({ breakdownType: type, breakdown: null, breakdownGroupTypeIndex: type === 'group' ? 0 : null }),
    setBreakdown: (value: string) => store.set({ breakdown: value === '' ? null : value }),
    setBreakdownGroupTypeIndex: (index: number | null) => store.set({ breakdownGroupTypeIndex: index }),
  }
  return (
    <KindEditorPage
      spec={RETENTION}
      editor={editor}
      insight={insight}
      hasData={retentionHasData}
      waiting="Pick the events a cohort starts with and comes back to."
      result={(answer) => <RetentionResult result={answer} state={state} onCell={setCell} />}
      after={
        cell ? (
          <PersonsPanel
            title={cell.title}
            className="retention-persons"
            attributes={{ 'data-cohort': cell.cohort, 'data-interval': cell.interval }}
            columns={['appearances']}
            keep={(row) => Array.isArray(row[2]) && (row[2] as unknown[]).includes(cell.interval)}
            onClose={() => setCell(null)}
            source={{
              kind: 'InsightActorsQuery',
              source: asked,
              interval: cell.cohort,
              ...(cell.breakdown !== null ? { breakdown: [cell.breakdown] } : {}),
            }}
          />
        ) : null
      }
    >
      <div class="retention-entities">
        <div class="series" data-entity="target">
          <span class="entity-role">Persons who did</span>
          <EntityPicker label="Target" entity={state.target} actions={actions} onChange={(target) => store.set({ target })} />
          <select
            aria-label="Retention type"
            value={state.retentionType}
            onChange={(e) => store.set({ retentionType: e.currentTarget.value as RetentionType })}
          >
            {RETENTION_TYPES.map((t) => (
              <option value={t.value}>{t.label}</option>
            ))}
          </select>
        </div>
        <div class="series" data-entity="returning">
          <span class="entity-role">and came back to do</span>
          <EntityPicker label="Returning" entity={state.returning} actions={actions} onChange={(returning) => store.set({ returning })} />
        </div>
      </div>
      <div class="controls">
        <label>
          Period
          <select
            aria-label="Period"
            value={state.period}
            onChange={(e) => store.set({ period: e.currentTarget.value as RetentionPeriod })}
          >
            {RETENTION_PERIODS.map((p) => (
              <option value={p}>{p}</option>
            ))}
          </select>
        </label>
        <label>
          Periods
          <input
            type="number"
            min="1"
            max="100"
            class="window-interval"
            aria-label="Periods"
            value={state.totalIntervals}
            onInput={(e) => {
              const n = Number(e.currentTarget.value)
              if (Number.isInteger(n) && n > 0 && n <= 100) store.set({ totalIntervals: n })
            }}
          />
        </label>
        <DateRange range={state} onChange={(range) => store.set(range)} />
        <Breakdown choice={state} edit={breakdownEdits} cohorts={cohorts} />
        <label class="check">
          <input
            type="checkbox"
            aria-label="Cumulative"
            checked={state.cumulative}
            onChange={(e) => store.set({ cumulative: e.currentTarget.checked })}
          />{' '}
          On or after (cumulative)
        </label>
        <label>
          On a dashboard
          <select
            aria-label="Tile shows"
            value={state.display}
            onChange={(e) => store.set({ display: e.currentTarget.value as RetentionState['display'] })}
          >
            <option value="table">the table</option>
            <option value="curve">the curve</option>
          </select>
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
