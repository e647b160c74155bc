// The Kafka log: Wren's cluster-mode implementation of Log (see log.ts) on kafkajs.
//
// Producing. One idempotent producer per process, acks=-1 (every in-sync replica has the record before
// append() resolves; with replication factor 3 and min.insync.replicas=2 an acknowledged event survives
// the loss of a broker). Idempotence makes the producer's own retries free of duplicates. An append is
// all-or-nothing per partition (one record batch); capture keys every message of a request by project,
// so a request's messages share a partition. A caller that retries a failed append may duplicate a
// message; event uuids fold those (ReplacingMergeTree).
//
// Appends that arrive while a send is out leave together in the next one (group commit), because the
// idempotent producer keeps one request in flight.
//
// Consuming: one consumer group per processor, eachBatch, offsets committed by us (autoCommit off) only
// after the handler resolved, i.e. after ClickHouse has the batch.
//
// Exactly-once, the same protocol as the embedded log's offset file, carried in Kafka's offset-commit
// metadata (a string stored with every committed offset in __consumer_offsets, durable and replicated
// like the offset itself):
//   1. Before a batch [first, last] is handed to the handler we commit offset=first with metadata
//      {"pending":[first,last]}. The commit carries the group generation, so it fails (and the handler
//      never runs) if this consumer no longer owns the partition: the commit is also a fence.
//   2. After the handler resolves we commit offset=last+1 with empty metadata.
// A consumer that is given a partition (first start, restart after kill -9, rebalance) reads the
// committed offset and metadata. If a range is pending, the previous owner may have written part of
// that batch to ClickHouse: we accumulate exactly [first, last] (over several fetches if need be) and
// hand it out with redelivered=true. The processor rebuilds its state from before the batch and writes
// the same rows under the same insert deduplication tokens (named after topic/partition/range), so
// ClickHouse drops what was already there. Kafka alone cannot give this: a new owner would otherwise
// fetch from `first` with whatever batch size the next fetch returns, producing a different range, a
// different token and duplicated rows.
//
// A graceful rebalance (a consumer joins or leaves) lets the current owner finish its batch and commit:
// commits with the current generation are accepted while the group prepares the rebalance, and kafkajs
// rejoins only after eachBatch returns. A consumer that is kicked out (session timeout) while its
// handler runs is a zombie: its final commit fails, the new owner redelivers the pending range, and both
// writes carry the same tokens.

import {
  Kafka,
  Partitioners,
  logLevel as KafkaLogLevel,
  type Admin,
  type Consumer,
  type EachBatchPayload,
  type LogEntry,
  type Producer,
} from 'kafkajs'
import type { Log, LogBatch, LogMessage, LogRecord, SubscribeOptions, Subscription, TopicStats } from '../log'
import { TOPICS, withinBytes } from '../log'
import { kafkaRetentionMs } from '../streams'

export interface KafkaLogOptions {
  brokers: string[]
  clientId?: string
  /** Partitions of topics this log creates. Fixed once created: keys map to partitions by hash. */
  partitions: number
  replicationFactor: number
  /** How long a consumer that stopped heartbeating (kill -9) keeps its partitions. Default 30 s. */
  sessionTimeoutMs?: number
  /**
   * Put before every topic and consumer group name on the broker (KAFKA_TOPIC_PREFIX), so deployments sharing a
   * cluster keep apart. Callers use the plain names: records, batches and stats carry them without the prefix.
   */
  topicPrefix?: string
  logger?: KafkaLogger
}

export interface KafkaLogger {
  warn(obj: object, msg: string): void
  error(obj: object, msg: string): void
  info(obj: object, msg: string): void
  debug(obj: object, msg: string): void
}

export interface DeadLetterRecord {
  /** Where the message came from, which also names it: a consumer of the dead-letter topic dedupes by key. */
  source: { topic: string; partition: number; offset: number }
  error: string
  payload: Buffer
  group: string
}

export interface KafkaLog extends Log {
  /** Appends messages that could not be processed to the dead-letter topic, keyed by their origin. */
  deadLetter(records: DeadLetterRecord[]): Promise<void>
}

const MIN_BACKOFF_MS = 100
const MAX_BACKOFF_MS = 5_000
const HEARTBEAT_EVERY_MS = 3_000
/** A subscriber waiting less than this to fill a batch is handed each record at once (see KafkaSubscription). */
const MIN_BATCHING_WAIT_MS = 10
/** How long the broker holds a fetch that finds nothing, for such a subscriber. */
const LONG_POLL_MS = 500
/** Largest group-committed send; topics accept record batches up to MAX_MESSAGE_BYTES. */
const MAX_SEND_BYTES = 8 << 20
const MAX_MESSAGE_BYTES = 32 << 20
/** Topics that keep less than the broker's default retention: their stream rows say how long (streams.ts). */
const RETENTION_MS = kafkaRetentionMs()

export async function openKafkaLog(options: KafkaLogOptions): Promise<KafkaLog> {
  const log = new KafkaLogImpl(options)
  try {
    await log.connect()
  } catch (err) {
    await log.close().catch(() => {})
    throw err
  }
  return log
}

class KafkaLogImpl implements KafkaLog {
  readonly kafka: Kafka
  readonly logger: KafkaLogger
  private readonly producer: Producer
  readonly admin: Admin
  private readonly ensured = new Map<string, Promise<void>>()
  private readonly subscriptions = new Set<KafkaSubscription>()
  private readonly queue: Array<{
    topic: string
    messages: LogMessage[]
    bytes: number
    resolve: () => void
    reject: (err: unknown) => void
  }> = []
  private sending = false
  private closing: Promise<void> | null = null
  private readonly prefix: string

  constructor(readonly options: KafkaLogOptions) {
    this.prefix = options.topicPrefix ?? ''
    this.logger = options.logger ?? { warn: console.warn, error: console.error, info: () => {}, debug: () => {} }
    this.kafka = new Kafka({
      clientId: options.clientId ?? 'wren',
      brokers: options.brokers,
      logLevel: KafkaLogLevel.WARN,
      logCreator: () => (entry: LogEntry) => this.kafkajsLog(entry),
      retry: { initialRetryTime: 100, retries: 8 },
    })
    this.producer = this.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
    })
    this.admin = this.kafka.admin()
  }

  /** A topic's or a group's name on the broker. */
  named(name: string): string {
    return this.prefix + name
  }

  async connect(): Promise<void> {
    await this.admin.connect()
    await Promise.all(Object.values(TOPICS).map((t) => this.ensureTopic(t)))
    await this.producer.connect()
  }

  /** Creates the topic if it does not exist (several processes may race to) and waits for its leaders. */
  ensureTopic(topic: string): Promise<void> {
    let ensured = this.ensured.get(topic)
    if (!ensured) {
      ensured = this.createTopic(topic)
      this.ensured.set(topic, ensured)
      ensured.catch(() => this.ensured.delete(topic))
    }
    return ensured
  }

  private async createTopic(topic: string): Promise<void> {
    const { partitions, replicationFactor } = this.options
    try {
      await this.admin.createTopics({
        waitForLeaders: false,
        topics: [
          {
            topic: this.named(topic),
            numPartitions: partitions,
            replicationFactor,
            // With one replica min.insync.replicas must be 1; with more, a write needs two copies.
            configEntries: [
              ...(RETENTION_MS.has(topic) ? [{ name: 'retention.ms', value: String(RETENTION_MS.get(topic)) }] : []),
              { name: 'min.insync.replicas', value: String(Math.min(2, replicationFactor)) },
              // One capture request is one record batch (one partition): allow large /batch/ bodies.
              { name: 'max.message.bytes', value: String(MAX_MESSAGE_BYTES) },
            ],
          },
        ],
      })
    } catch (err) {
      if ((err as { type?: string }).type !== 'TOPIC_ALREADY_EXISTS') throw err
    }
    // A new topic's partitions get leaders shortly after creation; until then metadata calls fail.
    const deadline = Date.now() + 30_000
    for (;;) {
      try {
        const { topics } = await this.admin.fetchTopicMetadata({ topics: [this.named(topic)] })
        if (topics[0]?.partitions.length && topics[0].partitions.every((p) => p.leader >= 0)) return
      } catch (err) {
        if (Date.now() > deadline) throw err
      }
      if (Date.now() > deadline) throw new Error(`kafka topic ${topic} has no leaders after 30 s`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }

  async append(topic: string, messages: LogMessage[]): Promise<void> {
    if (this.closing) throw new Error('kafka log is closed')
    if (messages.length === 0) return
    await this.ensureTopic(topic)
    const bytes = messages.reduce((sum, m) => sum + m.value.length + m.key.length, 0)
    await new Promise<void>((resolve, reject) => {
      this.queue.push({ topic, messages, bytes, resolve, reject })
      this.pump()
    })
  }

  /**
   * Group commit: the idempotent producer has one request in flight, so appends that arrive while a
   * send is out wait and leave together in the next one (one produce request, one round of acks).
   */
  private pump(): void {
    if (this.sending || this.queue.length === 0) return
    let bytes = 0
    let count = 0
    while (count < this.queue.length && (count === 0 || bytes + this.queue[count].bytes <= MAX_SEND_BYTES))
      bytes += this.queue[count++].bytes
    const items = this.queue.splice(0, count)
    const byTopic = new Map<string, Array<{ key: string; value: Buffer }>>()
    for (const item of items) {
      const topic = this.named(item.topic)
      const list = byTopic.get(topic) ?? []
      for (const m of item.messages) list.push({ key: m.key, value: m.value })
      byTopic.set(topic, list)
    }
    this.sending = true
    this.producer
      .sendBatch({ acks: -1, topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })) })
      .then(
        () => items.forEach((i) => i.resolve()),
        (err: unknown) => items.forEach((i) => i.reject(err)),
      )
      .finally(() => {
        this.sending = false
        this.pump()
      })
  }

  async deadLetter(records: DeadLetterRecord[]): Promise<void> {
    if (records.length === 0) return
    await this.ensureTopic(TOPICS.deadLetters)
    await this.producer.send({
      topic: this.named(TOPICS.deadLetters),
      acks: -1,
      messages: records.map((r) => ({
        key: `${r.source.topic}/${r.source.partition}/${r.source.offset}`,
        value: r.payload,
        headers: {
          'wren-error': r.error,
          'wren-group': r.group,
          'wren-source-topic': r.source.topic,
          'wren-source-partition': String(r.source.partition),
          'wren-source-offset': String(r.source.offset),
        },
      })),
    })
  }

  subscribe(options: SubscribeOptions): Subscription {
    if (this.closing) throw new Error('kafka log is closed')
    if (!Number.isInteger(options.maxBatchRecords) || options.maxBatchRecords < 1) throw new Error('maxBatchRecords must be ≥ 1')
    const sub = new KafkaSubscription(this, options, () => this.subscriptions.delete(sub))
    this.subscriptions.add(sub)
    return sub
  }

  async partitions(topic: string): Promise<number> {
    await this.ensureTopic(topic)
    const { topics } = await this.admin.fetchTopicMetadata({ topics: [this.named(topic)] })
    const count = topics[0]?.partitions.length ?? 0
    if (count === 0) throw new Error(`kafka topic ${topic} has no partitions`)
    return count
  }

  async stats(topic: string, only?: string[]): Promise<TopicStats> {
    await this.ensureTopic(topic)
    const ends = await this.admin.fetchTopicOffsets(this.named(topic))
    const low = new Map(ends.map((p) => [p.partition, Number(p.low)]))
    const endOffset = ends.reduce((sum, p) => sum + Number(p.high), 0)
    const committed: Record<string, number> = {}
    const committedByPartition: Record<string, Record<number, number>> = {}
    const groups =
      only ??
      (await this.admin.listGroups()).groups
        .filter((g) => g.protocolType === 'consumer' && g.groupId.startsWith(this.prefix))
        .map((g) => g.groupId.slice(this.prefix.length))
    for (const groupId of groups) {
      const [offsets] = await this.admin.fetchOffsets({ groupId: this.named(groupId), topics: [this.named(topic)] })
      // A group asked for by name counts even before its first commit: it is at the start of the topic.
      if (!offsets || (!only && offsets.partitions.every((p) => Number(p.offset) < 0))) continue
      const at = (p: { partition: number; offset: string }) => (Number(p.offset) >= 0 ? Number(p.offset) : (low.get(p.partition) ?? 0))
      committed[groupId] = offsets.partitions.reduce((sum, p) => sum + at(p), 0)
      committedByPartition[groupId] = Object.fromEntries(offsets.partitions.map((p) => [p.partition, at(p)]))
    }
    return { topic, endOffset, committed, committedByPartition }
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.allSettled([...this.subscriptions].map((s) => s.stop()))
      // Appends already accepted go out before the producer disconnects.
      while (this.sending || this.queue.length) await new Promise((r) => setTimeout(r, 5))
      await this.producer.disconnect().catch(() => {})
      await this.admin.disconnect().catch(() => {})
    })()
    return this.closing
  }

  private kafkajsLog({ level, log }: LogEntry): void {
    const { message, ...rest } = log
    const obj = { kafka: rest }
    // Transient while a topic or a group settles; kafkajs retries them itself.
    const transient =
      /does not host this topic-partition|Limiting retries for the idempotent producer|group is rebalancing|coordinator is not aware of this member/i.test(
        message,
      )
    if (transient) this.logger.debug(obj, `kafka: ${message}`)
    else if (level === KafkaLogLevel.ERROR) this.logger.error(obj, `kafka: ${message}`)
    else if (level === KafkaLogLevel.WARN) this.logger.warn(obj, `kafka: ${message}`)
    else if (level === KafkaLogLevel.INFO) this.logger.info(obj, `kafka: ${message}`)
    else this.logger.debug(obj, `kafka: ${message}`)
  }
}

interface PendingRange {
  first: number
  last: number
}

/** What this consumer knows about a partition it owns, reset on every (re)join of the group. */
interface PartitionState {
  generation: number
  /** A range the previous owner handed out and did not commit: redelivered before anything else. */
  pending: PendingRange | null
  /** Records of the pending range gathered so far (a fetch may return less than the range). */
  replay: LogRecord[]
  /** The next batch is the first since this consumer got the partition. */
  fresh: boolean
}

class KafkaSubscription implements Subscription {
  private readonly consumer: Consumer
  private readonly partitions = new Map<number, PartitionState>()
  private generation = 0
  private stopping = false
  /** The batch being handled and committed right now: stop() waits for it. */
  private inflight: Promise<unknown> = Promise.resolve()
  private readonly started: Promise<void>
  private stopped: Promise<void> | null = null

  constructor(
    private readonly log: KafkaLogImpl,
    private readonly options: SubscribeOptions,
    private readonly onEnd: () => void,
  ) {
    this.consumer = log.kafka.consumer({
      groupId: log.named(options.group),
      allowAutoTopicCreation: false,
      // The broker batches for us: it answers once 1 MiB is there or maxWaitMs has passed. A subscriber that waits
      // only a few ms (the config, command-result and person-change feeds) would make that a busy poll of an
      // idle topic (a fetch every few ms, costing both sides CPU, ~20% of a core per process): it gets each record
      // as soon as it is there instead, the broker holding an idle fetch up to LONG_POLL_MS.
      ...(options.maxWaitMs < MIN_BATCHING_WAIT_MS
        ? { maxWaitTimeInMs: LONG_POLL_MS, minBytes: 1 }
        : { maxWaitTimeInMs: options.maxWaitMs, minBytes: 1 << 20 }),
      // A fetch holds a few batches at most (the broker still returns a record batch larger than this whole).
      maxBytesPerPartition: fetchBytes(options.maxBatchBytes),
      maxBytes: 4 * fetchBytes(options.maxBatchBytes),
      sessionTimeout: log.options.sessionTimeoutMs ?? 30_000,
      heartbeatInterval: Math.min(3_000, Math.floor((log.options.sessionTimeoutMs ?? 30_000) / 3)),
      retry: { initialRetryTime: 100, retries: 10 },
    })
    this.consumer.on(this.consumer.events.GROUP_JOIN, () => {
      // Everything known about partitions came from an earlier generation: read it again.
      this.generation++
      this.partitions.clear()
    })
    this.consumer.on(this.consumer.events.CRASH, ({ payload }) => {
      if (!payload.restart)
        this.log.logger.error(
          { topic: options.topic, group: options.group, err: payload.error },
          'kafka log: consumer crashed and will not restart; restart this process',
        )
    })
    this.started = this.start()
    this.started.catch((err) => this.report(err, this.placeholder(0)))
  }

  /** Connects and joins the group, retrying with backoff while Kafka is unreachable (until stopped). */
  private async start(): Promise<void> {
    let backoff = MIN_BACKOFF_MS
    while (!this.stopping) {
      try {
        await this.log.ensureTopic(this.options.topic)
        await this.consumer.connect()
        break
      } catch (err) {
        this.report(err, this.placeholder(0))
        await this.consumer.disconnect().catch(() => {})
        await new Promise((r) => setTimeout(r, backoff))
        backoff = Math.min(MAX_BACKOFF_MS, backoff * 2)
      }
    }
    if (this.stopping) return
    await this.consumer.subscribe({ topics: [this.log.named(this.options.topic)], fromBeginning: this.options.from !== 'end' })
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      // One partition at a time: the ingestion processor's person cache is not safe across
      // concurrent batches. Parallelism comes from running more ingest processes.
      partitionsConsumedConcurrently: 1,
      eachBatch: (payload) => {
        const work = this.eachBatch(payload)
        this.inflight = work.catch(() => {})
        return work
      },
    })
  }

  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.stopping = true
      await this.started.catch(() => {})
      // Finish (handle and commit) the batch in flight, then leave the group so the partitions move on.
      await this.inflight
      await this.consumer.disconnect().catch((err) => this.report(err, this.placeholder(0)))
      this.onEnd()
    })()
    return this.stopped
  }

  private async eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, isRunning, isStale } = payload
    if (batch.isEmpty()) return
    const live = () => !this.stopping && isRunning() && !isStale()
    let state: PartitionState
    try {
      state = await this.partitionState(batch.partition)
    } catch (err) {
      // Nothing resolved: kafkajs fetches the same records again and we retry reading the offsets.
      this.report(err, this.placeholder(Number(batch.firstOffset())))
      await new Promise((r) => setTimeout(r, MIN_BACKOFF_MS))
      return
    }
    if (!live()) return
    let records = batch.messages.map((m): LogRecord => ({
      key: m.key?.toString() ?? '',
      value: m.value ?? Buffer.alloc(0),
      partition: batch.partition,
      offset: Number(m.offset),
    }))

    if (state.pending && state.replay.length === 0 && records[0].offset > state.pending.last) {
      // The range is gone from the log (retention, or offsets reset by an operator): nothing to replay.
      state.pending = null
    }
    if (state.pending) {
      const { first, last } = state.pending
      state.replay.push(...records.filter((r) => r.offset >= first && r.offset <= last))
      records = records.filter((r) => r.offset > last)
      const highWatermark = Number(batch.highWatermark)
      const complete =
        state.replay.length > 0 &&
        (state.replay[state.replay.length - 1].offset >= last || highWatermark - 1 <= state.replay[state.replay.length - 1].offset)
      if (!complete) {
        // Keep fetching after what we have; nothing is committed until the whole range is handled.
        if (state.replay.length) resolveOffset(String(state.replay[state.replay.length - 1].offset))
        return
      }
      const replay = state.replay
      state.pending = null
      state.replay = []
      if (!(await this.deliver(payload, state, replay, true))) return
    }

    const batchAt = (i: number) =>
      i < records.length ? withinBytes(records.slice(i, i + this.options.maxBatchRecords), this.options.maxBatchBytes) : null
    for (let i = 0, next = batchAt(0); next && live();) {
      const following = batchAt(i + next.length)
      if (!(await this.deliver(payload, state, next, false, following))) return
      i += next.length
      next = following
    }
  }

  /**
   * Marks the range pending, runs the handler until it succeeds, commits. False when it must stop. The
   * records that come next in this fetch, if any, are the handler's lookahead (SubscribeOptions.lookahead).
   */
  private async deliver(
    payload: EachBatchPayload,
    state: PartitionState,
    records: LogRecord[],
    redelivered: boolean,
    following: LogRecord[] | null = null,
  ): Promise<boolean> {
    const { batch, resolveOffset, heartbeat, isRunning, isStale } = payload
    const { topic } = this.options
    const live = () => !this.stopping && isRunning() && !isStale()
    const first = records[0].offset
    const last = records[records.length - 1].offset
    let logBatch: LogBatch = {
      topic,
      partition: batch.partition,
      records,
      firstOffset: first,
      lastOffset: last,
      redelivered,
      reassigned: state.fresh,
    }

    // (1) Durably record the range before anyone sees it. Throws (and kafkajs rejoins) if we lost the
    // partition; kafkajs returns quietly when the consumer is stopping, so check that we are still live.
    await this.commit(batch.topic, batch.partition, first, JSON.stringify({ pending: [first, last] }))
    if (!live()) return false

    const beat = setInterval(() => void heartbeat().catch(() => {}), HEARTBEAT_EVERY_MS)
    try {
      let backoff = MIN_BACKOFF_MS
      for (let attempt = 0; ; attempt++) {
        try {
          const handled = this.options.handler(logBatch)
          if (attempt === 0 && following) this.lookahead(batch.partition, following)
          await handled
          break
        } catch (err) {
          this.report(err, logBatch)
          // Leaving the range pending: whoever owns the partition next redelivers it.
          if (!live()) return false
          await new Promise((r) => setTimeout(r, backoff))
          backoff = Math.min(MAX_BACKOFF_MS, backoff * 2)
          if (!live()) return false
          logBatch = { ...logBatch, redelivered: true }
        }
      }
    } finally {
      clearInterval(beat)
    }
    state.fresh = false

    // (2) The batch is in ClickHouse: move past it. This also runs while stopping (stop() waits for it).
    await this.commit(batch.topic, batch.partition, last + 1, '')
    resolveOffset(String(last))
    return true
  }

  /** Tells the handler of the batch it is to be handed next (a hint: see SubscribeOptions.lookahead). */
  private lookahead(partition: number, records: LogRecord[]): void {
    const { topic, lookahead } = this.options
    const next: LogBatch = {
      topic,
      partition,
      records,
      firstOffset: records[0].offset,
      lastOffset: records[records.length - 1].offset,
      redelivered: false,
      reassigned: false,
    }
    try {
      lookahead?.(next)
    } catch (err) {
      this.report(err, next) // a hint that failed: the batch is handed out all the same
    }
  }

  private async commit(topic: string, partition: number, offset: number, metadata: string): Promise<void> {
    await this.consumer.commitOffsets([{ topic, partition, offset: String(offset), metadata }])
  }

  /** The committed offset and pending range of a partition, read once per generation. */
  private async partitionState(partition: number): Promise<PartitionState> {
    const known = this.partitions.get(partition)
    if (known && known.generation === this.generation) return known
    const generation = this.generation
    const [offsets] = await this.log.admin.fetchOffsets({
      groupId: this.log.named(this.options.group),
      topics: [this.log.named(this.options.topic)],
    })
    const committed = offsets?.partitions.find((p) => p.partition === partition)
    const pending = parsePending(committed?.metadata ?? null)
    if (pending)
      this.log.logger.warn(
        { topic: this.options.topic, group: this.options.group, partition, pending },
        'kafka log: redelivering a batch the previous owner did not commit',
      )
    const state: PartitionState = { generation, pending, replay: [], fresh: true }
    if (generation === this.generation) this.partitions.set(partition, state)
    return state
  }

  private placeholder(offset: number): LogBatch {
    return { topic: this.options.topic, partition: 0, records: [], firstOffset: offset, lastOffset: offset - 1, redelivered: false }
  }

  private report(err: unknown, batch: LogBatch): void {
    const { topic, group, onError } = this.options
    try {
      if (onError) onError(err, batch)
      else
        this.log.logger.warn({ topic, group, err, partition: batch.partition, firstOffset: batch.firstOffset }, 'kafka log: consumer error')
    } catch {
      // onError failing must not break delivery.
    }
  }
}

/** Bytes a fetch asks per partition: what a batch holds, within 1 to 16 MiB. */
function fetchBytes(maxBatchBytes: number | undefined): number {
  return Math.min(16 << 20, Math.max(1 << 20, maxBatchBytes ?? 16 << 20))
}

function parsePending(metadata: string | null): PendingRange | null {
  if (!metadata) return null
  try {
    const parsed = JSON.parse(metadata) as { pending?: unknown }
    const range = parsed.pending
    if (Array.isArray(range) && range.length === 2 && range.every((n) => Number.isSafeInteger(n) && n >= 0) && range[0] <= range[1])
      return { first: range[0], last: range[1] }
  } catch {
    // Metadata someone else wrote (a tool resetting offsets): not ours, ignore it.
  }
  return null
}
