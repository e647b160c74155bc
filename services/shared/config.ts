// Configuration comes from environment variables, read here and nowhere else.
import path from 'node:path'

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
  /** Public URL used in absolute `next`/`previous` links; defaults to the request's own host. */
  siteUrl: string | null
  ingestion: { maxBatchRecords: number; maxWaitMs: number; crashAfterBatches: number | null }
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
  /** What this process runs (`wren capture`, `wren ingest,api`, …); absent means everything ('all'). */
  roles?: Role[]
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
    siteUrl: env.WREN_SITE_URL ?? null,
    ingestion: {
      maxBatchRecords: intFrom(env.WREN_INGEST_BATCH, 10_000, 'WREN_INGEST_BATCH'),
      maxWaitMs: intFrom(env.WREN_INGEST_WAIT_MS, 200, 'WREN_INGEST_WAIT_MS'),
      // Failpoint for crash tests: SIGKILL this process after N batches are written but not committed.
      crashAfterBatches: env.WREN_FAILPOINT_CRASH_AFTER_BATCHES ? intFrom(env.WREN_FAILPOINT_CRASH_AFTER_BATCHES, 0, 'WREN_FAILPOINT_CRASH_AFTER_BATCHES') : null,
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
    failpointOomAfterMs: env.WREN_FAILPOINT_OOM_AFTER_MS ? intFrom(env.WREN_FAILPOINT_OOM_AFTER_MS, 0, 'WREN_FAILPOINT_OOM_AFTER_MS') : null,
    kafka: env.KAFKA_BROKERS
      ? {
          brokers: env.KAFKA_BROKERS.split(',').map((b) => b.trim()).filter(Boolean),
          partitions: intFrom(env.KAFKA_PARTITIONS, 12, 'KAFKA_PARTITIONS') || 1,
          replicationFactor: intFrom(env.KAFKA_REPLICATION_FACTOR, 1, 'KAFKA_REPLICATION_FACTOR') || 1,
          sessionTimeoutMs: intFrom(env.KAFKA_SESSION_TIMEOUT_MS, 30_000, 'KAFKA_SESSION_TIMEOUT_MS'),
        }
      : null,
    clickhouse: env.CLICKHOUSE_URL
      ? { url: env.CLICKHOUSE_URL, username: env.CLICKHOUSE_USER ?? 'default', password: env.CLICKHOUSE_PASSWORD ?? '', database: env.CLICKHOUSE_DATABASE ?? 'wren', cluster: env.CLICKHOUSE_CLUSTER || null }
      : null,
  }
}

/** Parses `capture`, `ingest,api`, … as given to the `wren` command. */
export function parseRoles(text: string): Role[] {
  const roles = text.split(',').map((r) => r.trim()).filter(Boolean)
  const bad = roles.filter((r) => !(ROLES as readonly string[]).includes(r))
  if (roles.length === 0 || bad.length) throw new Error(`unknown role ${bad.join(', ') || '(none)'}; roles are ${ROLES.join(', ')}`)
  return roles as Role[]
}

function intFrom(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${value}`)
  return n
}
