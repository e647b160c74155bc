// Readiness that means it: when ingestion stops making progress while events wait, /_readyz answers 503
// with the reason and the numbers, /_health shows the lag, and both recover once ingestion catches up.
// The stall is real: a failpoint makes every ingestion batch fail (as a refusing ClickHouse would) while
// a file exists.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { api, captureBatch, drained, startWren, waitFor, type TestWren } from '../support/wren'

describe('ingestion lag in readiness and health', () => {
  let t: TestWren
  let dir: string
  let stallFile: string
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wren-stall-'))
    stallFile = path.join(dir, 'stall')
    t = await startWren({
      WREN_READY_STALL_SECONDS: '1',
      WREN_READY_MAX_LAG_SECONDS: '2',
      WREN_FAILPOINTS: `ingest-stall-file=${stallFile}`,
    })
  })
  afterAll(async () => {
    await t?.close()
    await rm(dir, { recursive: true, force: true })
  })

  const get = async (route: string) => {
    const res = await fetch(t.url + route)
    return { status: res.status, body: (await res.json()) as any }
  }
  const events = (n: number, from = 0) =>
    Array.from({ length: n }, (_, i) => ({ event: 'stall_probe', distinct_id: `user-${from + i}`, properties: { n: from + i } }))

  it('is ready while ingestion keeps up, not ready with the reason while it is stalled, ready again once it caught up', async () => {
    await captureBatch(t, events(3))
    await drained(t.wren)
    await waitFor(async () => (await get('/_health')).body.ingestion.committed_offset === 3, {
      what: 'the lag monitor to see 3 messages ingested',
    })
    const ready = await get('/_readyz')
    expect(ready.status).toBe(200)
    expect(ready.body).toMatchObject({ status: 'ready', reasons: [], ingestion: { lag_messages: 0, lag_seconds: 0, stalled_seconds: 0 } })

    // Ingestion stalls; capture still acknowledges what it appends to the log.
    await writeFile(stallFile, '')
    await captureBatch(t, events(5, 3))
    const stalled = await waitFor(
      async () => {
        const r = await get('/_readyz')
        return r.status === 503 && r.body.reasons.some((x: { code: string }) => x.code === 'ingestion_lagging') ? r : false
      },
      { timeoutMs: 20_000, what: '/_readyz to report the stall and the lag' },
    )
    expect(stalled.body.status).toBe('ingestion stalled')
    expect(stalled.body.reasons.map((x: { code: string }) => x.code)).toEqual(['ingestion_stalled', 'ingestion_lagging'])
    expect(stalled.body.reasons[0].detail).toMatch(/committed nothing for \d+ s while 5 messages wait/)
    expect(stalled.body.ingestion).toMatchObject({ lag_messages: 5, end_offset: 8, committed_offset: 3 })
    expect(stalled.body.ingestion.lag_seconds).toBeGreaterThanOrEqual(2)
    const health = await get('/_health')
    expect(health.status).toBe(200)
    expect(health.body).toMatchObject({ status: 'ok', ingestion: { lag_messages: 5 } })
    expect(health.body.ingestion.lag_seconds).toBeGreaterThanOrEqual(2)

    // Ingestion resumes: the waiting events are stored, readiness and health say so.
    await rm(stallFile)
    await drained(t.wren)
    const recovered = await waitFor(
      async () => {
        const r = await get('/_readyz')
        return r.status === 200 ? r : false
      },
      { timeoutMs: 20_000, what: '/_readyz to recover' },
    )
    expect(recovered.body).toMatchObject({
      status: 'ready',
      reasons: [],
      ingestion: { lag_messages: 0, lag_seconds: 0, stalled_seconds: 0, end_offset: 8, committed_offset: 8 },
    })
    expect((await get('/_health')).body.ingestion.lag_messages).toBe(0)
    const stored = await api(t)('GET', `/api/projects/${t.projectId}/events/?event=stall_probe`)
    expect(stored.body.results).toHaveLength(8)
  })
})
