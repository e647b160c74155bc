// One snapshot message that cannot be written does not stall recordings for everyone (embedded mode):
// with a failpoint that makes ClickHouse "refuse" any batch holding the snapshots of one session, the
// recordings processor retries a bounded number of times (readiness says it is stalled meanwhile), then
// stores every other session and keeps the poison message as a dead letter with its topic (API and CLI);
// readiness recovers, and once the failpoint is gone a replay stores the poison session once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { api, wrenCli, spawnWren, waitFor, type WrenProcess } from '../support/wren'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'
const GOOD = ['good-1', 'good-2', 'good-3', 'good-4']
const POISON = 'poison-session'

describe('recordings dead letters (embedded mode)', () => {
  const env = {
    WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX),
    WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX),
    // Six failures with the log's doubling backoff: a few seconds of a real stall before isolation.
    WREN_RECORDINGS_MAX_RETRIES: '6',
    WREN_RECORDINGS_WAIT_MS: '300',
    WREN_READY_STALL_SECONDS: '1',
  }
  let dataDir = ''
  let wren: WrenProcess | null = null
  let projectId = 0
  const start = Date.now() - 60_000
  const call = () => api({ url: wren!.url, personalKey: env.WREN_PERSONAL_API_KEY })
  const send = async (sessionId: string, n: number) => {
    const res = await fetch(`${wren!.url}/s/`, {
      method: 'POST',
      body: JSON.stringify([
        {
          event: '$snapshot',
          distinct_id: `user-${sessionId}`,
          properties: {
            token: env.WREN_PROJECT_API_KEY,
            $session_id: sessionId,
            $window_id: 'w1',
            $snapshot_data: [{ type: 3, timestamp: start + n, data: { source: 1, positions: [{ x: n, y: n, id: 1, timeOffset: 0 }] } }],
          },
        },
      ]),
    })
    expect(res.status).toBe(200)
  }
  const readyz = async () => {
    const res = await fetch(`${wren!.url}/_readyz`)
    return { status: res.status, body: (await res.json()) as any }
  }
  const sessionIds = async () => {
    const res = await call()('GET', `/api/projects/${projectId}/session_recordings/?limit=50`)
    return ((res.body?.results ?? []) as Array<{ id: string }>).map((r) => r.id).sort()
  }
  const cli = (...args: string[]) => wrenCli(dataDir, 'dead-letters', ...args)

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wren-recordings-dead-letters-'))
    wren = await spawnWren(dataDir, { ...env, WREN_FAILPOINTS: `recordings-poison-session=${POISON}` })
    projectId = (await call()('GET', '/api/projects/')).body.results[0].id
    expect((await call()('PATCH', `/api/projects/${projectId}/`, { session_recording_opt_in: true })).status).toBe(200)
  })
  afterAll(async () => {
    await wren?.stop()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  it('stores every other session, keeps the poison message as a dead letter, and is unready only while it stalls', async () => {
    // The poison snapshot sits among good ones, in the same batch.
    await Promise.all([...GOOD.map((s, i) => send(s, i)), send(POISON, 10), ...GOOD.map((s, i) => send(s, 20 + i))])

    const stalled = await waitFor(
      async () => {
        const r = await readyz()
        // The lag is sampled now and then: the stall may first be reported from a sample taken before the last
        // of the nine messages was appended.
        const stall = r.status === 503 && r.body.reasons.some((x: { code: string }) => x.code === 'recordings_stalled')
        return stall && r.body.recordings.end_offset === 9 ? r : false
      },
      { timeoutMs: 20_000, what: '/_readyz to report the recordings stall with all nine messages appended' },
    )
    expect(stalled.body.reasons[0].detail).toMatch(/^recordings has committed nothing for \d+ s while \d+ messages wait/)
    expect(stalled.body.recordings).toMatchObject({ end_offset: 9 })
    expect(stalled.body.recordings.lag_messages).toBeGreaterThan(0)
    expect(stalled.body.ingestion).toMatchObject({ lag_messages: 0 })

    // Isolation writes the batch's halves one after the other: a session is listed once its first snapshot's half is
    // stored, and whole once the half holding its second is.
    const recording = (session: string) => call()('GET', `/api/projects/${projectId}/session_recordings/${session}/`)
    await waitFor(
      async () =>
        JSON.stringify(await sessionIds()) === JSON.stringify(GOOD) &&
        (await Promise.all(GOOD.map(recording))).every((res) => res.body?.mouse_activity_count === 2),
      { timeoutMs: 30_000, what: 'the four good sessions in the list, each with both of its snapshots' },
    )
    for (const session of GOOD) {
      const res = await recording(session)
      expect(res.status).toBe(200)
      expect(res.body.mouse_activity_count).toBe(2)
    }
    expect((await call()('GET', `/api/projects/${projectId}/session_recordings/${POISON}/`)).status).toBe(404)

    const letters = await call()('GET', '/api/dead_letters/')
    expect(letters.status, letters.text).toBe(200)
    expect(letters.body.count).toBe(1)
    const [letter] = letters.body.results
    expect(letter).toMatchObject({
      team_id: projectId,
      replayed_at: null,
      source: { topic: 'wren_snapshots', partition: 0, consumer_group: 'recordings' },
    })
    expect(letter.id).toBe(`wren_snapshots/0/${letter.source.offset}`)
    expect(letter.error).toContain('failpoint')
    expect(letter.payload_preview).toContain(POISON)

    const ready = await waitFor(
      async () => {
        const r = await readyz()
        return r.status === 200 ? r : false
      },
      { timeoutMs: 20_000, what: '/_readyz to recover' },
    )
    expect(ready.body).toMatchObject({ status: 'ready', recordings: { lag_messages: 0, end_offset: 9, committed_offset: 9 } })
    const metrics = await (await fetch(`${wren!.url}/_metrics`)).text()
    expect(metrics).toMatch(/^wren_dead_letters_total\{topic="wren_snapshots"\} 1$/m)
    expect(metrics).toMatch(/^wren_recording_batch_retries_total 6$/m)
    expect(metrics).toMatch(/^wren_recording_lag_messages 0$/m)

    // Recordings go on after it.
    await send('after', 30)
    await waitFor(async () => (await sessionIds()).includes('after'), { what: 'a session after the dead letter' })
  })

  it('lists the letter with its topic from the CLI; after a restart without the failpoint a replay stores the session once', async () => {
    expect(await wren!.stop()).toBe(0)
    const listed = await cli('list')
    expect(listed).toHaveLength(1)
    expect(listed[0]).toMatchObject({ source: { topic: 'wren_snapshots', consumer_group: 'recordings' }, replayed_at: null })

    wren = await spawnWren(dataDir, env)
    const replay = await call()('POST', '/api/dead_letters/replay/', { ids: [listed[0].id] })
    expect(replay.body).toEqual({ replayed: 1, ids: [listed[0].id] })
    const replayed = await waitFor(
      async () => {
        const res = await call()('GET', `/api/projects/${projectId}/session_recordings/${POISON}/`)
        return res.status === 200 ? res.body : false
      },
      { timeoutMs: 30_000, what: 'the replayed session' },
    )
    expect(replayed.mouse_activity_count).toBe(1)
    expect((await call()('POST', '/api/dead_letters/replay/', { all: true })).body).toEqual({ replayed: 0, ids: [] })
    const snapshots = await call()(
      'GET',
      `/api/projects/${projectId}/session_recordings/${POISON}/snapshots?source=blob_v2&start_blob_key=0&end_blob_key=0`,
    )
    expect(snapshots.text.trimEnd().split('\n')).toHaveLength(1)
  })
})
