// The composition root: opens storage for the configured mode, and builds what the process's roles run
// from the runtime's tables (services/runtime/): the stage streams and their lag, the jobs, and the route
// groups, each built from the stores it uses. Everything started registers its stop on one lifecycle.
import pino, { type Logger } from 'pino'
import type { FastifyInstance } from 'fastify'
import type { Config } from './platform/config'
import { fixedClock, systemClock, type Clock } from './platform/clock'
import type { ClickHouseClient } from './platform/clickhouse'
import type { Log } from './platform/log/log'
import { Metrics } from './platform/metrics'
import type { IngestionLagMonitor } from './platform/ingestion-lag'
import type { ManagementRoute } from './platform/http/management'
import type { RegisteredRoute } from './platform/http/openapi'
import type { PropertyMaterializer } from './analytics/sql/materialized-properties'
import type { ProjectStore } from './projects/store'
import type { BootstrapResult } from './projects/bootstrap'
import { firstStart } from './runtime/first-start'
import type { IngestionProcessor } from './ingestion/processor'
import type { DeletionScheduler } from './persons/deletions'
import type { PersonCompaction } from './ingestion/persons/compaction'
import { Lifecycle } from './runtime/lifecycle'
import { openStorage } from './runtime/storage'
import { Roles } from './runtime/roles'
import { createParts } from './runtime/services'
import { createServer } from './runtime/server'
import { mountRouteGroups } from './runtime/route-groups'
import { STAGE_STREAMS, stageStream } from './platform/log/streams'

export interface Wren {
  app: FastifyInstance
  config: Config
  clock: Clock
  clickhouse: ClickHouseClient
  log: Log
  projects: ProjectStore
  metrics: Metrics
  /** How far behind ingestion is (readiness, /_health, /_metrics, capture's backpressure). */
  lag: IngestionLagMonitor
  /** The recordings processor's lag on the snapshots topic. */
  recordingsLag: IngestionLagMonitor
  /** In a process that runs ingest (embedded mode runs every role); reading it elsewhere throws. */
  processor: IngestionProcessor
  /** In a process that runs ingest or api. */
  deletions: DeletionScheduler
  /** In a process that runs ingest: folds the person versions of committed batches. */
  personCompaction: PersonCompaction
  /** In a process that runs api: adds columns for the event properties trends read often. */
  materializer: PropertyMaterializer
  /** Every management route as registered (method, url): what the authorization test enumerates. */
  managementRoutes: ManagementRoute[]
  /** Every route as registered (method, url): what the OpenAPI test holds the document to. */
  routes: RegisteredRoute[]
  /** Set on the first start of an empty data directory. */
  bootstrap: BootstrapResult | null
  setupToken: string | null // the owner's one-time setup token while the owner has no password
  /** The steps close() runs, in its order (the stop table's, runtime/stop-order.ts). */
  stopOrder(): string[]
  close(): Promise<void>
}

export async function buildWren(config: Config, logger: Logger = pino({ level: config.logLevel })): Promise<Wren> {
  const roles = Roles.of(config)
  const lifecycle = new Lifecycle(logger)
  try {
    const clock = config.now ? fixedClock(config.now) : systemClock
    const storage = await openStorage(config, lifecycle, { clientId: `wren-${roles.requested.join('-')}`, logger })
    const parts = createParts({ config, logger, clock, storage, metrics: new Metrics(), lifecycle, roles })
    const projects = await parts.stores.projects()
    const { bootstrap, setupToken } = await firstStart(parts, config)
    // Every process reports each stage's lag; a process whose roles consume a stage's stream runs it.
    const [lag, recordingsLag] = await Promise.all([parts.stages.lag(stageStream('events')), parts.stages.lag(stageStream('snapshots'))])
    for (const stream of STAGE_STREAMS) if (roles.consumes(stream)) (await parts.stages.stage(stream)).start()
    for (const job of roles.jobs()) await (await parts.jobs[job]()).start()
    const server = await createServer(config, logger, parts.ctx.metrics, { projects, sharing: await parts.stores.sharing() })
    await mountRouteGroups(server, parts)
    lifecycle.started('http server', server, (s) => s.close())
    // Built by now in the processes whose roles use them (every role runs in embedded mode).
    const processor = roles.runs('ingest') ? await parts.stages.ingestion() : null
    const deletions = roles.runs('ingest') || roles.runs('api') ? await parts.jobs.deletions() : null
    const personCompaction = roles.runs('ingest') ? await parts.jobs.personCompaction() : null
    const materializer = roles.runs('api') ? await parts.jobs.materializer() : null
    return {
      app: server.app,
      config,
      clock,
      clickhouse: storage.clickhouse,
      log: storage.log,
      projects,
      metrics: parts.ctx.metrics,
      lag,
      recordingsLag,
      get processor() {
        return processor ?? notHere('the ingestion processor (role ingest)')
      },
      get deletions() {
        return deletions ?? notHere('deletions (roles ingest and api)')
      },
      get personCompaction() {
        return personCompaction ?? notHere('person compaction (role ingest)')
      },
      get materializer() {
        return materializer ?? notHere('the materializer (role api)')
      },
      managementRoutes: server.managementRoutes,
      routes: server.routes,
      bootstrap,
      setupToken,
      stopOrder: () => lifecycle.order(),
      close: () => lifecycle.stop(),
    }
  } catch (err) {
    await lifecycle.stop().catch(() => {})
    throw err
  }
}

function notHere(what: string): never {
  throw new Error(`This process does not run ${what}.`)
}
