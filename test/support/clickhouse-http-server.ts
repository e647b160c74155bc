// TEST FIXTURE, not a ClickHouse server for users: it answers the part of ClickHouse's HTTP interface that
// @clickhouse/client uses, from one chDB engine, so that several Wren processes can share one storage
// through the real HTTP client path (`CLICKHOUSE_URL`) on machines where no ClickHouse server can be
// installed. Started by startClickHouseFixture() in ./clickhouse-http.ts:
//
//   node --import tsx test/support/clickhouse-http-server.ts <dataDir> <port> [user] [password]
//
// What it does as ClickHouse's HTTP handler does: the query is the `query` URL parameter followed by the
// body (or the body alone), with `database`, settings and `param_<name>` values from the URL; request
// bodies in gzip/deflate/br (`Content-Encoding`); responses compressed when `enable_http_compression=1`
// and the client accepts the codec; GET queries are read-only; `/ping` and `/` answer "Ok.\n"; errors
// are `Code: N. DB::Exception: … (TYPE) (version …)` with the server's HTTP status for that code and the
// X-ClickHouse-Exception-Code header; X-ClickHouse-Summary / -Query-Id / -Format / -Timezone headers.
// `query_id` names the query for `KILL QUERY WHERE query_id = …` (and initial_query_id) from another request.
// What it does not: sessions (`session_id`), multipart query parameters, external tables, progress
// headers, and refusing multi-statement queries (chDB runs them). Each request runs on its own chDB
// session on the same data directory, so settings, `USE` and parameters never leak between requests,
// and requests run concurrently, as on a server.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { promisify } from 'node:util'
import zlib from 'node:zlib'
import { Session, version } from 'chdb'

const [dataDir, portArg = '0', user = 'default', password = ''] = process.argv.slice(2)
if (!dataDir) throw new Error('usage: clickhouse-http-server.ts <dataDir> <port> [user] [password]')
mkdirSync(dataDir, { recursive: true })

// One session held open for the process's life: it binds the engine to the data directory; each
// request opens another session on the same directory (cheap once the engine is up) and closes it.
const engine = new Session(dataDir)
const serverVersion = version().libchdb

// URL parameters the HTTP handler consumes itself; every other parameter is a setting.
const HTTP_PARAMETERS = new Set([
  'query',
  'query_id',
  'database',
  'default_format',
  'user',
  'password',
  'quota_key',
  'session_id',
  'session_timeout',
  'session_check',
  'compress',
  'decompress',
  'buffer_size',
  'wait_end_of_query',
  'role',
  'enable_http_compression',
  'http_zlib_compression_level',
  'send_progress_in_http_headers',
  'http_headers_progress_interval_ms',
  'http_response_buffer_size',
  'http_native_compression_disable_checksumming_on_decompress',
])

// ClickHouse's HTTP status for an exception (src/Server/HTTP/exceptionCodeToHTTPStatus.cpp), by type.
const STATUS_BY_TYPE: Record<string, number> = {
  REQUIRED_PASSWORD: 401,
  ...Object.fromEntries(
    ['UNKNOWN_USER', 'WRONG_PASSWORD', 'AUTHENTICATION_FAILED', 'SET_NON_GRANTED_ROLE', 'ACCESS_DENIED'].map((t) => [t, 403]),
  ),
  ...Object.fromEntries(
    [
      'BAD_ARGUMENTS',
      'CANNOT_COMPILE_REGEXP',
      'CANNOT_PARSE_TEXT',
      'CANNOT_PARSE_ESCAPE_SEQUENCE',
      'CANNOT_PARSE_QUOTED_STRING',
      'CANNOT_PARSE_DATE',
      'CANNOT_PARSE_DATETIME',
      'CANNOT_PARSE_NUMBER',
      'CANNOT_PARSE_DOMAIN_VALUE_FROM_STRING',
      'CANNOT_PARSE_IPV4',
      'CANNOT_PARSE_IPV6',
      'CANNOT_PARSE_INPUT_ASSERTION_FAILED',
      'CANNOT_PARSE_UUID',
      'DUPLICATE_COLUMN',
      'ILLEGAL_COLUMN',
      'UNKNOWN_ELEMENT_IN_AST',
      'UNKNOWN_TYPE_OF_AST_NODE',
      'THERE_IS_NO_COLUMN',
      'TOO_DEEP_AST',
      'TOO_BIG_AST',
      'UNEXPECTED_AST_STRUCTURE',
      'SYNTAX_ERROR',
      'INCORRECT_DATA',
      'TYPE_MISMATCH',
      'VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE',
    ].map((t) => [t, 400]),
  ),
  ...Object.fromEntries(
    [
      'UNKNOWN_TABLE',
      'UNKNOWN_FUNCTION',
      'UNKNOWN_IDENTIFIER',
      'UNKNOWN_TYPE',
      'UNKNOWN_STORAGE',
      'UNKNOWN_DATABASE',
      'UNKNOWN_SETTING',
      'UNKNOWN_DIRECTION_OF_SORTING',
      'UNKNOWN_AGGREGATE_FUNCTION',
      'UNKNOWN_FORMAT',
      'UNKNOWN_DATABASE_ENGINE',
      'UNKNOWN_TYPE_OF_QUERY',
      'UNKNOWN_ROLE',
    ].map((t) => [t, 404]),
  ),
  QUERY_IS_TOO_LARGE: 413,
  NOT_IMPLEMENTED: 501,
  SOCKET_TIMEOUT: 503,
  CANNOT_OPEN_FILE: 503,
  CANNOT_SCHEDULE_TASK: 503,
  HTTP_LENGTH_REQUIRED: 411,
  TIMEOUT_EXCEEDED: 408,
  UNSUPPORTED_MEDIA_TYPE: 415,
}

/** An exception as ClickHouse reports it: its code, its type and the `Code: N. DB::Exception: …` text. */
class ClickHouseException extends Error {
  constructor(
    readonly code: number,
    readonly type: string,
    message: string,
  ) {
    super(`Code: ${code}. DB::Exception: ${message}. (${type})`)
  }
}

// chDB's errors already read `Code: N. DB::Exception: … (TYPE)`; anything else (a binding error in the
// addon) becomes the server's catch-all, STD_EXCEPTION.
function asException(err: unknown): { code: number; type: string; text: string } {
  if (err instanceof ClickHouseException) return { code: err.code, type: err.type, text: err.message }
  const text = err instanceof Error ? err.message : String(err)
  const match = /Code: (\d+)\..*\(([A-Z0-9_]*[A-Z]{3}[A-Z0-9_]*)\)/s.exec(text)
  if (match) return { code: Number(match[1]), type: match[2], text: text.trim() }
  return { code: 1001, type: 'STD_EXCEPTION', text: `Code: 1001. DB::Exception: ${text}. (STD_EXCEPTION)` }
}

const decoders: Record<string, (b: Buffer) => Promise<Buffer>> = {
  gzip: promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress),
}
const encoders: Record<string, (b: Buffer) => Promise<Buffer>> = {
  gzip: promisify(zlib.gzip),
  deflate: promisify(zlib.deflate),
  br: promisify(zlib.brotliCompress),
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const raw = Buffer.concat(chunks)
  const encoding = req.headers['content-encoding']?.toLowerCase()
  if (!encoding || encoding === 'identity') return raw.toString('utf8')
  const decode = decoders[encoding]
  if (!decode) throw new ClickHouseException(638, 'UNKNOWN_COMPRESSION_METHOD', `Unknown HTTP Content-Encoding: ${encoding}`)
  return (await decode(raw)).toString('utf8')
}

function credentials(req: IncomingMessage, url: URL): { user: string; password: string } {
  const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '')
  if (basic) {
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
  }
  const header = (name: string) => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : undefined)
  return {
    user: header('x-clickhouse-user') ?? url.searchParams.get('user') ?? 'default',
    password: header('x-clickhouse-key') ?? url.searchParams.get('password') ?? '',
  }
}

// A SQL string literal whose value is exactly `value` (a parameter's text, parsed by its type later).
const literal = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
const isIdentifier = (name: string) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)

/** The statements that set up a request's session, from its URL, before its query runs. */
function preamble(url: URL, method: string): string[] {
  const statements: string[] = []
  const database = url.searchParams.get('database')
  if (database) {
    if (!isIdentifier(database)) throw new ClickHouseException(81, 'UNKNOWN_DATABASE', `Database ${database} does not exist`)
    statements.push(`USE ${database}`)
  }
  let readonly = false
  for (const [name, value] of url.searchParams) {
    if (HTTP_PARAMETERS.has(name)) continue
    if (!isIdentifier(name)) throw new ClickHouseException(115, 'UNKNOWN_SETTING', `Unknown setting '${name}'`)
    if (name === 'readonly') readonly = true
    statements.push(`SET ${name} = ${literal(value)}`)
  }
  // As the server does: a GET request may read, and change settings, but not write.
  if (method === 'GET' && !readonly) statements.push('SET readonly = 2')
  return statements
}

// Query ids: chDB gives each query an id of its own, so the fixture gives each query the id it was sent as
// its log_comment, and a `KILL QUERY WHERE [initial_]query_id = …` finds the query by that.
const idMarker = (queryId: string) => `fixture query_id ${queryId.replace(/[^\w-]/g, '')}`

function killById(query: string, url: URL): string | null {
  const match = /^\s*KILL QUERY WHERE (?:initial_)?query_id = (?:'([\w-]+)'|\{(\w+):String\})\s*(ASYNC|SYNC)?\s*$/i.exec(query)
  if (!match) return null
  const id = match[1] ?? url.searchParams.get(`param_${match[2]}`) ?? ''
  return `KILL QUERY WHERE Settings['log_comment'] = '${idMarker(id)}' ASYNC`
}

function outputFormat(query: string, fallback: string): string {
  if (/^\s*INSERT\b/i.test(query)) return fallback
  return /\bFORMAT\s+([A-Za-z0-9_]+)\s*;?\s*$/i.exec(query)?.[1] ?? fallback
}

function contentType(format: string): string {
  if (/^JSON|^Pretty|^XML/i.test(format)) return format.startsWith('JSON') ? 'application/json; charset=UTF-8' : 'text/plain; charset=UTF-8'
  if (/^(TSV|TabSeparated)/i.test(format)) return 'text/tab-separated-values; charset=UTF-8'
  if (/^CSV/i.test(format)) return 'text/csv; charset=UTF-8; header=absent'
  return 'text/plain; charset=UTF-8'
}

function responseEncoding(req: IncomingMessage, url: URL): string | null {
  if (url.searchParams.get('enable_http_compression') !== '1') return null
  const accepted = (req.headers['accept-encoding'] ?? '').split(',').map((e) => e.trim().split(';')[0].toLowerCase())
  return accepted.find((e) => encoders[e]) ?? null
}

async function handleQuery(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const queryId = url.searchParams.get('query_id') || randomUUID()
  const headers: Record<string, string> = {
    'X-ClickHouse-Query-Id': queryId,
    'X-ClickHouse-Timezone': 'UTC',
    'X-ClickHouse-Server-Display-Name': 'wren-test-clickhouse-fixture',
  }
  try {
    const given = credentials(req, url)
    if (given.user !== user || given.password !== password) {
      throw new ClickHouseException(
        516,
        'AUTHENTICATION_FAILED',
        `${given.user}: Authentication failed: password is incorrect, or there is no user with such name`,
      )
    }
    if (url.searchParams.has('session_id'))
      throw new ClickHouseException(48, 'NOT_IMPLEMENTED', 'session_id is not supported by the Wren test fixture')
    const fromUrl = url.searchParams.get('query') ?? ''
    const body = req.method === 'POST' ? await readBody(req) : ''
    const query = fromUrl && body ? `${fromUrl}\n${body}` : fromUrl || body
    if (!query.trim()) throw new ClickHouseException(62, 'SYNTAX_ERROR', 'Empty query')
    const format = outputFormat(fromUrl || body, url.searchParams.get('default_format') ?? 'TabSeparated')
    // An INSERT whose body carries no rows is a no-op, as on the server (chDB alone refuses it).
    const emptyInsert = fromUrl && /^\s*INSERT\b/i.test(fromUrl) && !body.trim()
    const session = new Session(dataDir)
    let result
    try {
      const statements = [...preamble(url, req.method ?? 'GET'), `SET log_comment = '${idMarker(queryId)}'`, killById(query, url) ?? query]
      result = emptyInsert ? null : await session.queryAsync(statements.join(';\n'), { format })
    } finally {
      session.close()
    }
    const output = Buffer.from(result?.bytes() ?? new Uint8Array())
    const rows = String(result?.rowsRead ?? 0)
    const bytes = String(result?.bytesRead ?? 0)
    const insert = /^\s*INSERT\b/i.test(query)
    const summary = {
      read_rows: rows,
      read_bytes: bytes,
      written_rows: insert ? rows : '0',
      written_bytes: insert ? bytes : '0',
      total_rows_to_read: rows,
      result_rows: insert ? '0' : rows,
      result_bytes: insert ? '0' : String(output.length),
      elapsed_ns: String(Math.round((result?.elapsed ?? 0) * 1e9)),
    }
    const encoding = responseEncoding(req, url)
    res.writeHead(200, {
      ...headers,
      'Content-Type': contentType(format),
      'X-ClickHouse-Format': format,
      'X-ClickHouse-Summary': JSON.stringify(summary),
      ...(encoding ? { 'Content-Encoding': encoding } : {}),
    })
    res.end(encoding ? await encoders[encoding](output) : output)
  } catch (err) {
    const { code, type, text } = asException(err)
    res.writeHead(STATUS_BY_TYPE[type] ?? 500, {
      ...headers,
      'Content-Type': 'text/plain; charset=UTF-8',
      'X-ClickHouse-Exception-Code': String(code),
    })
    res.end(`${text} (version ${serverVersion})\n`)
  }
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://fixture')
  if ((url.pathname === '/ping' || url.pathname === '/') && !url.searchParams.has('query') && req.method !== 'POST') {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=UTF-8' }).end('Ok.\n')
    return
  }
  if (url.pathname !== '/') {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=UTF-8' }).end(`There is no handle ${url.pathname}\n`)
    return
  }
  void handleQuery(req, res, url)
})
// The client's idle sockets live 2.5 s by default; the server keeps them longer, as ClickHouse does (10 s).
server.keepAliveTimeout = 10_000

server.listen(Number(portArg), '127.0.0.1', () => {
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  process.stdout.write(`clickhouse fixture listening on http://127.0.0.1:${port}\n`)
})

const shutdown = () => {
  server.close(() => {
    engine.close()
    process.exit(0)
  })
  server.closeAllConnections()
}
process.once('SIGTERM', shutdown)
process.once('SIGINT', shutdown)
