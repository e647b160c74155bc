import { describe, expect, it } from 'vitest'
import { mapBounded, SharedWork } from './work'

/** A promise and its resolver. */
function deferred<T>() {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((r) => (resolve = r))
  return { promise, resolve }
}

describe('SharedWork', () => {
  it('runs identical work once for callers at the same moment, and stops it once every caller has gone', async () => {
    const shared = new SharedWork<number>()
    const result = deferred<number>()
    const signals: AbortSignal[] = []
    const work = (signal: AbortSignal) => (signals.push(signal), result.promise)
    const first = new AbortController()
    const second = new AbortController()
    const a = shared.run('k', first.signal, work)
    const b = shared.run('k', second.signal, work)
    expect(signals).toHaveLength(1)
    first.abort()
    await expect(a).rejects.toMatchObject({ code: 'query_cancelled' })
    expect(signals[0].aborted).toBe(false)
    result.resolve(7)
    expect(await b).toBe(7)

    const again = deferred<number>()
    const third = new AbortController()
    const c = shared.run('k', third.signal, (signal) => (signals.push(signal), again.promise))
    third.abort()
    await expect(c).rejects.toMatchObject({ code: 'query_cancelled' })
    expect(signals[1].aborted).toBe(true)
    expect(shared.size).toBe(0)
  })
})

describe('mapBounded', () => {
  it('runs at most `concurrency` at once, in order, and starts nothing once the signal aborts', async () => {
    let running = 0
    let most = 0
    const out = await mapBounded([1, 2, 3, 4, 5, 6], 2, undefined, async (n) => {
      most = Math.max(most, ++running)
      await new Promise((r) => setImmediate(r))
      running--
      return n * 10
    })
    expect(out).toEqual([10, 20, 30, 40, 50, 60])
    expect(most).toBe(2)

    const controller = new AbortController()
    const started: number[] = []
    const gone = mapBounded([1, 2, 3, 4], 1, controller.signal, async (n) => {
      started.push(n)
      if (n === 2) controller.abort()
    })
    await expect(gone).rejects.toMatchObject({ code: 'query_cancelled' })
    expect(started).toEqual([1, 2])
  })
})
