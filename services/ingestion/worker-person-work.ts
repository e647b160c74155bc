// The person work (person-work.ts) on a worker thread, so that a batch's decoding, person rules and row
// encoding never hold the thread that serves capture's and the API's requests. The main thread keeps
// all I/O: the worker asks it for the stored state a range reads (PersonStore.load) and hands back the
// range's rows ready to insert (persons/rows.ts), which the processor writes.
//
// A range's messages cross as one transferred buffer (no copy); the output crosses as plain data. If the
// worker dies, the range in flight fails (the log hands it out again) and the next one starts a new
// worker, whose memory is empty: it loads what it needs from storage, as after a restart.
import { Worker } from 'node:worker_threads'
import type { Logger } from 'pino'
import { errorText } from '../platform/errors'
import { COMPILED } from '../platform/paths'
import type { LoadedState, Lookups, PingResult, ReplayBound } from './persons/store'
import type { PreparedRows } from './persons/rows'
import type { Loader, PartOutput, RangeInput, RangeOutput, RangeWork } from './person-work'

export interface WorkerSetup {
  /** GeoIP for events: the database to open (null: the bundled one), or none. */
  geoip: { database: string | null } | null
  maxCachedPersons?: number
  poisonEvent?: string | null
  /** Failpoint for tests: the worker exits on a range holding an event of this name (a message that kills it). */
  exitOnEvent?: string | null
  partRecords?: number
  /** Bytes of event rows per part (PersonWorkOptions.partBytes). */
  partBytes?: number
}

type Input = Omit<RangeInput, 'values'>

export type ToWorker =
  | { type: 'compute'; id: number; input: Input; data: ArrayBuffer; ends: number[] }
  | { type: 'loaded'; id: number; state: LoadedState }
  | { type: 'loadFailed'; id: number; error: string }
  /** A part handed over is stored (error null), or could not be: the worker goes on only then. */
  | { type: 'partWritten'; part: number; error: string | null }
  | { type: 'stored' }
  | { type: 'clear' }

export type FromWorker =
  | { type: 'ready' }
  | { type: 'load'; id: number; compute: number; wanted: Lookups; bound: ReplayBound | null }
  | { type: 'part'; id: number; seq: number; part: PartOutput<PreparedRows> }
  | { type: 'computed'; id: number; output: RangeOutput }
  | { type: 'failed'; id: number; error: string }

interface Pending {
  resolve: (output: RangeOutput) => void
  reject: (err: Error) => void
  load: Loader
  part: (part: PartOutput<PreparedRows>) => Promise<void>
}

export class WorkerPersonWork implements RangeWork<PreparedRows> {
  private worker: Worker | null = null
  /** Settles when the running worker has started (its GeoIP database open), or failed to. */
  private started: Promise<PingResult> = Promise.resolve({ success: true })
  private computes = 0
  private readonly pending = new Map<number, Pending>()

  constructor(
    private readonly setup: WorkerSetup,
    private readonly logger: Logger,
  ) {}

  compute(input: RangeInput, load: Loader, part: (part: PartOutput<PreparedRows>) => Promise<void>): Promise<RangeOutput> {
    const worker = this.running()
    const id = ++this.computes
    // The messages, packed into one buffer that is handed over rather than copied.
    const data = new Uint8Array(input.values.reduce((n, v) => n + v.byteLength, 0))
    const ends: number[] = []
    let end = 0
    for (const value of input.values) {
      data.set(value, end)
      end += value.byteLength
      ends.push(end)
    }
    const { values: _values, ...rest } = input
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, load, part })
      worker.postMessage({ type: 'compute', id, input: rest, data: data.buffer, ends } satisfies ToWorker, [data.buffer])
    })
  }

  stored(): void {
    this.worker?.postMessage({ type: 'stored' } satisfies ToWorker)
  }

  clear(): void {
    this.worker?.postMessage({ type: 'clear' } satisfies ToWorker)
  }

  ping(): Promise<PingResult> {
    this.running()
    return this.started
  }

  async close(): Promise<void> {
    const worker = this.worker
    this.worker = null
    await worker?.terminate()
    this.fail(new Error('the ingestion worker was stopped'))
  }

  private running(): Worker {
    if (this.worker) return this.worker
    const worker = new Worker(WORKER_ENTRY, { eval: true, workerData: this.setup })
    // The worker never keeps the process alive on its own: Wren's shutdown stops it (close).
    worker.unref()
    let started: (result: PingResult) => void = () => {}
    this.started = new Promise((resolve) => (started = resolve))
    worker.on('message', (message: FromWorker) => {
      if (message.type === 'ready') started({ success: true })
      else this.receive(worker, message)
    })
    worker.on('error', (err) => {
      this.logger.error({ err }, 'the ingestion worker failed; the next batch starts a new one')
      started({ success: false, error: err })
      this.lost(worker, err)
    })
    worker.on('exit', (code) => {
      const err = new Error(`the ingestion worker exited (code ${code})`)
      started({ success: false, error: err })
      this.lost(worker, err)
    })
    this.worker = worker
    return worker
  }

  private receive(worker: Worker, message: Exclude<FromWorker, { type: 'ready' }>): void {
    if (message.type === 'load') {
      const load = this.pending.get(message.compute)?.load
      const loaded = load ? load(message.wanted, message.bound) : Promise.reject(new Error('no range is being computed'))
      loaded.then(
        (state) => worker.postMessage({ type: 'loaded', id: message.id, state } satisfies ToWorker),
        (err: unknown) => worker.postMessage({ type: 'loadFailed', id: message.id, error: errorText(err) } satisfies ToWorker),
      )
      return
    }
    const pending = this.pending.get(message.id)
    if (!pending) return
    if (message.type === 'part') {
      const answer = (error: string | null) => worker.postMessage({ type: 'partWritten', part: message.seq, error } satisfies ToWorker)
      pending.part(message.part).then(
        () => answer(null),
        (err: unknown) => answer(errorText(err)),
      )
      return
    }
    this.pending.delete(message.id)
    if (message.type === 'computed') pending.resolve(message.output)
    else pending.reject(new Error(message.error))
  }

  /** The worker is gone: what it was computing fails, and the next range starts a new one. */
  private lost(worker: Worker, err: Error): void {
    if (this.worker !== worker) return
    this.worker = null
    this.fail(err)
  }

  private fail(err: Error): void {
    for (const pending of this.pending.values()) pending.reject(err)
    this.pending.clear()
  }
}

/**
 * From source, the worker runs Wren's TypeScript as the main thread does, through tsx, registered in the
 * worker itself (a worker does not inherit the main thread's module hooks, and Node 20 does not apply
 * `--import` to it). Compiled (scripts/build.ts), the worker is its own bundle beside the main one.
 */
const WORKER_ENTRY = COMPILED
  ? `import(${JSON.stringify(new URL('./compute-worker.js', import.meta.url).href)})`
  : `
  import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})
    .then(({ register }) => (register(), import(${JSON.stringify(new URL('./compute-worker.ts', import.meta.url).href)})))
`
