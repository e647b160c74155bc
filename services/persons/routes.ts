// The persons API (spec "Persons"), under /api/environments/:project_id/ and /api/projects/:project_id/.
// Reads go to ClickHouse; writes become commands on the log, applied by the ingestion processor (the
// single writer of person state), and the route answers once the command is applied.
import { randomUUID } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Clock } from '../shared/clock'
import { authorize, type Caller } from '../shared/http/auth'
import { badRequest, methodNotAllowed, notFound, unavailable, WrenError } from '../shared/errors'
import { absoluteUrl, formatOf, isRecord, sendFormatted } from '../shared/http'
import { encodeIngest } from '../shared/log/contract'
import { TOPICS, type Log } from '../shared/log/log'
import { parsePropertyFilters } from '../shared/property-filters/parse'
import { DEFAULT_LEVEL, type AccessControls } from '../shared/http/access-controls'
import type { ProjectStore } from '../projects/store'
import type { IngestionProcessor } from '../ingestion/processor'
import type { PersonCommand } from '../shared/log/contract'
import type { PersonQueries, PersonRecord } from './queries'
import { serializePerson } from './serialize'
import { propertiesTimeline } from './timeline'
import { DeletionScheduler } from './deletions'

export interface PersonRouteDeps {
  projects: ProjectStore
  queries: PersonQueries
  /** Object-level access to persons (a key may be limited to viewer or none on one person). */
  access: AccessControls
  log: Log
  /** The processor itself in one process; in an `api` process, the command-results reader. */
  processor: Pick<IngestionProcessor, 'waitForCommand'>
  clock: Clock
  deletions: DeletionScheduler
  siteUrl: string | null
}

const DEFAULT_LIMIT = 100
const MAX_LIMIT = 1000
const CSV_LIMIT = 10_000
// date_from/date_to reach ClickHouse's parseDateTime64BestEffort, which refuses what JS's Date forgives ('0' is the year 2000 to Date).
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

type Params = { project_id: string; id: string }
type Query = Record<string, string | undefined>

export async function personRoutes(app: FastifyInstance, deps: PersonRouteDeps): Promise<void> {
  const { queries, access } = deps

  /** Auth, then the person named by `:id` (integer id or uuid), with the caller's access level. */
  const personFor = async (request: FastifyRequest<{ Params: Params }>, scope: string, needed: 'viewer' | 'editor', opts: { includeDeleted?: boolean } = {}) => {
    const caller = authorize(request, deps.projects, scope, request.params.project_id)
    formatOf(request) // a bad ?format= is refused before anything changes
    const person = await findPerson(queries, caller.project.id, request.params.id, opts)
    const level = await access.require(caller.key, caller.project.id, 'person', String(person.id), needed)
    return { caller, person, level }
  }

  const command = async (caller: Caller, cmd: PersonCommand) => {
    // Listen before appending, so a fast processor cannot apply the command before anyone waits for it.
    const applied = deps.processor.waitForCommand(cmd.commandId)
    applied.catch(() => {}) // handled below; keeps an append failure from leaving an unhandled rejection
    await deps.log.append(TOPICS.ingest, [{ key: String(caller.project.id), value: encodeIngest({ kind: 'command', command: cmd }) }])
    let result
    try {
      result = await applied
    } catch {
      throw unavailable('The change is queued but was not applied in time; it will still be applied. Retry the read shortly.')
    }
    if (!result.ok) {
      const code = result.status === 404 ? 'not_found' : result.status === 400 ? 'invalid_input' : 'dead_lettered'
      throw new WrenError(result.status, code, result.status === 500 ? `The change could not be applied and was kept as a dead letter: ${result.detail}` : result.detail)
    }
  }
  const base = (caller: Caller, person: PersonRecord) => ({ commandId: randomUUID(), teamId: caller.project.id, personUuid: person.uuid, at: deps.clock.now().toISOString() })

  for (const prefix of ['/api/environments/:project_id/persons', '/api/projects/:project_id/persons']) {
    app.get<{ Params: Params; Querystring: Query }>(`${prefix}/`, async (request, reply) => {
      const caller = authorize(request, deps.projects, 'person:read', request.params.project_id)
      const q = request.query
      const csv = q.format === 'csv'
      const limit = csv ? CSV_LIMIT : intParam(q.limit, DEFAULT_LIMIT, 'limit', 1, MAX_LIMIT)
      const offset = csv ? 0 : intParam(q.offset, 0, 'offset', 0, Number.MAX_SAFE_INTEGER)
      const levels = await access.explicitLevels(caller.key, caller.project.id, 'person')
      const hiddenIds = [...levels].filter(([, level]) => level === 'none').map(([id]) => Number(id))
      const { total, persons } = await queries.list(caller.project.id, { distinctId: q.distinct_id, email: q.email, search: q.search, properties: parsePropertyFilters(q.properties), hiddenIds, limit, offset })
      const results = persons.map((p) => serializePerson(p, levels.get(String(p.id)) ?? DEFAULT_LEVEL))
      const next = offset + persons.length < total ? absoluteUrl(request, deps.siteUrl, { limit, offset: offset + limit }) : null
      const previous = offset > 0 ? absoluteUrl(request, deps.siteUrl, { limit, offset: Math.max(0, offset - limit) }) : null
      return sendFormatted(request, reply, 200, { count: total, next, previous, results })
    })

    app.post<{ Params: Params }>(`${prefix}/`, async (request) => {
      authorize(request, deps.projects, 'person:write', request.params.project_id)
      throw methodNotAllowed('Persons cannot be created through this API. Send events through capture instead: an $identify event (posthog.identify) creates and names a person, $set sets its properties.')
    })

    app.get<{ Params: Params }>(`${prefix}/:id/`, async (request, reply) => {
      const { person, level } = await personFor(request, 'person:read', 'viewer')
      return sendFormatted(request, reply, 200, serializePerson(person, level))
    })

    // PUT too: PostHog accepts both as a merge of the given properties.
    app.route<{ Params: Params; Body: unknown }>({ method: ['PATCH', 'PUT'], url: `${prefix}/:id/`, handler: async (request, reply) => {
      const { caller, person, level } = await personFor(request, 'person:write', 'editor')
      const body = isRecord(request.body) ? request.body : {}
      if (!isRecord(body.properties)) throw badRequest('required', 'properties is required: an object of person properties to set.', 'properties')
      await command(caller, { action: 'update_properties', ...base(caller, person), set: body.properties })
      const updated = await queries.get(caller.project.id, { uuid: person.uuid })
      if (!updated) throw notFound('Person was deleted while it was being updated.')
      return sendFormatted(request, reply, 200, serializePerson(updated, level))
    } })

    app.delete<{ Params: Params; Querystring: Query }>(`${prefix}/:id/`, async (request, reply) => {
      const { caller, person } = await personFor(request, 'person:write', 'editor')
      const deleteEvents = boolParam(request.query.delete_events, 'delete_events')
      await command(caller, { action: 'delete', ...base(caller, person) })
      if (deleteEvents) await deps.deletions.enqueuePersonEvents(caller.project.id, person.uuid, person.distinctIds)
      return reply.status(204).send()
    })

    app.get<{ Params: Params; Querystring: Query }>(`${prefix}/:id/activity/`, async (request, reply) => {
      // A deleted person's activity stays readable: its last entry says it was deleted.
      const { caller, person } = await personFor(request, 'activity_log:read', 'viewer', { includeDeleted: true })
      const limit = intParam(request.query.limit, 10, 'limit', 1, 1000)
      const page = intParam(request.query.page, 1, 'page', 1, Number.MAX_SAFE_INTEGER)
      const { total, rows } = await queries.activity(caller.project.id, person.uuid, limit, (page - 1) * limit)
      const results = rows.map((r) => ({
        user: null,
        activity: r.activity,
        scope: 'Person',
        item_id: String(person.id),
        detail: { ...(JSON.parse(r.detail) as Record<string, unknown>), name: null, short_id: null, type: null },
        created_at: r.at,
      }))
      const next = page * limit < total ? absoluteUrl(request, deps.siteUrl, { limit, page: page + 1 }) : null
      const previous = page > 1 ? absoluteUrl(request, deps.siteUrl, { limit, page: page - 1 }) : null
      return sendFormatted(request, reply, 200, { results, next, previous, total_count: total })
    })

    app.post<{ Params: Params; Querystring: Query; Body: unknown }>(`${prefix}/:id/delete_property/`, async (request, reply) => {
      const { caller, person } = await personFor(request, 'person:write', 'editor')
      const body = isRecord(request.body) ? request.body : {}
      const key = body.$unset ?? request.query.$unset
      if (typeof key !== 'string' || !key) throw badRequest('required', '$unset is required: the name of the property to delete.', '$unset')
      await command(caller, { action: 'delete_property', ...base(caller, person), key })
      return sendFormatted(request, reply, 200, { success: true })
    })

    app.get<{ Params: Params; Querystring: Query }>(`${prefix}/:id/properties_timeline/`, async (request, reply) => {
      const { caller, person } = await personFor(request, 'person:read', 'viewer')
      const q = request.query
      const keys = q.properties ? parsePropertyFilters(q.properties).map((f) => f.key) : []
      for (const name of ['date_from', 'date_to'] as const) {
        if (q[name] && (!ISO_DATE.test(q[name]) || Number.isNaN(new Date(q[name]).getTime()))) throw badRequest('invalid_input', `${name} must be an ISO date or date-time, got '${q[name]}'.`, name)
      }
      const rows = await queries.propertiesAtEvents(caller.project.id, person.distinctIds, q.date_from ?? null, q.date_to ?? null)
      const timeline = propertiesTimeline(rows, keys, q.date_from ?? null, q.date_to ?? null)
      return sendFormatted(request, reply, 200, timeline, timeline.points)
    })

    app.post<{ Params: Params; Body: unknown }>(`${prefix}/:id/split/`, async (request, reply) => {
      const { caller, person } = await personFor(request, 'person:write', 'editor')
      const body = isRecord(request.body) ? request.body : {}
      const main = body.main_distinct_id
      if (main !== undefined && main !== null && (typeof main !== 'string' || !person.distinctIds.includes(main))) {
        throw badRequest('invalid_input', 'main_distinct_id must be one of the person’s distinct ids.', 'main_distinct_id')
      }
      await command(caller, { action: 'split', ...base(caller, person), ...(typeof main === 'string' ? { mainDistinctId: main } : {}) })
      return sendFormatted(request, reply, 200, { success: true })
    })

    app.get<{ Params: Params }>(`${prefix}/:id/access_controls/`, async (request, reply) => {
      const { caller, person } = await personFor(request, 'access_control:read', 'viewer')
      return sendFormatted(request, reply, 200, await access.describe(caller.key, caller.project.id, 'person', String(person.id)))
    })

    app.put<{ Params: Params; Body: unknown }>(`${prefix}/:id/access_controls/`, async (request, reply) => {
      const caller = authorize(request, deps.projects, 'access_control:write', request.params.project_id)
      formatOf(request)
      const person = await findPerson(queries, caller.project.id, request.params.id)
      await access.set(caller.key, caller.project.id, 'person', String(person.id), isRecord(request.body) ? request.body : {})
      return sendFormatted(request, reply, 200, await access.describe(caller.key, caller.project.id, 'person', String(person.id)))
    })
  }
}

async function findPerson(queries: PersonQueries, teamId: number, raw: string, opts: { includeDeleted?: boolean } = {}): Promise<PersonRecord> {
  let person: PersonRecord | null
  if (UUID_RE.test(raw)) person = await queries.get(teamId, { uuid: raw.toLowerCase() }, opts)
  else if (/^\d+$/.test(raw)) person = Number.isSafeInteger(Number(raw)) ? await queries.get(teamId, { id: Number(raw) }, opts) : null
  else throw badRequest('invalid_input', `'${raw}' is not a person id or uuid. To find a person by distinct id, use /persons/?distinct_id=${encodeURIComponent(raw)}`, 'id')
  if (!person) throw notFound('Person not found.')
  return person
}

function intParam(raw: string | undefined, fallback: number, name: string, min: number, max: number): number {
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < min) throw badRequest('invalid_input', `${name} must be an integer ≥ ${min}, got '${raw}'.`, name)
  return Math.min(n, max)
}

function boolParam(raw: string | undefined, name: string): boolean {
  if (raw === undefined || raw === '' || raw === 'false' || raw === '0') return false
  if (raw === 'true' || raw === '1') return true
  throw badRequest('invalid_input', `${name} must be true or false, got '${raw}'.`, name)
}
