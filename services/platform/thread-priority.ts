// The HTTP thread first. On a machine with fewer cores than busy threads (2 cores: the event loop that answers
// requests, the ingestion worker, the embedded engine's insert and merge threads) the scheduler shares the
// cores evenly, and a request waits behind ingestion's work. Linux keeps a nice value per thread, so the
// background threads get a lower priority (a higher nice) and keep every core the requests leave idle.
//
// Which threads: every thread made after Wren starts (the engine's pools, the ingestion worker, what they
// start). The threads that exist at the start serve the main thread and keep its priority: V8's platform
// workers (the parallel parts of the main thread's garbage collection) and libuv's pool (the log's writes and
// fsyncs, which capture's answers wait for). A thread inherits the nice of the thread that creates it, and the
// engine's pools create threads later, some from libuv's threads, so the process's threads are looked at
// again every second.
import { readdirSync } from 'node:fs'
import { stat } from 'node:fs/promises'
import { getPriority, setPriority } from 'node:os'

export interface ThreadPriority {
  stop(): void
}

/** Call before anything starts threads of its own (Linux; elsewhere nothing is done). */
export async function lowerBackgroundThreads(nice: number, everyMs = 1_000): Promise<ThreadPriority> {
  // libuv starts its pool on the first call that needs it: an fs call now, so that the pool is among the start's threads.
  await stat(process.cwd())
  const own = new Set(threadIds())
  const base = getPriority(process.pid)
  let seen = new Set<number>()
  const lower = () => {
    const now = new Set(threadIds())
    for (const tid of now) {
      if (own.has(tid) || seen.has(tid)) continue
      try {
        // A thread its maker gave a priority of its own (the engine's memory worker runs at -20) keeps it.
        if (getPriority(tid) === base) setPriority(tid, nice)
      } catch {
        // gone already
      }
    }
    // Only the threads alive now are remembered: an ended thread's id may be reused by a new one.
    seen = now
  }
  const timer = setInterval(lower, everyMs).unref()
  return { stop: () => clearInterval(timer) }
}

function threadIds(): number[] {
  try {
    return readdirSync('/proc/self/task').map(Number)
  } catch {
    return [] // not Linux
  }
}
