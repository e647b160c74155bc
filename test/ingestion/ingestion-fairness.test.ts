// One wide person does not hold another project's events: a person with hundreds of KB of properties
// (under PostHog's 640 KiB cap) on thousands of events of one request, and, captured just after it, one
// event of another project, which is stored within a few seconds while the wide person's events are still
// being ingested. Issue 30's probe was 630 KB on 10,000 events (WREN_TEST_FAIRNESS_KEYS=630
// WREN_TEST_FAIRNESS_EVENTS=10000 runs it at that size).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { captureBatch, drained, startWren, waitFor, type TestWren } from '../support/wren'
import { createProject } from '../support/management'
import { queryRows } from '../../services/platform/clickhouse'

const KEYS = Number(process.env.WREN_TEST_FAIRNESS_KEYS ?? 600)
const EVENTS = Number(process.env.WREN_TEST_FAIRNESS_EVENTS ?? 2000)
const WITHIN_MS = 5000

describe('ingestion fairness', () => {
  let t: TestWren
  let other: { id: number; api_token: string }
  beforeAll(async () => {
    t = await startWren()
    other = await createProject(t, 'Other')
  })
  afterAll(async () => {
    await t?.close()
  })

  // Unbounded: reading 2,000 copies of 600 KB of properties takes more than a caller's query may (WREN_QUERY_*).
  const count = async (where: string, params: Record<string, unknown>) =>
    (await queryRows<{ n: number }>(t.wren.clickhouse, `SELECT count() AS n FROM events WHERE ${where}`, params, { unbounded: true }))[0].n

  it('stores another project’s event within 5 s while a wide person’s events are ingested', async () => {
    const wide = Object.fromEntries(Array.from({ length: KEYS }, (_, i) => [`wide_${i}`, `${i}:`.padEnd(1000, 'w')]))
    await captureBatch(t, [
      { event: '$identify', distinct_id: 'wide', properties: { $set: wide } },
      ...Array.from({ length: EVENTS }, (_, n) => ({ event: 'wide_tick', distinct_id: 'wide', properties: { n } })),
    ])
    const sent = Date.now()
    await captureBatch({ url: t.url, projectKey: other.api_token }, [{ event: 'other_project', distinct_id: 'someone' }])

    await waitFor(async () => (await count(`team_id = {team:Int64} AND event = 'other_project'`, { team: other.id })) === 1, {
      timeoutMs: 300_000,
      intervalMs: 50,
      what: 'the other project’s event',
    })
    const waited = Date.now() - sent
    console.log(`fairness: ${KEYS} KB × ${EVENTS} events; the other project's event stored after ${waited} ms`)

    expect(waited).toBeLessThan(WITHIN_MS)

    // Nothing of the wide person's is lost: every event is stored once, with the person's properties.
    const last = `wide_${KEYS - 1}`
    await waitFor(async () => (await count(`event = 'wide_tick'`, {})) >= EVENTS, { timeoutMs: 900_000, what: 'the wide events' })
    console.log(`fairness: every wide event stored after ${Date.now() - sent} ms`)
    await drained(t.wren)
    expect(
      await count(`event = 'wide_tick' AND JSONExtractString(person_properties, {key:String}) = {value:String}`, {
        key: last,
        value: wide[last],
      }),
    ).toBe(EVENTS)
    expect(await count(`event = 'wide_tick'`, {})).toBe(EVENTS)
  }, 1_200_000)
})
