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
import { AnyObject, Limit, NoContent, Offset } from '../shared/http/schemas'
import type { ClickHouseMetadataStore, StoredRecording } from './metadata-store'
import type { RecordingStateStore } from './recording-state'
import type { SharingStore } from './sharing-store'

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

/** What a sharing token's holder sees of the recording (PostHog's SessionRecordingSharedSerializer). */
const SharedRecording = Type.Object(
  {
    id: Type.String(),
    recording_duration: Type.Number(),
    start_time: Nullable(Type.String({ format: 'date-time' })),
    end_time: Nullable(Type.String({ format: 'date-time' })),
  },
  { title: 'Shared session recording' },
)

const RecordingId = Type.Object({ id: Type.String({ description: 'The recording’s session id.' }) })

export async function recordingRoutes(
  app: FastifyInstance,
  deps: {
    projects: ProjectStore
    metadata: ClickHouseMetadataStore
    persons: PersonQueries
    clock: Clock
    sharing: SharingStore
    state: RecordingStateStore
  },
): Promise<void> {
  const route = routesOf(app, { projects: deps.projects, tag: 'session recordings', sharing: deps.sharing })
  const show = (r: StoredRecording) => {
    const s = r.summary
    return {
      id: r.sessionId,
      distinct_id: r.distinctId,
      viewed: r.viewed,
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

  const find = async (teamId: number, sessionId: string): Promise<StoredRecording> => {
    const recording = await deps.metadata.get(teamId, sessionId)
    if (!recording) throw wrenError('not_found', `No recording with session id ${JSON.stringify(sessionId)} in this project.`)
    return recording
  }

  route({
    method: 'GET',
    url: '/session_recordings/:id/',
    summary: 'One session recording',
    description: 'With a sharing access token instead of a key: only `{id, recording_duration, start_time, end_time}`.',
    access: { project: 'session_recording:read', sharedRecording: 'id' },
    schema: { params: RecordingId, response: { 200: Type.Union([Recording, SharedRecording]) } },
    handler: async (request, _reply, caller) => {
      const recording = show(await find(caller.project.id, request.params.id))
      if (caller.key !== null) return recording
      const { id, recording_duration, start_time, end_time } = recording
      return { id, recording_duration, start_time, end_time }
    },
  })

  route({
    method: 'PATCH',
    url: '/session_recordings/:id/',
    summary: 'Mark a session recording viewed',
    description:
      'PostHog’s update fields: `viewed: true` marks the recording viewed (for the whole project: Wren has no users), `analyzed` and `player_metadata` are accepted and change nothing, and so is `person` (a recording’s person follows from its distinct id); other fields are ignored. Answers the recording (PostHog answers `{success: true}`).',
    access: { project: 'session_recording:write' },
    schema: {
      params: RecordingId,
      body: Type.Object({
        viewed: Type.Optional(Type.Boolean()),
        analyzed: Type.Optional(Type.Boolean()),
        player_metadata: Type.Optional(AnyObject()),
        person: Type.Optional(Type.Unknown({ description: 'Accepted and ignored.' })),
      }),
      response: { 200: Recording },
    },
    handler: async (request, _reply, { project }) => {
      const recording = await find(project.id, request.params.id)
      const body = request.body
      if (!body.viewed && !body.analyzed && body.person === undefined)
        throw wrenError(
          'invalid_input',
          "At least one of 'viewed' or 'analyzed' must be true (a recording cannot be marked unviewed).",
          'viewed',
        )
      if (!body.viewed) return show(recording)
      await deps.state.markViewed(project.id, recording.sessionId)
      return show({ ...recording, viewed: true })
    },
  })

  route({
    method: 'DELETE',
    url: '/session_recordings/:id/',
    summary: 'Delete a session recording',
    description:
      'Removes its snapshot blocks and metadata and turns its sharing off. Afterwards the recording is gone from the list and retrieve (404) and its snapshots answer 410 `recording_deleted`; blocks of the session that arrive later are not shown.',
    access: { project: 'session_recording:write' },
    schema: { params: RecordingId, response: { 204: NoContent } },
    handler: async (request, reply, { project }) => {
      const recording = await find(project.id, request.params.id)
      await deps.sharing.disable(project.id, recording.sessionId)
      await deps.state.delete(project.id, recording.sessionId)
      return reply.status(204).send()
    },
  })
}

function dateOf(raw: string | undefined, attr: string): string | undefined {
  if (raw === undefined || raw === '') return undefined
  if (Number.isNaN(new Date(raw).getTime())) throw wrenError('invalid_input', `${attr} must be an ISO date-time, got '${raw}'.`, attr)
  return raw
}
