// The composition root: the one place that chooses the mode, makes the log and the ClickHouse client,
// and hands each service only what it uses.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import cors from '@fastify/cors'
import pino, { type Logger } from 'pino'
import path from 'node:path'
import type { Config } from './shared/config'
import { fixedClock, systemClock, type Clock } from './shared/clock'
import { migrate, openEmbeddedClickHouse, type ClickHouseClient } from './shared/clickhouse'
import { openEmbeddedLog } from './shared/log/embedded-log'
import type { Log } from './shared/log/log'
import { lockDataDir } from './shared/lock'
import { installErrorHandler } from './shared/http'
import { Metrics } from './shared/metrics'
import { ProjectStore } from './projects/store'
import { bootstrapIfEmpty, type BootstrapResult } from './projects/bootstrap'
import { projectRoutes } from './projects/routes'
import { captureRoutes } from './capture/routes'
import { IngestionProcessor } from './ingestion/processor'
import { personRoutes } from './persons/routes'
import { DeletionScheduler } from './persons/deletions'
import { eventRoutes } from './events/routes'

export interface Wren {
  app: FastifyInstance
  config: Config
  clock: Clock
  clickhouse: ClickHouseClient
  log: Log
  projects: ProjectStore
  processor: IngestionProcessor
  metrics: Metrics
  deletions: DeletionScheduler
  /** Set on the first start of an empty data directory. */
  bootstrap: BootstrapResult | null
  close(): Promise<void>
}

export async function buildWren(config: Config, logger: Logger = pino({ level: config.logLevel })): Promise<Wren> {
  const clock = config.now ? fixedClock(config.now) : systemClock
  const unlock = await lockDataDir(config.dataDir)
  const clickhouse = await openEmbeddedClickHouse(config.dataDir)
  await migrate(clickhouse)
  const log = await openEmbeddedLog({ dir: path.join(config.dataDir, 'log'), logger })
  const metrics = new Metrics()

  const projects = await ProjectStore.load(clickhouse, clock)
  const bootstrap = await bootstrapIfEmpty(projects, { projectApiKey: config.bootstrapProjectApiKey, personalApiKey: config.bootstrapPersonalApiKey })

  const processor = new IngestionProcessor(log, clickhouse, logger.child({ service: 'ingestion' }), metrics, config.ingestion)
  processor.start()
  const deletions = new DeletionScheduler(clickhouse, clock, logger.child({ service: 'deletions' }))
  deletions.start()

  const app = Fastify({ loggerInstance: logger as FastifyBaseLogger, trustProxy: true, routerOptions: { ignoreTrailingSlash: true }, logController: new LogController({ disableRequestLogging: true }), bodyLimit: 20 * 1024 * 1024 })
  await app.register(cors, { origin: true, credentials: true, methods: ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS'] })
  installErrorHandler(app)
  app.get('/_health', async () => ({ status: 'ok' }))
  app.get('/_readyz', async (_req, reply) => {
    const ping = await clickhouse.ping()
    return reply.status(ping.success ? 200 : 503).send({ status: ping.success ? 'ready' : 'clickhouse unavailable' })
  })
  app.get('/_metrics', async (_req, reply) => reply.type('text/plain; version=0.0.4').send(metrics.render()))
  await app.register(captureRoutes, { log, projects, clock, metrics })
  await app.register(projectRoutes, { projects })
  await app.register(eventRoutes, { projects, clickhouse, siteUrl: config.siteUrl })
  await app.register(personRoutes, { projects, clickhouse, log, processor, clock, deletions, siteUrl: config.siteUrl })

  let closed = false
  return {
    app,
    config,
    clock,
    clickhouse,
    log,
    projects,
    processor,
    metrics,
    deletions,
    bootstrap,
    async close() {
      if (closed) return
      closed = true
      await app.close()
      deletions.stop()
      await processor.stop()
      await log.close()
      await clickhouse.close()
      await unlock()
    },
  }
}
