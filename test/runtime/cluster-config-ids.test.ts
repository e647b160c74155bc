// Configuration written through two `wren api` processes at once, on one shared storage (the ClickHouse
// HTTP test fixture, test/support/clickhouse-http-server.ts) and a real Kafka broker: every project, key,
// flag, action and cohort gets its own id and every write is kept; updates of one project or flag sent to
// both processes at once all stay (compare-and-set on the version, platform/versioned-update.ts).
//
// Skipped until configuration ids are unique across api processes (issue 10, "Fix": today flag ids come
// from a counter in each process's memory, and project, action and cohort ids from max(id)+1 read before
// the insert, so two processes hand out the same id and the later write replaces the earlier one). The
// lead enables it when that fix lands.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { api, spawnWren, waitFor, type WrenProcess } from '../support/wren'
import { kafkaUnavailableReason, kafkaForThisFile, type FileKafka } from '../support/kafka'
import { startClickHouseFixture, type ClickHouseFixture } from '../support/clickhouse-http'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'
import { skipReason } from '../support/skip'

const unavailable = skipReason('cluster tests', kafkaUnavailableReason())

describe.skipIf(unavailable !== null)(
  `configuration written through two api processes at once${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    let kafka: FileKafka
    let clickhouse: ClickHouseFixture
    const dirs: string[] = []
    const apis: WrenProcess[] = []
    const keys = { WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX), WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX) }

    const spawnApi = async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'wren-api-'))
      dirs.push(dir)
      const p = await spawnWren(
        dir,
        {
          ...keys,
          ...kafka.env,
          KAFKA_PARTITIONS: '4',
          ...clickhouse.env,
        },
        'api',
      )
      apis.push(p)
      return p
    }
    const call = (p: WrenProcess) => api({ url: p.url, personalKey: keys.WREN_PERSONAL_API_KEY })

    beforeAll(async () => {
      ;[kafka, clickhouse] = await Promise.all([kafkaForThisFile(), startClickHouseFixture()])
      await spawnApi() // creates the tables and the project from the keys; the second finds them
      await spawnApi()
    }, 180_000)

    afterAll(async () => {
      await Promise.all(apis.map((p) => p.stop()))
      await Promise.all([kafka?.stop(), clickhouse?.stop()])
      await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })))
    })

    const kinds = {
      projects: { route: '/api/projects/', body: (name: string) => ({ name }), name: (r: any) => r.name },
      keys: { route: '/api/personal_api_keys/', body: (name: string) => ({ label: name, scopes: ['*'] }), name: (r: any) => r.label },
      flags: {
        route: '/api/projects/1/feature_flags/',
        body: (name: string) => ({ key: name, filters: { groups: [{ rollout_percentage: 100 }] } }),
        name: (r: any) => r.key,
      },
      actions: {
        route: '/api/projects/1/actions/',
        body: (name: string) => ({ name, steps: [{ event: name }] }),
        name: (r: any) => r.name,
      },
      cohorts: {
        route: '/api/projects/1/cohorts/',
        body: (name: string) => ({
          name,
          filters: { properties: { type: 'AND', values: [{ key: 'email', value: `${name}@example.com`, type: 'person' }] } },
        }),
        name: (r: any) => r.name,
      },
    }

    it('never hand out the same id and lose no write', async () => {
      const perProcess = 5
      const created = await Promise.all(
        Object.entries(kinds).map(async ([kind, k]) => {
          const responses = await Promise.all(
            apis.flatMap((p, n) => Array.from({ length: perProcess }, (_, i) => call(p)('POST', k.route, k.body(`${kind}-${n}-${i}`)))),
          )
          return { kind, k, responses }
        }),
      )
      for (const { kind, k, responses } of created) {
        expect
          .soft(
            responses.map((r) => r.status),
            kind,
          )
          .toEqual(responses.map(() => 201))
        const ids = responses.map((r) => r.body.id)
        expect.soft(new Set(ids).size, `${kind} ids: ${ids.join(', ')}`).toBe(ids.length)
        // Each process lists every write, each under the id it was answered with.
        for (const p of apis) {
          let listed: any[] = []
          await waitFor(
            async () => {
              const rows = ((await call(p)('GET', `${k.route}?limit=1000`)).body?.results ?? []) as any[]
              listed = rows.filter((r) => String(k.name(r)).startsWith(`${kind}-`))
              return listed.length >= responses.length
            },
            { timeoutMs: 5_000, what: `${kind} listed by ${p.url}` },
          ).catch(() => {}) // the assertion below shows what is missing
          const byName = Object.fromEntries(listed.map((r) => [k.name(r), r.id]))
          expect.soft(byName, `${kind} listed by ${p.url}`).toEqual(Object.fromEntries(responses.map((r) => [k.name(r.body), r.body.id])))
        }
      }
    })

    it('keep both of two PATCHes of different fields sent to two processes at once', async () => {
      const both = async (url: string, bodies: [object, object]) => {
        const answers = await Promise.all(apis.map((p, i) => call(p)('PATCH', url, bodies[i])))
        expect(answers.map((a) => a.status)).toEqual([200, 200])
      }
      const seenByBoth = (url: string, check: (body: any) => boolean, what: string) =>
        Promise.all(apis.map((p) => waitFor(async () => check((await call(p)('GET', url)).body), { timeoutMs: 5_000, what })))
      for (let i = 0; i < 5; i++) {
        const on = i % 2 === 0
        await both('/api/projects/1/', [{ autocapture_opt_out: on }, { session_recording_opt_in: on }])
        await seenByBoth(
          '/api/projects/1/',
          (p) => p.autocapture_opt_out === on && p.session_recording_opt_in === on,
          `project PATCHes of round ${i} both kept`,
        )
      }
      const flag = await call(apis[0])('POST', '/api/projects/1/feature_flags/', { key: 'raced-across', rollout_percentage: 10 })
      const url = `/api/projects/1/feature_flags/${flag.body.id}/`
      await seenByBoth(url, (f) => f?.key === 'raced-across', 'the flag known to both processes')
      await both(url, [{ name: 'Raced' }, { active: false }])
      await seenByBoth(url, (f) => f.name === 'Raced' && f.active === false && f.version === 3, 'both flag PATCHes kept')
    })
  },
)
