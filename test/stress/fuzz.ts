// The fuzz test's generator, run longer: node --import tsx test/stress/fuzz.ts [requests=30000] [seed=20261122]
// Starts Wren in this process, sends the requests 8 at a time, with a burst of 8–16 concurrent bodies of up
// to the 20 MiB limit every 2,500, then checks what the suite's test checks: no 5xx (but a 503 with
// Retry-After), JSON errors only, Object.prototype untouched, the process alive, and a good event and a good
// recording stored afterwards. Prints the statuses of each kind of request and this process's peak RSS
// (Wren's and the generator's). Exits 1 on a problem.
import { api, captureBatch, drained, startWren } from '../support/wren'
import { recordingStored, runFuzz } from '../support/fuzz'
import { managementTargets } from '../support/fuzz-management'

const count = Number(process.argv[2] ?? 30_000)
const seed = Number(process.argv[3] ?? 20261122)

const t = await startWren()
const started = Date.now()
let failed = false
try {
  const management = await managementTargets(t)
  const { problems, statuses, kinds, peakRss } = await runFuzz(
    t.url,
    { ...t, personalKey: management.fuzzKey, management },
    {
      seed,
      count,
      concurrency: 8,
      burstEvery: 2_500,
      onProgress: (sent) => console.log(`${sent} requests, ${Math.round((Date.now() - started) / 1000)} s`),
    },
  )
  console.log('statuses:', Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))
  for (const [kind, of] of kinds) console.log(`  ${kind}:`, JSON.stringify(Object.fromEntries([...of].sort((a, b) => a[0] - b[0]))))
  console.log(`peak RSS: ${Math.round(peakRss / 1024 / 1024)} MiB`)
  for (const problem of problems.slice(0, 50)) console.log('PROBLEM', problem)
  if (problems.length > 0) failed = true
  if (Object.keys(Object.prototype).length > 0) {
    console.log('PROBLEM Object.prototype was polluted:', Object.keys(Object.prototype))
    failed = true
  }
  if ((await fetch(`${t.url}/_health`)).status !== 200) {
    console.log('PROBLEM /_health does not answer 200 after the fuzzing')
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
  if (!(await recordingStored(t, 120_000))) {
    console.log('PROBLEM the recording sent after the fuzzing was not stored')
    failed = true
  }
  console.log(`${count} requests (seed ${seed}) in ${Math.round((Date.now() - started) / 1000)} s: ${problems.length} problems`)
} finally {
  await t.close()
}
process.exit(failed ? 1 : 0)
