// Cluster mode with every role in its own process, all sharing one storage through the real HTTP client
// path (CLICKHOUSE_URL): `wren ingest`, `wren capture`, two `wren api`, a `wren decide` and `wren recordings` on a
// real Kafka broker. The storage is the ClickHouse HTTP test fixture (test/support/clickhouse-http-server.ts: one
// chDB behind ClickHouse's HTTP interface), since no ClickHouse server can be installed on these machines.
//
// One file, one set of processes for three subjects (each process start costs seconds of CPU): events, persons,
// flags, surveys and keys read across processes; session recordings through a SIGKILL of the recordings process (`wren
// capture` takes snapshots on /s/ and appends them to Kafka, `wren recordings` stores them, `wren api` serves
// them: every acknowledged snapshot is listed and served exactly once); and configuration written through both
// api processes at once: every project, key, flag, action and cohort gets its own id and every write is kept;
// updates of one project or flag sent to both processes at once all stay (compare-and-set on the version,
// platform/versioned-update.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { api, spawnWren, waitFor, type WrenProcess } from '../support/wren'
import { kafkaUnavailableReason, kafkaForThisFile, type FileKafka } from '../support/kafka'
import { startClickHouseFixture, type ClickHouseFixture } from '../support/clickhouse-http'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'
import { skipReason } from '../support/skip'
import { launchChromium } from '../support/browser'

const unavailable = skipReason('cluster tests', kafkaUnavailableReason())

describe.skipIf(unavailable !== null)(
  `roles in separate processes on one ClickHouse over HTTP and one Kafka${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    let kafka: FileKafka
    let clickhouse: ClickHouseFixture
    const dirs: string[] = []
    const processes: WrenProcess[] = []
    const keys = { WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX), WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX) }
    let capture: WrenProcess
    let apis: WrenProcess[] = []
    let decide: WrenProcess

    const spawn = async (role: string, extra: Record<string, string> = {}) => {
      const dir = await mkdtemp(path.join(tmpdir(), `wren-${role}-`))
      dirs.push(dir)
      const env = {
        ...keys,
        ...kafka.env,
        KAFKA_PARTITIONS: '4',
        KAFKA_SESSION_TIMEOUT_MS: '6000',
        ...clickhouse.env,
        // The recordings process: small batches, so its failpoint fires mid-stream.
        WREN_RECORDINGS_BATCH: '5',
        WREN_RECORDINGS_WAIT_MS: '20',
        // The recordings test's last wait is on the lag the recordings process samples: every second, not every 5.
        KAFKA_LAG_INTERVAL_MS: '1000',
        ...extra,
      }
      const p = await spawnWren(dir, env, role)
      processes.push(p)
      return p
    }
    const call = (p: WrenProcess, key = keys.WREN_PERSONAL_API_KEY) => api({ url: p.url, personalKey: key })
    const send = async (events: Array<Record<string, unknown>>) => {
      const res = await fetch(`${capture.url}/batch/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: keys.WREN_PROJECT_API_KEY, batch: events }),
      })
      expect(res.status).toBe(200)
    }
    const decideFlags = async (distinctId: string) => {
      const res = await fetch(`${decide.url}/flags/?v=2`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: keys.WREN_PROJECT_API_KEY, distinct_id: distinctId }),
      })
      return ((await res.json()) as { flags: Record<string, { enabled: boolean }> }).flags
    }

    /** Waits until ingestion has stored the person of `distinctId` (read through an api process). */
    const personVisible = (distinctId: string) =>
      waitFor(
        async () => (await call(apis[0])('GET', `/api/environments/1/persons/?distinct_id=${distinctId}`)).body?.results?.length === 1,
        { timeoutMs: 60_000, what: `the person ${distinctId}` },
      )

    beforeAll(async () => {
      ;[kafka, clickhouse] = await Promise.all([kafkaForThisFile(), startClickHouseFixture({ user: 'wren', password: 'fixture secret' })])
      // The first process creates the database, the tables and the project from the keys; the others find them.
      await spawn('ingest')
      ;[capture, apis[0], apis[1], decide] = await Promise.all([spawn('capture'), spawn('api'), spawn('api'), spawn('decide')])
    }, 180_000)

    afterAll(async () => {
      await Promise.all(processes.map((p) => p.stop()))
      await Promise.all([kafka?.stop(), clickhouse?.stop()])
      await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })))
    })

    it('events sent to the capture process are read through both api processes', async () => {
      const batch = Array.from({ length: 30 }, (_, i) => ({
        event: 'shared_event',
        distinct_id: `shared-${i % 3}`,
        uuid: randomUUID(),
        properties: { i, $set: { last_i: i } },
      }))
      await send(batch)
      for (const p of apis) {
        const events = await waitFor(
          async () => {
            const res = await call(p)('GET', '/api/projects/1/events/?event=shared_event&limit=100')
            return res.body?.results?.length === 30 ? (res.body.results as Array<{ id: string }>) : false
          },
          { timeoutMs: 60_000, what: `30 events through ${p.url}` },
        )
        expect(events.map((e) => e.id).sort()).toEqual(batch.map((e) => e.uuid).sort())
        const withLastI = encodeURIComponent(JSON.stringify([{ key: 'last_i', operator: 'is_set', type: 'person' }]))
        const persons = await call(p)('GET', `/api/environments/1/persons/?properties=${withLastI}&limit=100`)
        expect(persons.body.results.flatMap((r: { distinct_ids: string[] }) => r.distinct_ids).sort()).toEqual([
          'shared-0',
          'shared-1',
          'shared-2',
        ])
      }
    })

    it('a person changed through one api process is seen through the other', async () => {
      await send([{ event: '$identify', distinct_id: 'patched', properties: { $set: { plan: 'free' } } }])
      const person = await waitFor(
        async () => {
          const res = await call(apis[0])('GET', '/api/environments/1/persons/?distinct_id=patched')
          return res.body?.results?.[0] as { uuid: string } | undefined
        },
        { timeoutMs: 60_000, what: 'the captured person' },
      )
      const patched = await call(apis[0])('PATCH', `/api/environments/1/persons/${person.uuid}/`, { properties: { plan: 'pro' } })
      expect(patched.status).toBe(200)
      expect(patched.body.properties).toMatchObject({ plan: 'pro' })
      const seen = await call(apis[1])('GET', `/api/environments/1/persons/${person.uuid}/`)
      expect(seen.body.properties).toMatchObject({ plan: 'pro' })
    })

    it('a flag and a personal key made through one api process work through the other and through decide', async () => {
      const key = await call(apis[0])('POST', '/api/personal_api_keys/', { label: 'made on api 0', scopes: ['feature_flag:read'] })
      expect(key.status).toBe(201)
      const flag = await call(apis[1])('POST', '/api/projects/1/feature_flags/', {
        key: 'shared-pro',
        filters: { groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }] }] },
      })
      expect(flag.status).toBe(201)
      await waitFor(
        async () =>
          (await call(apis[0], key.body.value)('GET', `/api/projects/1/feature_flags/${flag.body.id}/`)).body?.key === 'shared-pro',
        {
          what: "api 0 to serve api 1's flag with api 0's new key",
        },
      )
      // Decide reads a person it has not been asked about from the shared storage.
      await send([{ event: '$identify', distinct_id: 'decided', properties: { $set: { plan: 'pro' } } }])
      await personVisible('decided')
      await waitFor(async () => (await decideFlags('someone-else'))['shared-pro']?.enabled === false, {
        what: 'decide to serve the new flag',
      })
      expect((await decideFlags('decided'))['shared-pro']?.enabled).toBe(true)

      expect((await call(apis[0])('PATCH', `/api/projects/1/feature_flags/${flag.body.id}/`, { active: false })).status).toBe(200)
      await waitFor(async () => (await decideFlags('decided'))['shared-pro'] === undefined, { what: 'decide to drop the deactivated flag' })
    })

    it('a survey launched through one api process is what decide hands posthog-js; stopped through the other, it is not', async () => {
      const survey = await call(apis[1])('POST', '/api/projects/1/surveys/', {
        name: 'Across processes',
        type: 'popover',
        start_date: new Date().toISOString(),
        questions: [{ type: 'open', question: 'Seen from decide?' }],
      })
      expect(survey.status, survey.text).toBe(201)
      const running = async () => {
        const res = await fetch(`${decide.url}/api/surveys/?token=${keys.WREN_PROJECT_API_KEY}`)
        return ((await res.json()) as { surveys: Array<{ id: string }> }).surveys.map((s) => s.id)
      }
      await waitFor(async () => (await running()).includes(survey.body.id), { what: 'decide to hand out the launched survey' })
      const stopped = await call(apis[0])('PATCH', `/api/projects/1/surveys/${survey.body.id}/`, { end_date: new Date().toISOString() })
      expect(stopped.status, stopped.text).toBe(200)
      await waitFor(async () => !(await running()).includes(survey.body.id), { what: 'decide to drop the stopped survey' })
    })

    // Skipped until decide keeps its snapshot from the log (issue 10, "Fix": a standalone `wren decide` sees
    // a person's $set sent to a capture process). Today a decide process learns person changes only from an
    // ingestion processor in its own process, so a person it has already answered for keeps its old
    // properties until it restarts: this test times out waiting for the flag to turn on.
    it('decide follows a $set for a person it has already answered for', async () => {
      const flag = await call(apis[0])('POST', '/api/projects/1/feature_flags/', {
        key: 'follows-set',
        filters: { groups: [{ properties: [{ key: 'plan', value: 'team', type: 'person' }] }] },
      })
      expect(flag.status).toBe(201)
      await send([{ event: '$identify', distinct_id: 'warm', properties: { $set: { plan: 'free' } } }])
      await personVisible('warm')
      await waitFor(async () => (await decideFlags('warm'))['follows-set']?.enabled === false, {
        what: 'decide to serve the new flag, off',
      })
      await send([{ event: '$set', distinct_id: 'warm', properties: { $set: { plan: 'team' } } }])
      await waitFor(async () => (await decideFlags('warm'))['follows-set']?.enabled === true, {
        what: "decide to follow the person's $set",
      })
    })

    // Session recordings.
    const SESSIONS = 4
    const snapshotsFrom = Date.now() - 60_000
    /** Posts one snapshot (a mouse move carrying `n`) of `session`; true when capture acknowledged it. */
    const sendSnapshot = async (session: string, n: number): Promise<boolean> => {
      const res = await fetch(`${capture.url}/s/`, {
        method: 'POST',
        body: JSON.stringify([
          {
            event: '$snapshot',
            distinct_id: 'kafka-user',
            properties: {
              token: keys.WREN_PROJECT_API_KEY,
              $session_id: session,
              $window_id: 'w',
              $snapshot_data: [{ type: 3, timestamp: snapshotsFrom + n, data: { source: 1, n } }],
            },
          },
        ]),
      })
      return res.status === 200
    }
    /** The `n` of every stored event of a session, in the order the snapshots API serves them. */
    const stored = async (session: string): Promise<number[]> => {
      const base = `/api/projects/1/session_recordings/${session}/snapshots`
      const listed = await call(apis[0])('GET', base)
      if (listed.status !== 200) return []
      const count = (listed.body.sources as unknown[]).length
      if (count === 0) return []
      const res = await call(apis[0])('GET', `${base}?source=blob_v2&start_blob_key=0&end_blob_key=${count - 1}`)
      return res.text
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as [string, { data: { n: number } }])[1].data.n)
    }

    it('stores every acknowledged snapshot once through a SIGKILL of the recordings process, and the API lists and serves them', async () => {
      expect((await call(apis[0])('PATCH', '/api/projects/1/', { session_recording_opt_in: true })).status).toBe(200)
      // The capture process hears the opt-in from the configuration topic; until then it drops snapshots.
      const acknowledged = new Map<string, number[]>()
      const accepted = async () => {
        const text = await (await fetch(`${capture.url}/_metrics`)).text()
        return Number(/^wren_recording_snapshots_total (\d+)/m.exec(text)?.[1] ?? 0)
      }
      let seq = 0
      await waitFor(async () => (await sendSnapshot('probe', seq++)) && (await accepted()) > 0, { what: 'capture to hear the opt-in' })
      acknowledged.set('probe', [seq - 1])
      const sendMany = async (count: number) => {
        for (let i = 0; i < count; i++) {
          const n = seq++
          const session = `kafka-session-${n % SESSIONS}`
          expect(await sendSnapshot(session, n)).toBe(true)
          acknowledged.set(session, [...(acknowledged.get(session) ?? []), n])
        }
      }

      // The recordings process dies (SIGKILL) after its second batch is stored, before its commit.
      const dying = await spawn('recordings', { WREN_FAILPOINTS: 'recordings-crash-after-batches=2' })
      await sendMany(30)
      await waitFor(async () => dying.child.signalCode !== null, { timeoutMs: 30_000, what: 'the failpoint to fire' })
      expect(dying.child.signalCode).toBe('SIGKILL')
      // Capture goes on acknowledging while no recordings process runs.
      await sendMany(10)
      const recordings = await spawn('recordings')

      for (const [session, ns] of acknowledged) {
        const found = await waitFor(
          async () => {
            const all = await stored(session)
            return all.length >= ns.length ? all : false
          },
          { timeoutMs: 60_000, what: `${session}'s ${ns.length} snapshots` },
        )
        // Exactly once, in the order they were sent (one key per session: one partition, in append order).
        expect(found).toEqual(ns)
      }
      const list = await call(apis[0])('GET', '/api/projects/1/session_recordings/?limit=50')
      expect(list.status).toBe(200)
      expect((list.body.results as Array<{ id: string }>).map((r) => r.id).sort()).toEqual([...acknowledged.keys()].sort())
      const one = await call(apis[0])('GET', '/api/projects/1/session_recordings/kafka-session-0/')
      expect(one.body).toMatchObject({ distinct_id: 'kafka-user', mouse_activity_count: acknowledged.get('kafka-session-0')!.length })

      // The recordings process reads its group's lag from Kafka: nothing waits, it is ready.
      const ready = await waitFor(
        async () => {
          const res = await fetch(`${recordings.url}/_readyz`)
          const body = (await res.json()) as { recordings: { lag_messages: number } }
          return res.status === 200 && body.recordings.lag_messages === 0 ? body : false
        },
        { timeoutMs: 30_000, what: 'the recordings process to be ready with no lag' },
      )
      expect(ready).toMatchObject({ roles: ['recordings'], log: 'kafka', recordings: { end_offset: 41 } })
    }, 120_000)

    // Configuration written through both api processes at once (last: it changes project 1's settings).
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

    it('accounts across two api processes in Chromium: set up on one, joined on the other, removed on one and refused at once on the other', async () => {
      // The first start of the cluster printed the owner's setup link: the same link from each api process that printed one.
      const links = apis.flatMap((p) =>
        [...p.output().matchAll(/Set up the owner's account \(email and password\): (\S+)/g)].map((m) => m[1]),
      )
      expect(links.length).toBeGreaterThanOrEqual(1)
      expect(new Set(links.map((l) => new URL(l).pathname)).size).toBe(1)
      const browser = await launchChromium()
      try {
        const ownerContext = await browser.newContext({ viewport: { width: 1280, height: 860 } })
        const owner = await ownerContext.newPage()
        const setup = new URL(links[0])
        await owner.goto(`${apis[0].url}${setup.pathname}`)
        await owner.fill('#join-email', 'owner@cluster.example')
        await owner.fill('#join-password', 'cluster owner passphrase')
        await owner.click('form[aria-label="Set up the owner"] button[type=submit]')
        await owner.waitForSelector('nav.menu')
        await owner.goto(`${apis[0].url}/project/1/members`)
        await owner.fill('#invite-email', 'member@cluster.example')
        await owner.click('form[aria-label="Invite"] button[type=submit]')
        const link = new URL(await owner.locator('input[aria-label="Invite link value"]').inputValue())

        // The member accepts the invitation made on api 0 through api 1, at once, and signs in there again.
        const memberContext = await browser.newContext({ viewport: { width: 390, height: 844 } })
        const member = await memberContext.newPage()
        await member.goto(`${apis[1].url}${link.pathname}`)
        await member.fill('#join-password', 'cluster member passphrase')
        await member.click('form[aria-label="Accept the invitation"] button[type=submit]')
        await member.waitForSelector('nav.menu')
        await member.click('button.signout')
        await member.fill('#email', 'member@cluster.example')
        await member.fill('#password', 'cluster member passphrase')
        await member.click('form[aria-label="Sign in"] button[type=submit]')
        await member.waitForSelector('nav.menu')
        await member.goto(`${apis[1].url}/project/1/members`)
        await member.waitForSelector('tr[data-email="owner@cluster.example"]')
        expect(await member.locator('form[aria-label="Invite"]').count()).toBe(0)

        // Removed through api 0: the member's session on api 1 is refused at the next request, no waiting.
        await owner.reload()
        await owner.click('tr[data-email="member@cluster.example"] button:has-text("Remove")')
        await owner.waitForSelector('tr[data-email="member@cluster.example"]', { state: 'detached' })
        const cookie = (await memberContext.cookies(apis[1].url)).find((c) => c.name === 'wren_session')!
        const replayed = await fetch(`${apis[1].url}/api/users/@me/`, { headers: { cookie: `wren_session=${cookie.value}` } })
        expect(replayed.status).toBe(401)
        await member.goto(`${apis[1].url}/project/1/trends`)
        await member.waitForSelector('#email')
      } finally {
        await browser.close()
      }
    })

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
