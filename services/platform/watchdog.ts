// A fatal error must end the process, so that a supervisor restarts it. V8 ends a process that runs out of
// heap with abort(), but chDB installs ClickHouse's fatal-signal handler, which catches that SIGABRT and
// sleeps: the process then neither serves nor exits, ignores SIGTERM (Node handles it on the dead event loop)
// and keeps the data directory. A worker thread, with its own isolate and event loop, watches a counter the
// main thread bumps; when it stops moving for `stallMs` (out of memory, or the event loop blocked), the
// worker logs one line to stderr and SIGKILLs the process.
import { Worker } from 'node:worker_threads'

export interface Watchdog {
  stop(): void
}

// Plain JavaScript, run with eval: the worker must not depend on the TypeScript loader of the main thread.
const WORKER = `
const { workerData } = require('node:worker_threads')
const { writeSync } = require('node:fs')
const { beat, stallMs, checkMs } = workerData
let last = Atomics.load(beat, 0)
let movedAt = Date.now()
setInterval(() => {
  const now = Date.now()
  const current = Atomics.load(beat, 0)
  if (current !== last) {
    last = current
    movedAt = now
    return
  }
  if (now - movedAt < stallMs) return
  const line = { level: 60, time: now, pid: process.pid, msg: 'main thread stalled for ' + (now - movedAt) + ' ms (out of memory, or the event loop blocked): killing the process so that a supervisor restarts it' }
  try { writeSync(2, JSON.stringify(line) + '\\n') } catch {}
  process.kill(process.pid, 'SIGKILL')
}, checkMs)
`

export function startWatchdog(stallMs: number): Watchdog {
  const beat = new Int32Array(new SharedArrayBuffer(4))
  const checkMs = Math.max(10, Math.min(1_000, Math.floor(stallMs / 4)))
  const worker = new Worker(WORKER, { eval: true, workerData: { beat, stallMs, checkMs } })
  worker.unref()
  const timer = setInterval(() => Atomics.add(beat, 0, 1), checkMs).unref()
  return {
    stop() {
      clearInterval(timer)
      void worker.terminate()
    },
  }
}
