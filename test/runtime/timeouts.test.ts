// A client that sends a byte every few hundred milliseconds cannot hold a request open past the request
// timeout, nor hold a shutdown open: SIGTERM closes what is left after the grace period, and a shutdown that
// still hangs ends at the hard deadline with exit code 1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import net from 'node:net'
import { spawnWren, waitFor, type WrenProcess } from '../support/wren'
import { generateKey, PERSONAL_KEY_PREFIX, PROJECT_KEY_PREFIX } from '../../services/projects/store'

const env = { WREN_PROJECT_API_KEY: generateKey(PROJECT_KEY_PREFIX), WREN_PERSONAL_API_KEY: generateKey(PERSONAL_KEY_PREFIX) }

interface SlowClient {
  /** Resolves when the server closes the connection, with what it answered. */
  closed: Promise<{ response: string }>
  /** Whether the server has closed it yet. */
  isClosed(): boolean
  stop(): void
}

/** Sends `head` at once, then `dribble` one byte every `everyMs` (a slow-loris client). */
function slowClient(url: string, head: string, dribble: string, everyMs: number): SlowClient {
  const { hostname, port } = new URL(url)
  const socket = net.connect(Number(port), hostname)
  let response = ''
  let closed = false
  let sent = 0
  socket.on('data', (d: Buffer) => (response += d.toString()))
  socket.on('error', () => {})
  socket.write(head)
  const timer = setInterval(() => {
    if (sent < dribble.length && !socket.destroyed) socket.write(dribble[sent++])
  }, everyMs)
  const done = new Promise<{ response: string }>((resolve) =>
    socket.on('close', () => {
      closed = true
      clearInterval(timer)
      resolve({ response })
    }),
  )
  return {
    closed: done,
    isClosed: () => closed,
    stop() {
      clearInterval(timer)
      socket.destroy()
    },
  }
}

const eventBody = JSON.stringify({
  api_key: env.WREN_PROJECT_API_KEY,
  event: 'slow',
  distinct_id: 'slow-client',
  properties: { pad: 'x'.repeat(100) },
})
const slowBody = (url: string) =>
  slowClient(
    url,
    `POST /e/ HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${eventBody.length}\r\n\r\n`,
    eventBody,
    300,
  )

describe('request and connection timeouts', () => {
  let dataDir = ''
  let wren: WrenProcess
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wren-timeouts-'))
    wren = await spawnWren(dataDir, { ...env, WREN_REQUEST_TIMEOUT_MS: '2000', WREN_HEADERS_TIMEOUT_MS: '1500' })
  })
  afterAll(async () => {
    await wren?.stop()
    await rm(dataDir, { recursive: true, force: true })
  })

  it('closes a request whose body dribbles in, with a JSON 408, long before the client would finish', async () => {
    // The client would need ~50 s to send its body; the server gives it 2 s (checked once a second).
    const client = slowBody(wren.url)
    try {
      // Meanwhile the server answers everyone else.
      expect((await fetch(`${wren.url}/_health`)).status).toBe(200)
      await waitFor(async () => client.isClosed(), { timeoutMs: 15_000, what: 'the server to close the slow request' })
      const { response } = await client.closed
      expect(response).toMatch(/^HTTP\/1\.1 408 /)
      expect(JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4))).toMatchObject({
        type: 'invalid_request',
        code: 'request_timeout',
      })
    } finally {
      client.stop()
    }
  })

  it('closes a connection whose headers dribble in', async () => {
    const client = slowClient(wren.url, 'GET /_health HTTP/1.1\r\n', 'X-Slow: ' + 'a'.repeat(200) + '\r\n\r\n', 300)
    try {
      await waitFor(async () => client.isClosed(), { timeoutMs: 15_000, what: 'the server to close the slow headers' })
      expect((await client.closed).response).toMatch(/^HTTP\/1\.1 408 /)
    } finally {
      client.stop()
    }
  })
})

describe('shutdown', () => {
  const withWren = async (extra: Record<string, string>, run: (wren: WrenProcess) => Promise<void>) => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'wren-shutdown-'))
    // A request timeout far away, so that the slow request is still open when SIGTERM arrives.
    const wren = await spawnWren(dataDir, { ...env, WREN_REQUEST_TIMEOUT_MS: '600000', WREN_HEADERS_TIMEOUT_MS: '600000', ...extra })
    try {
      await run(wren)
    } finally {
      await wren.stop('SIGKILL')
      await rm(dataDir, { recursive: true, force: true })
    }
  }
  const exitOf = (wren: WrenProcess) =>
    waitFor(async () => (wren.child.exitCode !== null ? { code: wren.child.exitCode } : null), {
      timeoutMs: 20_000,
      what: 'the process to exit after SIGTERM',
    })

  it('SIGTERM during a slow request closes it after the grace period and exits 0', async () => {
    await withWren({ WREN_SHUTDOWN_GRACE_MS: '1000' }, async (wren) => {
      const client = slowBody(wren.url)
      try {
        await new Promise((r) => setTimeout(r, 500))
        wren.child.kill('SIGTERM')
        expect(await exitOf(wren)).toEqual({ code: 0 })
        await client.closed
      } finally {
        client.stop()
      }
    })
  })

  it('a shutdown that still hangs at WREN_SHUTDOWN_TIMEOUT_MS exits 1 with a log line', async () => {
    await withWren({ WREN_SHUTDOWN_GRACE_MS: '600000', WREN_SHUTDOWN_TIMEOUT_MS: '1500' }, async (wren) => {
      const client = slowBody(wren.url)
      try {
        await new Promise((r) => setTimeout(r, 500))
        wren.child.kill('SIGTERM')
        expect(await exitOf(wren)).toEqual({ code: 1 })
        expect(wren.output()).toMatch(/shutdown did not finish in time/)
      } finally {
        client.stop()
      }
    })
  })
})
