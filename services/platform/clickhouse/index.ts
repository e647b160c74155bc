// The one way Wren reaches ClickHouse: @clickhouse/client, over chDB in embedded mode or over HTTP to a
// server in cluster mode. Tables are created and migrated at start from schemas/clickhouse/*.sql.
import { randomUUID } from 'node:crypto'
import { readdir, readFile, mkdir } from 'node:fs/promises'
import path from 'node:path'
import { Readable } from 'node:stream'
import { Session } from 'chdb'
import { ClickHouseLogLevel, createClient, parseError, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client'
import { errorText } from '../errors'
import { createChdbConnection, type ChdbExtension } from 'chdb/connection'
import { clusterStatements } from './cluster'
import { encodeRows, encodedRows, MAX_INSERT_CHARS } from './rows'
import { appUrl } from '../paths'
import { Gate } from '../serial'
import { DEFAULT_QUERY_LIMITS, limitSettings, withSettings, type QueryLimits } from './limits'

export { encodeRows, encodedRows, MAX_INSERT_CHARS }
export { DEFAULT_QUERY_LIMITS, type QueryLimits }

export type { ClickHouseClient }

/** chDB's own side of embedded clients: inserts hand it their bytes as they are (insertEncoded). */
const embedded = new WeakMap<ClickHouseClient, Pick<ChdbExtension, 'rawInsert'>>()
/** The calls under way in each embedded client's engine (see EngineCalls). */
const engines = new WeakMap<ClickHouseClient, EngineCalls>()

/**
 * chDB runs in this process, on threads of its own: a process that exits while one of its calls is under way
 * (a write, above all) tears the engine down under it and dies by a signal. Every call is counted, so that
 * closing, and an exit past the shutdown deadline, wait for the calls under way and start no new ones.
 */
class EngineCalls {
  private readonly underWay = new Set<Promise<unknown>>()
  private closed = false

  track<T>(call: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('chDB is closing: no new queries'))
    const running = call()
    this.underWay.add(running)
    const done = () => void this.underWay.delete(running)
    running.then(done, done)
    return running
  }

  /** Refuses new calls; resolves once none is under way. */
  async drain(): Promise<void> {
    this.closed = true
    while (this.underWay.size) await Promise.allSettled([...this.underWay])
  }
}

/**
 * How each client's queries are bounded and stopped (queryRows). `kill` stops a query under way by its id;
 * `gate`, in embedded mode, holds queries in Wren until the engine takes them, so that one whose caller
 * left is never started: chDB runs one query at a time on a session (Wren's client is one session), and a query
 * waiting in the engine cannot be taken back until those before it finish. The gate keeps the queries run for
 * callers in a queue of Wren's own until then, one at a time, and drops those whose caller has left.
 */
interface Bounds {
  limits: QueryLimits
  kill(queryId: string): Promise<void>
  gate: Gate | null
}
const bounds = new WeakMap<ClickHouseClient, Bounds>()

/** The error a query whose caller left ends with (ClickHouse's own, in the client's shape). */
function cancelled(): Error {
  return parseError('Code: 394. DB::Exception: Query was cancelled: the caller has gone. (QUERY_WAS_CANCELLED)')
}

/** The log_comment of an embedded query: chDB keeps no query id of Wren's, so a kill finds the query by it. */
const marker = (queryId: string) => `wren query ${queryId}`

export async function openEmbeddedClickHouse(dataDir: string, limits: QueryLimits = DEFAULT_QUERY_LIMITS): Promise<ClickHouseClient> {
  const dir = path.join(dataDir, 'clickhouse')
  await mkdir(dir, { recursive: true })
  const connection = createChdbConnection({ path: dir })
  // Kills come through a session of their own: the client's runs one query at a time, so a kill sent
  // there would wait for the very query it is to stop.
  const control = new Session(dir)
  const calls = new EngineCalls()
  const methods = connection as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>
  for (const name of ['query', 'exec', 'command', 'insert'] as const) {
    const call = methods[name].bind(connection)
    methods[name] = (...args) => calls.track(() => call(...args))
  }
  const ping = connection.ping.bind(connection)
  connection.ping = (params) => calls.track(() => ping(params)).catch((error: Error) => ({ success: false as const, error }))
  const close = connection.close.bind(connection)
  connection.close = async () => {
    await calls.drain()
    control.close()
    await close()
  }
  const chdb = connection.chdb
  const client = createClient({ connection } as Parameters<typeof createClient>[0])
  embedded.set(client, { rawInsert: (params) => calls.track(() => chdb.rawInsert(params)) })
  engines.set(client, calls)
  bounds.set(client, {
    limits,
    gate: new Gate(),
    kill: async (queryId) => {
      await control.queryAsync(`KILL QUERY WHERE Settings['log_comment'] = '${marker(queryId)}' ASYNC`, { format: 'Null' })
    },
  })
  return client
}

/**
 * The `SETTINGS` clause of an `INSERT … SELECT` (person compaction, the benches' bulk loaders). Such an insert
 * gathers its rows into blocks of up to 1 Mi rows or 256 MiB before writing each as a part; in the embedded
 * engine the allocator keeps those blocks' pages for seconds after the insert, so a million wide event rows
 * left the process at 1.4–1.6 GiB resident for the queries that came next; blocks of 64 MiB: 0.76 GiB
 * (bench/results/2026-11-25-issue-24-trends.md). Per statement, not for the session: set for the session it slowed ingestion's
 * own inserts (JSONEachRow bodies of 32 MiB at most), 5.7 s against 4.1 s of inserts per 100,000 events.
 */
export const INSERT_SELECT_SETTINGS = `min_insert_block_size_bytes = ${64 << 20}`

/**
 * Refuses new calls to an embedded client's engine and resolves once none is under way (at once for a
 * ClickHouse server, which no exit of this process can harm).
 */
export function engineIdle(client: ClickHouseClient): Promise<void> {
  return engines.get(client)?.drain() ?? Promise.resolve()
}

export interface ClickHouseServer {
  url: string
  username: string
  password: string
  database: string
  cluster: string | null
}

/** Cluster mode: the same client over HTTP to a ClickHouse server (or a cluster's load balancer). */
export async function openServerClickHouse(
  server: ClickHouseServer,
  limits: QueryLimits = DEFAULT_QUERY_LIMITS,
): Promise<ClickHouseClient> {
  const { url, username, password, database, cluster } = server
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(database)) throw new Error(`CLICKHOUSE_DATABASE must be a plain identifier, got ${database}`)
  const admin = createClient({ url, username, password })
  try {
    await admin.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}${cluster ? ` ON CLUSTER ${cluster}` : ''}` })
  } finally {
    await admin.close()
  }
  // Synchronous inserts into Distributed tables: a batch is on its shards before its offset commits,
  // and a replay reaches each shard as the same block, which the deduplication token then drops.
  // The client's own logger would print every ClickHouse error (a user's bad regex, say) to stderr outside
  // pino; Wren handles and logs those errors itself.
  const client = createClient({
    url,
    username,
    password,
    database,
    clickhouse_settings: cluster ? { insert_distributed_sync: 1 } : {},
    log: { level: ClickHouseLogLevel.OFF },
  })
  bounds.set(client, { limits, gate: null, kill: (queryId) => killById(client, queryId, cluster) })
  return client
}

/** A server stops a query by its id (on every node of a cluster, where its parts run as their own queries under it). */
async function killById(client: ClickHouseClient, queryId: string, cluster: string | null): Promise<void> {
  const on = cluster ? ` ON CLUSTER ${cluster}` : ''
  await client.command({ query: `KILL QUERY${on} WHERE initial_query_id = {id:String} ASYNC`, query_params: { id: queryId } })
}

const migrationsDir = appUrl('schemas/clickhouse/')

/**
 * Applies every migration not yet recorded in `schema_migrations`, in file-name order, and returns the names
 * it applied. Every statement of a migration is one that can run again (`IF NOT EXISTS`, `MODIFY`): a start
 * that dies halfway through a migration runs it whole at the next start, and processes that start at once
 * may each apply it (test/deploy/upgrade.test.ts). `upTo`: only the files named up to it (the schema of an
 * older version, for tests of upgrades).
 */
export async function migrate(client: ClickHouseClient, options: { cluster?: string | null; upTo?: string } = {}): Promise<string[]> {
  // On a cluster every statement gets its ON CLUSTER / Replicated / Distributed form (cluster.ts).
  const forms = (statement: string) => (options.cluster ? clusterStatements(statement, options.cluster) : [statement])
  for (const query of forms(
    `CREATE TABLE IF NOT EXISTS schema_migrations (name String, applied_at DateTime64(3, 'UTC') DEFAULT now64(3)) ENGINE = ReplacingMergeTree ORDER BY name`,
  )) {
    await client.command({ query })
  }
  const applied = new Set((await queryRows<{ name: string }>(client, 'SELECT name FROM schema_migrations')).map((r) => r.name))
  const files = (await readdir(migrationsDir))
    .filter((f) => f.endsWith('.sql') && (options.upTo === undefined || f.slice(0, options.upTo.length) <= options.upTo))
    .sort()
  const ran: string[] = []
  for (const file of files) {
    if (applied.has(file)) continue
    const sql = await readFile(new URL(file, migrationsDir), 'utf8')
    for (const statement of splitStatements(sql)) for (const query of forms(statement)) await client.command({ query })
    await client.insert({ table: 'schema_migrations', values: [{ name: file }], format: 'JSONEachRow' })
    ran.push(file)
  }
  return ran
}

export function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter((s) => s.length > 0)
}

// ISO date-times and plain JSON numbers, so rows read back as the values they were written as. To a server
// they go as the request's parameters; on chDB, in the query's own SETTINGS clause: chDB's connection runs each
// of clickhouse_settings as a `SET` statement before the query, and each cost as much CPU as a small query
// (a `SELECT 1` read through queryRows took 3.8 ms of CPU with the two SETs, 1.6 ms without).
const READ_SETTINGS = { date_time_output_format: 'iso', output_format_json_quote_64bit_integers: 0 } as const

/**
 * Rows of a query, bounded by the client's limits (WREN_QUERY_*, ./limits.ts): past one, ClickHouse stops
 * the query and the error names the bound (the error handler answers it as a 4xx or 503, errors.ts).
 * `signal`: the caller's; when it aborts (the client went away) the query is killed in ClickHouse, or in
 * embedded mode never started if it had not been. `unbounded`: a read of Wren's own that must see every
 * row however many there are (decide's copy of the static cohorts, compaction's count), never a caller's.
 */
export async function queryRows<T>(
  client: ClickHouseClient,
  query: string,
  params: Record<string, unknown> = {},
  opts: { signal?: AbortSignal; unbounded?: boolean } = {},
): Promise<T[]> {
  return bounded(client, query, params, opts, 'JSONEachRow', async (result) => (await result.json<T>()) as T[])
}

/** A result with its columns' ClickHouse types, as PostHog's HogQL answers carry them. */
export interface TypedRows {
  meta: Array<{ name: string; type: string }>
  rows: unknown[][]
}

/** Rows of a query as arrays in column order, with each column's name and type; bounded as queryRows is. */
export async function queryTypedRows(
  client: ClickHouseClient,
  query: string,
  params: Record<string, unknown> = {},
  opts: { signal?: AbortSignal } = {},
): Promise<TypedRows> {
  return bounded(client, query, params, opts, 'JSONCompact', async (result) => {
    const body = (await result.json()) as unknown as { meta: TypedRows['meta']; data: unknown[][] }
    return { meta: body.meta, rows: body.data }
  })
}

type ResultSet = Awaited<ReturnType<ClickHouseClient['query']>>

/** queryRows' bounds, kill-by-signal and embedded gate, for one query read in `format`. */
async function bounded<R>(
  client: ClickHouseClient,
  query: string,
  params: Record<string, unknown>,
  opts: { signal?: AbortSignal; unbounded?: boolean },
  format: 'JSONEachRow' | 'JSONCompact',
  read: (result: ResultSet) => Promise<R>,
): Promise<R> {
  const { signal } = opts
  const own = bounds.get(client)
  const queryId = randomUUID()
  const settings = opts.unbounded ? {} : limitSettings(own?.limits ?? DEFAULT_QUERY_LIMITS)
  const sql = withSettings(query, own?.gate ? { ...settings, ...READ_SETTINGS, log_comment: marker(queryId) } : settings)
  const run = async () => {
    if (signal?.aborted) throw cancelled()
    const kill = () => void (own ?? { kill: (id: string) => killById(client, id, null) }).kill(queryId).catch(() => {})
    signal?.addEventListener('abort', kill, { once: true })
    try {
      const result = await client.query({
        query: sql,
        query_params: params,
        query_id: queryId,
        format,
        clickhouse_settings: own?.gate ? {} : READ_SETTINGS,
        // A server's request is dropped at once (and the query killed above); chDB's call must be left to
        // end on its own (the kill ends it), or closing would not wait for it (EngineCalls).
        ...(own?.gate ? {} : { abort_signal: signal }),
      })
      return await read(result as ResultSet)
    } catch (err) {
      throw signal?.aborted ? cancelled() : err
    } finally {
      signal?.removeEventListener('abort', kill)
    }
  }
  return own?.gate
    ? own.gate.run(() => {
        if (signal?.aborted) throw cancelled()
        return run()
      })
    : run()
}

/**
 * Inserts bodies made by encodeRows (as text, or as UTF-8 bytes: a worker thread hands those over without
 * a copy), one insert each. Each has its own deduplication token (the token, then `:1`, `:2`, … when there
 * is more than one chunk): the same rows always make the same chunks, so a replay of the same rows stores
 * them once.
 */
export async function insertEncoded(
  client: ClickHouseClient,
  table: string,
  chunks: ReadonlyArray<string | Uint8Array>,
  dedupToken?: string,
): Promise<void> {
  const chdb = embedded.get(client)
  for (const [i, body] of chunks.entries()) {
    const token = dedupToken && i > 0 ? `${dedupToken}:${i}` : dedupToken
    // JSONEachRow, measured: JSONCompactEachRow parsed 10,000 event rows with ~35% less CPU in chDB alone,
    // but re-inserting the ingestion benchmark's rows showed no difference (bench/results/2026-11-25-issue-24-ingestion.md).
    const settings = {
      date_time_input_format: 'best_effort',
      input_format_json_read_objects_as_strings: 1,
      // Always set, '' when there is none: a token left by an earlier insert must never apply to this one.
      insert_deduplication_token: token ?? '',
    } satisfies Record<string, string | number>
    if (chdb) {
      // chDB takes the bytes as they are (no string conversion on this thread) and parses them in its own threads.
      await chdb.rawInsert({ table, values: body, format: 'JSONEachRow', settings }).catch((err: unknown) => {
        // In the client's shape (a ClickHouseError with its code), as chDB's other calls come through it.
        throw parseError(errorText(err))
      })
      continue
    }
    // A server: the body as the request's body. exec, not insert: the client's insert encodes JSON rows
    // itself and takes no ready body for them.
    const { stream } = await client.exec({
      query: `INSERT INTO ${table} FORMAT JSONEachRow`,
      values: Readable.from([body]),
      clickhouse_settings: settings as ClickHouseSettings,
    })
    stream.destroy()
  }
}

/**
 * The deduplication tokens of a replay's inserts of one part of the log, per table (`token`: the part's usual
 * one; null: the table holds the part already, nothing to write). A non-replicated table records an insert's
 * token before it commits the rows: a process killed between the two leaves the token without its rows, and an
 * insert under the same token is then dropped, rows and all (1 in 400 kills in the middle of inserts did so, on
 * chDB). So the part is looked for in each table (`rows`: how many it writes there): none of its rows, it is
 * written under a token of its own; all of them, not again; some, under its usual token. A row holds the part
 * when its origin columns (`_partition`, `_offset`) are the part's, or where a table merges rows of several
 * parts, when its `holds` condition (SQL of `{p:UInt32}` and `{o:UInt64}`, and `params`) says so. Rows whose
 * identity can be looked for go through insertMissing instead, which also mends a part stored in part.
 */
export async function replayTokens(
  client: ClickHouseClient,
  origin: { partition: number; offset: number },
  tables: ReadonlyArray<{ table: string; rows: number; holds?: string; params?: Record<string, unknown> }>,
  token: (table: string) => string,
): Promise<(table: string) => string | null> {
  const wanted = tables.filter((t) => t.rows > 0)
  if (wanted.length === 0) return token
  const held = await queryRows<{ t: string; n: number }>(
    client,
    wanted
      .map(
        ({ table, holds = '_partition = {p:UInt32} AND _offset = {o:UInt64}' }) =>
          `SELECT '${table}' AS t, count() AS n FROM ${table} WHERE ${holds}`,
      )
      .join(' UNION ALL '),
    Object.assign({}, ...wanted.map((t) => t.params ?? {}), { p: origin.partition, o: origin.offset }),
    { unbounded: true },
  )
  const holds = new Map(held.map((r) => [r.t, Number(r.n)]))
  const rows = new Map(wanted.map((t) => [t.table, t.rows]))
  const again = randomUUID()
  return (table) => {
    const n = holds.get(table)
    if (n === undefined) return token(table)
    if (n === 0) return `${token(table)}:again:${again}`
    return n >= (rows.get(table) ?? 0) ? null : token(table)
  }
}

/**
 * A replay's insert of rows that an earlier write may have stored in whole or in part (a token left without its
 * rows, or past MAX_INSERT_CHARS some chunks stored and not the rest; see replayTokens): the rows whose identity
 * is not among `held` (the identities of the rows the table holds for the same origin, as `idOf` gives a row's),
 * under a token of their own. A row twice in `rows` is written again unless `held` has it twice.
 */
export async function insertMissing<R extends object>(
  client: ClickHouseClient,
  table: string,
  rows: readonly R[],
  held: Iterable<string>,
  idOf: (row: R) => string,
  token: string,
): Promise<void> {
  const count = new Map<string, number>()
  for (const id of held) count.set(id, (count.get(id) ?? 0) + 1)
  const missing = rows.filter((row) => {
    const id = idOf(row)
    const n = count.get(id) ?? 0
    if (n > 0) count.set(id, n - 1)
    return n === 0
  })
  await insertRows(client, table, missing, `${token}:again:${randomUUID()}`)
}

/** Inserts rows (encodeRows, then insertEncoded). */
export async function insertRows(
  client: ClickHouseClient,
  table: string,
  rows: readonly object[],
  dedupToken?: string,
  maxChars = MAX_INSERT_CHARS,
): Promise<void> {
  if (rows.length === 0) return
  await insertEncoded(client, table, encodeRows(rows, maxChars), dedupToken)
}
