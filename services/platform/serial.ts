// Writes one at a time within a process (the versioned configuration tables: reading the current version
// and inserting the next cannot interleave; ids come from log/config-log.ts).

/** Runs tasks one after another; a failed task does not stop the ones queued behind it. */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve()

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task)
    this.tail = result.catch(() => undefined)
    return result
  }
}

/** One queue per key: tasks on the same key run one after another, different keys run side by side. */
export class KeyedSerialQueue {
  private readonly tails = new Map<string, Promise<unknown>>()

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const result = (this.tails.get(key) ?? Promise.resolve()).then(task)
    const tail = result.catch(() => undefined)
    this.tails.set(key, tail)
    // The last task of a key forgets it, so the map holds only keys with work queued.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key)
    })
    return result
  }
}
