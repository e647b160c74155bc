// What flows through the log, as one table: each stream's topic, who appends to it, which consumer group
// reads it in which roles, and (for the two batch processors) the stage that writes a range of it. Every
// subscription takes its topic and group from its row (subscription()), so a group is named here only; the
// processors, their lag monitors, gauges and readiness checks are derived from the rows with a stage, and
// which processes read which stream from the consumers (runtime/roles.ts).
import type { Role } from '../config'
import { processGroup, TOPICS, type SubscribeOptions } from './log'

export interface Stream {
  name: string
  topic: string
  /** Who appends to it. */
  producer: string
  /**
   * The consumer group its consumers share (each record goes to one of them), or, with `eachProcess`, the
   * prefix of a group each process makes its own (every process reads every record); null: none reads it.
   */
  group: string | null
  eachProcess?: true
  /** Where a process's own group starts: 'end' for a feed whose earlier state the reader loads from storage. */
  from?: 'end'
  /** The roles whose processes consume it. */
  consumers: Array<Exclude<Role, 'all'>>
  /** The batch stage that writes a range of the stream (run by the processor runner), if one does. */
  stage: 'ingestion' | 'recordings' | null
  /** The partition key. */
  key: string
  /** How long the topic keeps records: as text, or a time the Kafka log sets on the topic it creates. */
  retention: string | { kafkaMs: number }
  /** Embedded mode has the stream too, or only the Kafka log (cluster mode) does. */
  modes: 'both' | 'cluster'
  /** For a stage: the name /_health and /_readyz report its lag under, and its gauges' prefix. */
  lag?: { report: 'ingestion' | 'recordings'; gauges: string; logBytesGauge?: string }
}

/**
 * The change feeds and id requests: read from the start by every process as it starts (the configuration,
 * command results) or only by readers that are up (person changes), so a short retention keeps them small.
 */
const SHORT = { kafkaMs: 10 * 60_000 }

export const STREAMS = [
  {
    name: 'events',
    topic: TOPICS.ingest,
    producer: 'capture (events), api (person commands), dead-letter replay',
    group: 'ingestion',
    consumers: ['ingest'],
    stage: 'ingestion',
    key: 'project id',
    retention: 'until consumed (embedded: WREN_LOG_RETENTION_*); broker default on Kafka',
    modes: 'both',
    lag: { report: 'ingestion', gauges: 'wren_ingestion', logBytesGauge: 'wren_ingest_log_bytes' },
  },
  {
    name: 'snapshots',
    topic: TOPICS.snapshots,
    producer: 'capture (/s/)',
    group: 'recordings',
    consumers: ['recordings'],
    stage: 'recordings',
    key: 'project id and session id',
    retention: 'until consumed (embedded); broker default on Kafka',
    modes: 'both',
    lag: { report: 'recordings', gauges: 'wren_recording' },
  },
  {
    name: 'person-changes',
    topic: TOPICS.personChanges,
    producer: 'ingest (persons it stored)',
    group: 'wren-decide',
    eachProcess: true,
    from: 'end',
    consumers: ['decide', 'api'],
    stage: null,
    key: 'project id',
    retention: SHORT,
    modes: 'cluster',
  },
  {
    name: 'command-results',
    topic: TOPICS.commandResults,
    producer: 'ingest (person commands applied)',
    group: 'wren-api',
    eachProcess: true,
    consumers: ['api'],
    stage: null,
    key: 'command id',
    retention: SHORT,
    modes: 'cluster',
  },
  {
    name: 'config',
    topic: TOPICS.config,
    producer: 'api (configuration changes, id requests and answers), the CLI',
    group: 'wren-config',
    eachProcess: true,
    consumers: ['capture', 'ingest', 'api', 'decide', 'recordings'],
    stage: null,
    key: "'config' (one partition: one order)",
    retention: SHORT,
    modes: 'cluster',
  },
  {
    name: 'config-ids',
    topic: TOPICS.config,
    producer: 'api (id requests)',
    group: 'wren-config-ids',
    consumers: ['api'],
    stage: null,
    key: "'config'",
    retention: SHORT,
    modes: 'cluster',
  },
  {
    name: 'dead-letters',
    topic: TOPICS.deadLetters,
    producer: 'ingest, recordings (messages a stage could not handle; kept for operators, Wren lists them from ClickHouse)',
    group: null,
    consumers: [],
    stage: null,
    key: 'the source topic/partition/offset',
    retention: 'broker default',
    modes: 'cluster',
  },
] as const satisfies readonly Stream[]

export type StreamName = (typeof STREAMS)[number]['name']

type ConsumedStream = Extract<(typeof STREAMS)[number], { group: string }>

/** A stream's retention as the docs show it. */
export function retentionText(stream: Stream): string {
  return typeof stream.retention === 'string' ? stream.retention : `${stream.retention.kafkaMs / 60_000} minutes`
}

/** The retention.ms the Kafka log sets on each topic it creates that keeps less than the broker's default. */
export function kafkaRetentionMs(): Map<string, number> {
  const rows: readonly Stream[] = STREAMS
  return new Map(rows.flatMap((s) => (typeof s.retention === 'string' ? [] : [[s.topic, s.retention.kafkaMs] as const])))
}

/** The consumer group a stream's row names, as the docs show it (`<process>`: each process's own). */
export function groupName(stream: Stream): string {
  return stream.group === null ? '(none)' : stream.eachProcess ? `${stream.group}-<process>` : stream.group
}

/**
 * Where a consumer of the stream subscribes: its row's topic and group (a fresh group of this process's own
 * for a stream every process reads in full) and where such a group starts.
 */
export function subscription(name: ConsumedStream['name']): Pick<SubscribeOptions, 'topic' | 'group' | 'from'> {
  const stream: Stream = STREAMS.find((s) => s.name === name)!
  const group = stream.group!
  return {
    topic: stream.topic,
    group: stream.eachProcess ? processGroup(group) : group,
    ...(stream.from ? { from: stream.from } : {}),
  }
}

/** The streams a batch stage writes, with their lag reports: what every process monitors and reports. */
export const STAGE_STREAMS = STREAMS.filter((s): s is Extract<(typeof STREAMS)[number], { stage: string }> => s.stage !== null)

export type StageStream = (typeof STAGE_STREAMS)[number]

/** A stage stream by its name in the table. */
export function stageStream(name: StageStream['name']): StageStream {
  return STAGE_STREAMS.find((s) => s.name === name)!
}
