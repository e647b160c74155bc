// Decide benchmark: POST /flags?v=2 (what posthog-node and posthog-js send) with 50 flags — rollouts,
// multivariate, property conditions — on warm persons, beside a hello-world Fastify POST in the same run.
// Wren runs as `wren start` in its own process; autocannon loads it from this one.
//   node --import tsx bench/decide.ts [--seconds 10] [--connections 50] [--persons 2000]
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { failures, fmt, ms, percentile, startHelloWorld, startWrenServer, x, type LoadResult, runLoad } from './support'

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : fallback
}
const seconds = arg('seconds', 10)
const connections = arg('connections', 50)
const personCount = arg('persons', 2000)

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

/** CPU seconds (user + system) a process has used so far; null where /proc is not available. */
function cpuSeconds(pid: number | undefined): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100 // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return null
  }
}

/** A load run with the server's own CPU time per answered request: a figure that contention on the machine bends less. */
async function measured(pid: number | undefined, load: Parameters<typeof runLoad>[0]): Promise<LoadResult & { cpuMicros: number | null }> {
  const before = cpuSeconds(pid)
  const r = await runLoad(load)
  const after = cpuSeconds(pid)
  return { ...r, cpuMicros: before === null || after === null || r.ok === 0 ? null : ((after - before) * 1e6) / r.ok }
}

function summary(name: string, r: LoadResult & { cpuMicros: number | null }): string {
  const cpu = r.cpuMicros === null ? '' : `   server CPU ${r.cpuMicros.toFixed(0)} µs/request`
  return `${name.padEnd(22)} ${fmt(r.requestsPerSecond).padStart(8)} req/s   p50 ${ms(percentile(r.latencies, 50))}   p99 ${ms(percentile(r.latencies, 99))}${cpu}${failures(r)}`
}

const personalKey = `phx_bench${randomBytes(12).toString('hex')}`
const wren = await startWrenServer(undefined, { WREN_PERSONAL_API_KEY: personalKey })
const hello = await startHelloWorld()
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
  const sample = (await (
    await fetch(`${wren.url}/flags/?v=2`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bodies[1] })
  ).json()) as { flags: Record<string, unknown> }
  console.log(
    `decide: 50 flags, ${personCount} warm persons, ${connections} connections, ${seconds}s per run; ${Object.keys(sample.flags).length} flags per answer`,
  )

  const headers = { 'content-type': 'application/json' }
  await runLoad({ url: wren.url, path: '/flags/?v=2', bodies, headers, connections, seconds: 2 })
  const decide = await measured(wren.child.pid, {
    url: wren.url,
    path: '/flags/?v=2',
    bodies,
    headers,
    connections,
    seconds,
    recordLatencies: true,
  })
  const helloBodies = [Buffer.from(JSON.stringify({ hello: 'world' }))]
  await runLoad({ url: hello.url, path: '/e', bodies: helloBodies, headers, connections, seconds: 2 })
  const reference = await measured(hello.child.pid, {
    url: hello.url,
    path: '/e',
    bodies: helloBodies,
    headers,
    connections,
    seconds,
    recordLatencies: true,
  })
  console.log(summary('wren /flags?v=2', decide))
  console.log(summary('hello-world POST', reference))
  console.log(`ratio ${x(decide.requestsPerSecond / reference.requestsPerSecond)} (budget: >= 15,000 req/s, >= 0.70x, p99 <= 5 ms)`)
  if (decide.cpuMicros !== null && reference.cpuMicros !== null)
    console.log(`server CPU per request: hello-world / decide = ${x(reference.cpuMicros / decide.cpuMicros)}`)
} finally {
  await wren.stop()
  await hello.stop()
}
