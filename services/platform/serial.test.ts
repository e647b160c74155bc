import { describe, expect, it } from 'vitest'
import { wrenError } from './errors'
import { Gate } from './serial'

describe('a gate', () => {
  it('runs two checks at once, lines up the next ones in order, and refuses past the line with a 429', async () => {
    const gate = new Gate(2, 3, () => wrenError('throttled', 'Too many at once.'))
    const started: number[] = []
    const finish: Array<() => void> = []
    const work = (n: number) =>
      gate.run(
        () =>
          new Promise<number>((resolve) => {
            started.push(n)
            finish[n] = () => resolve(n)
          }),
      )
    const runs = [0, 1, 2, 3, 4].map(work)
    const refused = work(5)
    await expect(refused).rejects.toMatchObject({ status: 429, code: 'throttled' })
    await new Promise((resolve) => setImmediate(resolve))
    expect(started).toEqual([0, 1])
    finish[1]()
    await runs[1]
    await new Promise((resolve) => setImmediate(resolve))
    expect(started).toEqual([0, 1, 2])
    for (const n of [0, 2, 3, 4]) {
      await new Promise((resolve) => setImmediate(resolve))
      finish[n]()
      expect(await runs[n]).toBe(n)
    }
    expect(started).toEqual([0, 1, 2, 3, 4])
    // Everyone done: two run at once again.
    const again = [work(6), work(7)]
    await new Promise((resolve) => setImmediate(resolve))
    expect(started.slice(5)).toEqual([6, 7])
    finish[6]()
    finish[7]()
    expect(await Promise.all(again)).toEqual([6, 7])
  })
})
