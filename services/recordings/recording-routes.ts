// GET /api/projects/:project_id/session_recordings/ and …/:id/: the recordings a project holds, with the
// metadata PostHog shows for each (reference §4.3), from session_recording_metadata (metadata-store.ts).
// The list is PostHog's `{results, has_next}` envelope, newest first by start time.
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { PersonQueries } from '../persons/queries'
import type { ProjectStore } from '../projects/store'
import type { Clock } from '../shared/clock'
import { wrenError } from '../shared/errors'
import { routesOf } from '../shared/http/route'
import { Limit, Offset } from '../shared/http/schemas'
import type { ClickHouseMetadataStore, StoredRecording } from './metadata-store'

const DEFAULT_LIMIT = 50
const MAX_LIMIT = 1000
/** PostHog: a recording is ongoing while its last event is at most this old. */
const ONGOING_MS = 5 * 60_000

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()])

const Recording = Type.Object(
  {
    id: Type.String({ description: 'The session id.' }),
    distinct_id: Type.String(),
    viewed: Type.Boolean(),
    recording_duration: Type.Number({ description: 'Seconds from the first event to the last.' }),
    active_seconds: Type.Number(),
    inactive_seconds: Type.Number(),
    start_time: Nullable(Type.String({ format: 'date-time' })),
    end_time: Nullable(Type.String({ format: 'date-time' })),
    click_count: Type.Integer(),
    keypress_count: Type.Integer(),
    mouse_activity_count: Type.Integer(),
    console_log_count: Type.Integer(),
    console_warn_count: Type.Integer(),
    console_error_count: Type.Integer(),
    start_url: Nullable(Type.String()),
    snapshot_source: Type.String(),
    snapshot_library: Nullable(Type.String()),
    ongoing: Type.Boolean(),
    activity_score: Type.Number(),
  },
  { title: 'Session recording' },
)

export async function recordingRoutes(
  app: FastifyInstance,
  deps: { projects: ProjectStore; metadata: ClickHouseMetadataStore; persons: PersonQueries; clock: Clock },
): Promise<void> {
  const route = routesOf(app, { projects: deps.projects, tag: 'session recordings' })
  const show = (r: StoredRecording) => {
    const s = r.summary
    return {
      id: r.sessionId,
      distinct_id: r.distinctId,
      viewed: false,
      recording_duration: s.recording_duration,
      active_seconds: s.active_seconds,
      inactive_seconds: s.inactive_seconds,
      start_time: s.start_time,
      end_time: s.end_time,
      click_count: s.click_count,
      keypress_count: s.keypress_count,
      mouse_activity_count: s.mouse_activity_count,
      console_log_count: s.console_log_count,
      console_warn_count: s.console_warn_count,
      console_error_count: s.console_error_count,
      start_url: s.start_url,
      snapshot_source: s.snapshot_source,
      snapshot_library: s.snapshot_library,
      ongoing: r.endTimestamp >= deps.clock.now().getTime() - ONGOING_MS,
      activity_score: s.activity_score,
    }
  }

  route({
    method: 'GET',
    url: '/session_recordings/',
    summary: 'The project’s session recordings, newest first',
    description:
      'PostHog’s list envelope `{results, has_next}`, newest first by start time. Filters: `date_from`/`date_to` (on the start time), `distinct_id`, `person_uuid` (any of the person’s distinct ids), `min_duration` (seconds).',
    access: { project: 'session_recording:read' },
    schema: {
      querystring: Type.Object({
        limit: Type.Optional(Limit(DEFAULT_LIMIT, MAX_LIMIT)),
        offset: Type.Optional(Offset),
        date_from: Type.Optional(Type.String({ description: 'Recordings that started at or after this ISO date-time.' })),
        date_to: Type.Optional(Type.String({ description: 'Recordings that started at or before this ISO date-time.' })),
        distinct_id: Type.Optional(Type.String({ description: 'Recordings of this distinct id.' })),
        person_uuid: Type.Optional(Type.String({ format: 'uuid', description: 'Recordings of any of this person’s distinct ids.' })),
        min_duration: Type.Optional(Type.Number({ minimum: 0, description: 'Recordings at least this many seconds long.' })),
      }),
      response: { 200: Type.Object({ results: Type.Array(Recording), has_next: Type.Boolean() }) },
    },
    handler: async (request, _reply, caller) => {
      const q = request.query
      const limit = q.limit ?? DEFAULT_LIMIT
      let distinctIds = q.distinct_id ? [q.distinct_id] : undefined
      if (q.person_uuid) {
        const person = await deps.persons.get(caller.project.id, { uuid: q.person_uuid })
        const ids = person?.distinctIds ?? []
        distinctIds = distinctIds ? distinctIds.filter((id) => ids.includes(id)) : ids
      }
      if (distinctIds?.length === 0) return { results: [], has_next: false }
      const rows = await deps.metadata.list(caller.project.id, {
        limit,
        offset: q.offset ?? 0,
        dateFrom: dateOf(q.date_from, 'date_from'),
        dateTo: dateOf(q.date_to, 'date_to'),
        distinctIds,
        minDuration: q.min_duration,
      })
      return { results: rows.slice(0, limit).map(show), has_next: rows.length > limit }
    },
  })

  route({
    method: 'GET',
    url: '/session_recordings/:id/',
    summary: 'One session recording',
    access: { project: 'session_recording:read' },
    schema: {
      params: Type.Object({ id: Type.String({ description: 'The recording’s session id.' }) }),
      response: { 200: Recording },
    },
    handler: async (request, _reply, caller) => {
      const recording = await deps.metadata.get(caller.project.id, request.params.id)
      if (!recording) throw wrenError('not_found', `No recording with session id ${JSON.stringify(request.params.id)} in this project.`)
      return show(recording)
    },
  })
}

function dateOf(raw: string | undefined, attr: string): string | undefined {
  if (raw === undefined || raw === '') return undefined
  if (Number.isNaN(new Date(raw).getTime())) throw wrenError('invalid_input', `${attr} must be an ISO date-time, got '${raw}'.`, attr)
  return raw
}
