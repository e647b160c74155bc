// Capture: accept, validate, stamp, append to the log; answer only once the append is durable.
// No person work happens here.
import { setImmediate } from 'node:timers/promises'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { decodeCapture, type CaptureRequest } from './decode'
import { newEventUuid, toIngestEvent } from './stamp'
import { unauthorized } from '../shared/errors'
import { encodeIngest } from '../shared/log/contract'
import { TOPICS, type Log, type LogMessage } from '../shared/log/log'
import type { ProjectStore } from '../projects/store'
import type { Clock } from '../shared/clock'
import type { Metrics } from '../shared/metrics'
import type { CaptureBackpressure } from './backpressure'

export const CAPTURE_PATHS = ['/e', '/i/v0/e', '/track', '/engage', '/capture', '/batch']
const BODY_LIMIT = 20 * 1024 * 1024
const STAMP_SLICE = 2_000

export interface CaptureDeps {
  log: Log
  projects: ProjectStore
  clock: Clock
  metrics: Metrics
  backpressure: CaptureBackpressure
}

export async function captureRoutes(app: FastifyInstance, deps: CaptureDeps): Promise<void> {
  // Capture takes every body as raw bytes: SDKs send JSON, text/plain gzip, forms and base64.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_req, body, done) => done(null, body))
  // Refused before the body is read: in a flood that is most of the work saved. Preflights still answer.
  app.addHook('onRequest', async (request) => {
    if (request.method === 'OPTIONS') return
    try {
      deps.backpressure.admit()
    } catch (err) {
      deps.metrics.inc('wren_capture_requests_refused_total', 1, { reason: 'backlog' })
      throw err
    }
  })

  const handler = async (request: FastifyRequest, reply: import('fastify').FastifyReply) => {
    const decoded = await decodeCapture(toCaptureRequest(request))
    const project = deps.projects.byToken(decoded.token)
    if (!project) throw unauthorized('ingest_key_invalid', 'Project API key is invalid: no project has this token.')
    const now = deps.clock.now()
    const messages: LogMessage[] = []
    for (const e of decoded.events) {
      // A 20 MB batch is ~50,000 events and ~0.5 s of stamping and encoding: other requests get a turn between slices.
      if (messages.length > 0 && messages.length % STAMP_SLICE === 0) await setImmediate()
      const event = toIngestEvent(e, { teamId: project.id, now, sentAt: decoded.sentAt, ip: request.ip ?? null, newUuid: newEventUuid })
      messages.push({ key: String(project.id), value: encodeIngest({ kind: 'event', event }) })
    }
    await deps.log.append(TOPICS.ingest, messages)
    deps.metrics.inc('wren_capture_events_total', messages.length)
    const query = request.query as Record<string, string | undefined>
    if (query.beacon === '1') return reply.status(204).send()
    return reply.status(200).send({ status: 'Ok' })
  }

  for (const path of CAPTURE_PATHS) {
    // PostHog capture answers any OPTIONS, not only a browser's full preflight (reference §1.1); the CORS
    // plugin's hook replies to it before the handler runs.
    app.route({ method: ['GET', 'POST', 'OPTIONS'], url: path, bodyLimit: BODY_LIMIT, handler })
  }
}

function toCaptureRequest(request: FastifyRequest): CaptureRequest {
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
  return {
    path: request.routeOptions.url ?? request.url,
    query: request.query as Record<string, string | undefined>,
    headers: request.headers,
    body,
  }
}
