// The embedded log: Wren's single-machine implementation of Log (see log.ts). One partition (0) per
// topic, stored as checksummed, fsync'd segment files (segment.ts), with consumer offsets committed
// durably in <dir>/<topic>/consumers/<group>.json.
//
// Consumer offsets carry the exactly-once protocol the processors rely on: before a batch is handed to
// a handler the file says {committed: first, pending: {first, last}}; after the handler resolves it says
// {committed: last + 1}. A process that dies in between finds the pending range on restart and hands
// out exactly that range again, marked redelivered, so the handler can reproduce its earlier output.
// When the next batch was read while the handler ran (SubscribeOptions.lookahead), the two writes are
// one: {committed: last + 1, pending: the next range}.

import { mkdir, open, readdir, readFile, rename, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import type { Log, LogBatch, LogMessage, LogRecord, SubscribeOptions, Subscription, TopicStats } from '../log'
import { encodeMessages, syncDir, TopicStore, type Warner } from './segment'
import { RepeatedFailures } from '../../repeated-failures'

export interface EmbeddedLogOptions {
  dir: string
  /** A segment is closed and a new one started once it would grow past this size. Default 64 MiB. */
  segmentBytes?: number
  /**
   * Segments every group has consumed are kept for replays while they total at most `bytes` and were
   * written less than `ms` ago. Default: none kept (deleted once consumed).
   */
  retention?: { bytes: number; ms: number }
  logger?: Warner
}

export interface EmbeddedLog extends Log {
  /** Number of data fsyncs so far (all topics): lets tests and benchmarks see group commit at work. */
  dataSyncs(): number
}

interface OffsetState {
  committed: number
  pending?: { first: number; last: number }
}

interface Topic {
  store: TopicStore
  consumersDir: string
  /** What each group's offset file says; retention and stats read it from here. */
  offsets: Map<string, OffsetState>
}

/** Topic and group names become file names. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/
const MIN_BACKOFF_MS = 100
const MAX_BACKOFF_MS = 5_000

const consoleWarner: Warner = { warn: (obj, msg) => console.warn(msg, obj) }

export async function openEmbeddedLog(options: EmbeddedLogOptions): Promise<EmbeddedLog> {
  const log = new EmbeddedLogImpl(
    options.dir,
    options.segmentBytes ?? 64 << 20,
    options.logger ?? consoleWarner,
    options.retention ?? { bytes: 0, ms: 0 },
  )
  await mkdir(options.dir, { recursive: true })
  try {
    // Recovery (truncating torn tails) happens here, before anyone appends or reads.
    const entries = await readdir(options.dir, { withFileTypes: true })
    for (const entry of entries) {
      if (entry.isDirectory() && NAME.test(entry.name) && (await isTopicDir(join(options.dir, entry.name)))) {
        await log.topic(entry.name)
      }
    }
  } catch (err) {
    await log.close().catch(() => {})
    throw err
  }
  return log
}

class EmbeddedLogImpl implements EmbeddedLog {
  private readonly topics = new Map<string, Promise<Topic>>()
  private readonly stores: TopicStore[] = []
  private readonly subscriptions = new Map<string, SubscriptionImpl>()
  /** Appends that may not have reached a topic's queue yet; close() waits for them. */
  private readonly inflight = new Set<Promise<void>>()
  private closing: Promise<void> | null = null

  constructor(
    readonly dir: string,
    private readonly segmentBytes: number,
    readonly logger: Warner,
    private readonly retention: { bytes: number; ms: number },
  ) {}

  topic(name: string): Promise<Topic> {
    let topic = this.topics.get(name)
    if (!topic) {
      topic = this.openTopic(name)
      this.topics.set(name, topic)
      // A failed open (say, a full disk) is retried by the next caller instead of being cached.
      topic.catch(() => this.topics.delete(name))
    }
    return topic
  }

  private async openTopic(name: string): Promise<Topic> {
    const dir = join(this.dir, name)
    const consumersDir = join(dir, 'consumers')
    await mkdir(consumersDir, { recursive: true })
    await syncDir(this.dir)
    await syncDir(dir)
    const store = await TopicStore.open(dir, name, this.segmentBytes, this.logger)
    this.stores.push(store)
    const offsets = new Map<string, OffsetState>()
    for (const file of await readdir(consumersDir)) {
      const path = join(consumersDir, file)
      if (file.endsWith('.json.tmp')) {
        await unlink(path) // an offset write that never got renamed into place
      } else if (file.endsWith('.json')) {
        offsets.set(file.slice(0, -'.json'.length), parseOffsets(await readFile(path, 'utf8'), path))
      }
    }
    return { store, consumersDir, offsets }
  }

  append(topic: string, messages: LogMessage[]): Promise<void> {
    if (this.closing) return Promise.reject(new Error('embedded log is closed'))
    const appended = (async () => {
      if (!NAME.test(topic)) throw new Error(`invalid topic name ${JSON.stringify(topic)}`)
      const encoded = encodeMessages(messages)
      const { store } = await this.topic(topic)
      await store.append(encoded)
    })()
    this.inflight.add(appended)
    // Inline callbacks: a named closure made per call costs tsx's name helper on every append (0.8% of /e/).
    appended.then(
      () => this.inflight.delete(appended),
      () => this.inflight.delete(appended),
    )
    return appended
  }

  subscribe(options: SubscribeOptions): Subscription {
    const { topic, group, maxBatchRecords, maxWaitMs } = options
    if (this.closing) throw new Error('embedded log is closed')
    if (!NAME.test(topic)) throw new Error(`invalid topic name ${JSON.stringify(topic)}`)
    if (!NAME.test(group)) throw new Error(`invalid consumer group name ${JSON.stringify(group)}`)
    if (!Number.isInteger(maxBatchRecords) || maxBatchRecords < 1) throw new Error('maxBatchRecords must be ≥ 1')
    if (options.maxBatchBytes !== undefined && !(options.maxBatchBytes >= 1)) throw new Error('maxBatchBytes must be ≥ 1')
    if (!(maxWaitMs >= 0)) throw new Error('maxWaitMs must be ≥ 0')
    // Two consumers of one group in one log would race on the offset file.
    const key = `${topic}/${group}`
    if (this.subscriptions.has(key)) throw new Error(`group ${group} already consumes ${topic}`)
    const sub = new SubscriptionImpl(this, options, () => this.subscriptions.delete(key))
    this.subscriptions.set(key, sub)
    return sub
  }

  async partitions(): Promise<number> {
    return 1
  }

  async stats(name: string): Promise<TopicStats> {
    const pending = this.topics.get(name)
    if (!pending) return { topic: name, endOffset: 0, committed: {} }
    const topic = await pending
    const committed: Record<string, number> = {}
    const committedByPartition: Record<string, Record<number, number>> = {}
    for (const [group, state] of topic.offsets) {
      committed[group] = state.committed
      committedByPartition[group] = { 0: state.committed }
    }
    return { topic: name, endOffset: topic.store.endOffset, committed, committedByPartition, bytes: topic.store.bytes }
  }

  dataSyncs(): number {
    return this.stores.reduce((sum, store) => sum + store.syncs, 0)
  }

  /** Durably replaces a group's offset file: write a temp file, fsync, rename, fsync the directory. */
  async writeOffsets(topic: Topic, group: string, state: OffsetState): Promise<void> {
    const path = join(topic.consumersDir, `${group}.json`)
    const tmp = `${path}.tmp`
    const fh = await open(tmp, 'w')
    try {
      await fh.writeFile(JSON.stringify(state))
      await fh.sync()
    } finally {
      await fh.close()
    }
    await rename(tmp, path)
    await syncDir(topic.consumersDir)
    topic.offsets.set(group, state)
  }

  /** Retention: drop segments every group has consumed (beyond what `retention` keeps). Failure only delays it to the next commit. */
  async applyRetention(topic: Topic): Promise<void> {
    try {
      let min = Infinity
      for (const state of topic.offsets.values()) min = Math.min(min, state.committed)
      if (min !== Infinity) await topic.store.deleteBelow(min, this.retention)
    } catch (err) {
      this.logger.warn({ topic: topic.store.name, err }, 'embedded log: retention failed')
    }
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.subscriptions.values()].map((s) => s.stop()))
      await Promise.allSettled([...this.inflight])
      for (const store of this.stores) {
        await store.drain()
        await store.close()
      }
    })()
    return this.closing
  }
}

/** Only directories this log made are topics: a shared data directory may hold other things. */
async function isTopicDir(path: string): Promise<boolean> {
  return (await readdir(path)).some((f) => f === 'consumers' || f.endsWith('.seg'))
}

function parseOffsets(text: string, path: string): OffsetState {
  const state = JSON.parse(text) as OffsetState
  const ok = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0
  const pending = state?.pending
  if (!ok(state?.committed) || (pending && !(ok(pending.first) && ok(pending.last) && pending.first <= pending.last))) {
    throw new Error(`embedded log: malformed consumer offsets in ${path}`)
  }
  return state
}

class SubscriptionImpl implements Subscription {
  private stopped = false
  /** Ends the current sleep early: on stop(), or on a new append while waiting for records. */
  private wake: (() => void) | null = null
  private backoffMs = MIN_BACKOFF_MS
  /** The batch whose handler runs for the first time now (a lookahead is told only then). */
  private handling: LogBatch | null = null
  private readonly done: Promise<void>
  /** Without onError, failures are logged once and then once a minute with a count (the loop retries every few seconds). */
  private readonly failures: RepeatedFailures

  constructor(
    private readonly log: EmbeddedLogImpl,
    private readonly options: SubscribeOptions,
    onEnd: () => void,
  ) {
    this.failures = new RepeatedFailures(log.logger, 'embedded log: consumer error')
    this.done = this.run()
      .catch((err) => this.log.logger.warn({ topic: options.topic, group: options.group, err }, 'embedded log: consumer failed'))
      .finally(onEnd)
  }

  stop(): Promise<void> {
    this.stopped = true
    this.wake?.()
    return this.done
  }

  private async run(): Promise<void> {
    const { topic: name, group } = this.options
    const opened = await this.attempt(() => this.log.topic(name), this.placeholder(0))
    if (!opened) return
    const topic = opened.value
    const { store } = topic
    let next: number
    let pending: OffsetState['pending'] | null = null
    const saved = topic.offsets.get(group)
    if (!saved) {
      next = this.options.from === 'end' ? store.endOffset : store.startOffset
      if (!(await this.attempt(() => this.log.writeOffsets(topic, group, { committed: next }), this.placeholder(next)))) return
    } else {
      next = this.clamp(saved.committed, store, 'committed offset')
      pending = saved.pending ?? null
    }

    /** The next batch's records, read while the handler ran the one before (SubscribeOptions.lookahead). */
    let ahead: Promise<LogRecord[] | null> | null = null
    let prefetched: LogRecord[] | null = null
    while (!this.stopped) {
      let first = next
      let last: number
      let redelivered = false
      if (pending) {
        // The process died while this range was with the handler: hand out exactly it again.
        first = this.clamp(pending.first, store, 'pending range start')
        last = Math.min(pending.last, store.endOffset - 1)
        pending = null
        redelivered = true
        if (last < first) {
          next = first
          continue
        }
      } else if (prefetched) {
        last = first + prefetched.length - 1
      } else {
        const end = await this.waitForRecords(store, next)
        if (end === null) return
        last = end
      }
      // A redelivered range is handed out exactly as before, whatever the byte bound is now.
      const maxBytes = redelivered ? Infinity : this.options.maxBatchBytes
      // Read while the batch before it ran: its pending mark below is also that batch's commit.
      const commits = prefetched !== null
      const read = prefetched
        ? { value: prefetched }
        : await this.attempt(() => store.read(first, last - first + 1, maxBytes), this.placeholder(first))
      prefetched = null
      if (!read || this.stopped) return
      last = first + read.value.length - 1
      let batch: LogBatch = { topic: name, partition: 0, records: read.value, firstOffset: first, lastOffset: last, redelivered }
      const marked = { committed: first, pending: { first, last } }
      if (!(await this.attempt(() => this.log.writeOffsets(topic, group, marked), batch))) return
      if (commits) await this.log.applyRetention(topic)
      ahead = this.options.lookahead ? this.readAhead(store, batch) : null

      // From here the batch is in flight: stop() waits for it and for its commit.
      this.handling = batch
      for (;;) {
        try {
          await this.options.handler(batch)
          break
        } catch (err) {
          this.handling = null
          this.report(err, batch)
          // Stopping now leaves the pending range in the offset file: the next run redelivers it.
          if (this.stopped) return
          await this.backoff()
          if (this.stopped) return
          batch = { ...batch, redelivered: true }
        }
      }
      this.handling = null
      this.backoffMs = MIN_BACKOFF_MS
      this.failures.success({ topic: name, group })
      next = last + 1
      // The next batch is here already: its pending mark is this one's commit.
      prefetched = ahead ? await ahead : null
      if (prefetched && !this.stopped) continue
      prefetched = null
      if (!(await this.attempt(() => this.log.writeOffsets(topic, group, { committed: next }), batch))) return
      await this.log.applyRetention(topic)
    }
  }

  /**
   * Reads the batch after `current` when a whole one is there now (a partial one would wait for maxWaitMs)
   * and tells the handler of it (SubscribeOptions.lookahead) if it still runs `current`; null otherwise.
   */
  private async readAhead(store: TopicStore, current: LogBatch): Promise<LogRecord[] | null> {
    const first = current.lastOffset + 1
    if (store.endOffset - first < this.options.maxBatchRecords) return null
    let records: LogRecord[]
    try {
      records = await store.read(first, this.options.maxBatchRecords, this.options.maxBatchBytes)
    } catch {
      return null // read again, the usual way, when its turn comes
    }
    if (records.length === 0) return null
    const next: LogBatch = {
      topic: current.topic,
      partition: 0,
      records,
      firstOffset: first,
      lastOffset: first + records.length - 1,
      redelivered: false,
    }
    if (this.handling === current) {
      try {
        this.options.lookahead?.(next)
      } catch (err) {
        this.report(err, next) // a hint that failed: the batch is handed out all the same
      }
    }
    return records
  }

  /**
   * Returns the last offset of the next batch starting at `next`: at once if a full batch is there,
   * otherwise once maxWaitMs has passed since a first record was seen (or the batch filled up).
   * Null when stopped.
   */
  private async waitForRecords(store: TopicStore, next: number): Promise<number | null> {
    const { maxBatchRecords, maxWaitMs } = this.options
    let firstSeen: number | null = null
    while (!this.stopped) {
      const available = store.endOffset - next
      if (available >= maxBatchRecords) return next + maxBatchRecords - 1
      if (available > 0) {
        firstSeen ??= performance.now()
        const left = maxWaitMs - (performance.now() - firstSeen)
        if (left <= 0) return store.endOffset - 1
        await this.sleep(left, store)
      } else {
        await this.sleep(Infinity, store)
      }
    }
    return null
  }

  /** Keeps an offset inside what is on disk (retention or lost files can leave it outside). */
  private clamp(offset: number, store: TopicStore, what: string): number {
    const clamped = Math.min(Math.max(offset, store.startOffset), store.endOffset)
    if (clamped !== offset) {
      this.log.logger.warn(
        { topic: this.options.topic, group: this.options.group, offset, start: store.startOffset, end: store.endOffset },
        `embedded log: ${what} outside the log, moved to ${clamped}`,
      )
    }
    return clamped
  }

  /**
   * Runs fn until it succeeds, reporting failures and backing off. Returns undefined when stopped
   * before it succeeded (at least one attempt is made, so a commit after stop() is still tried).
   */
  private async attempt<T>(fn: () => Promise<T>, batch: LogBatch): Promise<{ value: T } | undefined> {
    for (;;) {
      try {
        const value = await fn()
        this.backoffMs = MIN_BACKOFF_MS
        this.failures.success({ topic: this.options.topic, group: this.options.group })
        return { value }
      } catch (err) {
        this.report(err, batch)
        if (this.stopped) return undefined
        await this.backoff()
        if (this.stopped) return undefined
      }
    }
  }

  /** Errors that happen before a batch exists are reported with an empty batch at the next offset. */
  private placeholder(offset: number): LogBatch {
    const { topic } = this.options
    return { topic, partition: 0, records: [], firstOffset: offset, lastOffset: offset - 1, redelivered: false }
  }

  private report(err: unknown, batch: LogBatch): void {
    const { topic, group, onError } = this.options
    try {
      if (onError) onError(err, batch)
      else this.failures.failure(err, { topic, group, firstOffset: batch.firstOffset })
    } catch {
      // onError itself failing must not kill the delivery loop.
    }
  }

  private async backoff(): Promise<void> {
    const ms = this.backoffMs
    this.backoffMs = Math.min(MAX_BACKOFF_MS, ms * 2)
    await this.sleep(ms)
  }

  private sleep(ms: number, store?: TopicStore): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined
      let unlisten: (() => void) | undefined
      const done = () => {
        clearTimeout(timer)
        unlisten?.()
        this.wake = null
        resolve()
      }
      if (ms !== Infinity) timer = setTimeout(done, ms)
      if (store) unlisten = store.onAppend(done)
      this.wake = done
      if (this.stopped) done()
    })
  }
}
