// GET /api/projects/:project_id/session_recordings/ and …/:id/: the recordings a project holds, with the
// metadata PostHog shows for each (reference §4.3), from session_recording_metadata (metadata-store.ts), and
// the person each belongs to (one persons query a page). The list is PostHog's `{results, has_next}`
// envelope, newest first by start time, filtered as PostHog's RecordingsQuery is (list-query.ts).
// Recordings of persons the key may not see are neither listed nor retrieved.
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { ActionStore } from '../actions/store'
import type { CohortStore } from '../cohorts/store'
import type { PersonQueries, PersonRecord } from '../persons/queries'
import { displayName } from '../persons/serialize'
import type { ClickHouseClient } from '../platform/clickhouse'
import type { Clock } from '../platform/clock'
import { wrenError } from '../platform/errors'
import { routesOf } from '../platform/http/route'
import { callerGone } from '../platform/http/caller-gone'
import { AnyObject, NoContent, Paging } from '../platform/http/schemas'
import { pageLinks, pageRequest } from '../platform/http/request-url'
import type { HiddenPersons } from '../platform/http/hidden-persons'
import type { Tenants } from '../platform/tenancy'
import { DEFAULT_DATE_FROM, recordingQuery, visibleRecordings } from './list-query'
import type { ClickHouseMetadataStore, StoredRecording } from './metadata-store'
import type { RecordingStateStore } from './recording-state'
import type { SharingStore } from './sharing-store'
import { Recording, RecordingPage, SharedRecording } from './schemas'

const DEFAULT_LIMIT = 50
const MAX_LIMIT = 1000
/** PostHog: a recording is ongoing while data for it arrived at most this long ago (max(_timestamp)), however old its events. */
const ONGOING_MS = 5 * 60_000

const RecordingId = Type.Object({ id: Type.String({ description: 'The recording’s session id.' }) })

export async function recordingRoutes(
  app: FastifyInstance,
  deps: {
    projects: Tenants
    metadata: ClickHouseMetadataStore
    persons: PersonQueries
    actions: ActionStore
    cohorts: Pick<CohortStore, 'list'>
    clickhouse: ClickHouseClient
    clock: Clock
    sharing: SharingStore
    state: RecordingStateStore
    siteUrl: string | null
  },
): Promise<void> {
  const route = routesOf(app, { projects: deps.projects, tag: 'session recordings', sharing: deps.sharing, clickhouse: deps.clickhouse })
  const showPerson = (p: PersonRecord) => ({
    id: p.id,
    name: displayName(p),
    distinct_ids: p.distinctIds,
    properties: p.properties,
    created_at: p.createdAt,
    uuid: p.uuid,
  })
  /** The recordings' persons, by distinct id (one query for all of them). */
  const personsOf = (teamId: number, recordings: Array<{ distinctId: string }>) =>
    deps.persons.byDistinctIds(teamId, [...new Set(recordings.map((r) => r.distinctId))])
  /** The recordings with their persons. */
  const withPersons = async (teamId: number, recordings: StoredRecording[]) => {
    const persons = await personsOf(teamId, recordings)
    return recordings.map((r) => show(r, persons.get(r.distinctId) ?? null))
  }
  const show = (r: StoredRecording, person: PersonRecord | null) => {
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
      ongoing: r.receivedAt >= deps.clock.now().getTime() - ONGOING_MS,
      activity_score: s.activity_score,
      person: person ? showPerson(person) : null,
      storage: 'object_storage',
    }
  }

  const json = (description: string) => Type.Optional(Type.String({ description: `JSON: ${description}` }))
  route({
    method: 'GET',
    url: '/session_recordings/',
    summary: 'The project’s session recordings, newest first',
    description: `PostHog’s list envelope \`{results, has_next}\`, newest first by start time, filtered as PostHog’s RecordingsQuery (JSON values in the query string). \`date_from\` defaults to \`${DEFAULT_DATE_FROM}\` as in PostHog (\`all\`: no bound). Example: \`having_predicates=[{"type":"recording","key":"console_error_count","operator":"gt","value":0}]\`.`,
    access: { project: 'session_recording:read' },
    personData: true,
    schema: {
      querystring: Type.Object({
        ...Paging(DEFAULT_LIMIT, MAX_LIMIT),
        date_from: Type.Optional(Type.String({ description: 'Recordings that started at or after this date: ISO, or relative like -7d.' })),
        date_to: Type.Optional(Type.String({ description: 'Recordings that started at or before this date: ISO, or relative like -1d.' })),
        distinct_id: Type.Optional(Type.String({ description: 'Recordings of this distinct id.' })),
        distinct_ids: json('recordings of any of these distinct ids.'),
        person_uuid: Type.Optional(Type.String({ format: 'uuid', description: 'Recordings of any of this person’s distinct ids.' })),
        session_ids: json('only these sessions.'),
        min_duration: Type.Optional(Type.Number({ minimum: 0, description: 'Recordings at least this many seconds long.' })),
        events: json(
          '[{"id": "$pageview", "properties": [...]}]: sessions with such an event (`$session_id`); an id of null is any event.',
        ),
        actions: json('[{"id": 3, "properties": [...]}]: sessions with an event that matches the action and the entry’s properties.'),
        properties: json(
          'property filters: event (an event of the session; with is_not, not_icontains, not_regex or is_not_set, every event of it), person (its person), cohort (its person is in the cohort), recording (as having_predicates).',
        ),
        console_log_filters: json(
          '[{"type": "log_entry", "key": "level" | "message", "operator": …, "value": …}]: sessions with such a console line.',
        ),
        having_predicates: json(
          'recording filters on the session itself: duration, active_seconds, inactive_seconds, click_count, keypress_count, mouse_activity_count, console_log_count, console_warn_count, console_error_count, activity_score, snapshot_source, visited_page (any url of the session).',
        ),
        filter_test_accounts: Type.Optional(Type.String({ description: 'true: apply the project’s test_account_filters too.' })),
        operand: Type.Optional(
          Type.String({
            description:
              'AND (default) or OR between events, actions, properties and console_log_filters, and between person filters (and between cohort filters) of properties.',
          }),
        ),
        order: Type.Optional(
          Type.String({
            description:
              'start_time (default), duration, active_seconds, inactive_seconds, click_count, keypress_count, mouse_activity_count, console_*_count, activity_score.',
          }),
        ),
        order_direction: Type.Optional(Type.String({ description: 'DESC (default) or ASC.' })),
      }),
      response: { 200: RecordingPage },
    },
    handler: async (request, reply, caller, hidden) => {
      const q = request.query
      const paging = pageRequest(q, DEFAULT_LIMIT)
      const { limit, offset } = paging
      const teamId = caller.project.id
      // The filters (which may read actions and cohorts) and person_uuid's person are independent: read together.
      const [query, person] = await Promise.all([
        recordingQuery(q, { project: caller.project, now: deps.clock.now(), actions: deps.actions, cohorts: deps.cohorts, hidden }),
        q.person_uuid ? deps.persons.get(teamId, { uuid: q.person_uuid }) : undefined,
      ])
      if (q.person_uuid) {
        const ids = person?.distinctIds ?? []
        query.distinctIds = query.distinctIds ? query.distinctIds.filter((id) => ids.includes(id)) : ids
      }
      const links = (more: boolean) => pageLinks(request, deps.siteUrl, paging, { more })
      if (query.distinctIds?.length === 0) return { results: [], has_next: false, ...links(false) }
      const page = await deps.metadata.page(teamId, { ...query, limit, offset, signal: callerGone(reply) })
      // The shown sessions' states and persons, together (the row past the limit only tells has_next).
      const shown = page.slice(0, limit)
      const [recordings, persons] = await Promise.all([deps.metadata.summarize(teamId, shown), personsOf(teamId, shown)])
      const more = page.length > limit
      return { results: recordings.map((r) => show(r, persons.get(r.distinctId) ?? null)), has_next: more, ...links(more) }
    },
  })

  /** The recording, unless it is not in the project or its person is hidden from the key (404 either way). */
  const find = async (caller: { project: { id: number } }, sessionId: string, hidden: HiddenPersons | null): Promise<StoredRecording> => {
    const teamId = caller.project.id
    const recording = await deps.metadata.get(teamId, sessionId, visibleRecordings(hidden))
    if (!recording) throw wrenError('not_found', `No recording with session id ${JSON.stringify(sessionId)} in this project.`)
    return recording
  }

  route({
    method: 'GET',
    url: '/session_recordings/:id/',
    summary: 'One session recording',
    description: 'With a sharing access token instead of a key: only `{id, recording_duration, start_time, end_time}`.',
    access: { project: 'session_recording:read', sharedRecording: 'id' },
    personData: true,
    schema: { params: RecordingId, response: { 200: Type.Union([Recording, SharedRecording]) } },
    handler: async (request, _reply, caller, hidden) => {
      const recording = await find(caller, request.params.id, hidden)
      if (caller.key === null) {
        const { recording_duration, start_time, end_time } = recording.summary
        return { id: recording.sessionId, recording_duration, start_time, end_time }
      }
      const [shown] = await withPersons(caller.project.id, [recording])
      return shown
    },
  })

  route({
    method: 'PATCH',
    url: '/session_recordings/:id/',
    summary: 'Mark a session recording viewed',
    description:
      'PostHog’s update fields: `viewed: true` marks the recording viewed (for the whole project: Wren has no users), `analyzed` and `player_metadata` are accepted and change nothing, and so is `person` (a recording’s person follows from its distinct id); other fields are ignored. Answers the recording (PostHog answers `{success: true}`).',
    access: { project: 'session_recording:write' },
    personData: true,
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
    handler: async (request, _reply, caller, hidden) => {
      const { project } = caller
      const recording = await find(caller, request.params.id, hidden)
      const body = request.body
      if (!body.viewed && !body.analyzed && body.person === undefined)
        throw wrenError(
          'invalid_input',
          "At least one of 'viewed' or 'analyzed' must be true (a recording cannot be marked unviewed).",
          'viewed',
        )
      if (!body.viewed) return (await withPersons(project.id, [recording]))[0]
      await deps.state.markViewed(project.id, recording.sessionId)
      return (await withPersons(project.id, [{ ...recording, viewed: true }]))[0]
    },
  })

  route({
    method: 'DELETE',
    url: '/session_recordings/:id/',
    summary: 'Delete a session recording',
    description:
      'Removes its snapshot blocks and metadata and turns its sharing off. Afterwards the recording is gone from the list and retrieve (404) and its snapshots answer 410 `recording_deleted`; blocks of the session that arrive later are not shown.',
    access: { project: 'session_recording:write' },
    personData: true,
    schema: { params: RecordingId, response: { 204: NoContent } },
    handler: async (request, reply, caller, hidden) => {
      const { project } = caller
      const recording = await find(caller, request.params.id, hidden)
      await deps.sharing.disable(project.id, recording.sessionId)
      await deps.state.delete(project.id, recording.sessionId)
      return reply.status(204).send()
    },
  })
}
