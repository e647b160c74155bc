// A bounded fuzz run over every public route (capture, decide/flags, remote config, local evaluation):
// hostile bodies, encodings, headers and malformed HTTP from a seeded generator (test/support/fuzz.ts).
// No answer is a 5xx, every error is a JSON {type, code, detail}, nothing pollutes Object.prototype, the
// process keeps serving, and a good event sent afterwards is ingested. `npm run stress` runs the same
// generator longer (test/stress/fuzz.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, captureBatch, drained, startWren, type TestWren } from '../support/wren'
import { runFuzz } from '../support/fuzz'

const SEED = 20261122
const REQUESTS = 1_200
const CONCURRENCY = 4

describe('fuzzing the public routes', () => {
  let t: TestWren
  beforeAll(async () => {
    t = await startWren()
  })
  afterAll(async () => {
    await t?.close()
  })

  it(`answers ${REQUESTS} hostile requests (seed ${SEED}) without a 5xx, with JSON errors, and keeps ingesting`, async () => {
    const { problems, statuses } = await runFuzz(t.url, t, { seed: SEED, count: REQUESTS, concurrency: CONCURRENCY })
    expect(problems.slice(0, 20)).toEqual([])
    // The run really exercised acceptance and refusal.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(100)
    expect(statuses.get(400) ?? 0).toBeGreaterThan(100)
    expect(statuses.get(413) ?? 0).toBeGreaterThan(5)
    expect(Object.keys(Object.prototype)).toEqual([])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()

    // Still serving, and ingestion still flows after everything that was accepted.
    expect((await fetch(`${t.url}/_health`)).status).toBe(200)
    await drained(t.wren)
    await captureBatch(t, [{ event: 'after-fuzz', distinct_id: 'fuzz-survivor', properties: { ok: true } }])
    await drained(t.wren)
    const stored = await api(t)('GET', `/api/projects/${t.projectId}/events/?event=after-fuzz`)
    expect(stored.body.results.map((e: { distinct_id: string }) => e.distinct_id)).toEqual(['fuzz-survivor'])
  }, 120_000)
})
