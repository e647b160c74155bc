// Big inputs do not stall ingestion: person properties are capped the way PostHog caps them (a write
// that would pass the limit is refused, with a person_properties_size_violation ingestion warning), and
// inserts are split by size, so one 5 MB request cannot make a batch too big to write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, waitFor, type TestWren } from '../support/wren'

describe('ingestion of big inputs', () => {
  let t: TestWren
  beforeAll(async () => {
    t = await startWren()
  })
  afterAll(async () => {
    await t?.close()
  })

  const count = async (event: string) => {
    const res = await api(t)('GET', `/api/projects/${t.projectId}/events/?event=${event}&limit=1000`)
    expect(res.status, res.text).toBe(200)
    return res.body.results.length as number
  }

  it('a 5 MB $set followed by 110 events of that person: the events are stored, the person keeps its other properties, later events flow', async () => {
    const big = 'x'.repeat(5 * 1024 * 1024)
    const events = [
      { event: 'signed_up', distinct_id: 'heavy', properties: { $set: { plan: 'pro' } } },
      { event: 'huge_set', distinct_id: 'heavy', properties: { $set: { blob: big } } },
      ...Array.from({ length: 110 }, (_, i) => ({ event: 'after_huge', distinct_id: 'heavy', properties: { i } })),
    ]
    await captureBatch(t, events)
    await captureBatch(t, [{ event: 'later', distinct_id: 'someone_else', properties: {} }])
    await drained(t.wren)

    expect(await count('after_huge')).toBe(110)
    expect(await count('huge_set')).toBe(1)
    expect(await count('later')).toBe(1)
    const persons = await api(t)('GET', `/api/environments/${t.projectId}/persons/?distinct_id=heavy`)
    expect(persons.body.results).toHaveLength(1)
    expect(persons.body.results[0].properties.plan).toBe('pro')
    expect(persons.body.results[0].properties).not.toHaveProperty('blob')
    // The refusal is an ingestion warning a user can see counted.
    const metrics = await (await fetch(`${t.url}/_metrics`)).text()
    expect(Number(/^wren_ingestion_warnings_total(?:\{[^}]*\})? (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1)
  }, 60_000)

  it('events after a big batch keep arriving', async () => {
    await captureBatch(t, [{ event: 'later', distinct_id: 'heavy', properties: { $set: { plan: 'team' } } }])
    await waitFor(async () => (await count('later')) === 2, { what: 'the later event' })
    const persons = await api(t)('GET', `/api/environments/${t.projectId}/persons/?distinct_id=heavy`)
    expect(persons.body.results[0].properties.plan).toBe('team')
  })
})
