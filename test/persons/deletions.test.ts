// DELETE /persons/:id/?delete_events=true queues a task; the DeletionScheduler runs it in the weekly
// batch at Sunday 05:00 UTC. Here the scheduler runs on the test's chDB with a clock the test moves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pino from 'pino'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'
import { DeletionScheduler, lastRunAtOrBefore, nextRunAfter } from '../../services/persons/deletions'

describe('scheduled deletion of a person’s events', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  beforeAll(async () => {
    t = await startWren()
    call = api(t)
  })
  afterAll(async () => {
    await t?.close()
  })

  const eventsOf = async (distinctId: string) => {
    const res = await call('GET', `/api/projects/${t.projectId}/events/?distinct_id=${distinctId}`)
    expect(res.status).toBe(200)
    return res.body.results.map((e: any) => e.event).sort()
  }

  it('runs at Sunday 05:00 UTC: nothing before, the person’s events (under every distinct id) gone after, other events kept', async () => {
    await captureBatch(t, [
      { event: '$pageview', distinct_id: 'gone-anon', properties: {} },
      { event: '$identify', distinct_id: 'gone-user', properties: { $anon_distinct_id: 'gone-anon' } },
      { event: 'purchase', distinct_id: 'gone-user', properties: { amount: 5 } },
      { event: 'purchase', distinct_id: 'kept-user', properties: { amount: 7 } },
    ])
    await drained(t.wren)
    const [person] = (await call('GET', `/api/environments/${t.projectId}/persons/?distinct_id=gone-user`)).body.results
    expect((await call('DELETE', `/api/environments/${t.projectId}/persons/${person.id}/?delete_events=true`)).status).toBe(204)
    const [task] = await t.wren.deletions.queued(t.projectId)
    expect(task).toMatchObject({ kind: 'person_events', key: person.uuid })

    let now = new Date()
    const scheduler = new DeletionScheduler(t.wren.clickhouse, { now: () => now }, pino({ level: 'silent' }))
    const sunday = nextRunAfter(new Date(task.created_at))
    expect(sunday.getUTCDay()).toBe(0)
    expect(sunday.getUTCHours()).toBe(5)

    expect(await scheduler.runDue()).toBe(0)
    now = new Date(sunday.getTime() - 1000)
    expect(await scheduler.runDue()).toBe(0)
    expect(await eventsOf('gone-user')).toEqual(['$identify', 'purchase'])
    expect(await eventsOf('gone-anon')).toEqual(['$pageview'])
    expect(await t.wren.deletions.queued(t.projectId)).toHaveLength(1)

    now = new Date(sunday.getTime() + 60_000)
    expect(await scheduler.runDue()).toBe(1)
    expect(await eventsOf('gone-user')).toEqual([])
    expect(await eventsOf('gone-anon')).toEqual([])
    expect(await eventsOf('kept-user')).toEqual(['purchase'])
    expect(await t.wren.deletions.queued(t.projectId)).toEqual([])
    // Done tasks do not run again.
    expect(await scheduler.runDue()).toBe(0)
  })

  it('picks the right Sunday', () => {
    expect(nextRunAfter(new Date('2026-11-21T23:00:00Z')).toISOString()).toBe('2026-11-22T05:00:00.000Z') // Saturday night
    expect(nextRunAfter(new Date('2026-11-22T04:59:59Z')).toISOString()).toBe('2026-11-22T05:00:00.000Z')
    expect(nextRunAfter(new Date('2026-11-22T05:00:00Z')).toISOString()).toBe('2026-11-29T05:00:00.000Z')
    expect(nextRunAfter(new Date('2026-11-25T12:00:00Z')).toISOString()).toBe('2026-11-29T05:00:00.000Z')
    expect(lastRunAtOrBefore(new Date('2026-11-22T05:00:00Z')).toISOString()).toBe('2026-11-22T05:00:00.000Z')
    expect(lastRunAtOrBefore(new Date('2026-11-22T04:59:59Z')).toISOString()).toBe('2026-11-15T05:00:00.000Z')
  })
})
