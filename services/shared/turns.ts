// Long CPU work on the event loop (the ingestion processor's batches: decoding, person rules, building and
// encoding rows, parsing query results) shares the thread with capture's requests. It takes turns: after
// a slice of synchronous work it lets the event loop run (setImmediate: I/O callbacks go first), so a
// request waits at most about one slice. Slices are measured in time, not items: an item's cost varies.

/** Synchronous work between two turns of the event loop (ms). */
export const SLICE_MS = 4

export class EventLoopTurns {
  private since = performance.now()

  constructor(private readonly sliceMs = SLICE_MS) {}

  /** Whether a slice has passed since the last turn. Cheap: call it once per item. */
  due(): boolean {
    return performance.now() - this.since >= this.sliceMs
  }

  /** Lets the event loop run (I/O included), then starts a new slice. */
  async take(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve))
    this.since = performance.now()
  }
}

/** `items.map(f)`, giving the event loop a turn after every slice of synchronous work. */
export async function mapInTurns<T, U>(items: readonly T[], f: (item: T, index: number) => U, turns = new EventLoopTurns()): Promise<U[]> {
  const out: U[] = new Array<U>(items.length)
  for (let i = 0; i < items.length; i++) {
    if (turns.due()) await turns.take()
    out[i] = f(items[i], i)
  }
  return out
}
