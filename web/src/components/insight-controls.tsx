// The controls the trends and funnels editors share: the date range (a preset or custom dates), the breakdown
// (its type, then the value that type takes), and the switch between the two editors.
import { DefinitionOptions } from './definitions'
import { BREAKDOWN_LABELS, BREAKDOWN_TYPES, DATE_PRESETS, type BreakdownChoice, type BreakdownType, type TrendQuery } from '../query'
import type { Action, Cohort } from '../answers'
import { useSession } from '../session'

/** An action or a cohort, as the series, step and breakdown pickers name it. */
export type NamedThing = Pick<Action | Cohort, 'id' | 'name'>

type Range = Pick<TrendQuery, 'dateFrom' | 'dateTo'>

/** The date range: a preset, or custom From and To dates. */
export function DateRange({ range, onChange }: { range: Range; onChange: (range: Range) => void }) {
  const custom = !DATE_PRESETS.some((p) => p.value === range.dateFrom) || range.dateTo !== null
  return (
    <>
      <label>
        Date range
        <select
          aria-label="Date range"
          value={custom ? 'custom' : range.dateFrom}
          onChange={(e) => {
            const value = e.currentTarget.value
            if (value === 'custom')
              onChange({
                dateFrom: new Date(Date.now() - 14 * 86_400_000).toISOString().slice(0, 10),
                dateTo: new Date().toISOString().slice(0, 10),
              })
            else onChange({ dateFrom: value, dateTo: null })
          }}
        >
          {DATE_PRESETS.map((p) => (
            <option value={p.value}>{p.label}</option>
          ))}
          <option value="custom">Custom…</option>
        </select>
      </label>
      {custom ? (
        <>
          <label>
            From
            <input
              type="date"
              aria-label="From"
              value={range.dateFrom}
              onChange={(e) => onChange({ ...range, dateFrom: e.currentTarget.value })}
            />
          </label>
          <label>
            To
            <input
              type="date"
              aria-label="To"
              value={range.dateTo ?? ''}
              onChange={(e) => onChange({ ...range, dateTo: e.currentTarget.value || null })}
            />
          </label>
        </>
      ) : null}
    </>
  )
}

/** How an editor's store changes its breakdown (trends-store.ts and funnel-store.ts both have these). */
export interface BreakdownEdits {
  setBreakdownType(type: BreakdownType): void
  setBreakdown(value: string): void
  setBreakdownGroupTypeIndex(index: number | null): void
}

const BREAKDOWN_PLACEHOLDERS: Record<BreakdownType, string> = {
  event: 'none, e.g. $browser',
  person: 'none, e.g. plan',
  cohort: '',
  group: 'none, e.g. industry',
  session: 'none, e.g. $entry_current_url',
  hogql: "none, e.g. properties.$browser || ' ' || properties.$os",
}

/** The breakdown: its type, then the value that type takes (a property, a cohort, a group's property, an expression). */
export function Breakdown({ choice, edit, cohorts }: { choice: BreakdownChoice; edit: BreakdownEdits; cohorts: NamedThing[] }) {
  const type = choice.breakdownType
  return (
    <label>
      Breakdown by
      <span class="inline">
        <select aria-label="Breakdown type" value={type} onChange={(e) => edit.setBreakdownType(e.currentTarget.value as BreakdownType)}>
          {BREAKDOWN_TYPES.map((t) => (
            <option value={t}>{BREAKDOWN_LABELS[t]}</option>
          ))}
        </select>
        {type === 'group' ? (
          <select
            aria-label="Breakdown group type"
            value={String(choice.breakdownGroupTypeIndex ?? '')}
            onChange={(e) => edit.setBreakdownGroupTypeIndex(e.currentTarget.value === '' ? null : Number(e.currentTarget.value))}
          >
            {[0, 1, 2, 3, 4].map((g) => (
              <option value={String(g)}>group type {g}</option>
            ))}
          </select>
        ) : null}
        {type === 'cohort' ? (
          <select aria-label="Breakdown cohort" value={choice.breakdown ?? ''} onChange={(e) => edit.setBreakdown(e.currentTarget.value)}>
            <option value="">none</option>
            <option value="all">all users</option>
            {cohorts.map((c) => (
              <option value={String(c.id)} selected={String(c.id) === choice.breakdown}>
                {c.name ?? `Cohort ${c.id}`}
              </option>
            ))}
          </select>
        ) : type === 'hogql' ? (
          <input
            aria-label="Breakdown expression"
            placeholder={BREAKDOWN_PLACEHOLDERS[type]}
            value={choice.breakdown ?? ''}
            onInput={(e) => edit.setBreakdown(e.currentTarget.value)}
          />
        ) : (
          <>
            <input
              aria-label="Breakdown property"
              list="breakdown-properties"
              placeholder={BREAKDOWN_PLACEHOLDERS[type]}
              value={choice.breakdown ?? ''}
              onInput={(e) => edit.setBreakdown(e.currentTarget.value)}
            />
            <DefinitionOptions
              id="breakdown-properties"
              kind={type === 'event' ? 'event property' : type}
              search={choice.breakdown ?? ''}
              groupTypeIndex={choice.breakdownGroupTypeIndex}
            />
          </>
        )}
      </span>
    </label>
  )
}

/** Trends or Funnels: which editor a new insight is built in (PostHog's insight type tabs). */
export function InsightTypeTabs({ current }: { current: 'trends' | 'funnels' }) {
  const { base } = useSession()
  return (
    <nav class="insight-tabs" aria-label="Insight type">
      {(['trends', 'funnels'] as const).map((type) => (
        <a href={`${base}/${type}`} class={type === current ? 'active' : ''} aria-current={type === current ? 'page' : undefined}>
          {type === 'trends' ? 'Trends' : 'Funnels'}
        </a>
      ))}
    </nav>
  )
}
