// Session recordings benchmark: snapshot ingestion through /s/ and the recordings processor, storage per
// recorded minute, and the list route with 100,000 recordings stored.
//
// Each run is a child process on a fresh temporary data directory, driving a real `wren start` (its own
// process, production defaults) over HTTP:
//   1. throughput: S generated sessions (each a full snapshot of a ~400-node DOM, then M minutes of mouse
//      moves, clicks, inputs, scrolls and mutations, with idle gaps), cut into the requests posthog-js sends
//      (one per ~2 s of events, uncompressed JSON; gzip'd with --gzip, as posthog-js does once the remote
//      config offers gzip-js), posted to /s/ until the processor has stored every event (/_metrics), twice:
//      a. as issue 24 measured it: on the fresh server, 16 senders in this process (fetch), each posting a
//         session's requests one after another and waiting for each answer;
//      b. loaded, on the server (a) warmed: the sessions again under new ids until there are --load-mb MB,
//         in the order many browsers send them (every session's first request, then every second one, …),
//         by autocannon over --connections keep-alive connections with the bodies built beforehand, so the
//         client costs little and fixed costs (the last batch's WREN_RECORDINGS_WAIT_MS, a cold JIT) are a
//         small part of the time.
//      Figures: MB/s of uncompressed rrweb JSON (request bodies) and sessions/s, acknowledgements and storage
//      included; Wren's process CPU per request; the processor's summed batch time.
//      Reference: with Wren stopped, the rows the processor wrote (blocks, metadata and the sessions'
//      pre-aggregated rows, grouped by the log batch that wrote them) are inserted again with insertRows
//      into copies of the tables, batch by batch: the ClickHouse work without HTTP, the log or the processor.
//   2. storage: bytes on disk (system.parts, after OPTIMIZE … FINAL) of the blocks and metadata tables
//      for the known recorded duration, and the events column's share (system.columns).
//   3. list: 100,000 more recordings' metadata rows (and their sessions' pre-aggregated rows) inserted
//      directly (the setup, not a figure), then GET …/session_recordings/?limit=50 timed through Wren, next
//      to a hand-written SQL of the same list (the newest 50 sessions with their summed counts) timed on the
//      same engine and data, and the same list read by hand from the pre-aggregated sessions.
// The parent (runRecordings) runs this a few times and prints medians and ratios.
import { mkdtemp, rm } from 'node:fs/promises'
import { gzipSync } from 'node:zlib'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  fmt,
  median,
  ms,
  percentile,
  repoRoot,
  rng,
  failures,
  runLoad,
  scrapeMetrics,
  spread,
  startWrenServer,
  x,
  reportTrialResult,
  runTrialProcess,
} from './support'

export interface RecordingsOptions {
  trials: number
  /** Sessions posted in the throughput run. */
  sessions: number
  /** Recorded minutes per session. */
  minutes: number
  /** Recordings stored for the list latency. */
  recordings: number
  /** Bodies gzip'd, as posthog-js sends them when the remote config lists gzip-js (Wren's does). */
  gzip: boolean
  /** MB of rrweb JSON the loaded run posts (the sessions sent again under new ids until there is this much). */
  loadMb: number
  /** The loaded run's keep-alive connections: requests of many browsers in flight at once. */
  connections: number
}

const CONCURRENT_SESSIONS = 16
const LIST_REQUESTS = 100
/** The metadata columns the list's setup fills (schemas/clickhouse/034); columns added later keep their defaults. */
const METADATA_COLUMNS = [
  'team_id',
  'session_id',
  'distinct_id',
  'start_time',
  'end_time',
  'click_count',
  'keypress_count',
  'mouse_activity_count',
  'console_log_count',
  'console_warn_count',
  'console_error_count',
  'event_count',
  'size',
  'state',
  '_partition',
  '_offset',
]

interface TrialResult {
  /** Generated sessions, and their rrweb events (sent once by each way of sending, the loaded run repeating them). */
  sessions: number
  events: number
  /** As issue 24 measured it: 16 sequential senders on the fresh server. */
  sequential: Sending
  /** Loaded: autocannon over many connections on the warmed server. */
  loaded: Sending
  /** Of everything stored (both ways of sending). */
  recordedMinutes: number
  metadataRows: number
  diskBytes: number
  compressedBytes: number
  uncompressedBytes: number
  eventsColumnBytes: number
  listed: number
  apiLatencies: number[]
  sqlLatencies: number[]
  sessionsSqlLatencies: number[]
}

// ---- the workload: realistic rrweb sessions ------------------------------------------------------------

type Rand = () => number
interface RrwebNode {
  type: number
  id: number
  tagName?: string
  attributes?: Record<string, string>
  childNodes?: RrwebNode[]
  textContent?: string
}
const WORDS = 'the quick product analytics dashboard shows trends funnels retention paths cohorts for every team member'.split(' ')

function text(rand: Rand, words: number): string {
  return Array.from({ length: words }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ')
}

/** A serialized DOM (rrweb's full snapshot node tree) of about `target` nodes; also the ids of clickable and input nodes. */
function dom(rand: Rand, target: number): { node: RrwebNode; clickable: number[]; inputs: number[] } {
  let id = 1
  const clickable: number[] = []
  const inputs: number[] = []
  const el = (tagName: string, attributes: Record<string, string>, childNodes: RrwebNode[] = []): RrwebNode => ({
    type: 2,
    id: id++,
    tagName,
    attributes,
    childNodes,
  })
  const txt = (words: number): RrwebNode => ({ type: 3, id: id++, textContent: text(rand, words) })
  const sections: RrwebNode[] = []
  while (id < target) {
    const kind = Math.floor(rand() * 4)
    if (kind === 0) {
      const button = el('button', { class: 'btn btn-primary', type: 'button' }, [txt(2)])
      clickable.push(button.id)
      sections.push(el('div', { class: 'toolbar' }, [button, el('span', { class: 'hint' }, [txt(4)])]))
    } else if (kind === 1) {
      const input = el('input', { type: 'text', name: `field-${id}`, placeholder: text(rand, 2) })
      inputs.push(input.id)
      sections.push(el('label', { class: 'field' }, [txt(2), input]))
    } else if (kind === 2) {
      const link = el('a', { href: `/page/${id}`, class: 'nav-link' }, [txt(2)])
      clickable.push(link.id)
      sections.push(el('li', { class: 'nav-item' }, [link]))
    } else {
      sections.push(el('div', { class: 'card' }, [el('h3', {}, [txt(3)]), el('p', { class: 'body' }, [txt(20)])]))
    }
  }
  const head = el('head', {}, [el('title', {}, [txt(3)]), el('style', {}, [txt(40)])])
  const body = el('body', { class: 'app' }, [el('main', { id: 'root' }, sections)])
  const html = el('html', { lang: 'en' }, [head, body])
  return { node: { type: 0, id: id++, childNodes: [html] }, clickable, inputs }
}

/**
 * One session: a meta and full snapshot, then `minutes` of interaction with idle gaps, cut into the chunks
 * posthog-js flushes (about every 2 s of events). Timestamps are ms since the epoch.
 */
function session(rand: Rand, start: number, minutes: number): Array<Array<Record<string, unknown>>> {
  const { node, clickable, inputs } = dom(rand, 300 + Math.floor(rand() * 200))
  const events: Array<Record<string, unknown>> = [
    { type: 4, timestamp: start, data: { href: 'https://app.example.com/dashboard', width: 1440, height: 900 } },
    { type: 2, timestamp: start + 5, data: { node, initialOffset: { top: 0, left: 0 } } },
  ]
  const end = start + minutes * 60_000
  let t = start + 100
  let x0 = 400
  let y0 = 300
  while (t < end) {
    // Now and then the user goes idle for 10-40 s.
    if (rand() < 0.01) t += 10_000 + Math.floor(rand() * 30_000)
    const r = rand()
    if (r < 0.55) {
      const positions = Array.from({ length: 5 + Math.floor(rand() * 10) }, (_, i) => {
        x0 = Math.max(0, Math.min(1440, x0 + Math.floor(rand() * 60 - 30)))
        y0 = Math.max(0, Math.min(900, y0 + Math.floor(rand() * 60 - 30)))
        return { x: x0, y: y0, id: clickable[Math.floor(rand() * clickable.length)] ?? 1, timeOffset: -i * 50 }
      })
      events.push({ type: 3, timestamp: t, data: { source: 1, positions } })
    } else if (r < 0.65) {
      const id = clickable[Math.floor(rand() * clickable.length)] ?? 1
      for (const type of [1, 0, 2]) events.push({ type: 3, timestamp: t + type, data: { source: 2, type, id, x: x0, y: y0 } })
    } else if (r < 0.78) {
      events.push({ type: 3, timestamp: t, data: { source: 5, text: text(rand, 2), isChecked: false, id: inputs[0] ?? 1 } })
    } else if (r < 0.9) {
      events.push({ type: 3, timestamp: t, data: { source: 3, id: 1, x: 0, y: Math.floor(rand() * 4000) } })
    } else {
      const id = clickable[Math.floor(rand() * clickable.length)] ?? 1
      events.push({
        type: 3,
        timestamp: t,
        data: {
          source: 0,
          texts: [],
          attributes: [{ id, attributes: { class: rand() < 0.5 ? 'btn active' : 'btn' } }],
          removes: [],
          adds: [],
        },
      })
    }
    t += 150 + Math.floor(rand() * 600)
  }
  const chunks: Array<Array<Record<string, unknown>>> = []
  let chunk: Array<Record<string, unknown>> = []
  let chunkStart = start
  for (const e of events) {
    if ((e.timestamp as number) - chunkStart >= 2_000 && chunk.length) {
      chunks.push(chunk)
      chunk = []
      chunkStart = e.timestamp as number
    }
    chunk.push(e)
  }
  if (chunk.length) chunks.push(chunk)
  return chunks
}

// ---- one run, in a child process --------------------------------------------------------------------

/** The /s/ bodies of the generated sessions, under session ids made by `id` (so the workload can be sent again as new sessions). */
function bodiesOf(
  generated: Array<{ chunks: Array<Array<Record<string, unknown>>> }>,
  projectKey: string,
  id: (i: number) => string,
): string[][] {
  return generated.map(({ chunks }, i) =>
    chunks.map((events) =>
      JSON.stringify([
        {
          event: '$snapshot',
          properties: {
            token: projectKey,
            distinct_id: `user-${i}`,
            $session_id: id(i),
            $window_id: `window-${id(i)}`,
            $snapshot_bytes: JSON.stringify(events).length,
            $snapshot_data: events,
            $lib: 'web',
          },
        },
      ]),
    ),
  )
}

/** What one way of sending the workload measured, from the first request to the last event stored. */
interface Sending {
  requests: number
  jsonBytes: number
  sessions: number
  /** Until capture had acknowledged every request. */
  ackSeconds: number
  storedSeconds: number
  /** Wren's process CPU (user + system, every thread: chDB's too) while capture took the requests, and to stored. */
  ackCpuSeconds: number
  storedCpuSeconds: number
  /** The processor's own time: its batches' handling (decoding, blocks, metadata, inserts), summed. */
  processorSeconds: number
  /** The loaded run: cores the load generator (this process) kept busy while capture took the requests. */
  loadGeneratorCores?: number
  /** Filled in once Wren has stopped: the same rows inserted again, log batch by log batch. */
  batches: number
  blockRows: number
  refSeconds: number
  refBlocksOnlySeconds: number
}

const CPU = 'process_cpu_seconds_total'
const BUSY = 'wren_recording_batch_duration_seconds_sum'

/** Sends (`send`, which resolves once capture acknowledged everything) and waits until the processor has stored `events` more events. */
async function measured(
  url: string,
  events: number,
  send: () => Promise<{ loadGeneratorCores?: number }>,
): Promise<Omit<Sending, 'requests' | 'jsonBytes' | 'sessions' | 'batches' | 'blockRows' | 'refSeconds' | 'refBlocksOnlySeconds'>> {
  const before = await scrapeMetrics(url)
  const started = performance.now()
  const { loadGeneratorCores } = await send()
  const ackSeconds = (performance.now() - started) / 1000
  const acked = await scrapeMetrics(url)
  let stored: Record<string, number>
  for (;;) {
    stored = await scrapeMetrics(url)
    if ((stored.wren_recording_events_total ?? 0) - (before.wren_recording_events_total ?? 0) >= events) break
    await new Promise((r) => setTimeout(r, 20))
  }
  const storedSeconds = (performance.now() - started) / 1000
  const diff = (after: Record<string, number>, name: string) => (after[name] ?? NaN) - (before[name] ?? NaN)
  return {
    ackSeconds,
    storedSeconds,
    ackCpuSeconds: diff(acked, CPU),
    storedCpuSeconds: diff(stored, CPU),
    processorSeconds: diff(stored, BUSY),
    loadGeneratorCores,
  }
}

async function trial(opts: RecordingsOptions): Promise<TrialResult> {
  const { openEmbeddedClickHouse, queryRows, insertRows } = await import('../services/platform/clickhouse')
  const { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } = await import('../services/projects/store')
  const projectKey = generateKey(PROJECT_KEY_PREFIX)
  const personalKey = generateKey(PERSONAL_KEY_PREFIX)
  const dataDir = await mkdtemp(path.join(tmpdir(), 'wren-bench-recordings-'))
  const env = { WREN_PERSONAL_API_KEY: personalKey }
  try {
    // ---- 1. throughput through /s/ and the processor ----
    let wren = await startWrenServer(projectKey, env, dataDir)
    const auth = { authorization: `Bearer ${personalKey}`, 'content-type': 'application/json' }
    const projectId = ((await (await fetch(`${wren.url}/api/projects/`, { headers: auth })).json()) as { results: Array<{ id: number }> })
      .results[0].id
    await fetch(`${wren.url}/api/projects/${projectId}/`, {
      method: 'PATCH',
      headers: auth,
      body: JSON.stringify({ session_recording_opt_in: true }),
    })

    const rand = rng(11)
    const now = Date.now()
    const generated = Array.from({ length: opts.sessions }, (_, i) => {
      const start = now - 2 * 3_600_000 + i * 1_000
      const chunks = session(rand, start, opts.minutes)
      const last = chunks[chunks.length - 1]
      return { chunks, events: chunks.reduce((n, c) => n + c.length, 0), duration: (last[last.length - 1].timestamp as number) - start }
    })
    const events = generated.reduce((n, s) => n + s.events, 0)
    const encode = (body: string) => (opts.gzip ? gzipSync(body) : Buffer.from(body))
    const headers = { 'content-type': opts.gzip ? 'text/plain' : 'application/json' }

    // 1a. As issue 24 measured it: on the fresh server, 16 senders in this process, each posting one session's
    // requests in turn and waiting for each answer (fetch).
    const first = bodiesOf(generated, projectKey, (i) => `bench-session-${i}`)
    const firstSent = first.map((bodies) => bodies.map(encode))
    let nextSession = 0
    const sender = async () => {
      for (let i = nextSession++; i < firstSent.length; i = nextSession++) {
        for (const body of firstSent[i]) {
          const res = await fetch(`${wren.url}/s/`, { method: 'POST', headers, body })
          if (res.status !== 200) throw new Error(`/s/ answered ${res.status}: ${await res.text()}`)
          await res.arrayBuffer()
        }
      }
    }
    const sequential = await measured(wren.url, events, async () => {
      await Promise.all(Array.from({ length: CONCURRENT_SESSIONS }, sender))
      return {}
    })

    // 1b. Loaded, on the server the first run warmed: the workload again as new sessions until there are
    // `loadMb` MB of it, in the order many browsers send it (each session's requests ~2 s apart, so every
    // session's first request, then every second one, …), by autocannon over `connections` keep-alive
    // connections with the bodies built beforehand.
    const firstBytes = first.flat().reduce((n, b) => n + Buffer.byteLength(b), 0)
    const copies = Math.max(1, Math.ceil((opts.loadMb * 1e6) / firstBytes))
    const copiesBodies = Array.from({ length: copies }, (_, k) => bodiesOf(generated, projectKey, (i) => `load-${k}-session-${i}`))
    const loadBodies: Buffer[] = []
    let loadBytes = 0
    const longest = Math.max(...generated.map((s) => s.chunks.length))
    for (let c = 0; c < longest; c++)
      for (const bodies of copiesBodies)
        for (const session of bodies)
          if (c < session.length) {
            loadBytes += Buffer.byteLength(session[c])
            loadBodies.push(encode(session[c]))
          }
    copiesBodies.length = 0
    const loaded = await measured(wren.url, copies * events, async () => {
      const load = await runLoad({
        url: wren.url,
        path: '/s/',
        bodies: loadBodies,
        headers,
        connections: opts.connections,
        seconds: 0,
        amount: loadBodies.length,
        serverPid: wren.child.pid,
      })
      if (load.ok !== loadBodies.length) throw new Error(`/s/ acknowledged ${load.ok} of ${loadBodies.length} requests${failures(load)}`)
      return { loadGeneratorCores: load.loadGeneratorCores }
    })
    await wren.stop()

    // ---- reference, storage and the list's setup, on the same data with Wren stopped ----
    const client = await openEmbeddedClickHouse(dataDir)
    const count = async (table: string) => Number((await queryRows<{ c: number }>(client, `SELECT count() AS c FROM ${table}`))[0].c)
    // The rows each log batch wrote: its blocks, its metadata, and its sessions' rows (made from the metadata
    // rows as the processor makes them: the sessions table merges a session's rows of different batches).
    const tables = {
      session_recording_blocks: 'SELECT * FROM session_recording_blocks',
      session_recording_metadata: 'SELECT * FROM session_recording_metadata',
      session_recording_sessions: `SELECT team_id, session_id, start_time, end_time, click_count, keypress_count, mouse_activity_count,
              console_log_count, console_warn_count, console_error_count, event_count, size, active_milliseconds, urls,
              [distinct_id] AS distinct_ids, (start_time, _partition, _offset, distinct_id, toString(snapshot_source)) AS first,
              received_at, retention_days, _offset
       FROM session_recording_metadata`,
    }
    type Table = keyof typeof tables
    const reference = async (prefix: string): Promise<Pick<Sending, 'batches' | 'blockRows' | 'refSeconds' | 'refBlocksOnlySeconds'>> => {
      const byBatch = new Map<number, Partial<Record<Table, object[]>>>()
      for (const [table, select] of Object.entries(tables) as Array<[Table, string]>) {
        await client.command({ query: `CREATE TABLE IF NOT EXISTS bench_ref_${table} AS ${table}` })
        const rows = await queryRows<Record<string, unknown> & { _offset: number }>(
          client,
          `${select} WHERE startsWith(session_id, {prefix:String}) ORDER BY _offset`,
          { prefix },
        )
        for (const row of rows) {
          const offset = Number(row._offset)
          if (table === 'session_recording_sessions') delete (row as Partial<typeof row>)._offset
          const batch = byBatch.get(offset) ?? {}
          ;(batch[table] ??= []).push(row)
          byBatch.set(offset, batch)
        }
      }
      let refBlocksOnlySeconds = 0
      let blockRows = 0
      const refStart = performance.now()
      for (const [offset, batch] of [...byBatch].sort((a, b) => a[0] - b[0])) {
        const t = performance.now()
        await insertRows(client, 'bench_ref_session_recording_blocks', batch.session_recording_blocks ?? [], `ref:blocks:${offset}`)
        refBlocksOnlySeconds += (performance.now() - t) / 1000
        blockRows += batch.session_recording_blocks?.length ?? 0
        for (const table of ['session_recording_metadata', 'session_recording_sessions'] as const)
          await insertRows(client, `bench_ref_${table}`, batch[table] ?? [], `ref:${table}:${offset}`)
      }
      const refSeconds = (performance.now() - refStart) / 1000
      for (const table of Object.keys(tables)) await client.command({ query: `DROP TABLE bench_ref_${table} SYNC` })
      return { batches: byBatch.size, blockRows, refSeconds, refBlocksOnlySeconds }
    }
    const sendings = {
      sequential: {
        ...sequential,
        ...(await reference('bench-session-')),
        requests: first.flat().length,
        jsonBytes: firstBytes,
        sessions: opts.sessions,
      },
      loaded: {
        ...loaded,
        ...(await reference('load-')),
        requests: loadBodies.length,
        jsonBytes: loadBytes,
        sessions: copies * opts.sessions,
      },
    }
    const metadataRows = await count('session_recording_metadata')

    const storageTables = ['session_recording_blocks', 'session_recording_metadata'] as const
    for (const table of storageTables) await client.command({ query: `OPTIMIZE TABLE ${table} FINAL` })
    const [parts] = await queryRows<{ disk: number; compressed: number; uncompressed: number }>(
      client,
      `SELECT sum(bytes_on_disk) AS disk, sum(data_compressed_bytes) AS compressed, sum(data_uncompressed_bytes) AS uncompressed
       FROM system.parts WHERE active AND database = currentDatabase() AND table IN {tables:Array(String)}`,
      { tables: [...storageTables] },
    )
    const [column] = await queryRows<{ bytes: number }>(
      client,
      `SELECT sum(data_compressed_bytes) AS bytes FROM system.columns
       WHERE database = currentDatabase() AND table = 'session_recording_blocks' AND name = 'events'`,
    )

    // The list's setup: more recordings' metadata rows, one per session, spread over the last 17 days,
    // each with the state of a real recording, and their sessions' pre-aggregated rows (schemas/clickhouse/048)
    // as the metadata hook writes them beside each metadata row.
    await client.command({
      query: `INSERT INTO session_recording_metadata (${METADATA_COLUMNS.join(', ')})
              SELECT one.team_id, concat('listed-', toString(n.number)), concat('user-', toString(n.number % 5000)),
                     now64(3) - toIntervalSecond(3600 + n.number * 15) AS start, start + toIntervalSecond(60 + n.number % 600),
                     ${METADATA_COLUMNS.slice(5, -2)
                       .map((c) => `one.${c}`)
                       .join(', ')}, 0, 1000000 + n.number
              FROM numbers({n:UInt32}) AS n CROSS JOIN (SELECT * FROM session_recording_metadata LIMIT 1) AS one`,
      query_params: { n: opts.recordings },
    })
    await client.command({
      query: `INSERT INTO session_recording_sessions
              SELECT team_id, session_id, start_time, end_time, click_count, keypress_count, mouse_activity_count, console_log_count,
                     console_warn_count, console_error_count, event_count, size, active_milliseconds, urls, [distinct_id],
                     (start_time, _partition, _offset, distinct_id, toString(snapshot_source)), received_at, retention_days
              FROM session_recording_metadata WHERE startsWith(session_id, 'listed-')`,
    })
    const listed = (await count('session_recording_metadata')) - metadataRows
    const timeList = async (sql: string) => {
      const latencies: number[] = []
      for (let i = 0; i < LIST_REQUESTS + 5; i++) {
        const t = performance.now()
        const rows = await queryRows(client, sql, { team: projectId })
        if (i >= 5) latencies.push(performance.now() - t)
        if (rows.length !== 51) throw new Error(`the hand-written list returned ${rows.length} rows`)
      }
      return latencies
    }
    const listSql = `SELECT session_id, any(distinct_id) AS distinct_id, min(start_time) AS start_time, max(end_time) AS end_time,
                            sum(click_count) AS click_count, sum(keypress_count) AS keypress_count,
                            sum(mouse_activity_count) AS mouse_activity_count, sum(console_error_count) AS console_error_count,
                            sum(event_count) AS event_count, sum(size) AS size
                     FROM session_recording_metadata WHERE team_id = {team:Int64}
                     GROUP BY session_id ORDER BY start_time DESC, session_id LIMIT 51`
    // The same list read from the pre-aggregated sessions (one row per session once merged).
    const sessionsSql = `SELECT session_id, tupleElement(first, 4) AS distinct_id, start_time, end_time, click_count, keypress_count,
                                mouse_activity_count, console_error_count, event_count, size
                         FROM session_recording_sessions FINAL WHERE team_id = {team:Int64}
                         ORDER BY start_time DESC, session_id LIMIT 51`
    const sqlLatencies = await timeList(listSql)
    const sessionsSqlLatencies = await timeList(sessionsSql)
    await client.close()

    // ---- 3. the list through Wren ----
    wren = await startWrenServer(projectKey, env, dataDir)
    const apiLatencies: number[] = []
    try {
      for (let i = 0; i < LIST_REQUESTS + 5; i++) {
        const t = performance.now()
        const res = await fetch(`${wren.url}/api/projects/${projectId}/session_recordings/?limit=50`, { headers: auth })
        const body = (await res.json()) as { results?: unknown[] }
        if (i >= 5) apiLatencies.push(performance.now() - t)
        if (res.status !== 200 || body.results?.length !== 50)
          throw new Error(`the list answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`)
      }
    } finally {
      await wren.stop()
    }

    const perCopyMinutes = generated.reduce((n, s) => n + s.duration, 0) / 60_000
    return {
      sessions: opts.sessions,
      events,
      sequential: sendings.sequential,
      loaded: sendings.loaded,
      recordedMinutes: (1 + copies) * perCopyMinutes,
      metadataRows,
      diskBytes: Number(parts.disk),
      compressedBytes: Number(parts.compressed),
      uncompressedBytes: Number(parts.uncompressed),
      eventsColumnBytes: Number(column.bytes),
      listed,
      apiLatencies: apiLatencies.sort((a, b) => a - b),
      sqlLatencies: sqlLatencies.sort((a, b) => a - b),
      sessionsSqlLatencies: sessionsSqlLatencies.sort((a, b) => a - b),
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true })
  }
}

// ---- the parent: runs and report ----------------------------------------------------------------------

export async function runRecordings(opts: RecordingsOptions): Promise<void> {
  const results: TrialResult[] = []
  for (let t = 0; t < opts.trials; t++)
    results.push(await runTrialProcess<TrialResult>(fileURLToPath(import.meta.url), [JSON.stringify(opts)]))
  const r0 = results[0]
  const mb = (bytes: number) => bytes / 1e6
  const mbs = (n: number) => `${n.toFixed(1)} MB/s`
  const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`
  const seconds = (n: number) => `${n.toFixed(2)} s`
  const perRequest = (n: number) => `${fmt(n * 1e6)} µs`

  /** The throughput figures of one way of sending, next to their reference. */
  const report = (of: (r: TrialResult) => Sending) => {
    const runs = results.map(of)
    const rate = runs.map((r) => mb(r.jsonBytes) / r.storedSeconds)
    const ref = runs.map((r) => mb(r.jsonBytes) / r.refSeconds)
    const working = runs.map((r) => mb(r.jsonBytes) / r.processorSeconds)
    const generator = runs.map((r) => r.loadGeneratorCores ?? NaN)
    console.log(`   Wren, /s/ to stored    ${spread(rate, mbs)} of rrweb JSON`)
    console.log(
      `                          ${spread(
        runs.map((r) => r.sessions / r.storedSeconds),
        (n) => n.toFixed(1),
      )} sessions/s`,
    )
    console.log(
      `                          (capture acknowledged everything in ${spread(
        runs.map((r) => r.ackSeconds),
        seconds,
      )}: ${spread(
        runs.map((r) => r.requests / r.ackSeconds),
        fmt,
      )} requests/s${generator.every(Number.isFinite) ? `; the load generator kept ${median(generator).toFixed(2)} cores busy` : ''})`,
    )
    console.log(
      `   Wren's CPU per request ${spread(
        runs.map((r) => r.ackCpuSeconds / r.requests),
        perRequest,
      )} while capture took them (the processor's share included), ${spread(
        runs.map((r) => r.storedCpuSeconds / r.requests),
        perRequest,
      )} to stored (process CPU, every thread)`,
    )
    console.log(
      `   the processor alone    ${spread(working, mbs)} while it works (its batches' handling time summed: ${spread(
        runs.map((r) => r.processorSeconds),
        seconds,
      )})`,
    )
    console.log(
      `   reference              ${spread(ref, mbs)}: the same rows (${fmt(runs[0].blockRows)} blocks, and the batches' metadata and sessions rows) re-inserted with insertRows, per log batch (${runs[0].batches} batches)`,
    )
    console.log(
      `   reference, blocks only ${spread(
        runs.map((r) => mb(r.jsonBytes) / r.refBlocksOnlySeconds),
        mbs,
      )}`,
    )
    console.log(
      `   Wren/reference         ${spread(
        rate.map((r, i) => r / ref[i]),
        x,
      )} (the processor alone: ${spread(
        working.map((w, i) => w / ref[i]),
        x,
      )})`,
    )
  }

  console.log(`\n== recordings: snapshots through /s/ and the recordings processor into ClickHouse`)
  console.log(
    `   ${fmt(r0.sessions)} sessions × ${opts.minutes} min: a full snapshot of a 300-500-node DOM, then mouse moves, clicks, inputs, scrolls and mutations with idle gaps;` +
      ` ${fmt(r0.events)} rrweb events in ${fmt(r0.sequential.requests)} /s/ requests (one per ~2 s of events, ${opts.gzip ? "gzip'd" : 'uncompressed'} JSON), ${mb(r0.sequential.jsonBytes).toFixed(1)} MB of JSON; ${opts.trials} runs, a fresh process and data directory each`,
  )
  console.log(
    `\n   loaded: the sessions sent again as ${fmt(r0.loaded.sessions)} new ones, ${fmt(r0.loaded.requests)} requests, ${mb(r0.loaded.jsonBytes).toFixed(1)} MB, in the order many browsers send them, by autocannon over ${opts.connections} keep-alive connections, on the server the first sending warmed`,
  )
  report((r) => r.loaded)
  console.log(
    `\n   as issue 24 measured it: the sessions on the fresh server, ${CONCURRENT_SESSIONS} senders in the bench process (fetch), each waiting for every answer`,
  )
  report((r) => r.sequential)
  console.log('')

  const perMinute = results.map((r) => r.diskBytes / r.recordedMinutes)
  const sent = (r: TrialResult) => r.sequential.jsonBytes + r.loaded.jsonBytes
  // system.columns knows per-column sizes of wide parts only; a small table's compact parts report 0.
  const eventsColumnBytes = median(results.map((r) => r.eventsColumnBytes / r.recordedMinutes))
  const eventsColumn = eventsColumnBytes > 0 ? kib(eventsColumnBytes) : 'not known (compact parts)'
  console.log(`   storage per recorded minute (blocks + metadata, system.parts after OPTIMIZE FINAL)`)
  console.log(`   on disk                ${spread(perMinute, kib)} per recorded minute`)
  console.log(
    `                          compressed ${kib(median(results.map((r) => r.compressedBytes / r.recordedMinutes)))}, uncompressed ${kib(median(results.map((r) => r.uncompressedBytes / r.recordedMinutes)))}; the events column ${eventsColumn};` +
      ` rrweb JSON as sent ${kib(median(results.map((r) => sent(r) / r.recordedMinutes)))} (${x(median(results.map((r) => sent(r) / r.diskBytes)))} smaller on disk)`,
  )

  const api50 = results.map((r) => median(r.apiLatencies))
  const sql50 = results.map((r) => median(r.sqlLatencies))
  console.log(
    `\n   list with ${fmt(r0.listed)} more recordings stored: GET …/session_recordings/?limit=50, ${LIST_REQUESTS} requests one after another`,
  )
  console.log(
    `   Wren                   median ${spread(api50, ms)}; p99 ${ms(median(results.map((r) => percentile(r.apiLatencies, 99))))}`,
  )
  console.log(
    `   reference              median ${spread(sql50, ms)}; p99 ${ms(median(results.map((r) => percentile(r.sqlLatencies, 99))))}: hand-written SQL (newest 50 sessions, summed counts) on chDB, no HTTP`,
  )
  const sessions50 = results.map((r) => median(r.sessionsSqlLatencies))
  console.log(
    `   reference, sessions    median ${spread(sessions50, ms)}; p99 ${ms(median(results.map((r) => percentile(r.sessionsSqlLatencies, 99))))}: the same list from the pre-aggregated sessions (session_recording_sessions FINAL), no HTTP`,
  )
  console.log(
    `   Wren/reference         ${spread(
      results.map((_, i) => api50[i] / sql50[i]),
      x,
    )} of the median latency (${spread(
      results.map((_, i) => api50[i] / sessions50[i]),
      x,
    )} of the pre-aggregated one)`,
  )
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'trial') {
  const result = await trial(JSON.parse(process.argv[3]) as RecordingsOptions)
  reportTrialResult(result)
  process.exit(0)
}
