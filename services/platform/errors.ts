// Every error a user can see, in one catalogue: its code, its HTTP status, and what it says when the
// throw site adds nothing. Route handlers throw `wrenError(code, detail, attr)`; one error handler
// renders it as PostHog's DRF-shaped JSON body: {type, code, detail, attr}.

export type ErrorType = 'validation_error' | 'authentication_error' | 'invalid_request' | 'throttled_error' | 'server_error'

interface CatalogueEntry {
  status: number
  detail: string
}

export const ERROR_CATALOGUE = {
  // 400: the request itself is wrong; `attr` names the field when there is one.
  invalid_input: { status: 400, detail: 'The request is not valid.' },
  required: { status: 400, detail: 'This field is required.' },
  invalid_choice: { status: 400, detail: 'Not a valid choice.' },
  unique: { status: 400, detail: 'This value is already taken.' },
  read_only: { status: 400, detail: 'This field cannot be changed.' },
  unknown_field: { status: 400, detail: 'This field is not known.' },
  unsupported: { status: 400, detail: 'This is not supported.' },
  malformed_request: { status: 400, detail: 'The request is not valid HTTP.' },
  invalid_json: { status: 400, detail: 'Request body is not valid JSON.' },
  json_too_deep: { status: 400, detail: 'The JSON is nested too deeply.' },
  max_length: { status: 400, detail: 'A field is longer than this server accepts.' },
  invalid_format: { status: 400, detail: "format must be 'json' or 'csv'." },
  invalid_project_id: { status: 400, detail: 'Project id must be a positive integer or `@current`.' },
  invalid_uuid: { status: 400, detail: 'Not a valid uuid.' },
  invalid_date: { status: 400, detail: 'Not a valid date.' },
  invalid_csv: { status: 400, detail: 'The CSV is not valid.' },
  invalid_regex: { status: 400, detail: 'A regex filter is not a valid RE2 pattern.' },
  invalid_formula: { status: 400, detail: 'The formula is not valid.' },
  invalid_hogql: { status: 400, detail: 'The HogQL expression is not allowed.' },
  invalid_expression: { status: 400, detail: 'The query could not run with these inputs.' },
  too_many_buckets: { status: 400, detail: 'The query asks for too many time buckets.' },
  division_by_zero: { status: 400, detail: 'The query divided by zero.' },
  query_too_complex: { status: 400, detail: 'The query is larger or nested deeper than ClickHouse accepts.' },
  // A query past one of its bounds (WREN_QUERY_*, platform/clickhouse/limits.ts): the same query would be again.
  query_too_large: { status: 400, detail: 'The query needs more memory than one query may use (WREN_QUERY_MAX_MEMORY_BYTES).' },
  query_result_too_large: {
    status: 400,
    detail: 'The query answers more than one query may (WREN_QUERY_MAX_RESULT_ROWS, WREN_QUERY_MAX_RESULT_BYTES).',
  },
  // Capture and decide: the SDK's payload.
  invalid_payload: { status: 400, detail: 'Request body could not be decoded.' },
  empty_payload: { status: 400, detail: 'Request body is empty.' },
  empty_payload_filtered: { status: 400, detail: 'Every event in the batch was dropped.' },
  missing_distinct_id: { status: 400, detail: 'distinct_id is required.' },
  missing_event_name: { status: 400, detail: 'event is required.' },
  multiple_tokens: { status: 400, detail: 'A batch may name only one project API key.' },
  missing_token: { status: 400, detail: 'Send ?token=<project API key>.' },
  // Recordings' /s/: PostHog capture's MissingSessionId, InvalidSessionId and MissingSnapshotData.
  missing_session_id: { status: 400, detail: 'A $snapshot event needs properties.$session_id.' },
  invalid_session_id: { status: 400, detail: '$session_id must be at most 70 ASCII letters, digits or dashes.' },
  missing_snapshot_data: { status: 400, detail: 'A $snapshot event needs properties.$snapshot_data (rrweb events).' },
  invalid_key: { status: 400, detail: 'Not a valid key.' },
  // 401/403: who is calling, and what they may do.
  not_authenticated: {
    status: 401,
    detail: 'Authentication credentials were not provided. Send `Authorization: Bearer <personal API key>`.',
  },
  authentication_failed: { status: 401, detail: 'Personal API key found in request Authorization header is invalid.' },
  invalid_api_key: { status: 401, detail: 'Project API key invalid.' },
  no_api_key: { status: 401, detail: 'No project API key was sent.' },
  ingest_key_required: { status: 401, detail: 'No project API key was sent.' },
  ingest_key_invalid: { status: 401, detail: 'Project API key is invalid: no project has this token.' },
  permission_denied: { status: 403, detail: 'You do not have permission to perform this action.' },
  /** Sign-in (accounts/routes.ts): no hint which of the email and the password was wrong. */
  invalid_credentials: { status: 401, detail: 'Invalid email or password.' },
  /** PostHog's answer once an account or address has failed to sign in too often (it lifts after the window). */
  too_many_failed_attempts: { status: 403, detail: 'Too many failed login attempts. Please try again later.' },
  /** An invitation or setup link that was used, revoked, expired or never made. */
  invalid_invite: { status: 400, detail: 'This invite link is invalid or has expired.' },
  // Other answers a client acts on.
  not_found: { status: 404, detail: 'Not found.' },
  method_not_allowed: { status: 405, detail: 'Method not allowed.' },
  conflict: { status: 409, detail: 'Someone else changed this at the same moment, again and again: retry.' },
  recording_deleted: { status: 410, detail: 'This recording was deleted.' },
  request_timeout: { status: 408, detail: 'The request was not received in time: send its headers and body without pausing.' },
  payload_too_large: { status: 413, detail: 'Request body is larger than this endpoint accepts.' },
  unsupported_media_type: { status: 415, detail: 'This Content-Type is not accepted here.' },
  throttled: { status: 429, detail: 'Too many requests.' },
  headers_too_large: { status: 431, detail: 'The request line and headers are larger than this server accepts.' },
  /** A 4xx Fastify raised that has no entry of its own: its status is kept (see fromFastifyError). */
  invalid_request: { status: 400, detail: 'The request is not valid.' },
  /** The Query API's unknown query kind (PostHog's pydantic refusal of the body). */
  parse_error: { status: 400, detail: 'The query could not be read.' },
  // 5xx: Wren's side.
  server_error: { status: 500, detail: 'Internal server error.' },
  dead_lettered: { status: 500, detail: 'The change could not be applied and was kept as a dead letter.' },
  unavailable: { status: 503, detail: 'Wren cannot answer right now: retry in a moment.' },
  /** A query ran past its time (WREN_QUERY_MAX_SECONDS), or ClickHouse as a whole was out of memory: a quieter moment may do. */
  query_timeout: { status: 503, detail: 'The query ran past the time one query may take (WREN_QUERY_MAX_SECONDS).' },
  /** The Query API's asynchronous queries (query/jobs.ts): as many are running as one process runs at once. */
  too_many_queries: { status: 429, detail: 'Too many asynchronous queries are running: retry when one is done.' },
  query_cancelled: { status: 503, detail: 'The query was stopped: its caller went away, or Wren is stopping.' },
  // The AI helpers (platform/ai/chat.ts): a model Wren calls, configured or not.
  ai_not_configured: { status: 501, detail: 'No AI model is configured: set WREN_AI_URL and WREN_AI_MODEL.' },
  ai_refused: { status: 422, detail: 'The AI model declined to answer this request, twice.' },
  ai_provider_error: { status: 502, detail: 'The AI provider answered with an error.' },
  ai_invalid_response: { status: 502, detail: 'The AI model’s answer was not JSON of the expected shape, twice.' },
  ai_provider_timeout: { status: 504, detail: 'The AI provider did not answer in time.' },
  /** Capture's backpressure: ingestion is too far behind to take more events now; the SDKs retry. */
  ingestion_backlog_full: { status: 503, detail: 'Ingestion is behind: retry shortly.' },
  /** Recordings' /s/ backpressure: the recordings stage is too far behind to take more snapshots now. */
  recordings_backlog_full: { status: 503, detail: 'Recordings processing is behind: retry shortly.' },
  /** The request memory budget (platform/http/memory-budget.ts): other large requests hold it; the SDKs retry. */
  busy_with_large_requests: { status: 503, detail: 'Wren is busy with other large requests: retry shortly.' },
} as const satisfies Record<string, CatalogueEntry>

export type ErrorCode = keyof typeof ERROR_CATALOGUE

/** Refusals that ask the client to retry later (with Retry-After): expected under load, not logged as failures. */
export const RETRY_LATER: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'ingestion_backlog_full',
  'recordings_backlog_full',
  'busy_with_large_requests',
])

export class WrenError extends Error {
  readonly status: number
  readonly code: ErrorCode
  readonly type: ErrorType
  readonly attr: string | null
  /** Response headers that go with the error (Retry-After). */
  readonly headers: Record<string, string>

  constructor(
    code: ErrorCode,
    detail?: string,
    attr: string | null = null,
    opts: { headers?: Record<string, string>; status?: number } = {},
  ) {
    super(detail ?? ERROR_CATALOGUE[code].detail)
    this.code = code
    this.status = opts.status ?? ERROR_CATALOGUE[code].status
    this.attr = attr
    this.headers = opts.headers ?? {}
    this.type = typeOf(this.status)
  }

  toJSON(): { type: ErrorType; code: string; detail: string; attr: string | null } {
    return { type: this.type, code: this.code, detail: this.message, attr: this.attr }
  }
}

/** The one way to make an error a user sees: a catalogued code, what to say, and the field it is about. */
export function wrenError(code: ErrorCode, detail?: string, attr: string | null = null): WrenError {
  return new WrenError(code, detail, attr)
}

/** A stage's backlog is past its bound (capture/backpressure.ts): `code` names the stage. */
export const backlogFull = (
  code: 'ingestion_backlog_full' | 'recordings_backlog_full',
  detail: string,
  retryAfterSeconds: number,
): WrenError => new WrenError(code, detail, null, { headers: { 'retry-after': String(retryAfterSeconds) } })

function typeOf(status: number): ErrorType {
  if (status === 400) return 'validation_error'
  if (status === 401 || status === 403) return 'authentication_error'
  if (status === 429) return 'throttled_error'
  return status >= 500 ? 'server_error' : 'invalid_request'
}

/** ClickHouse's error names (`type`) that mean the caller's input, not Wren, made a query fail. */
const CLICKHOUSE_INPUT_ERRORS: Record<string, (message: string) => WrenError | null> = {
  CANNOT_COMPILE_REGEXP: (m) => wrenError('invalid_regex', `A regex filter is not a valid RE2 pattern: ${m.split('. ')[0]}`),
  ILLEGAL_AGGREGATION: () => mixedAggregates(),
  NOT_AN_AGGREGATE: () => mixedAggregates(),
  ILLEGAL_TYPE_OF_ARGUMENT: (m) => badExpression(m),
  NO_COMMON_TYPE: (m) => badExpression(m),
  TYPE_MISMATCH: (m) => badExpression(m),
  CANNOT_CONVERT_TYPE: (m) => badExpression(m),
  // A function's argument past what it takes (round(x, 99999999)); PostHog shows both to the user too.
  ARGUMENT_OUT_OF_BOUND: (m) => badExpression(m),
  BAD_ARGUMENTS: (m) => badExpression(m),
  // A HogQL query's own shape that ClickHouse refuses once it reads it (PostHog exposes these too, posthog/errors.py).
  NUMBER_OF_ARGUMENTS_DOESNT_MATCH: (m) => badExpression(m),
  TOO_FEW_ARGUMENTS_FOR_FUNCTION: (m) => badExpression(m),
  TOO_MANY_ARGUMENTS_FOR_FUNCTION: (m) => badExpression(m),
  UNKNOWN_IDENTIFIER: (m) => badExpression(m),
  AMBIGUOUS_IDENTIFIER: (m) => badExpression(m),
  AMBIGUOUS_COLUMN_NAME: (m) => badExpression(m),
  MULTIPLE_EXPRESSIONS_FOR_ALIAS: (m) => badExpression(m),
  CYCLIC_ALIASES: (m) => badExpression(m),
  SIZES_OF_ARRAYS_DONT_MATCH: (m) => badExpression(m),
  INVALID_JOIN_ON_EXPRESSION: (m) => badExpression(m),
  INCORRECT_RESULT_OF_SCALAR_SUBQUERY: (m) => badExpression(m),
  UNKNOWN_AGGREGATE_FUNCTION: (m) => badExpression(m),
  TOO_LARGE_ARRAY_SIZE: (m) => badExpression(m),
  DECIMAL_OVERFLOW: (m) => badExpression(m),
  // PostHog prints HogQL's `%` as modulo and shows ClickHouse's division by zero to the user.
  ILLEGAL_DIVISION: () =>
    wrenError(
      'division_by_zero',
      "The query divided by zero: a HogQL '%' (or an integer division) had a zero divisor. Guard it, e.g. x % nullIf(y, 0).",
    ),
  // Wren bounds what it builds from the caller's input (analytics/hogql/parser.ts, property-filters/sql.ts) below these;
  // a query that still reaches them is the caller's, not a fault of Wren.
  TOO_DEEP_AST: () => tooComplex(),
  TOO_BIG_AST: () => tooComplex(),
  TOO_DEEP_RECURSION: () => tooComplex(),
  SYNTAX_ERROR: (m) => (/max query size exceeded/i.test(m) ? tooComplex() : null),
  // Past a bound of the query (platform/clickhouse/limits.ts); ClickHouse's text says which and how much.
  TIMEOUT_EXCEEDED: (m) => wrenError('query_timeout', `${ERROR_CATALOGUE.query_timeout.detail} ${m}`),
  MEMORY_LIMIT_EXCEEDED: (m) =>
    /\(total\)/.test(m)
      ? wrenError('unavailable', `ClickHouse as a whole is out of memory: retry in a moment. ${m}`)
      : wrenError(
          'query_too_large',
          `${ERROR_CATALOGUE.query_too_large.detail} Narrow the date range, the breakdown or the expression. ${m}`,
        ),
  TOO_MANY_ROWS_OR_BYTES: (m) => wrenError('query_result_too_large', `${ERROR_CATALOGUE.query_result_too_large.detail} ${m}`),
  QUERY_WAS_CANCELLED: (m) => wrenError('query_cancelled', m),
}

/**
 * ClickHouse refusing a query built from the caller's input is the caller's 400, by one rule wherever the
 * query ran (the error handler applies it): regexes are compiled by ClickHouse (RE2 syntax), aggregates
 * and types are checked by it. ClickHouse cannot say which field held the bad input, so attr is null.
 * A query past one of its bounds is answered as the bound it passed. Anything else stays a 500.
 */
export function fromClickHouseError(err: unknown): WrenError | null {
  if (!(err instanceof Error) || err.constructor.name !== 'ClickHouseError') return null
  const type = String((err as { type?: unknown }).type)
  const message = err.message.split('\n')[0]
  const make = Object.hasOwn(CLICKHOUSE_INPUT_ERRORS, type)
    ? CLICKHOUSE_INPUT_ERRORS[type]
    : type.startsWith('CANNOT_PARSE_')
      ? badExpression
      : null
  return make ? make(message) : null
}

const mixedAggregates = () =>
  wrenError(
    'invalid_hogql',
    'The HogQL expression mixes aggregates and plain values: math_hogql must aggregate (e.g. sum(properties.price)), breakdowns and filters must not.',
  )
const tooComplex = () =>
  wrenError(
    'query_too_complex',
    'The query is larger or nested deeper than ClickHouse accepts: use fewer filters, fewer values in a filter, or less nesting.',
  )
const badExpression = (message: string) =>
  wrenError('invalid_expression', `The query could not run with these inputs: ${message.slice(0, 300)}`)

/** An error's message, or the text of whatever was thrown. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}
