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
