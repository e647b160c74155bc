// Decide benchmark: POST /flags?v=2 (what posthog-node and posthog-js send) with 50 flags — rollouts,
// multivariate, property conditions — on warm persons, beside a hello-world Fastify POST in the same run.
// Wren runs as `wren start` in its own process; autocannon (and the open loop) load it from this one.
// References, each in its own process: a Fastify route answering the same pre-encoded bytes as Wren's
// answer (the ceiling of any decide on this HTTP stack), and a hello-world POST. Then decide and the
// pre-encoded route at a constant rate (--rate req/s, open loop: bench/open-loop.ts) for the latency there,
// and at autocannon's overallRate of the same rate (bursts at the start of every second: the older figure).
//   node --import tsx bench/decide.ts [--seconds 10] [--connections 50] [--persons 2000] [--trials 1] [--rate 5000]
import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import {
  cpuSeconds,
  failures,
  fmt,
  median,
  ms,
  percentile,
  startHelloWorld,
  startWrenServer,
  x,
  type ChildServer,
  type LoadResult,
  runLoad,
  sleep,
} from './support'
import { OPEN_LOOP_CONNECTIONS, runAtRate, type RateResult } from './open-loop'

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : fallback
}
const seconds = arg('seconds', 10)
const connections = arg('connections', 50)
const personCount = arg('persons', 2000)
const trials = arg('trials', 1)
const fixedRate = arg('rate', 5000)

function flagDefinitions(): Array<Record<string, unknown>> {
  const flags: Array<Record<string, unknown>> = []
  for (let i = 0; i < 50; i++) {
    const kind = i % 3
    if (kind === 0) flags.push({ key: `rollout-${i}`, filters: { groups: [{ properties: [], rollout_percentage: (i * 7) % 100 }] } })
    else if (kind === 1)
      flags.push({
        key: `mv-${i}`,
        filters: {
          groups: [{ properties: [], rollout_percentage: 90 }],
          multivariate: {
            variants: [
              { key: 'control', rollout_percentage: 50 },
              { key: 'test', rollout_percentage: 50 },
            ],
          },
          payloads: { test: '{"a":1}' },
        },
      })
    else
      flags.push({
        key: `props-${i}`,
        filters: {
          groups: [
            {
              properties: [
                { key: 'plan', value: ['pro', 'team'], operator: 'exact', type: 'person' },
                { key: 'email', value: 'example', operator: 'icontains', type: 'person' },
              ],
              rollout_percentage: 50,
            },
            { properties: [{ key: 'age', value: '30', operator: 'gt', type: 'person' }] },
          ],
        },
      })
  }
  return flags
}

type Measured = LoadResult & { cpuMicros: number; mainMicros: number }

/** A load run with the server's own CPU time per answered request: a figure that contention on the machine bends less. */
async function measured<R extends LoadResult>(pid: number | undefined, run: () => Promise<R>): Promise<R & Measured> {
  const before = cpuSeconds(pid)
  const mainBefore = cpuSeconds(pid, 'main')
  const r = await run()
  const after = cpuSeconds(pid)
  const mainAfter = cpuSeconds(pid, 'main')
  const per = (seconds: number) => (r.ok === 0 ? NaN : (seconds * 1e6) / r.ok)
  return { ...r, cpuMicros: per(after - before), mainMicros: per(mainAfter - mainBefore) }
}

function summary(name: string, runs: Measured[]): string {
  const rate = median(runs.map((r) => r.requestsPerSecond))
  const p50 = median(runs.map((r) => percentile(r.latencies, 50)))
  const p99 = median(runs.map((r) => percentile(r.latencies, 99)))
  const cpu = median(runs.map((r) => r.cpuMicros))
  const main = median(runs.map((r) => r.mainMicros))
  const cores = `   cores: server ${median(runs.map((r) => r.serverCores)).toFixed(2)}, load ${median(runs.map((r) => r.loadGeneratorCores)).toFixed(2)}`
  const each = runs.length > 1 ? `   (runs: ${runs.map((r) => fmt(r.requestsPerSecond)).join(', ')})` : ''
  return `${name.padEnd(24)} ${fmt(rate).padStart(8)} req/s   p50 ${ms(p50)}   p99 ${ms(p99)}   server CPU ${cpu.toFixed(0)} µs/request (main thread ${main.toFixed(0)})${cores}${runs.map(failures).join('')}${each}`
}

const personalKey = `phx_bench${randomBytes(12).toString('hex')}`
const wren = await startWrenServer(undefined, { WREN_PERSONAL_API_KEY: personalKey })
let hello: ChildServer | null = null
try {
  const auth = { authorization: `Bearer ${personalKey}`, 'content-type': 'application/json' }
  const projects = (await (await fetch(`${wren.url}/api/projects/`, { headers: auth })).json()) as { results: Array<{ id: number }> }
  const projectId = projects.results[0].id
  for (const flag of flagDefinitions()) {
    const res = await fetch(`${wren.url}/api/projects/${projectId}/feature_flags/`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify(flag),
    })
    if (res.status !== 201) throw new Error(`creating ${String(flag.key)}: ${res.status} ${await res.text()}`)
  }
  const ids = Array.from({ length: personCount }, (_, i) => `bench-user-${i}`)
  const batch = ids.map((id, i) => ({
    event: '$identify',
    distinct_id: id,
    properties: { $set: { plan: ['free', 'pro', 'team'][i % 3], email: `${id}@example.com`, age: i % 60 } },
  }))
  await fetch(`${wren.url}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: wren.projectKey, batch }),
  })
  // Wait for ingestion, then warm every person into decide's snapshot.
  for (;;) {
    const r = (await (await fetch(`${wren.url}/api/projects/${projectId}/persons/?limit=1`, { headers: auth })).json()) as { count: number }
    if (r.count >= personCount) break
    await new Promise((res) => setTimeout(res, 200))
  }
  const bodies = ids.map((id) =>
    Buffer.from(
      JSON.stringify({
        token: wren.projectKey,
        distinct_id: id,
        groups: {},
        person_properties: { $lib: 'posthog-node' },
        geoip_disable: true,
      }),
    ),
  )
  for (const body of bodies)
    await fetch(`${wren.url}/flags/?v=2`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  const sample = Buffer.from(
    await (
      await fetch(`${wren.url}/flags/?v=2`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bodies[1] })
    ).arrayBuffer(),
  )
  // What the process spends with no request at all (timers, lag sampling, engine threads): divided by the
  // request rate, it is part of each request's CPU figure, the larger the fewer requests a run answers.
  const idleFrom = cpuSeconds(wren.child.pid)
  await sleep(3_000)
  const idleCores = (cpuSeconds(wren.child.pid) - idleFrom) / 3
  const answerFile = path.join(tmpdir(), `wren-bench-decide-answer-${process.pid}.json`)
  writeFileSync(answerFile, sample)
  hello = await startHelloWorld(answerFile)
  const flagCount = Object.keys((JSON.parse(sample.toString()) as { flags: Record<string, unknown> }).flags).length
  console.log(
    `decide: 50 flags, ${personCount} warm persons, ${connections} connections, ${seconds}s per run, ${trials} trial(s); ${flagCount} flags per answer (${sample.length} bytes)`,
  )

  const headers = { 'content-type': 'application/json' }
  const helloBodies = [Buffer.from(JSON.stringify({ hello: 'world' }))]
  const targets = {
    decide: { server: wren, path: '/flags/?v=2', bodies },
    bytes: { server: hello, path: '/answer', bodies },
    hello: { server: hello, path: '/e', bodies: helloBodies },
  }
  const runs: Record<keyof typeof targets, Measured[]> = { decide: [], bytes: [], hello: [] }
  const atRate: Array<Measured & RateResult> = []
  const bytesAtRate: Array<Measured & RateResult> = []
  const burst: Measured[] = []
  const bytesBurst: Measured[] = []
  for (const t of Object.values(targets))
    await runLoad({ url: t.server.url, path: t.path, bodies: t.bodies, headers, connections, seconds: 2 })
  // Interleaved trials: a burst of load from elsewhere on the machine bends every figure of a trial alike.
  for (let trial = 0; trial < trials; trial++) {
    for (const [name, t] of Object.entries(targets) as Array<[keyof typeof targets, (typeof targets)['decide']]>)
      runs[name].push(
        await measured(t.server.child.pid, () =>
          runLoad({
            url: t.server.url,
            path: t.path,
            bodies: t.bodies,
            headers,
            connections,
            seconds,
            recordLatencies: true,
            serverPid: t.server.child.pid,
          }),
        ),
      )
    for (const [t, into, bursts] of [
      [targets.decide, atRate, burst],
      [targets.bytes, bytesAtRate, bytesBurst],
    ] as const) {
      const load = { url: t.server.url, path: t.path, bodies: t.bodies, headers, connections, seconds, serverPid: t.server.child.pid }
      into.push(await measured(t.server.child.pid, () => runAtRate({ ...load, connections: OPEN_LOOP_CONNECTIONS, rate: fixedRate })))
      bursts.push(await measured(t.server.child.pid, () => runLoad({ ...load, overallRate: fixedRate, recordLatencies: true })))
    }
  }
  const rate = (name: keyof typeof targets) => median(runs[name].map((r) => r.requestsPerSecond))
  const cpu = (name: keyof typeof targets) => median(runs[name].map((r) => r.cpuMicros))
  console.log(
    `wren idle before the runs: ${idleCores.toFixed(3)} cores (all threads), ${((idleCores * 1e6) / rate('decide')).toFixed(1)} µs per request at the rate below`,
  )
  console.log(summary('wren /flags?v=2', runs.decide))
  console.log(summary('pre-encoded answer', runs.bytes))
  console.log(summary('hello-world POST', runs.hello))
  console.log(
    `at ${fmt(fixedRate)} req/s, open loop (evenly spaced over ${OPEN_LOOP_CONNECTIONS} keep-alive connections; latency from each request's due time):`,
  )
  const generator = (rs: RateResult[]) =>
    `   generator's timer late by p99 ${ms(median(rs.map((r) => r.timerLagP99)))}, at most ${Math.max(...rs.map((r) => r.peakInFlight))} requests in flight`
  console.log(summary(`wren at ${fmt(fixedRate)} req/s`, atRate) + generator(atRate))
  console.log(summary(`pre-encoded at ${fmt(fixedRate)} req/s`, bytesAtRate) + generator(bytesAtRate))
  console.log(
    `as a burst (autocannon overallRate ${fmt(fixedRate)}: each connection's quota back to back at the start of every second; the figure before the open loop):`,
  )
  console.log(summary(`wren, burst`, burst))
  console.log(summary(`pre-encoded, burst`, bytesBurst))
  console.log(
    `ratios: decide / pre-encoded ${x(rate('decide') / rate('bytes'))} (target >= 0.70x), decide / hello-world ${x(rate('decide') / rate('hello'))} (target >= 0.50x); p99 at ${fmt(fixedRate)} req/s ${ms(median(atRate.map((r) => percentile(r.latencies, 99))))} (target <= 5 ms; pre-encoded ${ms(median(bytesAtRate.map((r) => percentile(r.latencies, 99))))})`,
  )
  console.log(
    `server CPU per request: pre-encoded / decide ${x(cpu('bytes') / cpu('decide'))}, hello-world / decide ${x(cpu('hello') / cpu('decide'))}`,
  )
} catch (err) {
  console.error(`wren (exit ${wren.child.exitCode}, signal ${wren.child.signalCode}) output:\n${wren.output().slice(-4000)}`)
  throw err
} finally {
  await wren.stop()
  await hello?.stop()
}
