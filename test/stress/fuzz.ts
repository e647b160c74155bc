// The fuzz test's generator, run longer: node --import tsx test/stress/fuzz.ts [requests=30000] [seed=20261122]
// Starts Wren in this process, sends the requests 8 at a time, then checks what the suite's test checks: no
// 5xx, JSON errors only, Object.prototype untouched, and a good event ingested afterwards. Exits 1 on a problem.
import { api, captureBatch, drained, startWren } from '../support/wren'
import { runFuzz } from '../support/fuzz'

const count = Number(process.argv[2] ?? 30_000)
const seed = Number(process.argv[3] ?? 20261122)

const t = await startWren()
const started = Date.now()
let failed = false
try {
  const { problems, statuses } = await runFuzz(t.url, t, {
    seed,
    count,
    concurrency: 8,
    onProgress: (sent) => console.log(`${sent} requests, ${Math.round((Date.now() - started) / 1000)} s`),
  })
  console.log('statuses:', Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))
  for (const problem of problems.slice(0, 50)) console.log('PROBLEM', problem)
  if (problems.length > 0) failed = true
  if (Object.keys(Object.prototype).length > 0) {
    console.log('PROBLEM Object.prototype was polluted:', Object.keys(Object.prototype))
    failed = true
  }
  await drained(t.wren)
  await captureBatch(t, [{ event: 'after-fuzz', distinct_id: 'fuzz-survivor' }])
  await drained(t.wren)
  const stored = await api(t)('GET', `/api/projects/${t.projectId}/events/?event=after-fuzz`)
  if (stored.body?.results?.length !== 1) {
    console.log('PROBLEM the event sent after the fuzzing was not stored')
    failed = true
  }
  console.log(`${count} requests (seed ${seed}) in ${Math.round((Date.now() - started) / 1000)} s: ${problems.length} problems`)
} finally {
  await t.close()
}
process.exit(failed ? 1 : 0)
