// Kill -9 while snapshots are flowing: every snapshot /s/ acknowledged is stored exactly once, and the
// recordings read back complete and in order after the restart.
import { afterAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { api, spawnWren, waitFor, type WrenProcess } from '../support/wren'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'

const SESSIONS = 5

describe('recordings crash recovery', () => {
  let dataDir = ''
  let wren: WrenProcess | null = null
  afterAll(async () => {
    await wren?.stop()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  it('after SIGKILL between a batch’s write and its commit, every acknowledged snapshot is stored and counted exactly once', async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wren-recordings-crash-'))
    const env = {
      WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX),
      WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX),
      WREN_RECORDINGS_BATCH: '5',
      // Each batch in parts, stored one after another: the replay after the kill writes every part again.
      WREN_RECORDINGS_PART: '2',
      WREN_RECORDINGS_WAIT_MS: '20',
    }
    const first = await spawnWren(dataDir, { ...env, WREN_FAILPOINTS: 'recordings-crash-after-batches=3' })
    wren = first
    const call = (url: string) => api({ url, personalKey: env.WREN_PERSONAL_API_KEY })
    const projectId = (await call(first.url)('GET', '/api/projects/')).body.results[0].id as number
    expect((await call(first.url)('PATCH', `/api/projects/${projectId}/`, { session_recording_opt_in: true })).status).toBe(200)

    const acknowledged = new Map<string, number[]>()
    let seq = 0
    const start = Date.now()
    const send = async (): Promise<boolean> => {
      const n = seq++
      const session = `crash-session-${n % SESSIONS}`
      const snapshot = {
        event: '$snapshot',
        distinct_id: 'user-1',
        properties: {
          token: env.WREN_PROJECT_API_KEY,
          $session_id: session,
          $window_id: 'w',
          $snapshot_data: [{ type: 3, timestamp: start + n, data: { source: 1, n } }],
        },
      }
      const res = await fetch(`${first.url}/s/`, { method: 'POST', body: JSON.stringify([snapshot]) }).catch(() => null)
      if (res?.status !== 200) return false
      acknowledged.set(session, [...(acknowledged.get(session) ?? []), n])
      return true
    }
    // Two senders post until the process kills itself (SIGKILL) after its third batch is in ClickHouse.
    const sender = async () => {
      for (;;) if (!(await send())) return
    }
    await Promise.all([sender(), sender()])
    await waitFor(async () => first.child.signalCode !== null, { what: 'the failpoint to fire' })
    expect(first.child.signalCode).toBe('SIGKILL')
    const sent = [...acknowledged.values()].reduce((n, list) => n + list.length, 0)
    expect(sent).toBeGreaterThan(15)

    const second = await spawnWren(dataDir, env)
    wren = second
    const read = async (session: string): Promise<number[]> => {
      const base = `/api/projects/${projectId}/session_recordings/${session}/snapshots`
      const listed = await call(second.url)('GET', base)
      if (listed.status !== 200) return []
      const count = (listed.body.sources as unknown[]).length
      const ns: number[] = []
      for (let from = 0; from < count; from += 20) {
        const to = Math.min(from + 19, count - 1)
        const res = await call(second.url)('GET', `${base}?source=blob_v2&start_blob_key=${from}&end_blob_key=${to}`)
        for (const line of res.text.trimEnd().split('\n')) ns.push((JSON.parse(line) as [string, { data: { n: number } }])[1].data.n)
      }
      return ns
    }
    for (const [session, ns] of acknowledged) {
      const stored = await waitFor(
        async () => {
          const found = await read(session)
          return found.length >= ns.length ? found : false
        },
        { timeoutMs: 30_000, what: `${session}'s snapshots after the restart` },
      )
      // Exactly once: nothing acknowledged is lost, nothing is stored twice. (A request the kill cut off
      // may be stored without having been acknowledged, as with any capture.)
      expect(new Set(stored).size).toBe(stored.length)
      expect(ns.filter((n) => !stored.includes(n))).toEqual([])
      expect(stored.length - ns.length).toBeLessThanOrEqual(2)
      // The session's metadata counts each stored snapshot (a mouse move each) once too. A snapshot the
      // kill cut off may still be on its way through the processor: compare what is stored at one moment.
      const settled = await waitFor(
        async () => {
          const res = await call(second.url)('GET', `/api/projects/${projectId}/session_recordings/${session}/`)
          const now = await read(session)
          return res.status === 200 && res.body.mouse_activity_count === now.length ? { metadata: res.body, now } : false
        },
        { timeoutMs: 30_000, what: `${session}'s metadata after the restart` },
      )
      expect(new Set(settled.now).size).toBe(settled.now.length)
      const metadata = settled.metadata
      stored.splice(0, stored.length, ...settled.now)
      expect(metadata.mouse_activity_count).toBe(stored.length)
      // The list filters on the session's pre-aggregated row, which counts each stored snapshot once too.
      const filter = new URLSearchParams({
        date_from: 'all',
        session_ids: JSON.stringify([session]),
        having_predicates: JSON.stringify([{ type: 'recording', key: 'mouse_activity_count', operator: 'exact', value: stored.length }]),
      })
      const listed = await call(second.url)('GET', `/api/projects/${projectId}/session_recordings/?${filter}`)
      expect(listed.status).toBe(200)
      expect(listed.body.results.map((r: { id: string }) => r.id)).toEqual([session])
    }
  })
})
