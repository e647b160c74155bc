// SIGKILL at random moments, over several trials on one data directory: after every restart, each event
// capture acknowledged is stored exactly once, and persons built from identify/alias/$set survive; beside
// the events, posthog-js's session-recording snapshots flow to /s/, and each one acknowledged is stored
// exactly once in its session.
// `npm test` runs a few trials; `npm run stress` runs many (WREN_CRASH_TRIALS). The seed is printed, and
// WREN_CRASH_SEED replays a failing run's kill moments.
import { afterAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { api, spawnWren, waitFor, type WrenProcess } from '../support/wren'
import { seeded } from '../support/random'
import { interactions, pageLoad, posthogJsRequest, snapshotBatch } from '../support/rrweb'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'

const TRIALS = Number(process.env.WREN_CRASH_TRIALS ?? 3)
const SEED = Number(process.env.WREN_CRASH_SEED ?? Date.now() % 1_000_000)
const USERS = 30
const SESSIONS = 6

describe(`crash trials (${TRIALS} SIGKILLs at random moments, seed ${SEED})`, () => {
  let dataDir = ''
  let wren: WrenProcess | null = null
  afterAll(async () => {
    await wren?.stop('SIGKILL')
    if (dataDir && !process.env.WREN_KEEP_DATA) await rm(dataDir, { recursive: true, force: true })
    else if (dataDir) console.log('kept data dir', dataDir)
  })

  it(
    'every acknowledged event is stored exactly once and persons stay whole',
    async () => {
      const random = seeded(SEED)
      dataDir = await mkdtemp(path.join(tmpdir(), 'wren-trials-'))
      const env = {
        WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX),
        WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX),
        WREN_INGEST_BATCH: '300',
        // Parts of a batch (ingestion/person-work.ts), and the next batch worked while the last part is
        // stored (processor.ts): a kill can fall between parts, and with a batch worked ahead.
        WREN_INGEST_PART: '100',
        // Recordings batches in several parts, so that kills land between a batch's parts too.
        WREN_RECORDINGS_PART: '4',
      }
      const acknowledged = new Set<string>()
      let seq = 0

      // Each user is anonymous first, then identified as `user-N` (a merge the processor must redo
      // exactly after a replay), with $set and $set_once along the way and a group on some events.
      const eventFor = (n: number) => {
        const u = n % USERS
        const identified = n >= USERS * 4
        const base = { uuid: randomUUID(), timestamp: new Date(Date.UTC(2026, 0, 1) + n).toISOString() }
        if (n >= USERS * 4 && n < USERS * 5) {
          return {
            ...base,
            event: '$identify',
            distinct_id: `user-${u}`,
            properties: { $anon_distinct_id: `anon-${u}`, $set: { email: `u${u}@example.com` } },
          }
        }
        return {
          ...base,
          event: 'tick',
          distinct_id: identified ? `user-${u}` : `anon-${u}`,
          properties: { n, $set: { last_n: n }, $set_once: { first_n: n }, ...(n % 7 === 0 ? { $groups: { company: `c${n % 5}` } } : {}) },
        }
      }
      const send = async (url: string) => {
        const batch = Array.from({ length: 20 }, () => eventFor(seq++))
        const res = await fetch(`${url}/batch/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ api_key: env.WREN_PROJECT_API_KEY, batch }),
        }).catch(() => null)
        if (res?.status === 200) for (const e of batch) acknowledged.add(e.uuid)
        return res?.status === 200
      }
      // Recordings: each /s/ request is one chunk of a session as posthog-js sends it (the page load first,
      // then interactions), every rrweb event with a timestamp of its own, to find it again.
      const snapshotsAcknowledged = new Map<string, number[]>()
      const started = new Set<string>()
      let snapshotSeq = 0
      // Recent: a recording older than the project's retention is not shown.
      const epoch = Date.now()
      const sendSnapshot = async (url: string) => {
        const n = snapshotSeq++
        const sessionId = `trial-session-${n % SESSIONS}`
        const at = epoch + n * 10
        const events = started.has(sessionId)
          ? interactions(at, 3, { compressed: n % 2 === 0 })
          : [...pageLoad(at, { compressed: true }), ...interactions(at + 2, 3)]
        started.add(sessionId)
        const { path, body } = posthogJsRequest(
          snapshotBatch({ token: env.WREN_PROJECT_API_KEY, sessionId, distinctId: `user-${n % USERS}` }, [events]),
        )
        const res = await fetch(url + path, { method: 'POST', body: new Uint8Array(body) }).catch(() => null)
        if (res?.status !== 200) return false
        snapshotsAcknowledged.set(sessionId, [...(snapshotsAcknowledged.get(sessionId) ?? []), ...events.map((e) => e.timestamp)])
        return true
      }
      const flood = async (url: string, until: () => boolean) => {
        await Promise.all([
          ...Array.from({ length: 3 }, async () => {
            while (!until()) if (!(await send(url))) return
          }),
          (async () => {
            while (!until()) if (!(await sendSnapshot(url))) return
          })(),
        ])
      }

      for (let trial = 0; trial < TRIALS; trial++) {
        wren = await spawnWren(dataDir, env)
        const current = wren
        if (trial === 0) {
          const optIn = await api({ url: current.url, personalKey: env.WREN_PERSONAL_API_KEY })('PATCH', '/api/projects/1/', {
            session_recording_opt_in: true,
          })
          expect(optIn.status).toBe(200)
        }
        let killed = false
        const flooding = flood(current.url, () => killed)
        // Kill somewhere between the first acknowledgement and a few batches in: mid-append, mid-batch,
        // between batch and commit, wherever the moment falls.
        const start = acknowledged.size
        await waitFor(async () => acknowledged.size > start, { timeoutMs: 30_000, what: `trial ${trial}: first acknowledged event` })
        await new Promise((r) => setTimeout(r, 50 + random() * 1500))
        await current.stop('SIGKILL')
        killed = true
        await flooding
      }

      // A last clean run drains everything the killed processes had accepted. An $identify that was in
      // flight when a process died was never acknowledged (and may be lost): identify everyone again.
      wren = await spawnWren(dataDir, env)
      const identifies = Array.from({ length: USERS }, (_, u) => ({ ...eventFor(USERS * 4 + u), uuid: randomUUID() }))
      const res = await fetch(`${wren.url}/batch/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: env.WREN_PROJECT_API_KEY, batch: identifies }),
      })
      expect(res.status).toBe(200)
      for (const e of identifies) acknowledged.add(e.uuid)
      let done = false
      const last = flood(wren.url, () => done)
      await waitFor(async () => seq > USERS * 6, { timeoutMs: 30_000, what: 'every user identified' })
      done = true
      await last

      const call = api({ url: wren.url, personalKey: env.WREN_PERSONAL_API_KEY })
      let missing: string[] = []
      let rows: Array<{ id: string; distinct_id: string; person_id: string }> = []
      await waitFor(
        async () => {
          rows = []
          let next: string | null = `/api/projects/1/events/?limit=10000`
          while (next) {
            const res = await call('GET', next.replace(/^https?:\/\/[^/]+/, ''))
            rows.push(...(res.body.results as typeof rows))
            next = res.body.next
          }
          const have = new Set(rows.map((e) => e.id))
          missing = [...acknowledged].filter((uuid) => !have.has(uuid))
          return missing.length === 0
        },
        { timeoutMs: 90_000, intervalMs: 500, what: `all ${acknowledged.size} acknowledged events stored (seed ${SEED})` },
      ).catch(() => undefined)
      if (missing.length && process.env.WREN_KEEP_DATA) console.log('missing', JSON.stringify(missing.slice(0, 5)), 'of', missing.length)
      expect(missing.length, `lost events (seed ${SEED})`).toBe(0)
      const ids = rows.map((e) => e.id)
      expect(ids.length - new Set(ids).size, `duplicated events (seed ${SEED})`).toBe(0)

      // One person per user, holding both its anonymous and its identified id; events point at it.
      const persons = await call('GET', `/api/projects/1/persons/?limit=1000`)
      expect(persons.body.count).toBe(USERS)
      const personOf = new Map<string, string>()
      for (const p of persons.body.results as Array<{ uuid: string; distinct_ids: string[]; properties: Record<string, unknown> }>) {
        const u = p.distinct_ids[0].slice('anon-'.length) // both prefixes have 5 characters
        expect(p.distinct_ids.sort()).toEqual([`anon-${u}`, `user-${u}`])
        expect(p.properties.email).toBe(`u${u}@example.com`)
        for (const d of p.distinct_ids) personOf.set(d, p.uuid)
      }
      const late = rows.filter((e) => e.distinct_id.startsWith('user-'))
      for (const e of late) expect(e.person_id).toBe(personOf.get(e.distinct_id))

      // Every acknowledged snapshot is in its session, none twice (a request the kill cut off may be stored
      // without having been acknowledged, as with events).
      expect(snapshotsAcknowledged.size).toBe(SESSIONS)
      const storedOf = async (session: string): Promise<number[]> => {
        const base = `/api/projects/1/session_recordings/${session}/snapshots`
        const listed = await call('GET', base)
        if (listed.status !== 200) return []
        const count = (listed.body.sources as unknown[]).length
        const timestamps: number[] = []
        for (let from = 0; from < count; from += 20) {
          const res = await call('GET', `${base}?source=blob_v2&start_blob_key=${from}&end_blob_key=${Math.min(from + 19, count - 1)}`)
          for (const line of res.text.trimEnd().split('\n'))
            timestamps.push((JSON.parse(line) as [string, { timestamp: number }])[1].timestamp)
        }
        return timestamps
      }
      const stored = new Map<string, number[]>()
      const lostOf = (session: string) => snapshotsAcknowledged.get(session)!.filter((ts) => !stored.get(session)?.includes(ts))
      await waitFor(
        async () => {
          for (const session of snapshotsAcknowledged.keys()) stored.set(session, await storedOf(session))
          return [...snapshotsAcknowledged.keys()].every((session) => lostOf(session).length === 0)
        },
        { timeoutMs: 90_000, intervalMs: 1_000, what: `all acknowledged snapshots stored (seed ${SEED})` },
      ).catch(() => undefined)
      for (const [session, acked] of snapshotsAcknowledged) {
        const lost = lostOf(session).map((ts) => (ts - epoch) / 10)
        if (lost.length)
          console.log(
            session,
            'acknowledged',
            acked.length,
            'stored',
            stored.get(session)?.length,
            'lost (request numbers)',
            JSON.stringify(lost),
            'of',
            snapshotSeq,
          )
        expect(lost.length, `lost snapshots of ${session} (seed ${SEED})`).toBe(0)
        const all = stored.get(session)!
        expect(all.length - new Set(all).size, `duplicated snapshots of ${session} (seed ${SEED})`).toBe(0)
      }
    },
    (150 + TRIALS * 30) * 1000,
  )
})
