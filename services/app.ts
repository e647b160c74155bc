// The composition root: the one place that chooses the mode, makes the log and the ClickHouse client,
// and hands each service only what it uses.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import cors from '@fastify/cors'
import pino, { type Logger } from 'pino'
import path from 'node:path'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Config, HttpTimeouts, Role } from './shared/config'
import { wrenError } from './shared/errors'
import { fixedClock, systemClock, type Clock } from './shared/clock'
import { migrate, openEmbeddedClickHouse, openServerClickHouse, type ClickHouseClient } from './shared/clickhouse'
import { openEmbeddedLog } from './shared/log/embedded/embedded-log'
import { openKafkaLog, type KafkaLog } from './shared/log/kafka/kafka-log'
import { DeadLetterStore, kafkaDeadLetterFeed } from './dead-letters/store'
import { deadLetterRoutes } from './dead-letters/routes'
import { LogCommandWaiter, publishCommandResults } from './ingestion/command-results'
import { TOPICS, type Log, type Subscription } from './shared/log/log'
import { followPersonChanges, publishPersonChanges, type SnapshotChanges } from './ingestion/person-feed'
import { stallingSubscriptions } from './shared/log/failpoint'
import { INGESTION_GROUP, IngestionLagMonitor, RECORDINGS_GROUP, lagJson, lagProblems } from './shared/ingestion-lag'
import { lockDataDir } from './shared/lock'
import { clientErrorHandler, installErrorHandler, installJsonBodyParser, renderError, requestForLog } from './shared/http'
import { corsDelegator, openCors } from './shared/http/cors'
import { guardManagementRoutes, type ManagementRoute } from './shared/http/management'
import { installValidation } from './shared/http/validation'
import { collectOpenApi, openApiRoutes, type RegisteredRoute } from './shared/http/openapi'
import { routesOf } from './shared/http/route'
import { AnyObject } from './shared/http/schemas'
import { Type } from 'typebox'
import { Metrics, type Labels } from './shared/metrics'
import { ProjectStore } from './projects/store'
import { bootstrapIfEmpty, type BootstrapResult } from './projects/bootstrap'
import { projectRoutes } from './projects/routes'
import { capturesConsoleLogs } from './projects/settings'
import { captureRoutes } from './capture/routes'
import { CaptureBackpressure } from './capture/backpressure'
import { IngestionProcessor } from './ingestion/processor'
import { ClickHousePersonStore } from './ingestion/clickhouse-person-store'
import { WorkerPersonWork } from './ingestion/worker-person-work'
import { personRoutes } from './persons/routes'
import { PersonQueries } from './persons/queries'
import { DeletionScheduler } from './persons/deletions'
import { AccessControls } from './shared/http/access-controls'
import { eventRoutes } from './events/routes'
import { ActionStore } from './actions/store'
import { actionRoutes } from './actions/routes'
import { CohortStore } from './cohorts/store'
import { cohortRoutes } from './cohorts/routes'
import { TrendService } from './trends/service'
import { PropertyMaterializer } from './shared/query/materialized-properties'
import { trendRoutes } from './trends/routes'
import { FlagStore } from './flags/store'
import { flagRoutes } from './flags/routes'
import { CachedCohortReader, type CohortReader } from './decide/cohorts'
import { PersonSnapshot } from './decide/snapshot'
import { FlagsService } from './decide/service'
import { flagGeoProperties } from './decide/geoip'
import { openGeoIpReader, type CityLookup } from './ingestion/geoip'
import { flagAnswerRoutes, publicFlagRoutes } from './decide/routes'
import { staticRoutes } from './static/routes'
import { ClusterConfigLog, LocalConfigLog, type ConfigLog } from './config/config-log'
import { recordingCaptureRoutes } from './recordings/capture-routes'
import { RecordingsProcessor } from './recordings/processor'
import { ClickHouseBlockStore } from './recordings/blocks'
import { snapshotRoutes } from './recordings/snapshot-routes'
import { ClickHouseMetadataStore } from './recordings/metadata-store'
import { recordingRoutes } from './recordings/recording-routes'
import { aiRoutes } from './recordings/ai/routes'
import { projectRetention } from './recordings/retention'
import { chatModel } from './shared/ai/chat'
import { SharingStore } from './recordings/sharing-store'
import { RecordingStateStore } from './recordings/recording-state'
import { sharingRoutes } from './recordings/sharing-routes'
import { playerRoutes } from './recordings/player-routes'
import { webRoutes } from './web/routes'

const WREN_VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version

export interface Wren {
  app: FastifyInstance
  config: Config
  clock: Clock
  clickhouse: ClickHouseClient
  log: Log
  projects: ProjectStore
  processor: IngestionProcessor
  metrics: Metrics
  /** How far behind ingestion is (readiness, /_health, /_metrics, capture's backpressure). */
  lag: IngestionLagMonitor
  /** The recordings processor's lag on the snapshots topic. */
  recordingsLag: IngestionLagMonitor
  deletions: DeletionScheduler
  /** Adds columns for the event properties trends read often (its job runs in api processes). */
  materializer: PropertyMaterializer
  /** Every management route as registered (method, url): what the authorization test enumerates. */
  managementRoutes: ManagementRoute[]
  /** Every route as registered (method, url): what the OpenAPI test holds the document to. */
  routes: RegisteredRoute[]
  /** Set on the first start of an empty data directory. */
  bootstrap: BootstrapResult | null
  close(): Promise<void>
}

export async function buildWren(config: Config, logger: Logger = pino({ level: config.logLevel })): Promise<Wren> {
  const clock = config.now ? fixedClock(config.now) : systemClock
  // The mode: KAFKA_BROKERS picks the Kafka log, CLICKHOUSE_URL a ClickHouse server; otherwise the
  // embedded log and chDB in the data directory (which one process owns, hence the lock).
  const roles = new Set<Role>(config.roles ?? ['all'])
  const runs = (role: Role) => roles.has('all') || roles.has(role)
  if (!roles.has('all') && !config.kafka)
    throw new Error(
      `wren ${[...roles].join(',')} is a cluster-mode role and needs KAFKA_BROKERS; embedded mode runs every service in one process: wren start`,
    )
  const geoip = await openGeoIp(config.geoipDatabase, logger)
  const unlock = config.kafka && config.clickhouse ? async () => {} : await lockDataDir(config.dataDir)
  const clickhouse = config.clickhouse ? await openServerClickHouse(config.clickhouse) : await openEmbeddedClickHouse(config.dataDir)
  await migrate(clickhouse, { cluster: config.clickhouse?.cluster })
  const kafkaLog: KafkaLog | null = config.kafka
    ? await openKafkaLog({ ...config.kafka, clientId: `wren-${[...roles].join('-')}`, logger: logger.child({ service: 'kafka' }) })
    : null
  const log: Log = kafkaLog ?? (await openEmbeddedLog({ dir: path.join(config.dataDir, 'log'), logger, retention: config.logRetention }))
  const metrics = new Metrics()

  // Configuration changes and new ids (config/config-log.ts): in memory in embedded mode; on the log in
  // cluster mode, where the api processes hand out ids and every process keeps its copy from the log.
  const configLog: ConfigLog = kafkaLog
    ? new ClusterConfigLog(log, clickhouse, logger.child({ service: 'config' }), { allocate: runs('api') })
    : new LocalConfigLog(clickhouse, logger.child({ service: 'config' }))
  const projects = await ProjectStore.load(clickhouse, clock, configLog)
  const bootstrap = await bootstrapIfEmpty(projects, {
    projectApiKey: config.bootstrapProjectApiKey,
    personalApiKey: config.bootstrapPersonalApiKey,
  })

  // Dead letters are kept in ClickHouse in both modes (wall-clock times: they are operations, not events);
  // cluster mode also feeds them to the Kafka dead-letter topic.
  const deadLetters = new DeadLetterStore(clickhouse, systemClock, kafkaLog ? kafkaDeadLetterFeed(kafkaLog) : undefined)
  const stall = config.failpoints.ingestStallFile
  const ingestLog = stall ? stallingSubscriptions(log, () => existsSync(stall)) : log
  const processor = new IngestionProcessor(
    ingestLog,
    new ClickHousePersonStore(clickhouse),
    logger.child({ service: 'ingestion' }),
    metrics,
    {
      ...config.ingestion,
      crashAfterBatches: config.failpoints.ingestCrashAfterBatches,
      poisonEvent: config.failpoints.ingestPoisonEvent,
      deadLetters: deadLetters.recorder(INGESTION_GROUP),
      // The person work runs on a worker thread: requests on this one never wait behind a batch.
      work: new WorkerPersonWork(
        {
          geoip: geoip ? { database: config.geoipDatabase } : null,
          poisonEvent: config.failpoints.ingestPoisonEvent,
          exitOnEvent: config.failpoints.ingestWorkerExitEvent,
          partRecords: config.ingestion.partRecords,
        },
        logger.child({ service: 'ingestion' }),
      ),
      ...(kafkaLog ? { publishResults: publishCommandResults(kafkaLog), publishChanges: publishPersonChanges(kafkaLog) } : {}),
    },
  )
  if (runs('ingest')) processor.start()
  // An api process without the processor learns command results from the log.
  const commandResults = runs('api') && !runs('ingest') ? new LogCommandWaiter(log) : null
  commandResults?.start()
  // Every role reports ingestion's lag (what an operator asks any process); Kafka's offsets cost admin
  // requests, so they are read less often than the embedded log's, which are in memory.
  const lagEvery = kafkaLog ? 5_000 : 1_000
  const lag = new IngestionLagMonitor(log, {
    topic: TOPICS.ingest,
    group: INGESTION_GROUP,
    intervalMs: lagEvery,
    logger: logger.child({ service: 'ingestion-lag' }),
  })
  await lag.start()
  metrics.gauge('wren_ingestion_lag_messages', () => lag.current().messages)
  metrics.gauge('wren_ingestion_lag_seconds', () => lag.current().seconds)
  metrics.gauge('wren_ingestion_stalled_seconds', () => lag.current().stalledSeconds)
  metrics.gauge('wren_ingest_log_bytes', () => lag.current().logBytes ?? 0)
  const backpressure = new CaptureBackpressure(() => lag.current().messages, config.maxBacklog)
  metrics.gauge('wren_capture_backpressure', () => (backpressure.active ? 1 : 0))
  // Session recordings: snapshots from /s/ into blocks in ClickHouse (recordings/processor.ts).
  // Each project's recording retention: stored on every row (ClickHouse's TTL drops it) and applied by readers.
  const recordingRetention = projectRetention(projects, clock)
  const snapshotBlocks = new ClickHouseBlockStore(clickhouse, recordingRetention)
  const recordingMetadata = new ClickHouseMetadataStore(
    clickhouse,
    (teamId) => capturesConsoleLogs(projects.byId(teamId)?.settings ?? {}),
    recordingRetention,
  )
  const recordings = new RecordingsProcessor(log, snapshotBlocks, logger.child({ service: 'recordings' }), metrics, {
    ...config.recordings,
    crashAfterBatches: config.failpoints.recordingsCrashAfterBatches,
    poisonSession: config.failpoints.recordingsPoisonSession,
    deadLetters: deadLetters.recorder(RECORDINGS_GROUP),
    onBlocks: (range, blocks) => recordingMetadata.prepare(range, blocks),
  })
  if (runs('recordings')) recordings.start()
  const recordingsLag = new IngestionLagMonitor(log, {
    topic: TOPICS.snapshots,
    group: RECORDINGS_GROUP,
    intervalMs: lagEvery,
    logger: logger.child({ service: 'recordings-lag' }),
  })
  await recordingsLag.start()
  metrics.gauge('wren_recording_lag_messages', () => recordingsLag.current().messages)
  metrics.gauge('wren_recording_lag_seconds', () => recordingsLag.current().seconds)
  metrics.gauge('wren_recording_stalled_seconds', () => recordingsLag.current().stalledSeconds)
  const deletions = new DeletionScheduler(clickhouse, clock, logger.child({ service: 'deletions' }))
  if (runs('ingest')) deletions.start()

  const app = Fastify({
    loggerInstance: logger.child({}, { serializers: { req: requestForLog } }) as FastifyBaseLogger,
    trustProxy: true,
    routerOptions: { ignoreTrailingSlash: true },
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 20 * 1024 * 1024,
    frameworkErrors: renderError,
    clientErrorHandler,
    return503OnClosing: false,
    ...serverTimeouts(config.http),
  })
  // Counted by route pattern, never the raw path: ids in paths would make a series per id. The hooks every
  // request runs take Fastify's callback form: an async hook costs a promise per request.
  // Each route's label sets are made once (per method and status) and reused.
  const labelSets = new WeakMap<object, Map<string, Labels>>()
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions
    let sets = labelSets.get(route.config)
    if (!sets) labelSets.set(route.config, (sets = new Map()))
    const key = request.method + reply.statusCode
    let labels = sets.get(key)
    if (!labels) sets.set(key, (labels = { method: request.method, route: route.url ?? 'unmatched', status: String(reply.statusCode) }))
    metrics.inc('wren_http_requests_total', 1, labels)
    metrics.observe('wren_http_request_duration_seconds', reply.elapsedTime / 1000, labels)
    if (config.logRequests) request.log.info({ ...labels, ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request')
    done()
  })
  const notFound = installErrorHandler(app)
  installJsonBodyParser(app)
  installValidation(app)
  const routes = await collectOpenApi(app, { version: WREN_VERSION })
  let shuttingDown = false
  // Requests that arrive on an open connection while the server drains (Fastify adds Connection: close).
  app.addHook('onRequest', (_request, _reply, done) => {
    done(shuttingDown ? wrenError('unavailable', 'Wren is shutting down: retry in a moment.') : undefined)
  })
  // Recordings' sharing configurations: the failure limit and the routes that take sharing tokens check them.
  const recordingSharing = new SharingStore(clickhouse, clock)
  const recordingState = new RecordingStateStore(clickhouse, clock, config.clickhouse?.cluster ?? null)
  const managementRoutes = await guardManagementRoutes(app, { projects, authFailures: config.authFailures, sharing: recordingSharing })
  // Definitions and what reads them: trends read actions and cohorts from ClickHouse; decide reads flags,
  // persons and cohorts from memory (one cohort store; the reader keeps decide's copy fresh from the
  // configuration log). Every store hears the others' writes through the configuration log, not by polling.
  const actions = new ActionStore(clickhouse, clock, configLog)
  const cohorts = new CohortStore(clickhouse, clock, configLog)
  const cohortReader = new CachedCohortReader(clickhouse, logger.child({ service: 'cohorts' }))
  await cohortReader.start(configLog)
  // Event properties the trends keep reading from the JSON get columns of their own (shared/query/materialized-properties.ts).
  const materializer = new PropertyMaterializer(clickhouse, logger.child({ service: 'materializer' }), {
    cluster: config.clickhouse?.cluster ?? null,
  })
  if (runs('api')) await materializer.start()
  const trends = new TrendService({ clickhouse, clock, actions, cohorts, materialized: materializer })
  // Decide's snapshot hears stored person changes from the processor in this process (embedded mode), or
  // from the log's feed (cluster mode: the processors are other processes, or own only some partitions).
  let personFeed: Subscription | null = null
  const personChanges = (apply: Parameters<typeof followPersonChanges>[1]) => {
    if (!kafkaLog) processor.onPersonChanges(apply)
    else if (runs('decide') || runs('api')) personFeed = followPersonChanges(log, apply, logger.child({ service: 'person-feed' }))
  }
  const decide = await buildDecide({
    clickhouse,
    clock,
    config: configLog,
    personChanges,
    cohorts: cohortReader,
    geoip,
  })
  // What both flag route plugins read (the SDKs' POST /decide and /flags, and the other public flag routes).
  const flagRouteDeps = { projects, service: decide.service, snapshot: decide.snapshot, cohorts: cohortReader, clock, metrics }

  const siteUrl = config.siteUrl
  // CORS (shared/http/cors.ts): every route but the SDKs' flag requests answers through @fastify/cors and its
  // per-path delegator, and so do preflights (its OPTIONS catch-all) and unknown paths. The SDKs' flag
  // requests, the hottest public route, are a scope of their own whose headers are fixed: the same open
  // headers, without the delegator's work on every request.
  await app.register(async (api) => {
    await api.register(cors, { delegator: corsDelegator({ allowedOrigins: config.corsOrigins, siteUrl: config.siteUrl }) })
    api.setNotFoundHandler(notFound)
    await api.register(openApiRoutes)
    await api.register(async (ops) => {
      const route = routesOf(ops, { projects: null, tag: 'operations' })
      const Lag = AnyObject('How far behind ingestion is: messages, seconds, stalled_seconds, log_bytes.')
      route({
        method: 'GET',
        url: '/_health',
        summary: 'Liveness: the process answers, with its roles and ingestion’s lag',
        access: { public: 'no key.' },
        schema: {
          response: {
            200: Type.Object({
              status: Type.Enum(['ok']),
              roles: Type.Array(Type.String()),
              ingestion: Lag,
              recordings: Lag,
              capture: Type.Optional(AnyObject()),
            }),
          },
        },
        handler: async () => ({
          status: 'ok',
          roles: [...roles],
          ingestion: lagJson(lag.current()),
          recordings: lagJson(recordingsLag.current()),
          ...(runs('capture') ? { capture: { refusing: backpressure.active, max_backlog: config.maxBacklog } } : {}),
        }),
      })
      const Readiness = Type.Object({
        status: Type.String(),
        reasons: Type.Array(Type.Object({ code: Type.String(), detail: Type.String() })),
        roles: Type.Array(Type.String()),
        log: Type.Enum(['kafka', 'embedded']),
        ingestion: Lag,
        recordings: Lag,
      })
      route({
        method: 'GET',
        url: '/_readyz',
        summary: 'Readiness: ClickHouse answers and (in a process that runs them) ingestion and the recordings processor keep up',
        access: { public: 'no key.' },
        schema: { response: { 200: Readiness, 503: Readiness } },
        handler: async (_req, reply) => {
          const ping = await clickhouse.ping()
          const current = lag.current()
          const recordingsCurrent = recordingsLag.current()
          // The Kafka log is connected (topics exist, producer up) before the server listens at all. Only a
          // process that runs a processor is unready when that processor is behind: taking capture or decide
          // out of a load balancer would not help it (capture refuses events itself past WREN_MAX_BACKLOG).
          const reasons = [
            ...(ping.success ? [] : [{ code: 'clickhouse_unavailable', detail: `ClickHouse does not answer: ${ping.error.message}` }]),
            ...(runs('ingest') ? lagProblems(current, config.readiness, 'ingestion') : []),
            ...(runs('recordings') ? lagProblems(recordingsCurrent, config.readiness, 'recordings') : []),
          ]
          const status = reasons.length ? reasons[0].code.replace('_', ' ') : 'ready'
          return reply.status(reasons.length ? 503 : 200).send({
            status,
            reasons,
            roles: [...roles],
            log: kafkaLog ? 'kafka' : 'embedded',
            ingestion: lagJson(current),
            recordings: lagJson(recordingsCurrent),
          })
        },
      })
      route({
        method: 'GET',
        url: '/_metrics',
        summary: 'Prometheus metrics',
        access: { public: 'no key.' },
        schema: { response: { 200: Type.String({ description: 'Prometheus text format' }) } },
        handler: async (_req, reply) => reply.type(metrics.contentType).send(await metrics.render()),
      })
    })
    if (runs('capture')) {
      await api.register(captureRoutes, { log, projects, clock, metrics, backpressure })
      await api.register(recordingCaptureRoutes, { log, projects, clock, metrics, backpressure })
    }
    if (runs('api')) {
      await api.register(projectRoutes, { projects })
      await api.register(deadLetterRoutes, { projects, store: deadLetters, log, metrics, siteUrl })
      await api.register(eventRoutes, { projects, clickhouse, siteUrl })
      const personReads = { queries: new PersonQueries(clickhouse), access: new AccessControls(clickhouse, clock) }
      await api.register(personRoutes, {
        projects,
        ...personReads,
        log,
        processor: commandResults ?? processor,
        clock,
        deletions,
        cohorts,
        siteUrl,
      })
      await api.register(actionRoutes, { projects, actions })
      await api.register(cohortRoutes, { projects, cohorts, persons: personReads.queries })
      await api.register(trendRoutes, { projects, trends, siteUrl })
      await api.register(flagRoutes, { projects, flags: decide.flags, cohorts, snapshot: decide.snapshot, siteUrl })
      await api.register(snapshotRoutes, { projects, blocks: snapshotBlocks, sharing: recordingSharing, state: recordingState })
      await api.register(recordingRoutes, {
        projects,
        metadata: recordingMetadata,
        persons: personReads.queries,
        actions,
        clickhouse,
        clock,
        sharing: recordingSharing,
        state: recordingState,
      })
      await api.register(sharingRoutes, { projects, metadata: recordingMetadata, sharing: recordingSharing })
      await api.register(aiRoutes, { projects, model: chatModel(config.ai), clock })
      await api.register(playerRoutes)
      await api.register(webRoutes)
    }
    // What posthog-js and PostHog's HTML snippet load from the API host, wherever SDK traffic is served.
    if (runs('capture') || runs('decide')) await api.register(staticRoutes)
    if (runs('decide')) await api.register(publicFlagRoutes, flagRouteDeps)
  })
  if (runs('decide'))
    await app.register(async (sdk) => {
      sdk.addHook('onRequest', openCors)
      await sdk.register(flagAnswerRoutes, flagRouteDeps)
    })
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
    lag,
    recordingsLag,
    deletions,
    materializer,
    managementRoutes,
    routes,
    bootstrap,
    async close() {
      if (closed) return
      closed = true
      shuttingDown = true
      cohortReader.stop()
      lag.stop()
      recordingsLag.stop()
      // Stop accepting; in-flight requests get the grace period, then the connections still open are closed.
      const cutOff = setTimeout(() => app.server.closeAllConnections(), config.shutdown.graceMs)
      await app.close()
      clearTimeout(cutOff)
      deletions.stop()
      await materializer.stop()
      await processor.close()
      await recordings.stop()
      await personFeed?.stop()
      await configLog.stop()
      await projects.close()
      await commandResults?.stop()
      await log.close()
      await clickhouse.close()
      await unlock()
    },
  }
}

/**
 * Decide's parts: the flags it evaluates, the snapshot of persons and group types it reads (kept from the
 * person changes ingestion reports), GeoIP when its database is there, and the evaluating service.
 */
async function buildDecide(deps: {
  clickhouse: ClickHouseClient
  clock: Clock
  config: ConfigLog
  /** Hands the snapshot's apply to whatever hears stored person changes (the processor, or the log's feed). */
  personChanges: (apply: (changes: SnapshotChanges) => void) => void
  cohorts: CohortReader
  geoip: CityLookup | null
}) {
  const flags = await FlagStore.load(deps.clickhouse, deps.clock, deps.config)
  const snapshot = new PersonSnapshot(deps.clickhouse)
  await snapshot.loadGroupTypes()
  deps.personChanges((changes) => snapshot.apply(changes))
  const geoip = deps.geoip ? flagGeoProperties(deps.geoip) : null
  return { flags, snapshot, service: new FlagsService(flags, snapshot, deps.cohorts, deps.clock, geoip) }
}

/**
 * The GeoIP database for $geoip_* on events and flags. One the user names (WREN_GEOIP_DATABASE) must open:
 * events ingested without their location cannot get it later, so a wrong path stops the start. Without
 * it, the bundled database is used if it is there; if not, Wren runs without GeoIP and says so.
 */
async function openGeoIp(databasePath: string | null, logger: Logger): Promise<CityLookup | null> {
  if (databasePath) return openGeoIpReader(databasePath)
  try {
    return await openGeoIpReader(null)
  } catch (err) {
    logger.warn({ err }, 'GeoIP database unavailable: no $geoip_* on events, and on flags only from person_properties')
    return null
  }
}

/** Fastify's and Node's server options for HttpTimeouts. */
function serverTimeouts(t: HttpTimeouts) {
  return {
    requestTimeout: t.requestTimeoutMs,
    keepAliveTimeout: t.keepAliveTimeoutMs,
    connectionTimeout: t.connectionTimeoutMs,
    // Node refuses a headers timeout longer than the request timeout (its own until Fastify sets ours), and
    // checks both only every connectionsCheckingInterval (30 s by default): once a second here.
    http: {
      requestTimeout: t.requestTimeoutMs,
      headersTimeout: t.requestTimeoutMs > 0 ? Math.min(t.headersTimeoutMs, t.requestTimeoutMs) : t.headersTimeoutMs,
      connectionsCheckingInterval: 1_000,
    },
  }
}
