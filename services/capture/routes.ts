// Capture: accept, validate, stamp, append to the log; answer only once the append is durable.
// No person work happens here.
import { setImmediate } from 'node:timers/promises'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { decodeCapture } from './decode'
import type { SdkRequest } from '../platform/http/sdk-body'
import { newEventUuid, toIngestEvent } from './stamp'
import { Type } from 'typebox'
import { wrenError } from '../platform/errors'
import { routesOf } from '../platform/http/route'
import { ErrorBody, NoContent, RawBody, SDK_CONTENT_TYPES } from '../platform/http/schemas'
import { encodeIngest } from '../platform/log/contract'
import { TOPICS, type Log, type LogMessage } from '../platform/log/log'
import type { Tenants } from '../platform/tenancy'
import type { Clock } from '../platform/clock'
import type { Metrics } from '../platform/metrics'
import type { CaptureBackpressure } from './backpressure'
import { chargeOf, chargeRequestMemory, type MemoryBudget } from '../platform/http/memory-budget'

export const CAPTURE_PATHS = ['/e', '/i/v0/e', '/track', '/engage', '/capture', '/batch']
export const BODY_LIMIT = 20 * 1024 * 1024
const STAMP_SLICE = 2_000

export interface CaptureDeps {
  log: Log
  projects: Tenants
  clock: Clock
  metrics: Metrics
  backpressure: CaptureBackpressure
  /** The SDK intake's one memory budget, shared with /s/ and the flag answers. */
  memory: MemoryBudget
}

/**
 * What every SDK intake route group shares (events here, recordings' /s/ in recording-intake.ts): bodies
 * as raw bytes (SDKs send JSON, text/plain gzip, forms and base64), and backpressure and the memory budget
 * before the body is read.
 */
export function acceptSdkBodies(
  app: FastifyInstance,
  metrics: Metrics,
  /** Each backpressure the routes answer to, with the reason its refusals are counted under. */
  gates: Array<{ backpressure: CaptureBackpressure; reason: string }>,
  memory: MemoryBudget,
): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_req, body, done) => done(null, body))
  // Refused before the body is read: in a flood that is most of the work saved. Preflights still answer.
  // Fastify's callback form: an async hook costs a promise on every request.
  // Each gate's labels made once: a flood's refusals all count under the same object.
  const counted = gates.map((gate) => ({ backpressure: gate.backpressure, labels: { reason: gate.reason } }))
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.method === 'OPTIONS') return done()
    for (const gate of counted) {
      try {
        gate.backpressure.admit()
      } catch (err) {
        metrics.inc('wren_capture_requests_refused_total', 1, gate.labels)
        return done(err as Error)
      }
    }
    done()
  })
  // After backpressure: a request refused for the backlog is never charged.
  chargeRequestMemory(app, memory)
}

/**
 * POST of every capture path, what the SDKs send: a plugin of its own, so that the route groups can give it
 * the scope without per-request CORS resolution (fixed open headers, as decide's flag answers have).
 */
export async function captureRoutes(app: FastifyInstance, deps: CaptureDeps): Promise<void> {
  acceptSdkBodies(app, deps.metrics, [{ backpressure: deps.backpressure, reason: 'backlog' }], deps.memory)
  const handler = captureHandler(deps)
  const route = routesOf(app, { projects: deps.projects, tag: 'capture' })
  for (const path of CAPTURE_PATHS) {
    route({
      method: 'POST',
      url: path,
      summary: `Capture events (${path})`,
      description:
        'What the SDKs send: one event or a batch, as JSON, gzip, lz64, base64 or a data= form; the project API key is the payload’s token (api_key).',
      access: { public: 'the project API key in the payload.' },
      bodyLimit: BODY_LIMIT,
      consumes: SDK_CONTENT_TYPES,
      schema: {
        querystring: CaptureQuery,
        body: RawBody(
          '{api_key|token, event, distinct_id, properties, timestamp} or {api_key, batch: [events]}, in any of the SDKs’ encodings',
        ),
        response: CAPTURE_ANSWERS,
      },
      handler,
    })
  }
}

/** GET (the payload in ?data=) and OPTIONS of every capture path, in the scope of the CORS plugin, which answers preflights. */
export async function captureQueryRoutes(app: FastifyInstance, deps: CaptureDeps): Promise<void> {
  acceptSdkBodies(app, deps.metrics, [{ backpressure: deps.backpressure, reason: 'backlog' }], deps.memory)
  const handler = captureHandler(deps)
  const route = routesOf(app, { projects: deps.projects, tag: 'capture' })
  for (const path of CAPTURE_PATHS) {
    // PostHog capture answers any OPTIONS, not only a browser's full preflight (reference §1.1); the CORS
    // plugin's hook replies to it before the handler runs.
    route({
      method: ['GET', 'OPTIONS'],
      url: path,
      summary: `Capture events from the query string (${path}?data=…)`,
      description: 'The payload is ?data= (base64 or JSON, per ?compression=). OPTIONS answers any preflight.',
      access: { public: 'the project API key in the payload.' },
      schema: { querystring: CaptureQuery, response: CAPTURE_ANSWERS },
      handler,
    })
  }
}

/** What capture's routes (and recordings' /s/) answer. */
export const CAPTURE_ANSWERS = {
  200: Type.Object({ status: Type.Enum(['Ok']) }),
  204: NoContent,
  400: ErrorBody,
  401: ErrorBody,
  413: ErrorBody,
  503: ErrorBody,
}

/** Decode, stamp, append durably, answer. */
function captureHandler(deps: CaptureDeps) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const decoded = await decodeCapture(toCaptureRequest(request))
    const project = deps.projects.byToken(decoded.token)
    if (!project) throw wrenError('ingest_key_invalid', 'Project API key is invalid: no project has this token.')
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
}

export const CaptureQuery = Type.Object({
  data: Type.Optional(Type.Unknown({ description: 'The payload, when not in the body.' })),
  compression: Type.Optional(Type.Unknown({ description: 'gzip-js, lz64 or base64.' })),
  ver: Type.Optional(Type.Unknown({ description: 'The SDK version.' })),
  ip: Type.Optional(Type.Unknown()),
  _: Type.Optional(Type.Unknown({ description: 'The SDK’s send time (ms since the epoch).' })),
  beacon: Type.Optional(Type.Unknown({ description: '1: answer 204 (navigator.sendBeacon).' })),
})

export function toCaptureRequest(request: FastifyRequest): SdkRequest {
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
  return {
    path: request.routeOptions.url ?? request.url,
    query: request.query as Record<string, string | undefined>,
    headers: request.headers,
    body,
    memory: chargeOf(request),
  }
}
