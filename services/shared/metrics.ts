// What a user can scrape at /_metrics (Prometheus text format, through prom-client). Every metric Wren
// emits is declared here, once, with its help text and labels; services call inc/observe/gauge by name.
// Each Wren instance has its own registry (tests build several in one process), holding the process
// metrics prom-client collects too (CPU, memory, event loop lag, GC).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'

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
  wren_ingested_events_total: { type: 'counter', help: 'Events ingestion wrote to ClickHouse.' },
  wren_ingestion_warnings_total: {
    type: 'counter',
    help: 'Ingestion warnings: person merges refused, invalid values dropped, and the like (the log says which).',
  },
  wren_person_compaction_rows_total: {
    type: 'counter',
    help: 'Person and distinct-id rows of committed batches that person compaction folded into the latest version of their key (WREN_PERSON_COMPACTION_MS).',
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
  private readonly counters = new Map<string, Counter>()
  private readonly histograms = new Map<string, Histogram>()
  private readonly readers = new Map<string, () => number>()
  /** Sums over label sets, so get() can answer without prom-client's asynchronous collection. */
  private readonly totals = new Map<string, number>()
  /** Label objects as passed, with their copy holding only the metric's label names (see known). */
  private readonly checked = new WeakMap<Labels, { name: MetricName; labels: Labels }>()

  constructor() {
    collectDefaultMetrics({ register: this.registry })
    const registers = [this.registry]
    for (const [name, def] of Object.entries(CATALOGUE) as Array<[MetricName, Definition]>) {
      const labelNames = [...(def.labelNames ?? [])]
      if (def.type === 'counter') this.counters.set(name, new Counter({ name, help: def.help, labelNames, registers }))
      else if (def.type === 'histogram')
        this.histograms.set(
          name,
          new Histogram({ name, help: def.help, labelNames, buckets: [...(def.buckets ?? LATENCY_BUCKETS)], registers }),
        )
      else {
        const read = () => this.readers.get(name)?.() ?? 0
        new Gauge({
          name,
          help: def.help,
          registers,
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
    this.counters.get(name)!.inc(this.known(name, labels), by)
    this.totals.set(name, (this.totals.get(name) ?? 0) + by)
  }

  observe(name: HistogramName, value: number, labels?: Labels): void {
    if (!Number.isFinite(value)) return
    this.histograms.get(name)!.observe(this.known(name, labels), value)
    this.totals.set(name, (this.totals.get(name) ?? 0) + 1)
  }

  /** A value read when /_metrics is scraped. */
  gauge(name: GaugeName, read: () => number): void {
    this.readers.set(name, read)
  }

  /** A counter's total over all labels, a histogram's number of observations, or a gauge's value now. */
  get(name: MetricName): number {
    return this.readers.get(name)?.() ?? this.totals.get(name) ?? 0
  }

  /** The Prometheus text exposition of every metric. */
  render(): Promise<string> {
    return this.registry.metrics()
  }

  get contentType(): string {
    return this.registry.contentType
  }

  private known(name: MetricName, labels: Labels | undefined): Labels {
    // Hot paths (every HTTP answer, every flags answer) pass the same label objects again and again: their
    // checked copy is kept. A label object is never changed after it is passed.
    const kept = labels && this.checked.get(labels)
    if (kept && kept.name === name) return kept.labels
    const names: readonly string[] = (CATALOGUE[name] as Definition).labelNames ?? []
    const out: Labels = {}
    for (const key of names) if (labels?.[key] !== undefined) out[key] = labels[key]
    if (labels) this.checked.set(labels, { name, labels: out })
    return out
  }
}
