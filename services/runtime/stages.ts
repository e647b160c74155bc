// What reads the log: the stream stages (the ingestion and recordings processors, each the stage of its
// stream's row in platform/log/streams.ts), how far behind each is, and the feeds a process follows (person
// commands' results, stored person changes). Each built on first use (build-once.ts), on the stores it uses.
import { existsSync } from 'node:fs'
import { batchBytes } from '../platform/config'
import { IngestionLagMonitor } from '../platform/ingestion-lag'
import { stallingSubscriptions } from '../platform/log/failpoint'
import { stageStream, type StageStream } from '../platform/log/streams'
import { LogCommandWaiter, publishCommandResults } from '../platform/log/command-results'
import { followPersonChanges, publishPersonChanges, type SnapshotChanges } from '../platform/log/person-changes'
import { IngestionProcessor } from '../ingestion/processor'
import { ClickHousePersonStore } from '../ingestion/persons/clickhouse-store'
import { WorkerPersonWork } from '../ingestion/worker-person-work'
import { RecordingsProcessor } from '../recordings/processor'
import { BuildOnce, type RuntimeContext } from './build-once'
import type { Stores } from './stores'

export class Stages extends BuildOnce {
  constructor(
    ctx: RuntimeContext,
    private readonly stores: Stores,
  ) {
    super(ctx)
  }

  /**
   * How far behind a stage is. Every role reports it (what an operator asks any process); Kafka's offsets
   * cost admin requests, so they are read less often than the embedded log's, which are in memory.
   */
  lag(stream: StageStream): Promise<IngestionLagMonitor> {
    return this.once(`lag ${stream.name}`, async () => {
      const monitor = new IngestionLagMonitor(this.ctx.storage.log, {
        topic: stream.topic,
        group: stream.group,
        intervalMs: this.ctx.config.kafka?.lagIntervalMs ?? 1_000,
        logger: this.child(`${stream.lag.report === 'ingestion' ? 'ingestion' : 'recordings'}-lag`),
      })
      await monitor.start()
      const { gauges } = stream.lag
      this.ctx.metrics.gauge(`${gauges}_lag_messages`, () => monitor.current().messages)
      this.ctx.metrics.gauge(`${gauges}_lag_seconds`, () => monitor.current().seconds)
      this.ctx.metrics.gauge(`${gauges}_stalled_seconds`, () => monitor.current().stalledSeconds)
      if ('logBytesGauge' in stream.lag) this.ctx.metrics.gauge(stream.lag.logBytesGauge, () => monitor.current().logBytes ?? 0)
      return this.ctx.lifecycle.started(`lag ${stream.name}`, monitor, (m) => m.stop())
    })
  }

  /** The stage of a stream, built (not started). */
  stage(stream: StageStream): Promise<{ start(): void }> {
    return stream.stage === 'ingestion' ? this.ingestion() : this.recordings()
  }

  /** The ingestion processor (the events stream's stage); the person work runs on a worker thread. */
  ingestion(): Promise<IngestionProcessor> {
    return this.once('ingestion', async () => {
      const { config } = this.ctx
      const { clickhouse, log, kafka } = this.ctx.storage
      const { failpoints } = config
      const stall = failpoints.ingestStallFile
      const geoip = await this.stores.geoip()
      const processor = new IngestionProcessor(
        stall ? stallingSubscriptions(log, () => existsSync(stall)) : log,
        new ClickHousePersonStore(clickhouse),
        this.child('ingestion'),
        this.ctx.metrics,
        {
          ...config.ingestion,
          maxBatchBytes: batchBytes(config).ingestBatchBytes,
          crashAfterBatches: failpoints.ingestCrashAfterBatches,
          poisonEvent: failpoints.ingestPoisonEvent,
          deadLetters: (await this.stores.deadLetters()).recorder(stageStream('events').group),
          // Requests on this thread never wait behind a batch.
          work: new WorkerPersonWork(
            {
              geoip: geoip ? { database: config.geoipDatabase } : null,
              poisonEvent: failpoints.ingestPoisonEvent,
              exitOnEvent: failpoints.ingestWorkerExitEvent,
              partRecords: config.ingestion.partRecords,
              partBytes: batchBytes(config).ingestPartBytes,
            },
            this.child('ingestion'),
          ),
          ...(kafka ? { publishResults: publishCommandResults(kafka), publishChanges: publishPersonChanges(kafka) } : {}),
        },
      )
      // Events of wide persons are queryable once copied (ingestion/persons/wide.ts): the log's lag does not show them.
      this.ctx.metrics.gauge('wren_ingestion_copies_waiting', () => processor.copiesWaiting()?.parts ?? 0)
      this.ctx.metrics.gauge('wren_ingestion_copies_waiting_seconds', () => processor.copiesWaiting()?.seconds ?? 0)
      return this.ctx.lifecycle.started('ingestion', processor, (p) => p.close())
    })
  }

  /** Session recordings: snapshots from /s/ into blocks in ClickHouse (the snapshots stream's stage). */
  recordings(): Promise<RecordingsProcessor> {
    return this.once('recordings', async () => {
      const metadata = await this.stores.recordingMetadata()
      const stall = this.ctx.config.failpoints.recordingsStallFile
      const { log } = this.ctx.storage
      const processor = new RecordingsProcessor(
        stall ? stallingSubscriptions(log, () => existsSync(stall), 'recordings-stall-file') : log,
        await this.stores.snapshotBlocks(),
        this.child('recordings'),
        this.ctx.metrics,
        {
          ...this.ctx.config.recordings,
          maxBatchBytes: batchBytes(this.ctx.config).recordingsBatchBytes,
          crashAfterBatches: this.ctx.config.failpoints.recordingsCrashAfterBatches,
          poisonSession: this.ctx.config.failpoints.recordingsPoisonSession,
          deadLetters: (await this.stores.deadLetters()).recorder(stageStream('snapshots').group),
          onBlocks: (range, blocks) => metadata.prepare(range, blocks),
        },
      )
      return this.ctx.lifecycle.started('recordings', processor, (p) => p.stop())
    })
  }

  /** Where the persons API sends person commands and waits for their results. */
  personCommands(): Promise<IngestionProcessor | LogCommandWaiter> {
    return this.once<IngestionProcessor | LogCommandWaiter>('person commands', () => {
      // In a process that runs ingestion, the processor itself; otherwise results are learned from the log.
      if (this.ctx.roles.runs('ingest')) return this.ingestion()
      const waiter = new LogCommandWaiter(this.ctx.storage.log)
      waiter.start()
      return this.ctx.lifecycle.started('command results', waiter, (w) => w.stop())
    })
  }

  /**
   * Hands `apply` each batch of stored person changes: from the processor in this process (embedded mode), or
   * from the log's feed (cluster mode: the processors are other processes, or own only some partitions).
   */
  async onPersonChanges(apply: (changes: SnapshotChanges) => void): Promise<void> {
    const { log, kafka } = this.ctx.storage
    if (!kafka) (await this.ingestion()).onPersonChanges(apply)
    else this.ctx.lifecycle.started('person feed', followPersonChanges(log, apply, this.child('person-feed')), (feed) => feed.stop())
  }
}
