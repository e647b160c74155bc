// Experiments: a multivariate flag's variants compared on metrics. The list, a new experiment (from an existing
// flag or a new key, with a first metric), and an experiment's page: launch and stop, its exposures per variant
// (ExperimentExposureQuery) and each metric's result per variant (ExperimentQuery: count or mean, chance to win,
// credible interval of the change against control), with a form to add a metric.
import { useMemo, useState } from 'preact/hooks'
import type { Static } from 'typebox'
import type { ExperimentAnswer } from '../../../services/experiments/schemas'
import { get, patch, post, WHOLE_LIST, withQuery } from '../api'
import type { Flag, Paginated } from '../answers'
import { DefinitionOptions } from '../components/definitions'
import { Empty, ErrorBox, Loading } from '../components/feedback'
import { ListHeader, PageHeader } from '../components/headers'
import { Listing } from '../components/listing'
import { useAction, useLoad } from '../components/load'
import { navigate } from '../router'
import { useSession } from '../session'
import { TrendChart } from '../chart'
import { shapeChart } from '../chart-data'

type Experiment = Static<typeof ExperimentAnswer>
type Metric = Record<string, unknown> & { uuid?: string; metric_type?: string; name?: string }

interface VariantResult {
  key: string
  number_of_samples: number
  sum: number
  denominator_sum?: number
  validation_failures: string[]
  chance_to_win?: number | null
  credible_interval?: [number, number] | null
  significant?: boolean
}
interface MetricAnswer {
  baseline: VariantResult
  variant_results: VariantResult[]
}
interface ExposureAnswer {
  timeseries: Array<{ variant: string; days: string[]; exposure_counts: number[] }>
  total_exposures: Record<string, number>
}

const statusOf = (e: Experiment) => (!e.start_date ? 'Draft' : e.end_date ? 'Stopped' : 'Running')
const day = (iso: string | null) => (iso ? iso.slice(0, 10) : '—')
const percent = (x: number, digits = 1) => `${(x * 100).toFixed(digits)}%`

/** A metric of one event, as PostHog's ExperimentMetric: its count per user (mean) or the share of users who did it (funnel). */
const metricOf = (event: string, type: 'mean' | 'funnel'): Metric =>
  type === 'mean'
    ? { kind: 'ExperimentMetric', metric_type: 'mean', source: { kind: 'EventsNode', event } }
    : { kind: 'ExperimentMetric', metric_type: 'funnel', series: [{ kind: 'EventsNode', event }] }

interface Source {
  event?: string | null
  id?: number
  math?: string
  math_property?: string
}
/** What a source counts: its events, or the sum of a property over them. */
const sourceTitle = (s: Source | undefined) => {
  const events = s?.event ?? (s?.id !== undefined ? `action ${s.id}` : 'events')
  return s?.math === 'sum' ? `${s.math_property ?? 'value'} of ${events}` : `${events}`
}

/** A metric's title: its name, or what it measures. */
function metricTitle(m: Metric): string {
  if (typeof m.name === 'string' && m.name) return m.name
  if (m.metric_type === 'funnel') return `${((m.series ?? []) as Source[]).map(sourceTitle).join(' → ')} conversion`
  if (m.metric_type === 'ratio') return `${sourceTitle(m.numerator as Source)} per ${sourceTitle(m.denominator as Source)}`
  const source = m.source as Source | undefined
  return source?.math === 'sum' ? `${sourceTitle(source)} per user` : `${sourceTitle(source)} count per user`
}

export function ExperimentsPage() {
  const { path, base, can } = useSession()
  const list = useLoad(() => get<Paginated<Experiment>>(withQuery(path('experiments/'), { limit: WHOLE_LIST })), [])
  return (
    <div>
      <ListHeader
        title="Experiments"
        create={can('experiment:write') ? { href: `${base}/experiments/new`, label: 'New experiment' } : null}
      />
      <Listing
        loaded={list}
        empty={
          <Empty title="No experiments yet.">
            <p>
              An experiment splits users between a flag’s variants (control and test) and compares what they do next: the SDKs report which
              variant each user saw ($feature_flag_called).
            </p>
          </Empty>
        }
        head={
          <>
            <th>Name</th>
            <th>Flag</th>
            <th>Status</th>
            <th>Started</th>
          </>
        }
        row={(e) => (
          <tr>
            <td>
              <a href={`${base}/experiments/${e.id}`}>{e.name}</a>
            </td>
            <td>
              <code>{e.feature_flag_key}</code>
            </td>
            <td>{statusOf(e)}</td>
            <td class="nowrap">{day(e.start_date)}</td>
          </tr>
        )}
      />
    </div>
  )
}

export function ExperimentPage({ id }: { id: string }) {
  return id === 'new' ? <NewExperiment /> : <ExperimentView id={id} />
}

/** A new experiment: its name, its flag (an existing multivariate one, or a new key), and a first metric. */
function NewExperiment() {
  const { path, base, can } = useSession()
  const flags = useLoad(() => get<Paginated<Flag>>(withQuery(path('feature_flags/'), { limit: WHOLE_LIST })), [])
  const [name, setName] = useState('')
  const [flagKey, setFlagKey] = useState('')
  const [event, setEvent] = useState('')
  const [type, setType] = useState<'mean' | 'funnel'>('mean')
  const [error, busy, run] = useAction()
  const multivariate = (flags.data?.results ?? []).filter((f) => f.filters.multivariate?.variants.some((v) => v.key === 'control'))
  const save = (e: Event) => {
    e.preventDefault()
    void run(async () => {
      const made = await post<Experiment>(path('experiments/'), {
        name,
        feature_flag_key: flagKey.trim(),
        metrics: event.trim() ? [metricOf(event.trim(), type)] : [],
      })
      navigate(`${base}/experiments/${made.id}`)
    })
  }
  return (
    <form onSubmit={save}>
      <PageHeader title="New experiment" />
      <ErrorBox error={error} />
      <section class="card grid">
        <label>
          Name
          <input name="name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Feature flag key
          <input
            name="feature_flag_key"
            list="experiment-flags"
            required
            placeholder="a multivariate flag, or a new key"
            value={flagKey}
            onInput={(e) => setFlagKey(e.currentTarget.value)}
          />
          <datalist id="experiment-flags">
            {multivariate.map((f) => (
              <option value={f.key} />
            ))}
          </datalist>
        </label>
        <p class="muted small">
          A new key makes a flag with <code>control</code> and <code>test</code> at 50/50, off until the experiment is launched. An existing
          flag needs a <code>control</code> variant.
        </p>
      </section>
      <MetricFields event={event} type={type} onEvent={setEvent} onType={setType} />
      <div class="form-actions">
        <button type="submit" disabled={busy || !can('experiment:write')}>
          Create experiment
        </button>
        <a class="button secondary" href={`${base}/experiments`}>
          Cancel
        </a>
      </div>
    </form>
  )
}

function MetricFields(props: {
  event: string
  type: 'mean' | 'funnel'
  onEvent: (v: string) => void
  onType: (v: 'mean' | 'funnel') => void
}) {
  return (
    <section class="card grid">
      <label>
        Metric event
        <input
          name="metric_event"
          list="metric-events"
          placeholder="e.g. purchase"
          value={props.event}
          onInput={(e) => props.onEvent(e.currentTarget.value)}
        />
        <DefinitionOptions id="metric-events" kind="event" search={props.event} />
      </label>
      <label>
        Measured as
        <select name="metric_type" value={props.type} onChange={(e) => props.onType(e.currentTarget.value as 'mean' | 'funnel')}>
          <option value="mean">count per user (mean)</option>
          <option value="funnel">share of users who did it (conversion)</option>
        </select>
      </label>
    </section>
  )
}

function ExperimentView({ id }: { id: string }) {
  const { path, base, can } = useSession()
  const loaded = useLoad(() => get<Experiment>(path(`experiments/${encodeURIComponent(id)}/`)), [id])
  const [error, busy, run] = useAction()
  const [event, setEvent] = useState('')
  const [type, setType] = useState<'mean' | 'funnel'>('mean')
  if (loaded.error) return <ErrorBox error={loaded.error} />
  if (!loaded.data) return <Loading />
  const experiment = loaded.data
  const url = path(`experiments/${experiment.id}/`)
  const change = (body: Record<string, unknown>) => () => void run(async () => (await patch(url, body), loaded.reload()))
  const now = () => new Date().toISOString()
  const addMetric = (e: Event) => {
    e.preventDefault()
    if (!event.trim()) return
    void run(async () => {
      await patch(url, { metrics: [...experiment.metrics, metricOf(event.trim(), type)] })
      setEvent('')
      loaded.reload()
    })
  }
  const status = statusOf(experiment)
  return (
    <div>
      <PageHeader title={experiment.name}>
        <span class={`status status-${status.toLowerCase()}`}>{status}</span>
        {can('experiment:write') && status === 'Draft' ? (
          <button type="button" disabled={busy} onClick={change({ start_date: now() })}>
            Launch
          </button>
        ) : null}
        {can('experiment:write') && status === 'Running' ? (
          <button type="button" class="danger" disabled={busy} onClick={change({ end_date: now() })}>
            Stop
          </button>
        ) : null}
      </PageHeader>
      <ErrorBox error={error} />
      <section class="card">
        <p>
          Flag{' '}
          <a href={`${base}/feature_flags/${experiment.feature_flag?.id as number}`}>
            <code>{experiment.feature_flag_key}</code>
          </a>
          {experiment.description ? ` — ${experiment.description}` : null}
        </p>
        <p class="muted small">
          Started {day(experiment.start_date)}
          {experiment.end_date ? `, stopped ${day(experiment.end_date)}` : null}. Exposures are the users who saw a variant
          ($feature_flag_called); a user seen in two variants is left out of the results.
        </p>
      </section>
      {experiment.start_date ? (
        <>
          <Exposures experiment={experiment} key={`${experiment.start_date}-${experiment.end_date ?? ''}`} />
          {[...experiment.metrics, ...experiment.metrics_secondary].map((m, i) => (
            <MetricResult
              experiment={experiment}
              metric={m as Metric}
              secondary={i >= experiment.metrics.length}
              key={`${String(m.uuid)}-${experiment.end_date ?? ''}`}
            />
          ))}
        </>
      ) : (
        <Empty title="Not launched yet.">
          <p>Launch it to turn its flag on; exposures and results show here from then on.</p>
        </Empty>
      )}
      {can('experiment:write') ? (
        <form onSubmit={addMetric}>
          <h2>Add a metric</h2>
          <MetricFields event={event} type={type} onEvent={setEvent} onType={setType} />
          <div class="form-actions">
            <button type="submit" class="secondary" disabled={busy || !event.trim()}>
              Add metric
            </button>
          </div>
        </form>
      ) : null}
    </div>
  )
}

const runQuery = <T,>(path: string, query: Record<string, unknown>) => post<T>(path, { query, refresh: 'blocking' })

function Exposures({ experiment }: { experiment: Experiment }) {
  const { path } = useSession()
  const answer = useLoad(
    () => runQuery<ExposureAnswer>(path('query/'), { kind: 'ExperimentExposureQuery', experiment_id: experiment.id }),
    [experiment.id],
  )
  const total = Object.values(answer.data?.total_exposures ?? {}).reduce((a, b) => a + b, 0)
  // Each variant's users exposed so far, day by day (PostHog's cumulative exposures chart).
  const chart = useMemo(
    () =>
      answer.data && (answer.data.timeseries[0]?.days.length ?? 0) > 1
        ? shapeChart(
            answer.data.timeseries.map((s) => ({
              label: s.variant === '$multiple' ? 'In two variants' : s.variant,
              data: s.exposure_counts,
              days: s.days,
              labels: s.days,
              count: s.exposure_counts.at(-1) ?? 0,
            })),
          )
        : null,
    [answer.data],
  )
  return (
    <section class="card scroll" aria-label="Exposures">
      <h2>Exposures</h2>
      <ErrorBox error={answer.error} />
      {answer.loading && !answer.data ? <Loading /> : null}
      {chart ? (
        <div class="exposures-chart">
          <TrendChart data={{ ...chart, xTitle: 'Day' }} kind="line" height={200} />
        </div>
      ) : null}
      {answer.data ? (
        <table class="list">
          <thead>
            <tr>
              <th>Variant</th>
              <th class="num">Users exposed</th>
              <th>Share</th>
            </tr>
          </thead>
          <tbody>
            {answer.data.timeseries.map((s) => {
              const n = answer.data!.total_exposures[s.variant] ?? 0
              return (
                <tr>
                  <td>{s.variant === '$multiple' ? 'In two variants (left out)' : <code>{s.variant}</code>}</td>
                  <td class="num">{n}</td>
                  <td>
                    <span class="share-bar" style={{ width: `${total ? (n / total) * 100 : 0}%` }} /> {total ? percent(n / total) : '—'}
                  </td>
                </tr>
              )
            })}
          </tbody>
        </table>
      ) : null}
    </section>
  )
}

function MetricResult({ experiment, metric, secondary }: { experiment: Experiment; metric: Metric; secondary: boolean }) {
  const { path } = useSession()
  const answer = useLoad(
    () => runQuery<MetricAnswer>(path('query/'), { kind: 'ExperimentQuery', experiment_id: experiment.id, metric }),
    [experiment.id, metric.uuid],
  )
  const funnel = metric.metric_type === 'funnel'
  const ratio = metric.metric_type === 'ratio'
  /** A variant's value: a conversion rate, a ratio of the two sums, or a mean per user. */
  const value = (r: VariantResult) =>
    funnel
      ? r.number_of_samples
        ? percent(r.sum / r.number_of_samples)
        : '—'
      : ratio
        ? r.denominator_sum
          ? (r.sum / r.denominator_sum).toFixed(2)
          : '—'
        : r.number_of_samples
          ? (r.sum / r.number_of_samples).toFixed(2)
          : '—'
  const rows = answer.data ? [answer.data.baseline, ...answer.data.variant_results] : []
  return (
    <section class="card scroll metric-result" aria-label={`Metric ${metricTitle(metric)}`}>
      <h2>
        {metricTitle(metric)} {secondary ? <span class="muted small">secondary</span> : null}
      </h2>
      <ErrorBox error={answer.error} />
      {answer.loading && !answer.data ? <Loading /> : null}
      {answer.data ? (
        <table class="list">
          <thead>
            <tr>
              <th>Variant</th>
              <th class="num">Users</th>
              <th class="num">{funnel ? 'Converted' : 'Total'}</th>
              <th class="num">{funnel ? 'Conversion' : ratio ? 'Ratio' : 'Mean'}</th>
              <th class="num">Chance to win</th>
              <th>Change vs control (95%)</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr>
                <td>
                  <code>{r.key}</code>
                  {i === 0 ? <span class="muted small"> baseline</span> : null}
                </td>
                <td class="num">{r.number_of_samples}</td>
                <td class="num">{Number(r.sum.toFixed(2))}</td>
                <td class="num">{value(r)}</td>
                <td class={`num${r.significant ? ' significant' : ''}`}>
                  {i === 0 ? '' : typeof r.chance_to_win === 'number' ? percent(r.chance_to_win) : '—'}
                </td>
                <td>
                  {i === 0
                    ? ''
                    : r.credible_interval
                      ? `${percent(r.credible_interval[0])} to ${percent(r.credible_interval[1])}`
                      : r.validation_failures.length
                        ? `not enough data (${r.validation_failures.join(', ')})`
                        : '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {answer.data?.baseline.validation_failures.length ? (
        <p class="muted small">The baseline has not enough data yet: {answer.data.baseline.validation_failures.join(', ')}.</p>
      ) : null}
    </section>
  )
}
