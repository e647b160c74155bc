// Session recordings in cluster mode on a real Kafka broker, every role its own process: `wren capture`
// takes snapshots on /s/ and appends them to Kafka, `wren recordings` stores them, `wren api` serves them,
// all sharing one storage through CLICKHOUSE_URL (the ClickHouse HTTP test fixture, as in
// cluster-shared-storage.test.ts: no ClickHouse server can be installed on these machines). The
// recordings process is SIGKILLed between a batch's write and its commit and started again: every
// acknowledged snapshot is listed and served exactly once.
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
const SESSIONS = 4

describe.skipIf(unavailable !== null)(
  `session recordings through Kafka, roles in separate processes${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    let kafka: FileKafka
    let clickhouse: ClickHouseFixture
    const dirs: string[] = []
    const processes: WrenProcess[] = []
    const keys = { WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX), WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX) }
    let capture: WrenProcess
    let apiProcess: WrenProcess

    const spawn = async (role: string, extra: Record<string, string> = {}) => {
      const dir = await mkdtemp(path.join(tmpdir(), `wren-${role}-`))
      dirs.push(dir)
      const p = await spawnWren(
        dir,
        {
          ...keys,
          ...kafka.env,
          KAFKA_PARTITIONS: '2',
          KAFKA_SESSION_TIMEOUT_MS: '6000',
          ...clickhouse.env,
          WREN_RECORDINGS_BATCH: '5',
          WREN_RECORDINGS_WAIT_MS: '20',
          // The last wait is on the lag the recordings process samples: every second rather than the default 5.
          KAFKA_LAG_INTERVAL_MS: '1000',
          ...extra,
        },
        role,
      )
      processes.push(p)
      return p
    }
    const call = () => api({ url: apiProcess.url, personalKey: keys.WREN_PERSONAL_API_KEY })
    const start = Date.now() - 60_000
    /** Posts one snapshot (a mouse move carrying `n`) of `session`; true when capture acknowledged it. */
    const send = async (session: string, n: number): Promise<boolean> => {
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
              $snapshot_data: [{ type: 3, timestamp: start + n, data: { source: 1, n } }],
            },
          },
        ]),
      })
      return res.status === 200
    }
    /** The `n` of every stored event of a session, in the order the snapshots API serves them. */
    const stored = async (session: string): Promise<number[]> => {
      const base = `/api/projects/1/session_recordings/${session}/snapshots`
      const listed = await call()('GET', base)
      if (listed.status !== 200) return []
      const count = (listed.body.sources as unknown[]).length
      if (count === 0) return []
      const res = await call()('GET', `${base}?source=blob_v2&start_blob_key=0&end_blob_key=${count - 1}`)
      return res.text
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as [string, { data: { n: number } }])[1].data.n)
    }

    beforeAll(async () => {
      ;[kafka, clickhouse] = await Promise.all([kafkaForThisFile(), startClickHouseFixture({ user: 'wren', password: 'fixture secret' })])
      // The first process creates the database, the tables and the project from the keys; the others find them.
      apiProcess = await spawn('api')
      capture = await spawn('capture')
    }, 180_000)

    afterAll(async () => {
      await Promise.all(processes.map((p) => p.stop()))
      await Promise.all([kafka?.stop(), clickhouse?.stop()])
      await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })))
    })

    it('stores every acknowledged snapshot once through a SIGKILL of the recordings process, and the API lists and serves them', async () => {
      expect((await call()('PATCH', '/api/projects/1/', { session_recording_opt_in: true })).status).toBe(200)
      // The capture process hears the opt-in from the configuration topic; until then it drops snapshots.
      const acknowledged = new Map<string, number[]>()
      const accepted = async () => {
        const text = await (await fetch(`${capture.url}/_metrics`)).text()
        return Number(/^wren_recording_snapshots_total (\d+)/m.exec(text)?.[1] ?? 0)
      }
      let seq = 0
      await waitFor(async () => (await send('probe', seq++)) && (await accepted()) > 0, { what: 'capture to hear the opt-in' })
      acknowledged.set('probe', [seq - 1])
      const sendMany = async (count: number) => {
        for (let i = 0; i < count; i++) {
          const n = seq++
          const session = `kafka-session-${n % SESSIONS}`
          expect(await send(session, n)).toBe(true)
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
      const list = await call()('GET', '/api/projects/1/session_recordings/?limit=50')
      expect(list.status).toBe(200)
      expect((list.body.results as Array<{ id: string }>).map((r) => r.id).sort()).toEqual([...acknowledged.keys()].sort())
      const one = await call()('GET', '/api/projects/1/session_recordings/kafka-session-0/')
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
    })
  },
)
