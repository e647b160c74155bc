// The controls the insight editors share: the date range (a preset or custom dates), the breakdown (its type,
// then the value that type takes), the interval, the test-account filter, and the switch between the editors.
import { DefinitionOptions } from './definitions'
import {
  BREAKDOWN_LABELS,
  BREAKDOWN_TYPES,
  DATE_PRESETS,
  INTERVALS,
  type BreakdownChoice,
  type BreakdownType,
  type Interval,
  type TrendQuery,
} from '../query'
import { INSIGHT_KINDS } from '../insight-kinds'
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

/** Which editor a new insight is built in (PostHog's insight type tabs): one per insight kind. */
export function InsightTypeTabs({ current }: { current: string }) {
  const { base } = useSession()
  return (
    <nav class="insight-tabs" aria-label="Insight type">
      {INSIGHT_KINDS.map((k) => (
        <a
          href={`${base}/${k.section}`}
          class={k.section === current ? 'active' : ''}
          aria-current={k.section === current ? 'page' : undefined}
        >
          {k.title}
        </a>
      ))}
    </nav>
  )
}

/** The buckets' size (hour … month). */
export function IntervalSelect({ value, onChange }: { value: Interval; onChange: (interval: Interval) => void }) {
  return (
    <label>
      Interval
      <select aria-label="Interval" value={value} onChange={(e) => onChange(e.currentTarget.value as Interval)}>
        {INTERVALS.map((i) => (
          <option value={i}>{i}</option>
        ))}
      </select>
    </label>
  )
}

/** The "Filter out test accounts" checkbox. */
export function TestAccounts({ checked, onChange }: { checked: boolean; onChange: (checked: boolean) => void }) {
  return (
    <label class="check">
      <input type="checkbox" aria-label="Filter out test accounts" checked={checked} onChange={(e) => onChange(e.currentTarget.checked)} />{' '}
      Filter out test accounts
    </label>
  )
}
