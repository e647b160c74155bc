// Trends: series of events or actions, their math and filters, the date range, interval, breakdown,
// comparison and formula, drawn as a chart, a number or a table. The whole query lives in the URL.
import { useEffect, useMemo, useState } from 'preact/hooks'
import { downloadCsv, post, get } from '../api'
import type { Action, Cohort, EventPage, Paginated, TrendAnswer } from '../answers'
import { Empty, ErrorBox, Loading } from '../components/feedback'
import { PageHeader } from '../components/headers'
import { useAction, useLoad } from '../components/load'
import { completeFilters, PropertyFilters } from '../components/property-filters'
import { TrendChart } from '../chart'
import { formatValue, shapeChart, shapeTotals, type TrendSeries } from '../chart-data'
import { navigate } from '../router'
import { useSession } from '../session'
import { Snippet } from './settings'
import {
  BREAKDOWN_TYPES,
  DATE_PRESETS,
  DISPLAYS,
  INTERVALS,
  MATHS,
  PROPERTY_MATHS,
  decodeQuery,
  encodeQuery,
  seriesLetter,
  trendBody,
  type DisplayName,
  type Series,
  type TrendQuery,
} from '../query'

/** An action or a cohort, as the series and breakdown pickers name it. */
type NamedThing = Pick<Action | Cohort, 'id' | 'name'>

/** The query as sent: half-typed filters and series left out, so typing does not fail the request. */
function sendable(query: TrendQuery): TrendQuery {
  return {
    ...query,
    series: query.series
      .filter((s) => s.id.trim() !== '')
      .map((s) => ({ ...s, properties: completeFilters(s.properties), mathProperty: s.mathProperty?.trim() || null })),
    properties: completeFilters(query.properties),
    breakdown: query.breakdown?.trim() || null,
  }
}

/** A value that follows `value` once it has stayed the same for `ms`. */
function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value)
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms)
    return () => clearTimeout(timer)
  }, [JSON.stringify(value)])
  return settled
}

export function TrendsPage({ search }: { search: string }) {
  const { path, base, project } = useSession()
  const query = useMemo(() => decodeQuery(search), [search])
  const update = (patch: Partial<TrendQuery>) => navigate(`${base}/trends?${encodeQuery({ ...query, ...patch })}`, { replace: true })
  const body = useDebounced(trendBody(sendable(query)), 350)
  const ready = (body.events as unknown[]).length + (body.actions as unknown[]).length > 0
  // Nothing to ask before a series is chosen: an empty result.
  const result = useLoad<Pick<TrendAnswer, 'result'>>(
    () => (ready ? post<TrendAnswer>(path('insights/trend/'), body) : Promise.resolve({ result: [] })),
    [JSON.stringify(body)],
  )
  const eventNames = useLoad(
    () => get<EventPage>(path('events/?limit=200')).then((r) => [...new Set(r.results.map((e) => e.event))].sort()),
    [project.id],
  )
  const actions = useLoad(() => get<Paginated<NamedThing>>(path('actions/')).then((r) => r.results), [project.id])
  const cohorts = useLoad(() => get<Paginated<NamedThing>>(path('cohorts/')).then((r) => r.results), [project.id])
  const [csvError, , runCsv] = useAction()

  const setSeries = (i: number, patch: Partial<Series>) =>
    update({ series: query.series.map((s, j) => (j === i ? { ...s, ...patch } : s)) })
  const customRange = !DATE_PRESETS.some((p) => p.value === query.dateFrom) || query.dateTo !== null
  const total = result.data ? result.data.result.reduce((n, s) => n + Math.abs(s.aggregated_value ?? s.count), 0) : 0

  return (
    <div class="trends">
      <PageHeader title="Trends">
        <button
          type="button"
          class="secondary"
          disabled={!ready}
          onClick={() => runCsv(() => downloadCsv('POST', path('insights/trend/'), body, `trends-${project.id}.csv`))}
        >
          Export CSV
        </button>
      </PageHeader>
      <ErrorBox error={csvError} />
      <datalist id="event-names">
        {(eventNames.data ?? []).map((name) => (
          <option value={name} />
        ))}
      </datalist>
      <section class="card query">
        <div class="series-list">
          {query.series.map((s, i) => (
            <div class="series" key={i}>
              <span class="letter">{seriesLetter(i)}</span>
              <select
                aria-label="Series kind"
                value={s.kind}
                onChange={(e) => setSeries(i, { kind: e.currentTarget.value as Series['kind'], id: '' })}
              >
                <option value="events">Event</option>
                <option value="actions">Action</option>
              </select>
              {s.kind === 'events' ? (
                <input
                  aria-label="Event name"
                  list="event-names"
                  placeholder="event name, e.g. $pageview"
                  value={s.id}
                  onInput={(e) => setSeries(i, { id: e.currentTarget.value })}
                />
              ) : (
                <select aria-label="Action" value={s.id} onChange={(e) => setSeries(i, { id: e.currentTarget.value })}>
                  <option value="">Choose an action…</option>
                  {(actions.data ?? []).map((a) => (
                    <option value={String(a.id)}>{a.name ?? `Action ${a.id}`}</option>
                  ))}
                </select>
              )}
              <select aria-label="Math" value={s.math} onChange={(e) => setSeries(i, { math: e.currentTarget.value })}>
                {MATHS.map((m) => (
                  <option value={m.value}>{m.label}</option>
                ))}
              </select>
              {PROPERTY_MATHS.has(s.math) ? (
                <input
                  aria-label="Math property"
                  placeholder="numeric property"
                  value={s.mathProperty ?? ''}
                  onInput={(e) => setSeries(i, { mathProperty: e.currentTarget.value })}
                />
              ) : null}
              {query.series.length > 1 ? (
                <button
                  type="button"
                  class="link"
                  aria-label={`Remove series ${seriesLetter(i)}`}
                  onClick={() => update({ series: query.series.filter((_, j) => j !== i) })}
                >
                  ✕
                </button>
              ) : null}
              <details class="series-filters" open={s.properties.length > 0}>
                <summary>Filters on {seriesLetter(i)}</summary>
                <PropertyFilters
                  label=""
                  value={s.properties}
                  onChange={(properties) => setSeries(i, { properties })}
                  types={['event', 'person', 'cohort']}
                />
              </details>
            </div>
          ))}
          <button
            type="button"
            class="secondary small"
            onClick={() =>
              update({ series: [...query.series, { kind: 'events', id: '', math: 'total', mathProperty: null, properties: [] }] })
            }
          >
            + Add series
          </button>
        </div>
        <div class="controls">
          <label>
            Date range
            <select
              aria-label="Date range"
              value={customRange ? 'custom' : query.dateFrom}
              onChange={(e) => {
                const value = e.currentTarget.value
                if (value === 'custom')
                  update({
                    dateFrom: new Date(Date.now() - 14 * 86_400_000).toISOString().slice(0, 10),
                    dateTo: new Date().toISOString().slice(0, 10),
                  })
                else update({ dateFrom: value, dateTo: null })
              }}
            >
              {DATE_PRESETS.map((p) => (
                <option value={p.value}>{p.label}</option>
              ))}
              <option value="custom">Custom…</option>
            </select>
          </label>
          {customRange ? (
            <>
              <label>
                From
                <input type="date" aria-label="From" value={query.dateFrom} onChange={(e) => update({ dateFrom: e.currentTarget.value })} />
              </label>
              <label>
                To
                <input
                  type="date"
                  aria-label="To"
                  value={query.dateTo ?? ''}
                  onChange={(e) => update({ dateTo: e.currentTarget.value || null })}
                />
              </label>
            </>
          ) : null}
          <label>
            Interval
            <select
              aria-label="Interval"
              value={query.interval}
              onChange={(e) => update({ interval: e.currentTarget.value as TrendQuery['interval'] })}
            >
              {INTERVALS.map((i) => (
                <option value={i}>{i}</option>
              ))}
            </select>
          </label>
          <label>
            Breakdown by
            <span class="inline">
              <select
                aria-label="Breakdown type"
                value={query.breakdownType}
                onChange={(e) => update({ breakdownType: e.currentTarget.value as TrendQuery['breakdownType'], breakdown: null })}
              >
                {BREAKDOWN_TYPES.map((t) => (
                  <option value={t}>{t === 'event' ? 'event property' : t === 'person' ? 'person property' : 'cohort'}</option>
                ))}
              </select>
              {query.breakdownType === 'cohort' ? (
                <select
                  aria-label="Breakdown cohort"
                  value={query.breakdown ?? ''}
                  onChange={(e) => update({ breakdown: e.currentTarget.value || null })}
                >
                  <option value="">none</option>
                  {(cohorts.data ?? []).map((c) => (
                    <option value={String(c.id)}>{c.name ?? `Cohort ${c.id}`}</option>
                  ))}
                </select>
              ) : (
                <input
                  aria-label="Breakdown property"
                  placeholder="none, e.g. $browser"
                  value={query.breakdown ?? ''}
                  onInput={(e) => update({ breakdown: e.currentTarget.value || null })}
                />
              )}
            </span>
          </label>
          <label>
            Formula
            <input
              aria-label="Formula"
              placeholder="e.g. A / B"
              value={query.formula}
              onInput={(e) => update({ formula: e.currentTarget.value })}
            />
          </label>
          <label class="check">
            <input type="checkbox" checked={query.compare} onChange={(e) => update({ compare: e.currentTarget.checked })} /> Compare to
            previous period
          </label>
          <label class="check">
            <input
              type="checkbox"
              checked={query.filterTestAccounts}
              onChange={(e) => update({ filterTestAccounts: e.currentTarget.checked })}
            />{' '}
            Filter out test accounts
          </label>
        </div>
        <PropertyFilters value={query.properties} onChange={(properties) => update({ properties })} types={['event', 'person', 'cohort']} />
      </section>
      <div class="display-picker" role="group" aria-label="Display">
        {(Object.keys(DISPLAYS) as DisplayName[]).map((d) => (
          <button
            type="button"
            class={query.display === d ? 'active' : 'secondary'}
            aria-pressed={query.display === d}
            onClick={() => update({ display: d })}
          >
            {d[0].toUpperCase() + d.slice(1)}
          </button>
        ))}
      </div>
      <section class="card result" aria-busy={result.loading}>
        <ErrorBox error={result.error} />
        {result.loading && !result.data ? <Loading /> : null}
        {result.data && !ready ? <Empty title="Pick an event or an action to see its trend." /> : null}
        {result.data && ready && total === 0 && eventNames.data?.length === 0 ? (
          <Empty title="This project has no events yet.">
            <p>
              Paste this into your site’s &lt;head&gt; (or send events with any PostHog SDK to this Wren with the same key); pageviews then
              show up here.
            </p>
            <Snippet />
          </Empty>
        ) : null}
        {result.data && ready && total === 0 && eventNames.data?.length !== 0 ? (
          <Empty title="No events match this query.">
            <p>
              Widen the date range, pick another event or remove filters. The events this project has are on the{' '}
              <a href={`${base}/events`}>Events</a> page.
            </p>
          </Empty>
        ) : null}
        {result.data && ready && total > 0 ? <TrendResult result={result.data.result} display={query.display} /> : null}
      </section>
    </div>
  )
}

function TrendResult({ result, display }: { result: TrendSeries[]; display: DisplayName }) {
  const chart = useMemo(() => shapeChart(result), [result])
  const totals = useMemo(() => shapeTotals(result), [result])
  if (display === 'number')
    return (
      <div class="numbers">
        {totals.map((t) => (
          <div class="number">
            <div class="value" style={{ color: t.colour }}>
              {formatValue(t.value)}
            </div>
            <div class="muted">{t.label}</div>
          </div>
        ))}
      </div>
    )
  if (display === 'table')
    return (
      <table class="list">
        <thead>
          <tr>
            <th>Series</th>
            <th class="num">Total</th>
          </tr>
        </thead>
        <tbody>
          {totals.map((t) => (
            <tr>
              <td>
                <span class="swatch" style={{ background: t.colour }} /> {t.label}
              </td>
              <td class="num">{formatValue(t.value)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    )
  return <TrendChart data={chart} kind={display} />
}
