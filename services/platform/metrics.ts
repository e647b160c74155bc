// What a user can scrape at /_metrics (Prometheus text format, through prom-client). Every metric Wren
// emits is declared here, once, with its help text and labels; services call inc/observe/gauge by name.
// Each Wren instance has its own registry (tests build several in one process), holding the process
// metrics prom-client collects too (CPU, memory, event loop lag, GC).
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client'

interface Definition {
  type: 'counter' | 'histogram' | 'gauge'
  help: string
  labelNames?: readonly string[]
  buckets?: readonly number[]
}

/** Seconds, from a fast decide answer to a slow insight or a large ingestion batch. */
const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

export const CATALOGUE = {
  wren_http_requests_total: {
    type: 'counter',
    help: 'HTTP requests answered, by method, route pattern (not the raw path) and status code. Unknown paths count under route="unmatched".',
    labelNames: ['method', 'route', 'status'],
  },
  wren_http_request_duration_seconds: {
    type: 'histogram',
    help: 'Time from receiving an HTTP request to finishing its response, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'],
    buckets: LATENCY_BUCKETS,
  },
  wren_capture_events_total: { type: 'counter', help: 'Events capture acknowledged: appended durably to the log.' },
  wren_capture_requests_refused_total: {
    type: 'counter',
    help: 'Capture requests answered 503 with Retry-After because a stage was too far behind, by reason: backlog (ingestion, WREN_MAX_BACKLOG) or recordings_backlog (/s/, WREN_MAX_RECORDINGS_BACKLOG and _BYTES).',
    labelNames: ['reason'],
  },
  wren_capture_backpressure: {
    type: 'gauge',
    help: '1 while capture refuses events because ingestion is too far behind (WREN_MAX_BACKLOG), else 0.',
  },
  wren_recordings_backpressure: {
    type: 'gauge',
    help: '1 while /s/ refuses snapshots because the recordings processor is too far behind (WREN_MAX_RECORDINGS_BACKLOG, WREN_MAX_RECORDINGS_BACKLOG_BYTES), else 0.',
  },
  wren_request_memory_bytes: {
    type: 'gauge',
    help: 'Bytes of memory the SDK intake requests in flight are charged (WREN_REQUEST_MEMORY_BYTES): 10 times each body, counted before it is read.',
  },
  wren_request_memory_refused_total: {
    type: 'counter',
    help: 'SDK intake requests answered 503 with Retry-After because the request memory budget (WREN_REQUEST_MEMORY_BYTES) was full (the request’s route is in wren_http_requests_total).',
  },
  wren_trend_queries_total: {
    type: 'counter',
    help: 'Trend queries sent to ClickHouse (answers from the trends cache, and identical requests joining one under way, send none).',
  },
  wren_ingested_events_total: { type: 'counter', help: 'Events ingestion wrote to ClickHouse.' },
  wren_ingestion_warnings_total: {
    type: 'counter',
    help: 'Ingestion warnings: person merges refused, invalid values dropped, and the like (the log says which).',
  },
  wren_person_compaction_rows_total: {
    type: 'counter',
    help: 'Rows of committed batches that person compaction folded into the latest version of their key (WREN_PERSON_COMPACTION_MS), by table: person, person_distinct_id, groups.',
    labelNames: ['table'],
  },
  wren_dead_letters_total: {
    type: 'counter',
    help: 'Messages a processor could not handle (ingestion on wren_ingest, recordings on wren_snapshots), stored as dead letters with their error, by topic.',
    labelNames: ['topic'],
  },
  wren_dead_letters_replayed_total: { type: 'counter', help: 'Dead letters replayed onto their topic (wren dead-letters replay).' },
  wren_ingestion_batch_retries_total: { type: 'counter', help: 'Ingestion batches retried after a failure.' },
  wren_ingestion_batch_duration_seconds: {
    type: 'histogram',
    help: 'Time to process one ingestion batch and write it to ClickHouse.',
    buckets: LATENCY_BUCKETS,
  },
  wren_ingestion_part_bytes: {
    type: 'histogram',
    help: 'Bytes of rows one ingestion write hands to ClickHouse: a part of a batch, bounded by WREN_INGEST_PART_BYTES (and WREN_INGEST_PART messages).',
    buckets: [1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20, 1 << 30],
  },
  wren_ingestion_batches_split_total: { type: 'counter', help: 'Failing ingestion batches split in two to find the messages that fail.' },
  wren_ingestion_lag_messages: {
    type: 'gauge',
    help: 'Messages appended to wren_ingest that the ingestion consumer group has not committed (sampled every 1 s embedded, 5 s on Kafka).',
  },
  wren_ingestion_lag_seconds: {
    type: 'gauge',
    help: 'Seconds since the oldest message waiting for ingestion was appended (0 when none waits).',
  },
  wren_ingestion_stalled_seconds: {
    type: 'gauge',
    help: 'Seconds the ingestion group has committed nothing while messages wait (0 while it makes progress or is idle).',
  },
  wren_ingestion_copies_waiting: {
    type: 'gauge',
    help: 'Stored parts whose wide persons’ events wait for their copy into events (not in queries until copied).',
  },
  wren_ingestion_copies_waiting_seconds: {
    type: 'gauge',
    help: 'Seconds the oldest part counted by wren_ingestion_copies_waiting has waited (0 when none waits).',
  },
  wren_ingest_log_bytes: {
    type: 'gauge',
    help: 'Bytes the embedded log keeps on disk for wren_ingest (waiting messages plus consumed segments kept for replays); 0 on Kafka.',
  },
  wren_decide_requests_total: {
    type: 'counter',
    help: 'Feature flag answers given by /decide and /flags, by endpoint.',
    labelNames: ['endpoint'],
  },
  wren_decide_evaluation_errors_total: {
    type: 'counter',
    help: 'Feature flag answers with errorsWhileComputingFlags: true (some flag could not be evaluated), by endpoint.',
    labelNames: ['endpoint'],
  },
  wren_recording_snapshots_total: {
    type: 'counter',
    help: 'Snapshot requests (/s/) recordings capture appended durably to the snapshots log, one per request.',
  },
  wren_recording_snapshots_dropped_total: {
    type: 'counter',
    help: 'Snapshot requests or messages not stored, by reason: not_opted_in (capture), no_events, out_of_range (the recordings processor). Messages that do not decode are dead letters.',
    labelNames: ['reason'],
  },
  wren_recording_blocks_total: {
    type: 'counter',
    help: 'Snapshot blocks (one per session and window per batch) the recordings processor stored.',
  },
  wren_recording_events_total: { type: 'counter', help: 'rrweb events the recordings processor stored.' },
  wren_recording_batch_retries_total: { type: 'counter', help: 'Recordings processor batches retried after a failure.' },
  wren_recording_batch_duration_seconds: {
    type: 'histogram',
    help: 'Time to process one recordings batch and write its blocks and metadata to ClickHouse.',
    buckets: LATENCY_BUCKETS,
  },
  wren_recording_batches_split_total: {
    type: 'counter',
    help: 'Failing recordings processor batches split in two to find the snapshot messages that fail.',
  },
  wren_recording_lag_messages: {
    type: 'gauge',
    help: 'Messages appended to wren_snapshots that the recordings consumer group has not committed (sampled every 1 s embedded, 5 s on Kafka).',
  },
  wren_recording_lag_seconds: {
    type: 'gauge',
    help: 'Seconds since the oldest snapshot message waiting for the recordings processor was appended (0 when none waits).',
  },
  wren_recording_stalled_seconds: {
    type: 'gauge',
    help: 'Seconds the recordings group has committed nothing while snapshot messages wait (0 while it makes progress or is idle).',
  },
} as const satisfies Record<string, Definition>

export type MetricName = keyof typeof CATALOGUE
type NameOf<T extends Definition['type']> = { [K in MetricName]: (typeof CATALOGUE)[K]['type'] extends T ? K : never }[MetricName]
export type CounterName = NameOf<'counter'>
export type HistogramName = NameOf<'histogram'>
export type GaugeName = NameOf<'gauge'>
export type Labels = Record<string, string>

export class Metrics {
  readonly registry = new Registry()
  private readonly counters = new Map<string, CounterTotals>()
  private readonly histograms = new Map<string, HistogramTotals>()
  private readonly readers = new Map<string, () => number>()

  constructor() {
    collectDefaultMetrics({ register: this.registry })
    for (const [name, def] of Object.entries(CATALOGUE) as Array<[MetricName, Definition]>) {
      const labelNames = def.labelNames ?? []
      if (def.type === 'counter') {
        const counter = new CounterTotals(name, def.help, labelNames)
        this.counters.set(name, counter)
        this.registry.registerMetric(counter as never)
      } else if (def.type === 'histogram') {
        const histogram = new HistogramTotals(name, def.help, labelNames, def.buckets ?? LATENCY_BUCKETS)
        this.histograms.set(name, histogram)
        this.registry.registerMetric(histogram as never)
      } else {
        const read = () => this.readers.get(name)?.() ?? 0
        new Gauge({
          name,
          help: def.help,
          registers: [this.registry],
          collect() {
            this.set(read())
          },
        })
      }
    }
  }

  inc(name: CounterName, by = 1, labels?: Labels): void {
    // A metric never breaks its caller: a counter cannot go down, and unknown labels are dropped.
    if (!(by >= 0)) return
    this.counters.get(name)!.inc(labels, by)
  }

  observe(name: HistogramName, value: number, labels?: Labels): void {
    if (!Number.isFinite(value)) return
    this.histograms.get(name)!.observe(labels, value)
  }

  /** A value read when /_metrics is scraped. */
  gauge(name: GaugeName, read: () => number): void {
    this.readers.set(name, read)
  }

  /** A counter's total over all labels, a histogram's number of observations, or a gauge's value now. */
  get(name: MetricName): number {
    return this.readers.get(name)?.() ?? (this.counters.get(name) ?? this.histograms.get(name))?.total ?? 0
  }

  /** The Prometheus text exposition of every metric. */
  render(): Promise<string> {
    return this.registry.metrics()
  }

  get contentType(): string {
    return this.registry.contentType
  }
}

// Counters and histograms are counted here, per label set, and handed to prom-client's registry only when
// /_metrics is scraped: prom-client's own Counter and Histogram hash the labels (sorted names and values
// joined into a string) and check them on every update, which every HTTP answer and every flags answer
// paid. A label object passed again (the hot paths keep theirs) finds its series through a WeakMap; a new
// one is checked and filed under its values once. What the registry reads back (get, getForPromString) is
// what prom-client's Counter and Histogram give for the same updates, so the exposition is the same text
// (metrics.test.ts holds the two side by side).

abstract class Totals<S extends { labels: Labels }> {
  readonly aggregator = 'sum'
  /** A counter's sum over all label sets, a histogram's number of observations. */
  total = 0
  /** By label values, in the order first seen (prom-client's order). */
  protected series = new Map<string, S>()
  private byObject = new WeakMap<Labels, S>()
  private unlabelled: S | undefined

  constructor(
    readonly name: string,
    readonly help: string,
    protected readonly labelNames: readonly string[],
  ) {}

  protected abstract create(labels: Labels): S

  /** The series of a label set: only the catalogue's label names, the others dropped. */
  protected seriesOf(labels: Labels | undefined): S {
    if (labels === undefined) return (this.unlabelled ??= this.find({}))
    let s = this.byObject.get(labels)
    if (s === undefined) {
      const known: Labels = {}
      for (const key of this.labelNames) if (labels[key] !== undefined) known[key] = labels[key]
      this.byObject.set(labels, (s = this.find(known)))
    }
    return s
  }

  /** Forgets every series (prom-client's reset, for the registry's resetMetrics). */
  reset(): void {
    this.series = new Map()
    this.byObject = new WeakMap()
    this.unlabelled = undefined
    this.total = 0
  }

  private find(labels: Labels): S {
    // Names in the catalogue's order, so one label set has one key; quoted, so no value can pose as another's.
    const key = JSON.stringify(labels)
    let s = this.series.get(key)
    if (s === undefined) this.series.set(key, (s = this.create(labels)))
    return s
  }
}

interface CounterSeries {
  labels: Labels
  value: number
}

class CounterTotals extends Totals<CounterSeries> {
  readonly type = 'counter'

  constructor(name: string, help: string, labelNames: readonly string[]) {
    super(name, help, labelNames)
    this.reset()
  }

  inc(labels: Labels | undefined, by: number): void {
    this.seriesOf(labels).value += by
    this.total += by
  }

  protected create(labels: Labels): CounterSeries {
    return { value: 0, labels }
  }

  /** As prom-client's Counter: one without labels shows 0 before its first update. */
  override reset(): void {
    super.reset()
    if (this.labelNames.length === 0) this.seriesOf(undefined)
  }

  async get() {
    return {
      help: this.help,
      name: this.name,
      type: this.type,
      values: [...this.series.values()].map((s) => ({ value: s.value, labels: s.labels })),
      aggregator: this.aggregator,
    }
  }
}

interface HistogramSeries {
  labels: Labels
  /** Observations per bucket (not cumulative): at or below its bound and above the one before. */
  buckets: number[]
  sum: number
  count: number
}

class HistogramTotals extends Totals<HistogramSeries> {
  readonly type = 'histogram'
  private readonly bounds: readonly number[]

  constructor(name: string, help: string, labelNames: readonly string[], buckets: readonly number[]) {
    super(name, help, labelNames)
    this.bounds = [...buckets].sort((a, b) => a - b)
    // As prom-client's Histogram: one without labels shows its zero buckets before its first observation.
    if (labelNames.length === 0) this.seriesOf(undefined)
  }

  observe(labels: Labels | undefined, value: number): void {
    const s = this.seriesOf(labels)
    s.sum += value
    s.count += 1
    this.total += 1
    const bounds = this.bounds
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]) {
        s.buckets[i] += 1
        break
      }
    }
  }

  protected create(labels: Labels): HistogramSeries {
    return { labels, buckets: this.bounds.map(() => 0), sum: 0, count: 0 }
  }

  /** What prom-client's Histogram gives the text exposition: the buckets' labels, and the series' as shared labels. */
  async getForPromString() {
    const bucket = `${this.name}_bucket`
    const values: Array<{
      labels: Record<string, string | number>
      sharedLabels: Labels
      value: number
      metricName: string
      exemplar: null | undefined
    }> = []
    for (const s of this.series.values()) {
      let acc = 0
      for (let i = 0; i < this.bounds.length; i++) {
        acc += s.buckets[i]
        values.push({ labels: { le: this.bounds[i] }, sharedLabels: s.labels, value: acc, metricName: bucket, exemplar: null })
      }
      values.push({ labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: bucket, exemplar: null })
      values.push({ labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${this.name}_sum`, exemplar: undefined })
      values.push({ labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${this.name}_count`, exemplar: undefined })
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator }
  }

  /** As prom-client's Histogram.get(): each value's labels with the series' labels after its own. */
  async get() {
    const data = await this.getForPromString()
    return {
      ...data,
      values: data.values.map(({ sharedLabels, labels, ...rest }) => ({ ...rest, labels: { ...labels, ...sharedLabels } })),
    }
  }
}
