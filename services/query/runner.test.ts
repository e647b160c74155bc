// The runner's cache rules on real chDB (its data version reads the tables' parts) with a clock the test
// moves: PostHog's staleness thresholds by interval, lazy_async's longer ones, a range that ended before
// it was computed never ageing, and new data making an answer stale. The kind is a counting stand-in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { migrate, openEmbeddedClickHouse, type ClickHouseClient } from '../platform/clickhouse'
import type { Project } from '../platform/tenancy'
import type { AnyKind } from './kinds'
import { QueryRunner, type RefreshMode } from './runner'

const HOUR = 3_600_000
const project: Project = { id: 1, name: 'p', apiToken: 't', timezone: 'UTC', settings: {}, createdAt: '2026-01-01T00:00:00Z' }

describe('the runner’s cache', () => {
  let dir: string
  let client: ClickHouseClient
  let now = Date.parse('2026-03-15T12:00:00Z')
  let runs = 0
  let runner: QueryRunner
  /** Answers how many times it ran, with the range the query names (`dateTo`). */
  const kind: AnyKind = {
    kind: 'CountingQuery',
    insight: false,
    parse: (node) => node,
    staleInterval: (q: { interval: 'day' | 'hour' }) => q.interval,
    run: async (_deps, _run, q: { dateTo: string }) => ({
      results: [++runs],
      resolved_date_range: { date_from: '2026-03-01', date_to: q.dateTo },
    }),
  }
  const ask = async (query: Record<string, unknown>, mode: RefreshMode = 'blocking') => {
    const { status, body } = await runner.execute(kind, query, { project, mode, signal: new AbortController().signal })
    return { status, cached: body.is_cached, results: body.results as number[], body: body as Record<string, any> }
  }

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wren-runner-'))
    client = await openEmbeddedClickHouse(dir)
    await migrate(client)
    runner = new QueryRunner({ clickhouse: client, clock: { now: () => new Date(now) } } as never, { maxAsync: 2 })
  })
  afterAll(async () => {
    await runner?.jobs.stop()
    await client?.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('serves a day-interval answer for 6 hours (12 with lazy_async), then recomputes it', async () => {
    const q = { interval: 'day', dateTo: '2026-03-15T23:59:59Z' }
    const first = await ask(q)
    expect([first.cached, first.body.cache_target_age, first.body.next_allowed_client_refresh]).toEqual([
      false,
      '2026-03-15T18:00:00Z',
      '2026-03-15T12:01:00Z',
    ])
    now += 6 * HOUR
    expect((await ask(q)).cached).toBe(true)
    now += 1
    expect((await ask(q, 'lazy_async')).cached).toBe(true)
    expect((await ask(q, 'force_cache')).cached).toBe(true)
    const fresh = await ask(q)
    expect([fresh.cached, fresh.results]).toEqual([false, [first.results[0] + 1]])
    now += 12 * HOUR + 1
    const lazy = await ask(q, 'lazy_async')
    expect([lazy.status, lazy.cached, lazy.results, lazy.body.query_status.complete]).toEqual([202, true, fresh.results, false])
  })

  it('never ages an answer whose range ended before it was computed, but new data makes it stale', async () => {
    const q = { interval: 'hour', dateTo: '2026-03-01T00:00:00Z' }
    const first = await ask(q)
    now += 30 * 24 * HOUR
    expect(await ask(q)).toMatchObject({ cached: true, results: first.results })
    // An hour-interval answer of a range still open goes stale after an hour.
    const open = { interval: 'hour', dateTo: '2099-01-01T00:00:00Z' }
    await ask(open)
    now += HOUR + 1
    expect((await ask(open)).cached).toBe(false)
    await client.command({
      query: "INSERT INTO cohort_static_members (team_id, cohort_id, distinct_id, added_at) VALUES (1, 1, 'd1', now64(3))",
    })
    expect((await ask(q)).cached).toBe(false)
  })
})
