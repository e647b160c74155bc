import { describe, expect, it } from 'vitest'
import { WrenError } from '../platform/errors'
import { JOB_TTL_MS, QueryJobs } from './jobs'

/** A clock the test moves. */
const movable = (start: string) => {
  let now = Date.parse(start)
  return { now: () => new Date(now), advance: (ms: number) => void (now += ms) }
}

/** Work that runs until its signal aborts, then fails as a killed query does. */
const untilAborted = (seen: AbortSignal[]) => (signal: AbortSignal) =>
  new Promise<Record<string, unknown>>((_resolve, reject) => {
    seen.push(signal)
    signal.addEventListener('abort', () => reject(new WrenError('query_cancelled')), { once: true })
  })

const refusal = (fn: () => unknown): WrenError => {
  try {
    fn()
  } catch (err) {
    if (err instanceof WrenError) return err
    throw err
  }
  throw new Error('expected a refusal')
}

describe('QueryJobs', () => {
  it('bounds the running jobs, naming the bound; a cancelled job stops its work and is forgotten', async () => {
    const jobs = new QueryJobs(movable('2026-03-15T12:00:00Z'), 1)
    const signals: AbortSignal[] = []
    const status = jobs.start(1, 'a', {}, untilAborted(signals))
    expect(status).toMatchObject({ id: 'a', team_id: 1, query_async: true, complete: false, error: false, results: null })
    // The same id while it runs: its status, not a second job.
    expect(jobs.start(1, 'a', {}, untilAborted(signals)).start_time).toBe(status.start_time)
    const full = refusal(() => jobs.start(1, 'b', {}, untilAborted(signals)))
    expect([full.status, full.code]).toEqual([429, 'too_many_queries'])
    expect(full.message).toContain('WREN_QUERY_MAX_ASYNC=1')
    await Promise.resolve()
    expect(signals).toHaveLength(1)
    // Another project cannot see it, nor cancel it.
    expect(refusal(() => jobs.status(2, 'a')).status).toBe(404)
    await expect(jobs.cancel(2, 'a')).rejects.toMatchObject({ status: 404 })
    expect(await jobs.cancel(1, 'a')).toBe('Cancelled the query on ClickHouse.')
    expect(signals[0].aborted).toBe(true)
    expect(refusal(() => jobs.status(1, 'a')).message).toBe('Query a not found for team 1.')
    // The bound is free again.
    expect(jobs.start(1, 'b', {}, async () => ({ results: [1] })).complete).toBe(false)
  })

  it('keeps a finished status with its answer or its safe error for PostHog’s 20 minutes', async () => {
    const clock = movable('2026-03-15T12:00:00Z')
    const jobs = new QueryJobs(clock, 4)
    jobs.start(1, 'ok', { insightId: 7 }, async () => ({ results: [1, 2] }))
    jobs.start(1, 'refused', {}, async () => Promise.reject(new WrenError('invalid_input', 'No such column.')))
    jobs.start(1, 'broken', {}, async () => Promise.reject(new Error('a bug')))
    await new Promise((r) => setImmediate(r))
    expect(jobs.status(1, 'ok')).toMatchObject({ complete: true, error: false, results: { results: [1, 2] }, insight_id: 7 })
    expect(jobs.status(1, 'refused')).toMatchObject({ complete: true, error: true, error_message: 'No such column.' })
    expect(jobs.status(1, 'broken')).toMatchObject({ complete: true, error: true, error_message: null })
    expect(jobs.running).toBe(0)
    clock.advance(JOB_TTL_MS - 1)
    expect(jobs.status(1, 'ok').complete).toBe(true)
    clock.advance(1)
    expect(refusal(() => jobs.status(1, 'ok')).status).toBe(404)
  })

  it('forgets the oldest finished statuses once their results pass its bytes', async () => {
    const rows = { results: Array.from({ length: 1_000 }, (_, i) => [`row ${i}`, i]) }
    const one = 2 * JSON.stringify(rows).length
    const jobs = new QueryJobs(movable('2026-03-15T12:00:00Z'), 8, 2_000, one * 2)
    for (const id of ['a', 'b', 'c']) {
      jobs.start(1, id, {}, async () => rows)
      await new Promise((resolve) => setImmediate(resolve))
    }
    expect(() => jobs.status(1, 'a')).toThrow(WrenError)
    expect(['b', 'c'].map((id) => jobs.status(1, id).results)).toEqual([rows, rows])
  })
})
