// The HTTP server every role runs: Fastify's options, the hooks every request passes (metrics, shutdown),
// the error handler and body parsing, the OpenAPI collector, the management routes' guard, and the two
// CORS scopes route groups are mounted in.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import cors from '@fastify/cors'
import compress from '@fastify/compress'
import { constants } from 'node:zlib'
import type { Bindings, ChildLoggerOptions, Logger } from 'pino'
import { readFileSync } from 'node:fs'
import type { Config, HttpTimeouts } from '../platform/config'
import { wrenError } from '../platform/errors'
import { clientErrorHandler, installErrorHandler, renderError } from '../platform/http/error-handler'
import { installJsonBodyParser } from '../platform/http/json-body'
import { requestForLog } from '../platform/http/request-url'
import { corsDelegator, openCors } from '../platform/http/cors'
import cookie from '@fastify/cookie'
import { guardManagementRoutes, type ManagementRoute } from '../platform/http/management'
import { checkAnswers, firstValueQuery, installValidation } from '../platform/http/validation'
import { collectOpenApi, openApiRoutes, type RegisteredRoute } from '../platform/http/openapi'
import type { SharingTokens } from '../platform/http/auth'
import type { Tenants } from '../platform/tenancy'
import type { Labels, Metrics } from '../platform/metrics'
import { appUrl } from '../platform/paths'

const WREN_VERSION = (JSON.parse(readFileSync(appUrl('package.json'), 'utf8')) as { version: string }).version

/** How a route group answers cross-origin requests. */
export type CorsScope =
  /** Through @fastify/cors and its per-path delegator (management routes, capture, static files…). */
  | 'delegated'
  /** Fixed open headers without the delegator's work per request: the SDKs' flag requests, the hottest route. */
  | 'open'

export interface Server {
  app: FastifyInstance
  /** Every route as registered (method, url): what the OpenAPI test holds the document to. */
  routes: RegisteredRoute[]
  /** Every management route as registered: what the authorization test enumerates. */
  managementRoutes: ManagementRoute[]
  /** Registers each scope's plugins, in order: the delegated scope also answers preflights and unknown paths. */
  mount(scopes: Record<CorsScope, Array<(scope: FastifyInstance) => Promise<void>>>): Promise<void>
  /** Stops accepting; in-flight requests get the grace period, then the connections still open are closed. */
  close(): Promise<void>
}

export async function createServer(
  config: Config,
  logger: Logger,
  metrics: Metrics,
  auth: { projects: Tenants; sharing: SharingTokens },
): Promise<Server> {
  const app = Fastify({
    loggerInstance: logger.child({}, { serializers: { req: requestForLog } }) as FastifyBaseLogger,
    // X-Forwarded-For/-Host/-Proto (request.ip, .host, .protocol: links Wren builds, the CORS same-origin check)
    // are any client's to write: believed only from the proxies named, as the failed-authentication limit does.
    trustProxy: config.authFailures.trustedProxies.length > 0 ? [...config.authFailures.trustedProxies] : false,
    routerOptions: { ignoreTrailingSlash: true, querystringParser: firstValueQuery },
    logController: new LogController({ disableRequestLogging: true }),
    ...(config.logRequests ? {} : { childLoggerFactory: requestLoggerOnFirstUse }),
    bodyLimit: 20 * 1024 * 1024,
    frameworkErrors: renderError,
    clientErrorHandler,
    return503OnClosing: false,
    ...serverTimeouts(config.http),
  })
  // Cookies are parsed only where a route reads them (platform/http/auth.ts: sessions), never on capture's path.
  await app.register(cookie, { hook: false })
  countRequests(app, metrics, config.logRequests)
  const notFound = installErrorHandler(app)
  installJsonBodyParser(app)
  installValidation(app)
  if (config.checkResponses) checkAnswers(app)
  const routes = await collectOpenApi(app, { version: WREN_VERSION })
  let shuttingDown = false
  // Requests that arrive on an open connection while the server drains (Fastify adds Connection: close).
  app.addHook('onRequest', (_request, _reply, done) => {
    done(shuttingDown ? wrenError('unavailable', 'Wren is shutting down: retry in a moment.') : undefined)
  })
  const managementRoutes = await guardManagementRoutes(app, { ...auth, authFailures: config.authFailures })
  return {
    app,
    routes,
    managementRoutes,
    async mount(scopes) {
      await app.register(async (api) => {
        await api.register(cors, { delegator: corsDelegator({ allowedOrigins: config.corsOrigins, siteUrl: config.siteUrl }) })
        await api.register(compress, ANSWER_COMPRESSION)
        api.setNotFoundHandler(notFound)
        await api.register(openApiRoutes)
        for (const plugin of scopes.delegated) await plugin(api)
      })
      if (scopes.open.length)
        await app.register(async (sdk) => {
          sdk.addHook('onRequest', openCors)
          for (const plugin of scopes.open) await plugin(sdk)
        })
    },
    async close() {
      shuttingDown = true
      const cutOff = setTimeout(() => app.server.closeAllConnections(), config.shutdown.graceMs)
      await app.close()
      clearTimeout(cutOff)
    },
  }
}

/**
 * API answers (a trends result, a persons page, a CSV export) brotli- or gzip-encoded by Accept-Encoding, at a
 * speed fit for answers made once each: brotli quality 4 (6 ms for posthog-js’s 380 KB array.js, 122 KB) is faster than gzip’s default (10 ms, the same size).
 * Bodies under 1 KB go as they are. Request bodies are not decoded here: the SDKs' encodings are capture's
 * (platform/http/sdk-body.ts). The browser bundles come encoded ahead (browser-bundle.ts); the SDKs' flag
 * route, the hottest, answers in its own scope without the hook.
 */
const ANSWER_COMPRESSION = {
  encodings: ['br', 'gzip'] as Array<'br' | 'gzip'>,
  threshold: 1024,
  globalDecompression: false,
  brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
}

/**
 * Requests counted by route pattern, never the raw path: ids in paths would make a series per id. The hooks
 * every request runs take Fastify's callback form: an async hook costs a promise per request. Each route's
 * label sets are made once (per method and status) and reused.
 */
function countRequests(app: FastifyInstance, metrics: Metrics, logRequests: boolean): void {
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
    if (logRequests) request.log.info({ ...labels, ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request')
    done()
  })
}

/**
 * A request's logger (request.log, reply.log) without request logging (LOG_REQUESTS=0, the default): Fastify
 * would make a pino child with the request id for every request, which only an error or a warning reads.
 * This one makes that same child when something first logs through it, so a line says what it said before.
 */
function requestLoggerOnFirstUse(
  this: FastifyInstance,
  logger: FastifyBaseLogger,
  bindings: Bindings,
  opts: ChildLoggerOptions,
): FastifyBaseLogger {
  return new RequestLogger(logger, bindings, opts)
}

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
type Log = (...args: unknown[]) => void

/** Its level methods are defined once on the prototype, below. */
interface RequestLogger extends Pick<FastifyBaseLogger, (typeof LEVELS)[number]> {}
class RequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly opts: ChildLoggerOptions,
  ) {}

  get real(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.opts))
  }

  get level(): string {
    return this.made?.level ?? this.opts.level ?? this.parent.level
  }
  set level(level: string) {
    this.real.level = level
  }
  child(bindings: Bindings, opts?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real.child(bindings, opts)
  }
}

/** pino's level methods (fatal … silent), each defined once on the prototype: it logs through the real child. */
for (const name of LEVELS) {
  Object.defineProperty(RequestLogger.prototype, name, {
    writable: true,
    configurable: true,
    value(this: RequestLogger, ...args: unknown[]): void {
      const real = this.real
      ;(real[name] as Log).apply(real, args)
    },
  })
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
