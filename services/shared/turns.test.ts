// Long CPU work takes turns with the event loop: callbacks queued meanwhile run before it ends.
import { describe, expect, it } from 'vitest'
import { EventLoopTurns, mapInTurns } from './turns'

/** Busy for `ms`: synchronous work, as the processor's person rules or row encoding are. */
function busy(ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until);
}

describe('mapInTurns', () => {
  it('maps every item in order, and lets I/O callbacks run while the work goes on', async () => {
    let done = false
    let ranDuring = false
    setImmediate(() => (ranDuring = !done))
    const out = await mapInTurns(
      Array.from({ length: 20 }, (_, i) => i),
      (n, i) => (busy(1), n * 10 + i),
      new EventLoopTurns(3),
    )
    done = true
    expect(out).toEqual(Array.from({ length: 20 }, (_, i) => i * 11))
    expect(ranDuring).toBe(true)
  })

  it('does not give a turn before a slice has passed', async () => {
    let ran = false
    setImmediate(() => (ran = true))
    await mapInTurns([1, 2, 3], (n) => n, new EventLoopTurns(10_000))
    expect(ran).toBe(false)
  })
})
