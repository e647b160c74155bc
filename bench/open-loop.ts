// An open-loop load generator at a constant rate, for latency at an offered rate (wrk2's model).
//
// autocannon's overallRate is not a constant rate: each connection sends as fast as it can until it has made
// its quota for the second, then waits for the next one-second tick, so at "2,000 req/s" the whole second's
// requests go out back to back at the start of each second and the percentiles are a saturated burst's
// queueing. Here request i is due at start + i / rate, whatever happened to the ones before it; a due
// request goes out on an idle keep-alive connection of the pool (or waits for one), and its latency runs
// from the time it was due to the end of its answer, so a stall counts for every request it delays
// (no coordinated omission). The requests are pre-built bytes written to raw sockets, and an answer is read
// by its Content-Length: a few microseconds of this process's CPU per request.
import { connect, type Socket } from 'node:net'
import { cpuSeconds, type LoadResult } from './support'

export interface RateLoad {
  url: string
  path: string
  method?: 'POST'
  bodies: Buffer[]
  headers: Record<string, string>
  /** Requests per second, evenly spaced. */
  rate: number
  seconds: number
  /** Keep-alive connections in the pool: how many requests can be outstanding at once (default 64). */
  connections?: number
  /** The server's process, for the CPU it used during the run. */
  serverPid?: number
}

export interface RateResult extends LoadResult {
  /** How late this process's timer woke after the time it was set for (ms, p99): the generator's own jitter, counted in the latencies. */
  timerLagP99: number
  /** The most requests outstanding at once: at the pool's size, due requests waited for a connection. */
  peakInFlight: number
}

/** Enough connections that a stall of a few ms at the benches' rates does not exhaust the pool (SDK clients are many). */
export const OPEN_LOOP_CONNECTIONS = 64

const CRLF2 = Buffer.from('\r\n\r\n')

/** The request bytes of each body: the same head, Content-Length and keep-alive. */
function requestBytes(load: RateLoad, host: string): Buffer[] {
  const head = [`${load.method ?? 'POST'} ${load.path} HTTP/1.1`, `host: ${host}`, 'connection: keep-alive']
  for (const [k, v] of Object.entries(load.headers)) head.push(`${k}: ${v}`)
  return load.bodies.map((body) => Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\ncontent-length: ${body.length}\r\n\r\n`), body]))
}

/** One keep-alive connection with at most one request outstanding; reads answers by Content-Length. */
class Connection {
  /** A head not yet complete (rare: the head comes in the answer's first chunk). */
  private partialHead: Buffer | null = null
  /** Body bytes of the current answer still to come; -1 while its head is. */
  private remaining = -1
  private status = 0
  private due = 0
  busy = false

  constructor(
    readonly socket: Socket,
    private readonly onAnswer: (conn: Connection, status: number, due: number) => void,
    private readonly onError: (conn: Connection) => void,
  ) {
    socket.setNoDelay(true)
    socket.on('data', (chunk: Buffer) => this.read(chunk))
    socket.on('error', () => this.onError(this))
    socket.on('close', () => this.busy && this.onError(this))
  }

  send(bytes: Buffer, due: number): void {
    this.busy = true
    this.due = due
    this.socket.write(bytes)
  }

  private read(chunk: Buffer): void {
    if (this.remaining < 0) {
      const data = this.partialHead ? Buffer.concat([this.partialHead, chunk]) : chunk
      const end = data.indexOf(CRLF2)
      if (end < 0) return void (this.partialHead = data)
      this.partialHead = null
      const head = data.toString('latin1', 0, end)
      const m = /\r\ncontent-length: *(\d+)/i.exec(head)
      if (!m) throw new Error(`open-loop load: an answer without Content-Length:\n${head}`)
      this.status = Number(head.slice(9, 12))
      this.remaining = Number(m[1]) - (data.length - end - 4)
    } else this.remaining -= chunk.length
    if (this.remaining > 0) return
    if (this.remaining < 0) throw new Error('open-loop load: more bytes than one answer (the server answered ahead of a request)')
    this.remaining = -1
    this.busy = false
    this.onAnswer(this, this.status, this.due)
  }
}

async function open(port: number, host: string, n: number): Promise<Socket[]> {
  return Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<Socket>((resolve, reject) => {
          const s = connect(port, host, () => resolve(s))
          s.once('error', reject)
        }),
    ),
  )
}

/** Sends `rate` requests per second for `seconds`, evenly spaced, and waits for every answer (10 s at most past the end). */
export async function runAtRate(load: RateLoad): Promise<RateResult> {
  const url = new URL(load.url)
  const requests = requestBytes(load, url.host)
  const total = Math.round(load.rate * load.seconds)
  const interval = 1000 / load.rate
  const latencies: number[] = []
  const lags: number[] = []
  const statusCodes: Record<string, number> = {}
  let ok = 0
  let errors = 0
  let answered = 0
  let next = 0 // the next request to send
  let finish!: () => void
  const finished = new Promise<void>((resolve) => (finish = resolve))

  const idle: Connection[] = []
  const onAnswer = (conn: Connection, status: number, due: number) => {
    const t = performance.now()
    answered++
    statusCodes[status] = (statusCodes[status] ?? 0) + 1
    if (status >= 200 && status < 300) {
      ok++
      latencies.push(t - due)
    }
    idle.push(conn)
    dispatch(t)
    if (answered + errors === total) finish()
  }
  const onError = (conn: Connection) => {
    errors++
    const i = idle.indexOf(conn)
    if (i >= 0) idle.splice(i, 1)
    conn.busy = false
    conn.socket.destroy()
    if (answered + errors === total) finish()
  }
  const connections = load.connections ?? OPEN_LOOP_CONNECTIONS
  const sockets = await open(Number(url.port), url.hostname, connections)
  let peakInFlight = 0
  for (const s of sockets) idle.push(new Connection(s, onAnswer, onError))

  const serverCpu0 = load.serverPid ? cpuSeconds(load.serverPid) : NaN
  const selfCpu0 = cpuSeconds()
  const start = performance.now()
  // Every request due by `now` that has an idle connection goes out; the rest wait for an answer or the timer.
  function dispatch(now: number): void {
    while (next < total && idle.length > 0) {
      const due = start + next * interval
      if (due > now) break
      const conn = idle.shift()! // the longest idle first: no connection sits idle long enough for the server to close it
      peakInFlight = Math.max(peakInFlight, connections - idle.length)
      conn.send(requests[next % requests.length], due)
      next++
    }
  }
  // Node's timers have a 1 ms grain: at 5,000 req/s a tick sends the ~5 requests that fell due since the last.
  let wake = start
  const tick = () => {
    const now = performance.now()
    lags.push(now - wake)
    dispatch(now)
    if (next >= total) return
    wake = Math.max(now + 1, start + next * interval)
    setTimeout(tick, wake - now)
  }
  tick()
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), load.seconds * 1000 + 10_000).unref())
  const outcome = await Promise.race([finished.then(() => 'done' as const), timeout])
  const wall = (performance.now() - start) / 1000
  const serverCores = load.serverPid ? (cpuSeconds(load.serverPid) - serverCpu0) / wall : NaN
  const loadGeneratorCores = (cpuSeconds() - selfCpu0) / wall
  for (const s of sockets) s.destroy()
  latencies.sort((a, b) => a - b)
  lags.sort((a, b) => a - b)
  const timeouts = outcome === 'timeout' ? total - answered - errors : 0
  return {
    requestsPerSecond: ok / load.seconds,
    ok,
    non2xx: answered - ok,
    errors,
    timeouts,
    seconds: load.seconds,
    latencies,
    statusCodes,
    serverCores,
    loadGeneratorCores,
    peakInFlight,
    timerLagP99: lags.length ? lags[Math.min(lags.length - 1, Math.ceil(0.99 * lags.length) - 1)] : NaN,
  }
}
