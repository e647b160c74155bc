// The services the routes are handed beyond the stores: capture's intake bounds, the Query API and saved insights'
// results, and decide's snapshot and flag evaluation; each built on first use (build-once.ts) from the
// stores, stages and jobs. createParts() puts the four together for a process (as Unleash's createStores and
// createServices do): what the route groups (route-groups.ts) and the composition root (app.ts) build from.
import { defaultRequestMemoryBytes, MemoryBudget } from '../platform/http/memory-budget'
import { stageStream } from '../platform/log/streams'
import { chatModel } from '../platform/ai/chat'
import { eventBackpressure, recordingsBackpressure, type CaptureBackpressure } from '../capture/backpressure'
import { QueryRunner } from '../query/runner'
import { experimentLookup } from '../experiments/subject'
import { InsightResults } from '../insights/results'
import { CachedCohortReader } from '../decide/cohorts'
import { PersonSnapshot } from '../decide/snapshot'
import { FlagsService } from '../decide/service'
import { flagGeoProperties } from '../decide/geoip'
import { RunningSurveys } from '../surveys/running'
import { BuildOnce, type RuntimeContext } from './build-once'
import { Jobs } from './jobs'
import { Stages } from './stages'
import { Stores } from './stores'

export class Services extends BuildOnce {
  constructor(
    ctx: RuntimeContext,
    private readonly stores: Stores,
    private readonly stages: Stages,
    private readonly jobs: Jobs,
  ) {
    super(ctx)
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
      const lag = await this.stages.lag(stageStream('events'))
      const backpressure = eventBackpressure(() => lag.messages(), this.ctx.config.maxBacklog)
      this.ctx.metrics.gauge('wren_capture_backpressure', () => (backpressure.active ? 1 : 0))
      return backpressure
    })
  }

  /** /s/ refuses snapshots past WREN_MAX_RECORDINGS_BACKLOG(_BYTES) of the recordings stage's lag. */
  recordingsBackpressure(): Promise<CaptureBackpressure> {
    return this.once('recordings backpressure', async () => {
      const lag = await this.stages.lag(stageStream('snapshots'))
      const { maxRecordingsBacklog, maxRecordingsBacklogBytes } = this.ctx.config
      const backpressure = recordingsBackpressure(() => lag.current(), {
        maxBacklog: maxRecordingsBacklog,
        maxBacklogBytes: maxRecordingsBacklogBytes,
      })
      this.ctx.metrics.gauge('wren_recordings_backpressure', () => (backpressure.active ? 1 : 0))
      return backpressure
    })
  }

  // The Query API's kinds read actions and cohorts from ClickHouse; decide reads flags, persons and cohorts from
  // memory (one cohort store; the reader keeps decide's copy fresh from the configuration log).

  /** The Query API's runner: every kind (query/kinds.ts), its cache and its asynchronous jobs. */
  queryRunner(): Promise<QueryRunner> {
    return this.once('query runner', async () => {
      const { clickhouse } = this.ctx.storage
      const [actions, cohorts, materialized, experiments, flags] = await Promise.all([
        this.stores.actions(),
        this.stores.cohorts(),
        this.jobs.materializer(),
        this.stores.experiments(),
        this.stores.flags(),
      ])
      const runner = new QueryRunner(
        {
          clickhouse,
          clock: this.ctx.clock,
          metrics: this.ctx.metrics,
          actions,
          cohorts,
          materialized,
          experiments: experimentLookup(experiments, flags),
        },
        { maxAsync: this.ctx.config.queryMaxAsync },
      )
      return this.ctx.lifecycle.started('query jobs', runner, (r) => r.jobs.stop())
    })
  }

  /** Saved insights' results: their queries through the Query API's runner and its cache. */
  insightResults(): Promise<InsightResults> {
    return this.once('insight results', async () => new InsightResults(await this.queryRunner()))
  }

  cohortReader(): Promise<CachedCohortReader> {
    return this.once('cohort reader', async () => {
      const reader = new CachedCohortReader(this.ctx.storage.clickhouse, this.child('cohorts'))
      await reader.start(await this.stores.configLog())
      return this.ctx.lifecycle.started('cohort reader', reader, (r) => r.stop())
    })
  }

  /** Decide's snapshot of persons and group types, kept fresh by the stored person changes (stages.ts). */
  personSnapshot(): Promise<PersonSnapshot> {
    return this.once('person snapshot', async () => {
      const snapshot = new PersonSnapshot(this.ctx.storage.clickhouse)
      await snapshot.loadGroupTypes()
      await this.stages.onPersonChanges((changes) => snapshot.apply(changes))
      return snapshot
    })
  }

  /** Decide: flags evaluated from the snapshot, cohorts and GeoIP (when its database is there). */
  flagsService(): Promise<FlagsService> {
    return this.once('flags service', async () => {
      const geoip = await this.stores.geoip()
      return new FlagsService(
        await this.stores.flags(),
        await this.personSnapshot(),
        await this.cohortReader(),
        this.ctx.clock,
        geoip ? flagGeoProperties(geoip) : null,
      )
    })
  }

  /** Decide's running surveys (what posthog-js shows), kept fresh from the configuration log. */
  runningSurveys(): Promise<RunningSurveys> {
    return this.once('running surveys', async () => {
      const flags = await this.stores.flags()
      const flagKey = (teamId: number, id: number) => {
        const flag = flags.get(teamId, id)
        return flag && !flag.deleted ? flag.key : null
      }
      return RunningSurveys.start(this.ctx.storage.clickhouse, this.ctx.clock, await this.stores.configLog(), flagKey)
    })
  }

  chatModel() {
    return chatModel(this.ctx.config.ai)
  }
}

/** What a process builds from: its context and the four builders, each part built on first use. */
export interface Parts {
  ctx: RuntimeContext
  stores: Stores
  stages: Stages
  jobs: Jobs
  services: Services
}

export function createParts(ctx: RuntimeContext): Parts {
  const stores = new Stores(ctx)
  const stages = new Stages(ctx, stores)
  const jobs = new Jobs(ctx, stores)
  return { ctx, stores, stages, jobs, services: new Services(ctx, stores, stages, jobs) }
}
