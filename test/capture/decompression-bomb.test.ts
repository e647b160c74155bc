// A crafted lz64 body that asks for billions of characters is refused like any other oversized body, and
// the process keeps serving; a fatal error (V8 out of heap, which chDB's signal handler used to turn into a
// process that neither served nor exited) ends the process, so a supervisor can restart it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { api, spawnWren, waitFor, type WrenProcess } from '../support/wren'
import { lzBomb } from '../support/lz-bomb'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'

const env = { WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX), WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX) }

describe('decompression bombs', () => {
  let dataDir = ''
  let wren: WrenProcess
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wren-bomb-'))
    wren = await spawnWren(dataDir, env)
  })
  afterAll(async () => {
    await wren?.stop()
    await rm(dataDir, { recursive: true, force: true })
  })

  it('answers a 256 KB lz64 bomb with a JSON 413 on every route that decodes lz64, and keeps serving', async () => {
    const bomb = lzBomb(100_000)
    expect(bomb.length).toBeGreaterThan(250_000)
    const form = { 'content-type': 'application/x-www-form-urlencoded' }
    const attempts = [
      ...['/e/', '/batch/', '/i/v0/e/', '/decide/?v=3', '/flags/?v=2'].map((route) => ({
        route: `${route}${route.includes('?') ? '&' : '?'}compression=lz64`,
        body: bomb,
        headers: {},
      })),
      { route: '/e/', body: `data=${encodeURIComponent(bomb)}&compression=lz64`, headers: form },
      { route: '/decide/?v=3', body: `data=${encodeURIComponent(bomb)}&compression=lz64`, headers: form },
    ]
    for (const { route, body, headers } of attempts) {
      const res = await fetch(`${wren.url}${route}`, { method: 'POST', headers, body })
      expect(res.headers.get('content-type'), route).toMatch(/^application\/json/)
      expect({ route, status: res.status, body: await res.json() }).toMatchObject({
        route,
        status: 413,
        body: { type: 'invalid_request', code: 'payload_too_large' },
      })
    }

    // Still serving: a good event is captured and stored.
    const good = await fetch(`${wren.url}/e/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: env.WREN_PROJECT_API_KEY, event: 'after-bomb', distinct_id: 'survivor' }),
    })
    expect(good.status).toBe(200)
    const call = api({ url: wren.url, personalKey: env.WREN_PERSONAL_API_KEY })
    await waitFor(async () => (await call('GET', '/api/projects/1/events/?event=after-bomb')).body?.results?.length === 1, {
      what: 'the event after the bomb',
    })
  })
})

describe('a fatal error', () => {
  it('ends the process (out of heap, with chDB loaded) instead of leaving it asleep, and a restart serves', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'wren-oom-'))
    try {
      const dying = await spawnWren(dataDir, {
        ...env,
        NODE_OPTIONS: '--max-old-space-size=256',
        WREN_WATCHDOG_MS: '5000',
        WREN_FAILPOINTS: 'oom-after-ms=1000',
      })
      const exited = await waitFor(async () => dying.child.exitCode !== null || dying.child.signalCode !== null, {
        timeoutMs: 60_000,
        what: 'the process to end after running out of heap',
      })
      expect(exited).toBe(true)
      expect(dying.child.signalCode).toBe('SIGKILL')
      // Usually V8 reports the heap limit first and chDB's signal handler then leaves the thread asleep; on a
      // loaded machine garbage collection near the limit can stall the thread long enough first. Either
      // way the watchdog ends the process.
      expect(dying.output()).toMatch(/main thread stalled/)

      const restarted = await spawnWren(dataDir, env)
      expect((await fetch(`${restarted.url}/_health`)).status).toBe(200)
      await restarted.stop()
    } finally {
      await rm(dataDir, { recursive: true, force: true })
    }
  })
})
