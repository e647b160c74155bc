// Recording retention as a user sees it: a project keeps recordings for its session_recording_retention_period
// (PostHog's '30d' default, '90d', '1y', '5y'), settable with PATCH /api/projects/:id/. Recordings whose
// start is older are gone from the list, retrieve and snapshots, and ClickHouse's TTL drops their rows.
// Time passes in this test by moving Wren's clock (WREN_NOW's fixed clock): snapshots are captured 40 days
// ago, then read today. "Today" is the real date, so ClickHouse's TTL (the server's wall clock) agrees.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../services/platform/clickhouse'
import { api, startWren, type TestWren } from '../support/wren'
import { recordingsProcessed, sendSnapshots } from '../support/recordings'

const DAY = 24 * 3_600_000

describe('session recording retention', () => {
  let t: TestWren
  let call: ReturnType<typeof api>
  const now = Date.now()
  const fortyDaysAgo = now - 40 * DAY
  const project = () => `/api/projects/${t.projectId}/`
  const recordings = () => `/api/projects/${t.projectId}/session_recordings/`

  /** Moves Wren's clock: what capture stamps snapshots with and what retention is measured from. */
  const travelTo = (at: number) => {
    ;(t.wren.clock as { now: () => Date }).now = () => new Date(at)
  }
  const send = async (sessionId: string, at: number) => {
    const events = [
      { type: 4, timestamp: at, data: { href: `https://example.com/${sessionId}`, width: 800, height: 600 } },
      { type: 3, timestamp: at + 1_000, data: { source: 2, type: 2, id: 1, x: 5, y: 5 } },
    ]
    await sendSnapshots(t, { sessionId, distinctId: `user-${sessionId}`, events })
    await recordingsProcessed(t.wren)
  }
  const listed = async () => ((await call('GET', `${recordings()}?date_from=all`)).body.results as Array<{ id: string }>).map((r) => r.id)
  const setRetention = async (period: string | null) => {
    const res = await call('PATCH', project(), { session_recording_retention_period: period })
    expect(res.status).toBe(200)
  }
  const rowsOf = async (table: string, sessionId: string) =>
    Number(
      (
        await queryRows<{ n: number }>(t.wren.clickhouse, `SELECT count() AS n FROM ${table} WHERE session_id = {s:String}`, {
          s: sessionId,
        })
      )[0].n,
    )

  beforeAll(async () => {
    t = await startWren({ WREN_NOW: new Date(now).toISOString(), WREN_RECORDINGS_WAIT_MS: '20' })
    call = api(t)
    expect((await call('PATCH', project(), { session_recording_opt_in: true })).status).toBe(200)
    travelTo(fortyDaysAgo)
    // Recorded 40 days ago under the default 30 days, then under 90 days; one recorded today.
    await send('ret-old-30d', fortyDaysAgo)
    await setRetention('90d')
    await send('ret-old-90d', fortyDaysAgo + 60_000)
    travelTo(now)
    await send('ret-today', now - 60_000)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('is a project setting with PostHog’s choices, 30 days unless set', async () => {
    expect((await call('GET', project())).body.session_recording_retention_period).toBe('90d')
    const bad = await call('PATCH', project(), { session_recording_retention_period: '45d' })
    expect(bad.status).toBe(400)
    expect(bad.body).toMatchObject({ code: 'invalid_choice', attr: 'session_recording_retention_period' })
    expect(bad.body.detail).toContain('30d, 90d, 1y, 5y')
  })

  it('hides recordings older than the retention from the list, retrieve and snapshots, and shows the others', async () => {
    expect(await listed()).toEqual(['ret-today', 'ret-old-90d'])
    expect((await call('GET', `${recordings()}ret-old-30d/`)).status).toBe(404)
    expect((await call('GET', `${recordings()}ret-old-30d/snapshots`)).status).toBe(404)
    expect((await call('GET', `${recordings()}ret-old-30d/snapshots?source=blob_v2&blob_key=0`)).status).toBe(404)
    expect((await call('GET', `${recordings()}ret-old-90d/`)).body).toMatchObject({ id: 'ret-old-90d', click_count: 1 })
    const sources = await call('GET', `${recordings()}ret-old-90d/snapshots`)
    expect(sources.status).toBe(200)
    expect(sources.body.sources).toHaveLength(1)
    const blocks = await call('GET', `${recordings()}ret-old-90d/snapshots?source=blob_v2&blob_key=0`)
    expect(blocks.text.trim().split('\n')).toHaveLength(2)
  })

  it('follows the project’s setting: shorter hides at once, longer shows what is still kept', async () => {
    await setRetention('30d')
    expect(await listed()).toEqual(['ret-today'])
    expect((await call('GET', `${recordings()}ret-old-90d/`)).status).toBe(404)
    expect((await call('GET', `${recordings()}ret-old-90d/snapshots`)).status).toBe(404)
    await setRetention('1y')
    expect(await listed()).toEqual(['ret-today', 'ret-old-90d'])
    expect((await call('GET', `${recordings()}ret-old-90d/snapshots`)).status).toBe(200)
    // Stored under 30 days: its rows expire with that retention, whatever the setting says later.
    expect((await call('GET', `${recordings()}ret-old-30d/`)).status).toBe(404)
    await setRetention(null)
    expect((await call('GET', project())).body).not.toHaveProperty('session_recording_retention_period')
    expect(await listed()).toEqual(['ret-today'])
  })

  it('declares a TTL on blocks and metadata that drops expired rows', async () => {
    for (const [table, column] of [
      ['session_recording_blocks', 'first_timestamp'],
      ['session_recording_metadata', 'start_time'],
      ['session_recording_sessions', 'start_time'],
    ]) {
      const [{ statement }] = await queryRows<{ statement: string }>(t.wren.clickhouse, `SHOW CREATE TABLE ${table}`)
      expect(statement).toContain(`TTL toDateTime(${column}) + toIntervalDay(retention_days + 1)`)
      expect(await rowsOf(table, 'ret-old-90d')).toBeGreaterThan(0)
      await t.wren.clickhouse.command({ query: `OPTIMIZE TABLE ${table} FINAL` })
      expect(await rowsOf(table, 'ret-old-30d')).toBe(0)
      expect(await rowsOf(table, 'ret-old-90d')).toBeGreaterThan(0)
      expect(await rowsOf(table, 'ret-today')).toBeGreaterThan(0)
    }
  })
})
