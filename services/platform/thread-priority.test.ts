// The background threads' priority: a thread started after lowerBackgroundThreads gets the lower priority
// within a second, the main thread and the threads that existed before keep theirs (Linux only: nice per thread).
import { readdirSync } from 'node:fs'
import { getPriority } from 'node:os'
import { Worker } from 'node:worker_threads'
import { afterEach, describe, expect, it } from 'vitest'
import { lowerBackgroundThreads, type ThreadPriority } from './thread-priority'

const linux = process.platform === 'linux'
const threads = () => readdirSync('/proc/self/task').map(Number)

describe.skipIf(!linux)('lowerBackgroundThreads (nice is per thread on Linux only)', () => {
  let priority: ThreadPriority | undefined
  let worker: Worker | undefined
  afterEach(async () => {
    priority?.stop()
    await worker?.terminate()
  })

  it('lowers a thread started afterwards within a second, and leaves the main thread and the earlier threads', async () => {
    const base = getPriority(process.pid)
    const before = threads()
    priority = await lowerBackgroundThreads(base + 5)
    const earlier = threads()
    worker = new Worker('setInterval(() => {}, 1000)', { eval: true })
    await new Promise((resolve) => worker!.once('online', resolve))
    const started = threads().filter((tid) => !earlier.includes(tid))
    expect(started.length).toBeGreaterThan(0)
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    for (const tid of started) if (threads().includes(tid)) expect(getPriority(tid)).toBe(base + 5)
    expect(getPriority(process.pid)).toBe(base)
    for (const tid of before) if (threads().includes(tid)) expect(getPriority(tid)).toBe(base)
  })
})
