// TEMP (not committed): in-process decide pipeline microbenchmark.
import Fastify from 'fastify'
import { FlagStore } from '../services/flags/store'
import { PersonSnapshot } from '../services/flags/snapshot'
import { FlagsService } from '../services/flags/service'
import { publicFlagRoutes } from '../services/flags/public-routes'
import { NO_COHORTS, type FeatureFlag } from '../services/flags/types'
import { systemClock } from '../services/shared/clock'

const teamId = 1
const flags: FeatureFlag[] = []
for (let i = 0; i < 50; i++) {
  const kind = i % 3
  const filters =
    kind === 0 ? { groups: [{ properties: [], rollout_percentage: (i * 7) % 100 }] }
    : kind === 1 ? { groups: [{ properties: [], rollout_percentage: 90 }], multivariate: { variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 50 }] }, payloads: { test: '{"a":1}' } }
    : { groups: [{ properties: [{ key: 'plan', value: ['pro', 'team'], operator: 'exact', type: 'person' }, { key: 'email', value: 'example', operator: 'icontains', type: 'person' }], rollout_percentage: 50 }, { properties: [{ key: 'age', value: '30', operator: 'gt', type: 'person' }] }] }
  flags.push({ id: i + 1, teamId, key: `${['rollout', 'mv', 'props'][kind]}-${i}`, name: '', filters, active: true, deleted: false, ensureExperienceContinuity: false, version: 1, evaluationRuntime: 'all', evaluationTags: [], bucketingIdentifier: null, tags: [], createdAt: '', createdBy: null, updatedAt: '', lastModifiedBy: null } as FeatureFlag)
}
const store = Object.create(FlagStore.prototype) as any
store.byTeam = new Map([[teamId, new Map(flags.map((f) => [f.id, f]))]])
store.listeners = []
const snapshot = new PersonSnapshot(null as any) as any
const ids = Array.from({ length: 2000 }, (_, i) => `bench-user-${i}`)
ids.forEach((id, i) => {
  snapshot.distinctIds.set(teamId + '\u0000' + id, `uuid-${i}`)
  snapshot.persons.set(teamId + '\u0000' + `uuid-${i}`, { uuid: `uuid-${i}`, properties: { plan: ['free', 'pro', 'team'][i % 3], email: `${id}@example.com`, age: i % 60, $initial_referrer: '$direct', $os: 'Linux' }, overrides: {} })
})
const service = new FlagsService(store, snapshot, NO_COHORTS, systemClock, null)
const project = { id: teamId, name: 'p', apiToken: 'phc_x', timezone: 'UTC', settings: {}, createdAt: '' }
const projects = { byToken: (t: string) => (t === 'phc_x' ? project : undefined) } as any
const app = Fastify({ logger: false, routerOptions: { ignoreTrailingSlash: true } })
await app.register(publicFlagRoutes, { projects, service, snapshot, cohorts: NO_COHORTS, clock: systemClock })
app.post('/hello', async () => ({ status: 'Ok' }))
await app.ready()
const bodies = ids.map((id) => JSON.stringify({ token: 'phc_x', distinct_id: id, groups: {}, person_properties: { $lib: 'posthog-node' }, geoip_disable: true }))

const mode = process.argv[2] ?? 'inject'
if (mode === 'serve') {
  await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' })
  console.log('listening', (app.server.address() as any).port)
} else {
  // Sanity: print one response.
  const one = await app.inject({ method: 'POST', url: '/flags/?v=2', headers: { 'content-type': 'application/json' }, payload: bodies[1] })
  if (process.env.SHOW) console.log(one.body.slice(0, 600))
  const n = Number(process.env.N ?? 20000)
  const measure = async (url: string, payloads: string[]) => {
    const c0 = process.cpuUsage()
    for (let i = 0; i < n; i++) await app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: payloads[i % payloads.length] })
    const c = process.cpuUsage(c0)
    return (c.user + c.system) / n
  }
  const hello: number[] = []
  const decide: number[] = []
  for (let round = 0; round < 5; round++) {
    hello.push(await measure('/hello', ['{"hello":"world"}']))
    decide.push(await measure('/flags/?v=2', bodies))
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
  console.log(`cpu µs/request (median of 5): hello ${med(hello).toFixed(1)}  decide ${med(decide).toFixed(1)}  decide-only ${(med(decide) - med(hello)).toFixed(1)}   [${decide.map((d) => d.toFixed(0)).join(' ')}]`)
  await app.close()
}
