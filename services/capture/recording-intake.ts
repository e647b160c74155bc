// Recordings' intake: posthog-js's $snapshot events on /s/ (reference §4.2). The whole request is one
// session: its ids, distinct id, source and library come from the first event, and every event's
// $snapshot_data (rrweb events) goes into one message on the snapshots topic, keyed by team and session
// so a session's snapshots stay in order. As PostHog, a project that has not opted in to recordings gets
// the same answer and nothing is stored. The answer waits for the append to be durable. It sits beside
// the other SDK intake (same bodies, backpressure, timestamps); recordings/ reads the topic it writes.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyInstance } from 'fastify'
import { decodeCapture, type DecodedEvent } from './decode'
import { acceptSdkBodies, BODY_LIMIT, CAPTURE_ANSWERS, CaptureQuery, toCaptureRequest } from './routes'
import { newEventUuid } from './stamp'
import { resolveTimestamp } from './timestamp'
import type { CaptureBackpressure } from './backpressure'
import type { MemoryBudget } from '../platform/http/memory-budget'
import type { Tenants } from '../platform/tenancy'
import type { Clock } from '../platform/clock'
import { wrenError } from '../platform/errors'
import { routesOf } from '../platform/http/route'
import { RawBody, SDK_CONTENT_TYPES } from '../platform/http/schemas'
import { encodeSnapshot, type SnapshotItem } from '../platform/log/contract'
import { TOPICS, type Log } from '../platform/log/log'
import type { Metrics } from '../platform/metrics'

export const RECORDING_PATHS = ['/s']

export interface RecordingCaptureDeps {
  log: Log
  projects: Tenants
  clock: Clock
  metrics: Metrics
  /** Ingestion's backpressure: a snapshot is capture too, refused while events are. */
  backpressure: CaptureBackpressure
  /** The recordings stage's own: refused while snapshots wait too long for it. */
  recordingsBackpressure: CaptureBackpressure
  memory: MemoryBudget
}

/** PostHog capture's rule: at most 70 ASCII letters, digits and dashes. */
const SESSION_ID_RE = /^[A-Za-z0-9-]{1,70}$/

export async function recordingCaptureRoutes(app: FastifyInstance, deps: RecordingCaptureDeps): Promise<void> {
  acceptSdkBodies(
    app,
    deps.metrics,
    [
      { backpressure: deps.backpressure, reason: 'backlog' },
      { backpressure: deps.recordingsBackpressure, reason: 'recordings_backlog' },
    ],
    deps.memory,
  )

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const decoded = await decodeCapture(toCaptureRequest(request))
    const project = deps.projects.byToken(decoded.token)
    if (!project) throw wrenError('ingest_key_invalid', 'Project API key is invalid: no project has this token.')
    const item = toSnapshotItem(decoded.events, {
      teamId: project.id,
      now: deps.clock.now(),
      sentAt: decoded.sentAt,
      userAgent: request.headers['user-agent'] ?? '',
    })
    if (project.settings.session_recording_opt_in === true) {
      await deps.log.append(TOPICS.snapshots, [{ key: `${item.teamId}:${item.sessionId}`, value: encodeSnapshot(item) }])
      deps.metrics.inc('wren_recording_snapshots_total')
    } else {
      deps.metrics.inc('wren_recording_snapshots_dropped_total', 1, { reason: 'not_opted_in' })
    }
    const query = request.query as Record<string, string | undefined>
    if (query.beacon === '1') return reply.status(204).send()
    return reply.status(200).send({ status: 'Ok' })
  }

  const route = routesOf(app, { projects: deps.projects, tag: 'recordings' })
  for (const path of RECORDING_PATHS) {
    route({
      method: 'POST',
      url: path,
      summary: `Capture session recording snapshots (${path})`,
      description:
        'What posthog-js’s recorder sends: a JSON array of $snapshot events of one session, each with properties.$session_id, $window_id and $snapshot_data (rrweb events), in any of the SDKs’ encodings. Stored only for projects with session_recording_opt_in.',
      access: { public: 'the project API key in the payload.' },
      bodyLimit: BODY_LIMIT,
      consumes: SDK_CONTENT_TYPES,
      schema: {
        querystring: CaptureQuery,
        body: RawBody('[{event: "$snapshot", distinct_id, properties: {token, $session_id, $window_id, $snapshot_data: [rrweb events]}}]'),
        response: CAPTURE_ANSWERS,
      },
      handler: (request, reply) => handler(request, reply),
    })
  }
}

/** The one log message of a /s/ request: validated as PostHog capture does (process_replay_events). */
export function toSnapshotItem(
  events: DecodedEvent[],
  ctx: { teamId: number; now: Date; sentAt: Date | null; userAgent: string },
): SnapshotItem {
  const first = events[0]
  const sessionId = first.properties.$session_id
  if (sessionId === undefined || sessionId === null || sessionId === '')
    throw wrenError('missing_session_id', 'The $snapshot event has no properties.$session_id.', '$session_id')
  if (typeof sessionId !== 'string' || !SESSION_ID_RE.test(sessionId))
    throw wrenError(
      'invalid_session_id',
      `$session_id must be at most 70 ASCII letters, digits or dashes; got ${JSON.stringify(sessionId).slice(0, 100)}.`,
      '$session_id',
    )
  const rrweb: unknown[] = []
  for (const [i, e] of events.entries()) {
    const data = e.properties.$snapshot_data
    if (Array.isArray(data)) rrweb.push(...data)
    else if (typeof data === 'object' && data !== null) rrweb.push(data)
    else throw wrenError('missing_snapshot_data', `Event ${i} has no properties.$snapshot_data (rrweb events).`, '$snapshot_data')
  }
  const windowId = first.properties.$window_id
  const timestamp = resolveTimestamp({
    timestamp: first.timestamp,
    offset: first.offset,
    sentAt: ctx.sentAt,
    now: ctx.now,
    ignoreSentAt: first.properties.$ignore_sent_at === true,
  })
  return {
    teamId: ctx.teamId,
    sessionId,
    windowId: typeof windowId === 'string' && windowId !== '' ? windowId : sessionId,
    distinctId: first.distinctId,
    uuid: first.uuid ?? newEventUuid(),
    snapshotSource: stringOr(first.properties.$snapshot_source, 'web'),
    snapshotLibrary: stringOr(first.properties.$lib, libraryFromUserAgent(ctx.userAgent)),
    timestamp: timestamp.toISOString(),
    now: ctx.now.toISOString(),
    events: JSON.stringify(rrweb),
  }
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' && value !== '' ? value : fallback
}

/** PostHog's fallback for $lib: a posthog… user agent's product name, otherwise 'web'. */
function libraryFromUserAgent(userAgent: string | string[]): string {
  const ua = Array.isArray(userAgent) ? (userAgent[0] ?? '') : userAgent
  return ua.startsWith('posthog') ? ua.split('/')[0] : 'web'
}
