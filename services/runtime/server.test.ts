// The request logger: with request logging off (the default) a failing request's line still carries its
// request id and the request, as Fastify's own per-request child wrote it; with LOG_REQUESTS=1, one line per request.
import { afterEach, describe, expect, it } from 'vitest'
import pino from 'pino'
import { Writable } from 'node:stream'
import { loadConfig } from '../platform/config'
import { Metrics } from '../platform/metrics'
import type { SharingTokens } from '../platform/http/auth'
import type { Tenants } from '../platform/tenancy'
import { createServer, type Server } from './server'

describe('request logger', () => {
  let server: Server | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })

  async function serve(env: Record<string, string>) {
    const lines: Array<Record<string, unknown>> = []
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>)
        done()
      },
    })
    // No route here reads a key: the management guard's stores are never called.
    const auth = { projects: {} as Tenants, sharing: {} as SharingTokens }
    server = await createServer(loadConfig(env), pino({ level: 'info' }, sink), new Metrics(), auth)
    await server.mount({
      delegated: [
        async (scope) => {
          scope.get('/fails', async (request) => {
            request.log.warn({ step: 'before' }, 'about to fail')
            throw new Error('broken on purpose')
          })
          scope.get('/works', async () => ({ ok: true }))
        },
      ],
      open: [],
    })
    return { app: server.app, lines }
  }

  it('logs a failing request with its id and the request, and nothing for the others, without LOG_REQUESTS', async () => {
    const { app, lines } = await serve({})
    expect((await app.inject({ method: 'GET', url: '/works' })).statusCode).toBe(200)
    expect(lines).toEqual([])
    expect((await app.inject({ method: 'GET', url: '/fails?personal_api_key=phx_secret' })).statusCode).toBe(500)
    const warned = lines.find((l) => l.msg === 'about to fail')
    const failed = lines.find((l) => l.msg === 'request failed')
    expect(warned).toMatchObject({ level: 40, step: 'before', reqId: expect.stringMatching(/^req-/) })
    expect(failed).toMatchObject({ level: 50, reqId: warned!.reqId, err: { message: 'broken on purpose' } })
    expect(JSON.stringify(lines)).not.toContain('phx_secret')
  })

  it('logs one line per request with LOG_REQUESTS=1', async () => {
    const { app, lines } = await serve({ LOG_REQUESTS: '1' })
    expect((await app.inject({ method: 'GET', url: '/works' })).statusCode).toBe(200)
    expect(lines).toEqual([
      expect.objectContaining({ msg: 'request', method: 'GET', route: '/works', status: '200', reqId: expect.stringMatching(/^req-/) }),
    ])
  })
})
