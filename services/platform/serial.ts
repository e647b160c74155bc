// Work in turn within a process: writes one at a time (the versioned configuration tables: reading the current
// version and inserting the next cannot interleave; ids come from log/config-log.ts), and gates that let only so
// many tasks run at once (embedded ClickHouse's queries, password hashing).

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

/**
 * At most `running` tasks at once, the others waiting in order; with `waiting` of them already in line, a task is
 * refused with `full()`. A finished task hands its place straight to the next in line: were the place freed
 * between, a task arriving in that moment would run beside the one woken.
 */
export class Gate {
  private busy = 0
  private readonly line: Array<() => void> = []
  constructor(
    private readonly running = 1,
    private readonly waiting = Infinity,
    private readonly full: () => Error = () => new Error('The gate’s line is full.'),
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.busy < this.running) this.busy++
    else if (this.line.length >= this.waiting) throw this.full()
    else await new Promise<void>((resolve) => this.line.push(resolve))
    try {
      return await task()
    } finally {
      const next = this.line.shift()
      if (next) next()
      else this.busy--
    }
  }
}
