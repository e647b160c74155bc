// Trends: series of events or actions, their math and filters, the date range, interval, breakdown,
// comparison and formula, drawn as a chart, a number or a table. The editor's state is a store
// (trends-store.ts); the URL is written from it, so a view can be shared and reloaded.
import { useEffect, useMemo, useState } from 'preact/hooks'
import { downloadCsv, post, get, WHOLE_LIST, withQuery } from '../api'
import type { Insight, Paginated, TrendAnswer, TrendSeries } from '../answers'
import { Empty, ErrorBox, Loading } from '../components/feedback'
import { PageHeader } from '../components/headers'
import { useAction, useLoad } from '../components/load'
import { DefinitionOptions } from '../components/definitions'
import { Breakdown, DateRange, InsightTypeTabs, IntervalSelect, TestAccounts, type NamedThing } from '../components/insight-controls'
import { PropertyFilters } from '../components/property-filters'
import { TrendResult } from '../components/trend-result'
import { PointPersons } from '../components/point-persons'
import { useDebounced, useUrlStore } from '../components/url-store'
import { useSession } from '../session'
import { createTrendsStore, type TrendsStore } from '../trends-store'
import { Snippet, useAnyEvents } from '../components/snippet'
import { SaveInsight } from '../components/save-insight'
import { derivedName, editorQuery, insightQuery } from '../insight-query'
import {
  DISPLAYS,
  DISPLAY_LABELS,
  MATHS,
  PROPERTY_MATHS,
  decodeQuery,
  encodeQuery,
  seriesComplete,
  seriesLetter,
  trendBody,
  type DisplayName,
  type Series,
} from '../query'

/** `insight`: the saved insight being edited (its page is /insights/:id, the editor's state in the search part). */
export function TrendsPage({ search, insight = null }: { search: string; insight?: Insight | null }) {
  const { path, base, project, can } = useSession()
  const [store, query] = useUrlStore(
    search,
    insight ? `${base}/insights/${insight.id}` : `${base}/trends`,
    createTrendsStore,
    decodeQuery,
    encodeQuery,
  )
  // The saved insight's query as the editor would save it: Save is offered once the editor's differs.
  const savedQuery = useMemo(() => {
    const saved = insight ? editorQuery(insight) : null
    return saved ? insightQuery(saved) : null
  }, [insight])
  const body = useDebounced(trendBody(query), 350)
  // The trend asked, as a TrendsQuery: the source of the persons behind a clicked point.
  const asked = useDebounced(insightQuery(query).source as Record<string, unknown>, 350)
  const [point, setPoint] = useState<{ series: TrendSeries; bucket: number } | null>(null)
  useEffect(() => setPoint(null), [JSON.stringify(body)])
  const ready = (body.events as unknown[]).length + (body.actions as unknown[]).length > 0
  // Nothing to ask before a series is chosen: an empty result.
  const result = useLoad<Pick<TrendAnswer, 'result'>>(
    () => (ready ? post<TrendAnswer>(path('insights/trend/'), body) : Promise.resolve({ result: [] })),
    [JSON.stringify(body)],
  )
  // The pickers' actions and cohorts are asked once the trend has answered (or failed): chDB answers one query at a
  // time, so asking them alongside would keep the chart waiting.
  const answered = result.data !== null || result.error !== null
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
  const [csvError, , runCsv] = useAction()

  const total = result.data ? result.data.result.reduce((n, s) => n + Math.abs(s.aggregated_value ?? s.count), 0) : 0

  return (
    <div class="trends">
      <PageHeader title={insight ? (insight.name ?? 'Untitled insight') : 'Trends'}>
        <button
          type="button"
          class="secondary"
          disabled={!ready}
          onClick={() => runCsv(() => downloadCsv('POST', path('insights/trend/'), body, `trends-${project.id}.csv`))}
        >
          Export CSV
        </button>
      </PageHeader>
      {insight ? null : <InsightTypeTabs current="trends" />}
      <ErrorBox error={csvError} />
      {can('insight:write') ? (
        <SaveInsight
          query={insightQuery(query)}
          saved={savedQuery}
          derivedName={derivedName(query, (id) => actions.data?.find((a) => String(a.id) === id)?.name ?? `Action ${id}`)}
          ready={query.series.some(seriesComplete)}
          insight={insight}
          pageOf={(saved) => `${base}/insights/${saved.id}?${encodeQuery(query)}`}
        />
      ) : null}
      <section class="card query">
        <div class="series-list">
          {query.series.map((s, i) => (
            <SeriesRow index={i} series={s} store={store} actions={actions.data ?? []} removable={query.series.length > 1} />
          ))}
          <button type="button" class="secondary small" onClick={() => store.addSeries()}>
            + Add series
          </button>
        </div>
        <div class="controls">
          <DateRange range={query} onChange={(range) => store.set(range)} />
          <IntervalSelect value={query.interval} onChange={(interval) => store.set({ interval })} />
          <Breakdown choice={query} edit={store} cohorts={cohorts.data ?? []} />
          <label>
            Formula
            <input
              aria-label="Formula"
              placeholder="e.g. A / B"
              value={query.formula}
              onInput={(e) => store.set({ formula: e.currentTarget.value })}
            />
          </label>
          <label class="check">
            <input
              type="checkbox"
              aria-label="Compare to previous period"
              checked={query.compare}
              onChange={(e) => store.set({ compare: e.currentTarget.checked })}
            />{' '}
            Compare to previous period
          </label>
          <TestAccounts checked={query.filterTestAccounts} onChange={(filterTestAccounts) => store.set({ filterTestAccounts })} />
        </div>
        <PropertyFilters
          value={query.properties}
          onChange={(properties) => store.set({ properties })}
          types={['event', 'person', 'cohort']}
        />
      </section>
      <div class="display-picker" role="group" aria-label="Display">
        {(Object.keys(DISPLAYS) as DisplayName[]).map((d) => (
          <button
            type="button"
            class={query.display === d ? 'active' : 'secondary'}
            aria-pressed={query.display === d}
            onClick={() => store.set({ display: d })}
          >
            {DISPLAY_LABELS[d]}
          </button>
        ))}
      </div>
      <section class="card result" aria-busy={result.loading}>
        <ErrorBox error={result.error} />
        {result.loading && !result.data ? <Loading /> : null}
        {result.data && !ready ? <Empty title="Pick an event or an action to see its trend." /> : null}
        {result.data && ready && total === 0 ? <NothingToShow /> : null}
        {result.data && ready && total > 0 ? (
          <TrendResult
            result={result.data.result}
            display={query.display}
            insightId={insight?.id ?? null}
            // A formula's values are no count of persons: PostHog lists none behind them.
            onPoint={body.formula ? undefined : (i, bucket) => setPoint({ series: result.data!.result[i], bucket })}
          />
        ) : null}
      </section>
      {point ? (
        // A panel of its own per point (keyed): another point's list never shows while this one's loads.
        <PointPersons
          key={JSON.stringify([point.series.order, point.series.breakdown_value, point.series.compare_label, point.bucket])}
          point={point}
          source={asked}
          onClose={() => setPoint(null)}
        />
      ) : null}
    </div>
  )
}

/**
 * An empty result: the snippet to install when the project has no event yet, else how to widen the query. Whether
 * there is any event is asked only here, once the trend has come back empty.
 */
function NothingToShow() {
  const { base } = useSession()
  const anyEvents = useAnyEvents()
  if (anyEvents.loading) return null
  if (anyEvents.data === false)
    return (
      <Empty title="This project has no events yet.">
        <p>
          Paste this into your site’s &lt;head&gt; (or send events with any PostHog SDK to this Wren with the same key); pageviews then show
          up here.
        </p>
        <Snippet />
      </Empty>
    )
  return (
    <Empty title="No events match this query.">
      <p>
        Widen the date range, pick another event or remove filters. The events this project has are on the{' '}
        <a href={`${base}/events`}>Events</a> page.
      </p>
    </Empty>
  )
}

/** One series: event or action, which one, its math (and a property math's property), its own filters. */
function SeriesRow({
  index: i,
  series: s,
  store,
  actions,
  removable,
}: {
  index: number
  series: Series
  store: TrendsStore
  actions: NamedThing[]
  removable: boolean
}) {
  const letter = seriesLetter(i)
  return (
    <div class="series" data-series={letter}>
      <span class="letter">{letter}</span>
      <select aria-label="Series kind" value={s.kind} onChange={(e) => store.setSeriesKind(i, e.currentTarget.value as Series['kind'])}>
        <option value="events">Event</option>
        <option value="actions">Action</option>
      </select>
      {s.kind === 'events' ? (
        <>
          <input
            aria-label="Event name"
            list={`event-names-${letter}`}
            placeholder="event name, e.g. $pageview"
            value={s.id}
            onInput={(e) => store.setSeriesEvent(i, e.currentTarget.value)}
          />
          <DefinitionOptions id={`event-names-${letter}`} kind="event" search={s.id} />
        </>
      ) : (
        <select aria-label="Action" value={s.id} onChange={(e) => store.setSeriesEvent(i, e.currentTarget.value)}>
          <option value="">Choose an action…</option>
          {/* selected on the option: the actions arrive after the select has its value (a reload). */}
          {actions.map((a) => (
            <option value={String(a.id)} selected={String(a.id) === s.id}>
              {a.name ?? `Action ${a.id}`}
            </option>
          ))}
        </select>
      )}
      <select aria-label="Math" value={s.math} onChange={(e) => store.setMath(i, e.currentTarget.value)}>
        {MATHS.map((m) => (
          <option value={m.value}>{m.label}</option>
        ))}
      </select>
      {PROPERTY_MATHS.has(s.math) ? (
        <>
          <input
            aria-label="Math property"
            list={`math-properties-${letter}`}
            placeholder="numeric property"
            value={s.mathProperty ?? ''}
            onInput={(e) => store.setMathProperty(i, e.currentTarget.value)}
          />
          <DefinitionOptions id={`math-properties-${letter}`} kind="numeric property" search={s.mathProperty ?? ''} />
        </>
      ) : null}
      {removable ? (
        <button type="button" class="link" aria-label={`Remove series ${letter}`} onClick={() => store.removeSeries(i)}>
          ✕
        </button>
      ) : null}
      <details class="series-filters" open={s.properties.length > 0}>
        <summary>Filters on {letter}</summary>
        <PropertyFilters
          label=""
          value={s.properties}
          onChange={(properties) => store.setSeriesFilters(i, properties)}
          types={['event', 'person', 'cohort']}
        />
      </details>
    </div>
  )
}
