// Stores and services, each built the first time something asks for it: a process builds only what its
// roles' route groups, streams and jobs use (a capture process never loads flags; a decide process never
// starts a materializer). Whatever has to stop registers on the lifecycle as it is built, after what it was
// built on, so stopping runs in the right order by construction.
import type { Logger } from 'pino'
import { existsSync } from 'node:fs'
import { batchBytes, type Config } from '../shared/config'
import { systemClock, type Clock } from '../shared/time/clock'
import type { Metrics } from '../shared/metrics'
import { defaultRequestMemoryBytes, MemoryBudget } from '../shared/http/memory-budget'
import { INGESTION_GROUP, IngestionLagMonitor, RECORDINGS_GROUP } from '../shared/ingestion-lag'
import { stallingSubscriptions } from '../shared/log/failpoint'
import { chatModel } from '../shared/ai/chat'
import { AccessControls } from '../shared/http/access-controls'
import { PropertyMaterializer } from '../shared/query/materialized-properties'
import { ClusterConfigLog, LocalConfigLog, type ConfigLog } from '../shared/log/config-log'
import { ProjectStore } from '../projects/store'
import { capturesConsoleLogs } from '../shared/project-settings'
import { DeadLetterStore, kafkaDeadLetterFeed } from '../dead-letters/store'
import { eventBackpressure, recordingsBackpressure, type CaptureBackpressure } from '../capture/backpressure'
import { IngestionProcessor } from '../ingestion/processor'
import { ClickHousePersonStore } from '../ingestion/persons/clickhouse-store'
import { WorkerPersonWork } from '../ingestion/worker-person-work'
import { LogCommandWaiter, publishCommandResults } from '../shared/log/command-results'
import { followPersonChanges, publishPersonChanges, type SnapshotChanges } from '../shared/log/person-changes'
import { openGeoIpReader, type CityLookup } from '../shared/geoip'
import { PersonQueries } from '../persons/queries'
import { DefinitionQueries } from '../definitions/queries'
import { DeletionScheduler } from '../persons/deletions'
import { PersonCompaction } from '../ingestion/persons/compaction'
import { ActionStore } from '../actions/store'
import { CohortStore } from '../cohorts/store'
import { TrendService } from '../trends/service'
import { InsightStore } from '../insights/store'
import { DashboardStore } from '../insights/dashboard-store'
import { InsightResults } from '../insights/results'
import { HomeDashboards } from '../insights/home'
import { FlagStore } from '../flags/store'
import { CachedCohortReader } from '../decide/cohorts'
import { PersonSnapshot } from '../decide/snapshot'
import { FlagsService } from '../decide/service'
import { flagGeoProperties } from '../decide/geoip'
import { RecordingsProcessor } from '../recordings/processor'
import { ClickHouseBlockStore } from '../recordings/blocks'
import { ClickHouseMetadataStore } from '../recordings/metadata-store'
import { projectRetention } from '../recordings/retention'
import { SharingStore } from '../recordings/sharing-store'
import { RecordingStateStore } from '../recordings/recording-state'
import type { Lifecycle } from './lifecycle'
import type { Roles } from './roles'
import type { Storage } from './storage'
import { stageStream, type StageStream } from './streams'

export interface StoreContext {
  config: Config
  logger: Logger
  clock: Clock
  storage: Storage
  metrics: Metrics
  lifecycle: Lifecycle
  roles: Roles
}

export class Stores {
  private readonly built = new Map<string, Promise<unknown>>()

  constructor(readonly ctx: StoreContext) {}

  /** `build`'s result, built once; concurrent callers share the one build. */
  private once<T>(name: string, build: () => Promise<T> | T): Promise<T> {
    let value = this.built.get(name) as Promise<T> | undefined
    if (!value) this.built.set(name, (value = Promise.resolve().then(build)))
    return value
  }

  private child(service: string): Logger {
    return this.ctx.logger.child({ service })
  }

  private get cluster(): string | null {
    return this.ctx.config.clickhouse?.cluster ?? null
  }

  /**
   * The GeoIP database for $geoip_* on events and flags. One the user names (WREN_GEOIP_DATABASE) must open:
   * events ingested without their location cannot get it later, so a wrong path stops the start. Without
   * it, the bundled database is used if it is there; if not, Wren runs without GeoIP and says so.
   */
  geoip(): Promise<CityLookup | null> {
    return this.once('geoip', async () => {
      if (this.ctx.config.geoipDatabase) return openGeoIpReader(this.ctx.config.geoipDatabase)
      try {
        return await openGeoIpReader(null)
      } catch (err) {
        this.ctx.logger.warn({ err }, 'GeoIP database unavailable: no $geoip_* on events, and on flags only from person_properties')
        return null
      }
    })
  }

  /**
   * Configuration changes and new ids (config/config-log.ts): in memory in embedded mode; on the log in
   * cluster mode, where the api processes hand out ids and every process keeps its copy from the log.
   */
  configLog(): Promise<ConfigLog> {
    return this.once('config log', () => {
      const { clickhouse, log, kafka } = this.ctx.storage
      const configLog = kafka
        ? new ClusterConfigLog(log, clickhouse, this.child('config'), { allocate: this.ctx.roles.runs('api') })
        : new LocalConfigLog(clickhouse, this.child('config'))
      return this.ctx.lifecycle.started('config log', configLog, (c) => c.stop())
    })
  }

  projects(): Promise<ProjectStore> {
    return this.once('projects', async () => {
      const projects = await ProjectStore.load(this.ctx.storage.clickhouse, this.ctx.clock, await this.configLog())
      return this.ctx.lifecycle.started('projects', projects, (p) => p.close())
    })
  }

  /**
   * Dead letters are kept in ClickHouse in both modes (wall-clock times: they are operations, not events);
   * cluster mode also feeds them to the Kafka dead-letter topic.
   */
  deadLetters(): Promise<DeadLetterStore> {
    const { clickhouse, kafka } = this.ctx.storage
    return this.once('dead letters', () => new DeadLetterStore(clickhouse, systemClock, kafka ? kafkaDeadLetterFeed(kafka) : undefined))
  }

  /** The ingestion processor (the events stream's stage); the person work runs on a worker thread. */
  ingestion(): Promise<IngestionProcessor> {
    return this.once('ingestion', async () => {
      const { config } = this.ctx
      const { clickhouse, log, kafka } = this.ctx.storage
      const { failpoints } = config
      const stall = failpoints.ingestStallFile
      const geoip = await this.geoip()
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
          deadLetters: (await this.deadLetters()).recorder(INGESTION_GROUP),
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
      return this.ctx.lifecycle.started('ingestion', processor, (p) => p.close())
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
   * How far behind a stage is. Every role reports it (what an operator asks any process); Kafka's offsets
   * cost admin requests, so they are read less often than the embedded log's, which are in memory.
   */
  lag(stream: StageStream): Promise<IngestionLagMonitor> {
    return this.once(`lag ${stream.name}`, async () => {
      const monitor = new IngestionLagMonitor(this.ctx.storage.log, {
        topic: stream.topic,
        group: stream.group,
        intervalMs: this.ctx.storage.kafka ? 5_000 : 1_000,
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

  /** The one memory budget of the SDK intake requests (capture, /s/, the flag answers). */
  requestMemory(): Promise<MemoryBudget> {
    return this.once('request memory', () => {
      const budget = new MemoryBudget(this.ctx.config.requestMemoryBytes ?? defaultRequestMemoryBytes(), () =>
        this.ctx.metrics.inc('wren_request_memory_refused_total'),
      )
      this.ctx.metrics.gauge('wren_request_memory_bytes', () => budget.inUse)
      return budget
    })
  }

  /** Capture refuses events past WREN_MAX_BACKLOG of ingestion lag. */
  backpressure(): Promise<CaptureBackpressure> {
    return this.once('backpressure', async () => {
      const lag = await this.lag(stageStream('events'))
      const backpressure = eventBackpressure(() => lag.messages(), this.ctx.config.maxBacklog)
      this.ctx.metrics.gauge('wren_capture_backpressure', () => (backpressure.active ? 1 : 0))
      return backpressure
    })
  }

  /** /s/ refuses snapshots past WREN_MAX_RECORDINGS_BACKLOG(_BYTES) of the recordings stage's lag. */
  recordingsBackpressure(): Promise<CaptureBackpressure> {
    return this.once('recordings backpressure', async () => {
      const lag = await this.lag(stageStream('snapshots'))
      const { maxRecordingsBacklog, maxRecordingsBacklogBytes } = this.ctx.config
      const backpressure = recordingsBackpressure(() => lag.current(), {
        maxBacklog: maxRecordingsBacklog,
        maxBacklogBytes: maxRecordingsBacklogBytes,
      })
      this.ctx.metrics.gauge('wren_recordings_backpressure', () => (backpressure.active ? 1 : 0))
      return backpressure
    })
  }

  /** Each project's recording retention: stored on every row (ClickHouse's TTL drops it) and applied by readers. */
  private async recordingRetention() {
    return this.once('recording retention', async () => projectRetention(await this.projects(), this.ctx.clock))
  }

  snapshotBlocks(): Promise<ClickHouseBlockStore> {
    return this.once('snapshot blocks', async () => new ClickHouseBlockStore(this.ctx.storage.clickhouse, await this.recordingRetention()))
  }

  recordingMetadata(): Promise<ClickHouseMetadataStore> {
    return this.once('recording metadata', async () => {
      const projects = await this.projects()
      return new ClickHouseMetadataStore(
        this.ctx.storage.clickhouse,
        (teamId) => capturesConsoleLogs(projects.byId(teamId)?.settings ?? {}),
        await this.recordingRetention(),
      )
    })
  }

  /** Session recordings: snapshots from /s/ into blocks in ClickHouse (the snapshots stream's stage). */
  recordings(): Promise<RecordingsProcessor> {
    return this.once('recordings', async () => {
      const metadata = await this.recordingMetadata()
      const stall = this.ctx.config.failpoints.recordingsStallFile
      const { log } = this.ctx.storage
      const processor = new RecordingsProcessor(
        stall ? stallingSubscriptions(log, () => existsSync(stall), 'recordings-stall-file') : log,
        await this.snapshotBlocks(),
        this.child('recordings'),
        this.ctx.metrics,
        {
          ...this.ctx.config.recordings,
          maxBatchBytes: batchBytes(this.ctx.config).recordingsBatchBytes,
          crashAfterBatches: this.ctx.config.failpoints.recordingsCrashAfterBatches,
          poisonSession: this.ctx.config.failpoints.recordingsPoisonSession,
          deadLetters: (await this.deadLetters()).recorder(RECORDINGS_GROUP),
          onBlocks: (range, blocks) => metadata.prepare(range, blocks),
        },
      )
      return this.ctx.lifecycle.started('recordings', processor, (p) => p.stop())
    })
  }

  /** The stage of a stream, built (not started). */
  stage(stream: StageStream): Promise<{ start(): void }> {
    return stream.stage === 'ingestion' ? this.ingestion() : this.recordings()
  }

  deletions(): Promise<DeletionScheduler> {
    return this.once('deletions', () =>
      this.ctx.lifecycle.started(
        'deletions',
        new DeletionScheduler(this.ctx.storage.clickhouse, this.ctx.clock, this.child('deletions')),
        (d) => d.stop(),
      ),
    )
  }

  /** Folds the person versions of committed batches (every WREN_PERSON_COMPACTION_MS). */
  personCompaction(): Promise<PersonCompaction> {
    return this.once('person compaction', () =>
      this.ctx.lifecycle.started(
        'person compaction',
        new PersonCompaction(
          this.ctx.storage.clickhouse,
          this.ctx.storage.log,
          this.child('person-compaction'),
          this.ctx.metrics,
          this.ctx.config.ingestion.compactionMs,
        ),
        (c) => c.stop(),
      ),
    )
  }

  /** Event properties the trends keep reading from the JSON get columns of their own. */
  homeDashboards(): Promise<HomeDashboards> {
    return this.once('home dashboards', async () => {
      const [projects, insights, dashboards] = await Promise.all([this.projects(), this.insights(), this.dashboards()])
      return this.ctx.lifecycle.started('home dashboards', new HomeDashboards(projects, { insights, dashboards }), (h) => h.stop())
    })
  }

  materializer(): Promise<PropertyMaterializer> {
    return this.once('materializer', () =>
      this.ctx.lifecycle.started(
        'materializer',
        new PropertyMaterializer(this.ctx.storage.clickhouse, this.child('materializer'), { cluster: this.cluster }),
        (m) => m.stop(),
      ),
    )
  }

  /** Recordings' sharing configurations: the failure limit and the routes that take sharing tokens check them. */
  sharing(): Promise<SharingStore> {
    return this.once('sharing', async () => new SharingStore(this.ctx.storage.clickhouse, this.ctx.clock, await this.configLog()))
  }

  recordingState(): Promise<RecordingStateStore> {
    return this.once('recording state', () => new RecordingStateStore(this.ctx.storage.clickhouse, this.ctx.clock, this.cluster))
  }

  personQueries(): Promise<PersonQueries> {
    return this.once('person queries', () => new PersonQueries(this.ctx.storage.clickhouse))
  }

  definitionQueries(): Promise<DefinitionQueries> {
    return this.once('definition queries', () => new DefinitionQueries(this.ctx.storage.clickhouse))
  }

  accessControls(): Promise<AccessControls> {
    return this.once('access controls', () => new AccessControls(this.ctx.storage.clickhouse, this.ctx.clock))
  }

  // Definitions and what reads them: trends read actions and cohorts from ClickHouse; decide reads flags,
  // persons and cohorts from memory (one cohort store; the reader keeps decide's copy fresh from the
  // configuration log). Every store hears the others' writes through the configuration log, not by polling.

  actions(): Promise<ActionStore> {
    return this.once('actions', async () => new ActionStore(this.ctx.storage.clickhouse, this.ctx.clock, await this.configLog()))
  }

  cohorts(): Promise<CohortStore> {
    return this.once('cohorts', async () => new CohortStore(this.ctx.storage.clickhouse, this.ctx.clock, await this.configLog()))
  }

  cohortReader(): Promise<CachedCohortReader> {
    return this.once('cohort reader', async () => {
      const reader = new CachedCohortReader(this.ctx.storage.clickhouse, this.child('cohorts'))
      await reader.start(await this.configLog())
      return this.ctx.lifecycle.started('cohort reader', reader, (r) => r.stop())
    })
  }

  trends(): Promise<TrendService> {
    return this.once('trends', async () => {
      const { clickhouse } = this.ctx.storage
      const [actions, cohorts, materialized] = await Promise.all([this.actions(), this.cohorts(), this.materializer()])
      return new TrendService({ clickhouse, clock: this.ctx.clock, metrics: this.ctx.metrics, actions, cohorts, materialized })
    })
  }

  insights(): Promise<InsightStore> {
    return this.once('insights', async () => new InsightStore(this.ctx.storage.clickhouse, this.ctx.clock, await this.configLog()))
  }

  dashboards(): Promise<DashboardStore> {
    return this.once('dashboards', async () => new DashboardStore(this.ctx.storage.clickhouse, this.ctx.clock, await this.configLog()))
  }

  /** Saved insights' results: trends, through the trend service and its cache. */
  insightResults(): Promise<InsightResults> {
    return this.once('insight results', async () => new InsightResults(await this.trends()))
  }

  flags(): Promise<FlagStore> {
    return this.once('flags', async () => FlagStore.load(this.ctx.storage.clickhouse, this.ctx.clock, await this.configLog()))
  }

  /**
   * Decide's snapshot of persons and group types. It hears stored person changes from the processor in this
   * process (embedded mode), or from the log's feed (cluster mode: the processors are other processes, or
   * own only some partitions).
   */
  personSnapshot(): Promise<PersonSnapshot> {
    return this.once('person snapshot', async () => {
      const { log, kafka } = this.ctx.storage
      const snapshot = new PersonSnapshot(this.ctx.storage.clickhouse)
      await snapshot.loadGroupTypes()
      const apply = (changes: SnapshotChanges) => snapshot.apply(changes)
      if (!kafka) (await this.ingestion()).onPersonChanges(apply)
      else this.ctx.lifecycle.started('person feed', followPersonChanges(log, apply, this.child('person-feed')), (feed) => feed.stop())
      return snapshot
    })
  }

  /** Decide: flags evaluated from the snapshot, cohorts and GeoIP (when its database is there). */
  flagsService(): Promise<FlagsService> {
    return this.once('flags service', async () => {
      const geoip = await this.geoip()
      return new FlagsService(
        await this.flags(),
        await this.personSnapshot(),
        await this.cohortReader(),
        this.ctx.clock,
        geoip ? flagGeoProperties(geoip) : null,
      )
    })
  }

  chatModel() {
    return chatModel(this.ctx.config.ai)
  }
}
