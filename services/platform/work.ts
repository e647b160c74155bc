// Work done for callers who may go away: identical work asked for at once is done once, and a list of jobs
// runs a few at a time; neither starts work for a caller who has gone.

import { wrenError } from './errors'

/** The error of work whose caller has gone (no one reads the answer; a 503 if anyone did). */
const callerGone = () => wrenError('query_cancelled', 'The caller went away before the answer.')

interface Running<T> {
  result: Promise<T>
  callers: number
  controller: AbortController
}

/**
 * Work keyed by what it computes: a second caller asking while the first's is under way waits for the same
 * result. The work's own signal aborts once every caller waiting for it has gone.
 */
export class SharedWork<T> {
  private readonly running = new Map<string, Running<T>>()

  run(key: string, signal: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (signal?.aborted) return Promise.reject(callerGone())
    let entry = this.running.get(key)
    if (!entry) {
      const controller = new AbortController()
      const created: Running<T> = { result: work(controller.signal), callers: 0, controller }
      const done = () => void (this.running.get(key) === created && this.running.delete(key))
      created.result.then(done, done)
      this.running.set(key, created)
      entry = created
    }
    const shared = entry
    shared.callers++
    return new Promise<T>((resolve, reject) => {
      const leave = () => {
        if (--shared.callers === 0) {
          shared.controller.abort()
          // Anyone asking from now on starts afresh rather than joining work being stopped.
          if (this.running.get(key) === shared) this.running.delete(key)
        }
        reject(callerGone())
      }
      signal?.addEventListener('abort', leave, { once: true })
      const settle = () => signal?.removeEventListener('abort', leave)
      shared.result.then(
        (value) => (settle(), resolve(value)),
        (err: unknown) => (settle(), reject(err)),
      )
    })
  }

  /** How many distinct pieces of work are under way. */
  get size(): number {
    return this.running.size
  }
}

/** `fn` over `items`, at most `concurrency` at once, in order; items not yet started when `signal` aborts never start. */
export async function mapBounded<T, R>(
  items: readonly T[],
  concurrency: number,
  signal: AbortSignal | undefined,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      if (signal?.aborted) throw callerGone()
      const i = next++
      results[i] = await fn(items[i])
    }
  }
  await Promise.all(Array.from({ length: Math.min(Math.max(1, concurrency), items.length) }, worker))
  return results
}
