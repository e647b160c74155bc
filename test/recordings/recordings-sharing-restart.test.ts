// Sharing the second time: a sharing token written by an earlier process opens its recording after a
// restart, a token rotated before the restart stays refused after it, and sharing turned off before the
// restart stays off (sharing lives in ClickHouse, not in a process's memory).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { api, spawnWren, waitFor, type WrenProcess } from '../support/wren'
import { sendSnapshots } from '../support/recordings'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'

describe('recording sharing across a restart', () => {
  const env = {
    WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX),
    WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX),
    WREN_RECORDINGS_WAIT_MS: '20',
  }
  let dataDir = ''
  let wren: WrenProcess | null = null
  const call = () => api({ url: wren!.url, personalKey: env.WREN_PERSONAL_API_KEY })
  const recording = (id: string) => `/api/projects/1/session_recordings/${id}/`
  const shared = async (token: string) => (await fetch(`${wren!.url}/shared/${encodeURIComponent(token)}`)).status
  const viaToken = async (id: string, token: string) =>
    (await call()('GET', `${recording(id)}?sharing_access_token=${encodeURIComponent(token)}`, undefined, null)).status
  const start = Date.now() - 60_000
  const events = [
    { type: 4, timestamp: start, data: { href: 'https://example.com/', width: 800, height: 600 } },
    { type: 3, timestamp: start + 1_000, data: { source: 2, type: 2, id: 1, x: 10, y: 10 } },
  ]

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wren-sharing-restart-'))
    wren = await spawnWren(dataDir, env)
    expect((await call()('PATCH', '/api/projects/1/', { session_recording_opt_in: true })).status).toBe(200)
    for (const sessionId of ['kept', 'rotated', 'off'])
      await sendSnapshots({ url: wren.url, projectKey: env.WREN_PROJECT_API_KEY }, { sessionId, distinctId: `user-${sessionId}`, events })
    await waitFor(async () => (await call()('GET', '/api/projects/1/session_recordings/?limit=10')).body?.results?.length === 3, {
      timeoutMs: 30_000,
      what: 'three recordings stored',
    })
  })
  afterAll(async () => {
    await wren?.stop()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  it('keeps what sharing was before the restart', async () => {
    const tokenOf = async (id: string) => (await call()('PATCH', `${recording(id)}sharing/`, { enabled: true })).body.access_token as string
    const kept = await tokenOf('kept')
    const old = await tokenOf('rotated')
    const rotated = (await call()('POST', `${recording('rotated')}sharing/refresh/`)).body.access_token as string
    const off = await tokenOf('off')
    expect((await call()('PATCH', `${recording('off')}sharing/`, { enabled: false })).status).toBe(200)
    expect(rotated).not.toBe(old)

    await wren!.stop()
    wren = await spawnWren(dataDir, env)

    expect([await shared(kept), await viaToken('kept', kept)]).toEqual([200, 200])
    expect([await shared(rotated), await viaToken('rotated', rotated)]).toEqual([200, 200])
    expect([await shared(old), await viaToken('rotated', old)]).toEqual([404, 401])
    expect([await shared(off), await viaToken('off', off)]).toEqual([404, 401])
    // The token still opens only its own recording.
    expect(await viaToken('rotated', kept)).toBe(403)
  })
})
