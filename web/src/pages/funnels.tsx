// Funnels: steps of events or actions (each with its own filters), in order, strictly or in any order, within a
// conversion window, with exclusions, a breakdown, the date range and the test-account filter; drawn as step
// bars, conversion over time or the time to convert, with the persons behind each step and each drop-off. The
// editor's state is a store (funnel-store.ts); the URL is written from it, so a view can be shared and reloaded.
import { useEffect, useMemo, useState } from 'preact/hooks'
import { get, post, WHOLE_LIST, withQuery } from '../api'
import type { Insight, Paginated } from '../answers'
import { Empty, ErrorBox, Loading } from '../components/feedback'
import { PageHeader } from '../components/headers'
import { useLoad } from '../components/load'
import { DefinitionOptions } from '../components/definitions'
import { PropertyFilters } from '../components/property-filters'
import { Breakdown, DateRange, InsightTypeTabs, IntervalSelect, TestAccounts, type NamedThing } from '../components/insight-controls'
import { FunnelResult, funnelHasData, type PersonsAsk } from '../components/funnel-result'
import { SaveInsight } from '../components/save-insight'
import { PersonsPanel } from '../components/persons-panel'
import { useDebounced, useUrlStore } from '../components/url-store'
import { useSession } from '../session'
import { navigate } from '../router'
import { DEFAULT_PATHS } from '../insight-queries'
import { encodeState } from '../kind-state'
import { createFunnelStore, MIN_STEPS, type FunnelStore } from '../funnel-store'
import {
  ORDER_TYPES,
  VIZ_TYPES,
  WINDOW_UNITS,
  decodeFunnel,
  encodeFunnel,
  funnelEditorQuery,
  funnelInsightQuery,
  funnelName,
  funnelsQuery,
  readySteps,
  type FunnelQuery,
  type FunnelStep,
  type OrderType,
  type VizType,
  type WindowUnit,
} from '../funnel-query'

type Json = Record<string, unknown>

/** `insight`: the saved funnel being edited (its page is /insights/:id, the editor's state in the search part). */
export function FunnelsPage({ search, insight = null }: { search: string; insight?: Insight | null }) {
  const { path, base, project, can } = useSession()
  const [store, query] = useUrlStore(
    search,
    insight ? `${base}/insights/${insight.id}` : `${base}/funnels`,
    createFunnelStore,
    decodeFunnel,
    encodeFunnel,
  )
  const savedQuery = useMemo(() => {
    const saved = insight ? funnelEditorQuery(insight) : null
    return saved ? funnelInsightQuery(saved) : null
  }, [insight])
  const body = useDebounced(funnelsQuery(query), 350)
  const ready = (body.series as unknown[]).length >= MIN_STEPS
  const vizType = (body.funnelsFilter as Json).funnelVizType as VizType
  // The answer keeps the viz type it was asked in: the previous answer stays drawn while the next one loads.
  const result = useLoad<{ results: unknown; vizType: VizType } | null>(
    () =>
      ready
        ? post<{ results: unknown }>(path('query/'), { query: body }).then((answer) => ({ results: answer.results, vizType }))
        : Promise.resolve(null),
    [JSON.stringify(body)],
  )
  // The pickers' actions and cohorts are asked once the funnel has answered (or failed): chDB answers one query at a time.
  const answered = result.data !== null || result.error !== null || !ready
  const actions = useLoad(
    () =>
      answered
        ? get<Paginated<NamedThing>>(withQuery(path('actions/'), { limit: WHOLE_LIST })).then((r) => r.results)
        : Promise.resolve(null),
    [project.id, answered],
  )
  const cohorts = useLoad(
    () =>
      answered
        ? get<Paginated<NamedThing>>(withQuery(path('cohorts/'), { limit: WHOLE_LIST })).then((r) => r.results)
        : Promise.resolve(null),
    [project.id, answered],
  )
  const [persons, setPersons] = useState<(PersonsAsk & { source: Json }) | null>(null)
  // The persons listed are of the funnel asked: another funnel closes the list.
  useEffect(() => setPersons(null), [JSON.stringify(body)])
  const hasData = result.data ? funnelHasData(result.data.results, result.data.vizType) : false

  return (
    <div class="funnels">
      <PageHeader title={insight ? (insight.name ?? 'Untitled insight') : 'Funnels'} />
      {insight ? null : <InsightTypeTabs current="funnels" />}
      {can('insight:write') ? (
        <SaveInsight
          query={funnelInsightQuery(query)}
          saved={savedQuery}
          derivedName={funnelName(query, (id) => actions.data?.find((a) => String(a.id) === id)?.name ?? `Action ${id}`)}
          ready={readySteps(query).length >= MIN_STEPS}
          insight={insight}
          pageOf={(saved) => `${base}/insights/${saved.id}?${encodeFunnel(query)}`}
        />
      ) : null}
      <section class="card query">
        <ol class="series-list funnel-step-list" aria-label="Steps">
          {query.steps.map((s, i) => (
            <StepRow index={i} step={s} count={query.steps.length} store={store} actions={actions.data ?? []} />
          ))}
        </ol>
        <button type="button" class="secondary small" onClick={() => store.addStep()}>
          + Add step
        </button>
        <div class="controls">
          <label>
            Step order
            <select
              aria-label="Step order"
              value={query.orderType}
              onChange={(e) => store.set({ orderType: e.currentTarget.value as OrderType })}
            >
              {ORDER_TYPES.map((o) => (
                <option value={o.value}>{o.label}</option>
              ))}
            </select>
          </label>
          <label>
            Conversion window
            <span class="inline">
              <input
                type="number"
                min="1"
                class="window-interval"
                aria-label="Conversion window"
                value={query.windowInterval}
                onInput={(e) => {
                  const n = Number(e.currentTarget.value)
                  if (Number.isInteger(n) && n > 0) store.set({ windowInterval: n })
                }}
              />
              <select
                aria-label="Conversion window unit"
                value={query.windowUnit}
                onChange={(e) => store.set({ windowUnit: e.currentTarget.value as WindowUnit })}
              >
                {WINDOW_UNITS.map((u) => (
                  <option value={u}>{u}s</option>
                ))}
              </select>
            </span>
          </label>
          <DateRange range={query} onChange={(range) => store.set(range)} />
          <Breakdown choice={query} edit={store} cohorts={cohorts.data ?? []} />
          {query.vizType === 'trends' ? <IntervalSelect value={query.interval} onChange={(interval) => store.set({ interval })} /> : null}
          <TestAccounts checked={query.filterTestAccounts} onChange={(filterTestAccounts) => store.set({ filterTestAccounts })} />
        </div>
        <Exclusions query={query} store={store} />
        <PropertyFilters
          value={query.properties}
          onChange={(properties) => store.set({ properties })}
          types={['event', 'person', 'cohort']}
        />
      </section>
      <div class="display-picker" role="group" aria-label="Graph type">
        {VIZ_TYPES.map((v) => (
          <button
            type="button"
            class={query.vizType === v.value ? 'active' : 'secondary'}
            aria-pressed={query.vizType === v.value}
            onClick={() => store.set({ vizType: v.value })}
          >
            {v.label}
          </button>
        ))}
      </div>
      <section class="card result" aria-busy={result.loading}>
        <ErrorBox error={result.error} />
        {result.loading && !result.data ? <Loading /> : null}
        {!ready ? <Empty title="Pick at least two steps to see where people drop off." /> : null}
        {result.data && ready && !hasData ? (
          <Empty title="Nobody entered this funnel in this range.">
            <p>
              Widen the date range or the conversion window, or pick other steps. The events this project has are on the{' '}
              <a href={`${base}/events`}>Events</a> page.
            </p>
          </Empty>
        ) : null}
        {result.data && ready && hasData ? (
          <FunnelResult
            result={result.data.results}
            vizType={result.data.vizType}
            insightId={insight?.id ?? null}
            onPersons={(ask) => setPersons({ ...ask, source: body })}
            onPaths={({ step, type }) => {
              // The paths open in their own editor, over the funnel's dates, from its steps (a funnel of steps).
              const funnel = { funnelPathType: type, funnelStep: step, funnelSource: funnelsQuery(query, 'steps') }
              const paths = { ...DEFAULT_PATHS, dateFrom: query.dateFrom, dateTo: query.dateTo, funnel: JSON.stringify(funnel) }
              navigate(`${base}/paths?${encodeState(paths, DEFAULT_PATHS)}`)
            }}
          />
        ) : null}
      </section>
      {persons ? (
        <FunnelPersons
          key={JSON.stringify([persons.step, persons.period, persons.breakdown])}
          ask={persons}
          onClose={() => setPersons(null)}
        />
      ) : null}
    </div>
  )
}

/** One step: event or action, which one, moving it up or down, removing it, its own filters. */
function StepRow({
  index: i,
  step: s,
  count,
  store,
  actions,
}: {
  index: number
  step: FunnelStep
  count: number
  store: FunnelStore
  actions: NamedThing[]
}) {
  const n = i + 1
  return (
    <li class="series funnel-step-editor" data-step={n}>
      <span class="letter">{n}</span>
      <select
        aria-label={`Step ${n} kind`}
        value={s.kind}
        onChange={(e) => store.setStepKind(i, e.currentTarget.value as FunnelStep['kind'])}
      >
        <option value="events">Event</option>
        <option value="actions">Action</option>
      </select>
      {s.kind === 'events' ? (
        <>
          <input
            aria-label={`Step ${n} event`}
            list={`step-events-${n}`}
            placeholder="event name, e.g. signed_up"
            value={s.id}
            onInput={(e) => store.setStepEvent(i, e.currentTarget.value)}
          />
          <DefinitionOptions id={`step-events-${n}`} kind="event" search={s.id} />
        </>
      ) : (
        <select aria-label={`Step ${n} action`} value={s.id} onChange={(e) => store.setStepEvent(i, e.currentTarget.value)}>
          <option value="">Choose an action…</option>
          {actions.map((a) => (
            <option value={String(a.id)} selected={String(a.id) === s.id}>
              {a.name ?? `Action ${a.id}`}
            </option>
          ))}
        </select>
      )}
      <span class="step-moves">
        <button type="button" class="link" aria-label={`Move step ${n} up`} disabled={i === 0} onClick={() => store.moveStep(i, -1)}>
          ↑
        </button>
        <button
          type="button"
          class="link"
          aria-label={`Move step ${n} down`}
          disabled={i === count - 1}
          onClick={() => store.moveStep(i, 1)}
        >
          ↓
        </button>
        {count > MIN_STEPS ? (
          <button type="button" class="link" aria-label={`Remove step ${n}`} onClick={() => store.removeStep(i)}>
            ✕
          </button>
        ) : null}
      </span>
      <details class="series-filters" open={s.properties.length > 0}>
        <summary>Filters on step {n}</summary>
        <PropertyFilters
          label=""
          value={s.properties}
          onChange={(properties) => store.setStepFilters(i, properties)}
          types={['event', 'person', 'cohort']}
        />
      </details>
    </li>
  )
}

/** Exclusions: an event that, done between two steps, takes a person out of the funnel. */
function Exclusions({ query, store }: { query: FunnelQuery; store: FunnelStore }) {
  const steps = query.steps.map((_, i) => i)
  return (
    <fieldset class="filters exclusions">
      <legend>Exclusions</legend>
      {query.exclusions.map((e, i) => (
        <div class="filter-row" data-exclusion={i}>
          <input
            aria-label="Excluded event"
            list={`exclusion-events-${i}`}
            placeholder="event, e.g. $pageleave"
            value={e.event}
            onInput={(ev) => store.setExclusion(i, { event: ev.currentTarget.value })}
          />
          <DefinitionOptions id={`exclusion-events-${i}`} kind="event" search={e.event} />
          <label class="inline-label">
            between step
            <select
              aria-label="Exclusion from step"
              value={String(e.from)}
              onChange={(ev) => store.setExclusion(i, { from: Number(ev.currentTarget.value) })}
            >
              {steps.slice(0, -1).map((s) => (
                <option value={String(s)}>{s + 1}</option>
              ))}
            </select>
          </label>
          <label class="inline-label">
            and
            <select
              aria-label="Exclusion to step"
              value={String(e.to)}
              onChange={(ev) => store.setExclusion(i, { to: Number(ev.currentTarget.value) })}
            >
              {steps.slice(1).map((s) => (
                <option value={String(s)} disabled={s <= e.from}>
                  {s + 1}
                </option>
              ))}
            </select>
          </label>
          <button type="button" class="link" aria-label="Remove exclusion" onClick={() => store.removeExclusion(i)}>
            ✕
          </button>
        </div>
      ))}
      <button type="button" class="secondary small" onClick={() => store.addExclusion()}>
        + Add exclusion
      </button>
    </fieldset>
  )
}

/** The persons behind a step or a drop-off, or a period of conversion over time: a FunnelsActorsQuery of the funnel. */
function FunnelPersons({ ask, onClose }: { ask: PersonsAsk & { source: Json }; onClose: () => void }) {
  return (
    <PersonsPanel
      title={ask.title}
      className="funnel-persons"
      attributes={ask.period ? { 'data-period': ask.period } : { 'data-funnel-step': ask.step }}
      onClose={onClose}
      source={{
        kind: 'FunnelsActorsQuery',
        source: { ...ask.source, funnelsFilter: { ...(ask.source.funnelsFilter as Json), funnelVizType: ask.period ? 'trends' : 'steps' } },
        ...(ask.period ? { funnelTrendsEntrancePeriodStart: ask.period, funnelTrendsDropOff: false } : { funnelStep: ask.step }),
        ...(ask.breakdown !== undefined ? { funnelStepBreakdown: ask.breakdown } : {}),
      }}
    />
  )
}
