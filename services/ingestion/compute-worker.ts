// The ingestion worker thread's entry: the person work (person-work.ts) on the ClickHouse store's rows
// (persons/rows.ts), driven by WorkerPersonWork (worker-person-work.ts) on the main thread. It reads
// storage only by asking the main thread (which holds the one ClickHouse client: chDB allows one engine
// per process), and never imports the client.
import { parentPort, workerData } from 'node:worker_threads'
import { errorText } from '../platform/errors'
import { decodeIngest } from '../platform/log/contract'
import type { LoadedState } from './persons/store'
import { buffersOf, encodeEventRow, preparedBytes, preparePersonRows } from './persons/rows'
import { PersonWork, type Loader, type PartOutput } from './person-work'
import type { PreparedRows } from './persons/rows'
import { openGeoIpReader } from '../platform/geoip'
import type { FromWorker, ToWorker, WorkerSetup } from './worker-person-work'

const setup = workerData as WorkerSetup
const port = parentPort!
const work = new PersonWork({
  prepare: preparePersonRows,
  encodeEvent: encodeEventRow,
  geoip: setup.geoip ? await openGeoIpReader(setup.geoip.database) : null,
  maxCachedPersons: setup.maxCachedPersons,
  poisonEvent: setup.poisonEvent,
  partRecords: setup.partRecords,
  partBytes: setup.partBytes,
  measure: preparedBytes,
})

const send = (message: FromWorker) => port.postMessage(message)
let loads = 0
const waiting = new Map<number, { resolve: (state: LoadedState) => void; reject: (err: Error) => void }>()
let parts = 0
const writing = new Map<number, { resolve: () => void; reject: (err: Error) => void }>()
/** Hands a part to the main thread, which answers once it is stored. */
const handOver =
  (id: number) =>
  (part: PartOutput<PreparedRows>): Promise<void> =>
    new Promise((resolve, reject) => {
      const seq = ++parts
      writing.set(seq, { resolve, reject })
      port.postMessage({ type: 'part', id, seq, part } satisfies FromWorker, buffersOf(part.prepared))
    })
/** The stored state a range reads, asked of the main thread for the range being computed. */
const loaderFor =
  (compute: number): Loader =>
  (wanted, bound) =>
    new Promise((resolve, reject) => {
      const id = ++loads
      waiting.set(id, { resolve, reject })
      send({ type: 'load', id, compute, wanted, bound })
    })

port.on('message', (message: ToWorker) => {
  if (message.type === 'loaded' || message.type === 'loadFailed') {
    const wait = waiting.get(message.id)
    waiting.delete(message.id)
    if (message.type === 'loaded') wait?.resolve(message.state)
    else wait?.reject(new Error(message.error))
    return
  }
  if (message.type === 'partWritten') {
    const wait = writing.get(message.part)
    writing.delete(message.part)
    if (message.error === null) wait?.resolve()
    else wait?.reject(new Error(message.error))
    return
  }
  // The work keeps the order of ranges and clears itself (PersonWork).
  if (message.type === 'stored') return work.stored()
  if (message.type === 'clear') return work.clear()
  const { id, input, data, ends } = message
  let start = 0
  const values = ends.map((end) => {
    const value = new Uint8Array(data, start, end - start)
    start = end
    return value
  })
  if (setup.exitOnEvent && values.some((value) => holdsEvent(value, setup.exitOnEvent!))) process.exit(70)
  work.compute({ ...input, values }, loaderFor(id), handOver(id)).then(
    (output) => send({ type: 'computed', id, output }),
    (err: unknown) => send({ type: 'failed', id, error: errorText(err) }),
  )
})
send({ type: 'ready' })

/** Whether a message is an event of this name (the exit failpoint). */
function holdsEvent(value: Uint8Array, name: string): boolean {
  try {
    const item = decodeIngest(Buffer.from(value.buffer, value.byteOffset, value.byteLength))
    return item.kind === 'event' && item.event.event === name
  } catch {
    return false
  }
}
