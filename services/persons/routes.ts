// The persons API (spec "Persons"), under /api/environments/:project_id/ and /api/projects/:project_id/.
// Reads go to ClickHouse; writes are PersonCommands (commands.ts): commands on the log, applied by the
// ingestion processor (the single writer of person state), answered once the command is applied.
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { Clock } from '../platform/clock'
import type { Caller } from '../platform/http/auth'
import { wrenError } from '../platform/errors'
import { pageLinks, pageRequest } from '../platform/http/request-url'
import { formatOf, sendFormatted } from '../platform/http/format'
import { sendCsv } from '../platform/http/csv'
import { routesOf } from '../platform/http/route'
import { callerGone } from '../platform/http/caller-gone'
import {
  ActivityPage,
  ActivityPaging,
  AnyObject,
  ErrorBody,
  Format,
  NoContent,
  Paginated,
  Paging,
  RecordId,
  Success,
  Uuid,
} from '../platform/http/schemas'
import type { Log } from '../platform/log/log'
import { parsePropertyFilters } from '../analytics/property-filters/parse'
import { isCohortType } from '../analytics/property-filters/sql'
import { ACCESS_LEVELS, DEFAULT_LEVEL, type AccessControls } from '../platform/http/access-controls'
import type { Tenants } from '../platform/tenancy'
import type { CommandWaiter } from '../platform/log/command-results'
import type { PersonQueries, PersonRecord } from './queries'
import { Person, PropertiesTimeline } from './schemas'
import { serializePerson } from './serialize'
import { propertiesTimeline } from './timeline'
import type { CohortStore } from '../cohorts/store'
import { dateParamInstant } from '../analytics/time/date-params'
import { DeletionScheduler } from './deletions'
import { PersonCommands } from './commands'

export interface PersonRouteDeps {
  projects: Tenants
  queries: PersonQueries
  /** Object-level access to persons (a key may be limited to viewer or none on one person). */
  access: AccessControls
  log: Log
  /** The processor itself in one process; in an `api` process, the command-results reader. */
  processor: CommandWaiter
  clock: Clock
  deletions: DeletionScheduler
  /** For cohort filters on the list. */
  cohorts: Pick<CohortStore, 'list'>
  siteUrl: string | null
}

const DEFAULT_LIMIT = 100
const MAX_LIMIT = 1000
/** Persons one CSV export holds at most (PostHog's export limit). */
const CSV_LIMIT = 300_000
// date_from/date_to reach ClickHouse's parseDateTime64BestEffort, which refuses what JS's Date forgives ('0' is the year 2000 to Date).
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const PersonId = Type.Object({
  id: RecordId('The person’s integer id or uuid (to find one by distinct id: ?distinct_id= on the list).'),
})
const FormatOnly = Type.Object({ format: Type.Optional(Format) })
const PropertyFilters = Type.String({ description: 'A JSON list of property filters: [{"key", "value", "operator", "type"}].' })
const TimelineDate = Type.String({ description: 'an ISO date or date-time, or relative as trends take it (-7d, -1m, mStart)' })
const AccessControlsAnswer = AnyObject('The rules on this person, and the caller’s level.')

export async function personRoutes(app: FastifyInstance, deps: PersonRouteDeps): Promise<void> {
  const { queries, access } = deps
  const route = routesOf(app, { projects: deps.projects, tag: 'persons' })

  /** The person named by `:id` (integer id or uuid), with the caller's access level. */
  const personFor = async (caller: Caller, id: string, needed: 'viewer' | 'editor', opts: { includeDeleted?: boolean } = {}) => {
    const person = await findPerson(queries, caller.project.id, id, opts)
    const level = await access.require(caller.key, caller.project.id, 'person', String(person.id), needed)
    return { person, level }
  }

  const commands = new PersonCommands(deps)

  route({
    method: 'GET',
    url: '/persons/',
    summary: 'List persons, newest first',
    description: `?format=csv answers every person the filters select (up to ${CSV_LIMIT.toLocaleString('en')}, newest first; limit and offset do not apply), streamed.`,
    access: { project: 'person:read' },
    schema: {
      querystring: Type.Object({
        ...Paging(DEFAULT_LIMIT, MAX_LIMIT),
        distinct_id: Type.Optional(Type.String()),
        email: Type.Optional(Type.String()),
        search: Type.Optional(Type.String({ description: 'Matches name, email and distinct ids.' })),
        properties: Type.Optional(PropertyFilters),
        format: Type.Optional(Format),
      }),
      response: { 200: Paginated(Person) },
    },
    handler: async (request, reply, caller) => {
      const q = request.query
      const levels = await access.explicitLevels(caller.key, caller.project.id, 'person')
      const hiddenIds = [...levels].filter(([, level]) => level === 'none').map(([id]) => Number(id))
      const properties = parsePropertyFilters(q.properties)
      const cohorts = properties.some((f) => isCohortType(f.type))
        ? new Map((await deps.cohorts.list(caller.project.id)).map((c) => [c.id, c]))
        : undefined
      const filters = { distinctId: q.distinct_id, email: q.email, search: q.search, properties, hiddenIds, cohorts }
      const levelOf = (p: PersonRecord) => levels.get(String(p.id)) ?? DEFAULT_LEVEL
      if (formatOf(request) === 'csv')
        return sendCsv(reply, 200, async function* () {
          for await (const p of queries.each(caller.project.id, filters, CSV_LIMIT)) yield serializePerson(p, levelOf(p))
        })
      const page = pageRequest(q, DEFAULT_LIMIT)
      const { total, persons } = await queries.list(caller.project.id, {
        ...filters,
        limit: page.limit,
        offset: page.offset,
        signal: callerGone(reply),
      })
      const results = persons.map((p) => serializePerson(p, levelOf(p)))
      return sendFormatted(request, reply, 200, { count: total, ...pageLinks(request, deps.siteUrl, page, { count: total }), results })
    },
  })

  route({
    method: 'POST',
    url: '/persons/',
    summary: 'Not allowed: persons are created by events',
    access: { project: 'person:write' },
    schema: { response: { 405: ErrorBody } },
    handler: async () => {
      throw wrenError(
        'method_not_allowed',
        'Persons cannot be created through this API. Send events through capture instead: an $identify event (posthog.identify) creates and names a person, $set sets its properties.',
      )
    },
  })

  route({
    method: 'GET',
    url: '/persons/:id/',
    summary: 'Retrieve a person',
    access: { project: 'person:read' },
    schema: { params: PersonId, querystring: FormatOnly, response: { 200: Person } },
    handler: async (request, reply, caller) => {
      const { person, level } = await personFor(caller, request.params.id, 'viewer')
      return sendFormatted(request, reply, 200, serializePerson(person, level))
    },
  })

  // PUT too: PostHog accepts both as a merge of the given properties.
  route({
    method: ['PATCH', 'PUT'],
    url: '/persons/:id/',
    summary: 'Set some of a person’s properties (a merge)',
    access: { project: 'person:write' },
    schema: {
      params: PersonId,
      querystring: FormatOnly,
      body: Type.Object({ properties: AnyObject('The person properties to set.') }),
      response: { 200: Person },
    },
    handler: async (request, reply, caller) => {
      const { person, level } = await personFor(caller, request.params.id, 'editor')
      const updated = await commands.setProperties(caller.project.id, person, request.body.properties)
      return sendFormatted(request, reply, 200, serializePerson(updated, level))
    },
  })

  route({
    method: 'DELETE',
    url: '/persons/:id/',
    summary: 'Delete a person (and, with delete_events=true, their events)',
    access: { project: 'person:write' },
    schema: {
      params: PersonId,
      querystring: Type.Object({
        delete_events: Type.Optional(
          Type.Enum(['true', 'false', '1', '0', ''], { description: 'Also delete the person’s events (in the background).' }),
        ),
        format: Type.Optional(Format),
      }),
      response: { 204: NoContent },
    },
    handler: async (request, reply, caller) => {
      const { person } = await personFor(caller, request.params.id, 'editor')
      const deleteEvents = ['true', '1'].includes(request.query.delete_events ?? '')
      await commands.delete(caller.project.id, person, { deleteEvents })
      return reply.status(204).send()
    },
  })

  route({
    method: 'GET',
    url: '/persons/:id/activity/',
    summary: 'A person’s activity log (a deleted person’s stays readable)',
    access: { project: 'activity_log:read' },
    schema: {
      params: PersonId,
      querystring: Type.Object({ ...ActivityPaging(MAX_LIMIT), format: Type.Optional(Format) }),
      response: { 200: ActivityPage },
    },
    handler: async (request, reply, caller) => {
      // A deleted person's activity stays readable: its last entry says it was deleted.
      const { person } = await personFor(caller, request.params.id, 'viewer', { includeDeleted: true })
      const page = pageRequest(request.query, 10, 'page')
      const { total, rows } = await queries.activity(caller.project.id, person.uuid, page.limit, page.offset)
      const results = rows.map((r) => ({
        user: null,
        activity: r.activity,
        scope: 'Person',
        item_id: String(person.id),
        detail: { ...(JSON.parse(r.detail) as Record<string, unknown>), name: null, short_id: null, type: null },
        created_at: r.at,
      }))
      return sendFormatted(request, reply, 200, {
        results,
        ...pageLinks(request, deps.siteUrl, page, { count: total }),
        total_count: total,
      })
    },
  })

  route({
    method: 'POST',
    url: '/persons/:id/delete_property/',
    summary: 'Delete one property of a person',
    description: 'The property is named by $unset, in the body or the query string.',
    access: { project: 'person:write' },
    schema: {
      params: PersonId,
      querystring: Type.Object({ $unset: Type.Optional(Type.String()), format: Type.Optional(Format) }),
      body: Type.Object({ $unset: Type.Optional(Type.String({ description: 'The name of the property to delete.' })) }),
      response: { 200: Success },
    },
    handler: async (request, reply, caller) => {
      const { person } = await personFor(caller, request.params.id, 'editor')
      const key = request.body.$unset ?? request.query.$unset
      if (!key) throw wrenError('required', '$unset is required: the name of the property to delete.', '$unset')
      await commands.deleteProperty(caller.project.id, person, key)
      return sendFormatted(request, reply, 200, { success: true })
    },
  })

  route({
    method: 'GET',
    url: '/persons/:id/properties_timeline/',
    summary: 'How a person’s properties changed over their events',
    access: { project: 'person:read' },
    schema: {
      params: PersonId,
      querystring: Type.Object({
        properties: Type.Optional(PropertyFilters),
        date_from: Type.Optional(TimelineDate),
        date_to: Type.Optional(TimelineDate),
        format: Type.Optional(Format),
      }),
      response: { 200: PropertiesTimeline },
    },
    handler: async (request, reply, caller) => {
      const { person } = await personFor(caller, request.params.id, 'viewer')
      const q = request.query
      const keys = q.properties ? parsePropertyFilters(q.properties).map((f) => f.key) : []
      // Every form trends take: ISO dates as given, relative ones (-7d, mStart) in the project's timezone.
      const tz = caller.project.timezone || 'UTC'
      const instant = (name: 'date_from' | 'date_to'): string | null => {
        const raw = q[name]
        if (!raw) return null
        if (ISO_DATE.test(raw)) {
          if (Number.isNaN(new Date(raw).getTime())) throw wrenError('invalid_input', `${name} is not a valid date: '${raw}'.`, name)
          return raw
        }
        return dateParamInstant(raw, name, deps.clock.now(), tz).toISOString()
      }
      const from = instant('date_from')
      const to = instant('date_to')
      const rows = await queries.propertiesAtEvents(caller.project.id, person.distinctIds, from, to)
      const timeline = propertiesTimeline(rows, keys, from, to)
      return sendFormatted(request, reply, 200, timeline, timeline.points)
    },
  })

  route({
    method: 'POST',
    url: '/persons/:id/split/',
    summary: 'Split a merged person: each distinct id becomes its own person',
    access: { project: 'person:write' },
    schema: {
      params: PersonId,
      querystring: FormatOnly,
      body: Type.Object({
        main_distinct_id: Type.Optional(
          Type.Union([Type.String(), Type.Null()], { description: 'The distinct id that keeps the person (one of its own).' }),
        ),
      }),
      response: { 200: Success },
    },
    handler: async (request, reply, caller) => {
      const { person } = await personFor(caller, request.params.id, 'editor')
      await commands.split(caller.project.id, person, request.body.main_distinct_id)
      return sendFormatted(request, reply, 200, { success: true })
    },
  })

  route({
    method: 'GET',
    url: '/persons/:id/access_controls/',
    summary: 'Who may see and change this person',
    access: { project: 'access_control:read' },
    schema: { params: PersonId, querystring: FormatOnly, response: { 200: AccessControlsAnswer } },
    handler: async (request, reply, caller) => {
      const { person } = await personFor(caller, request.params.id, 'viewer')
      return sendFormatted(request, reply, 200, await access.describe(caller.key, caller.project.id, 'person', String(person.id)))
    },
  })

  route({
    method: 'PUT',
    url: '/persons/:id/access_controls/',
    summary: 'Set a rule: a key’s (or everyone’s) access level on this person',
    description: 'Needs a key holding every scope (*). access_level null removes the rule.',
    access: { project: 'access_control:write' },
    schema: {
      params: PersonId,
      querystring: FormatOnly,
      body: Type.Object({
        access_level: Type.Optional(Type.Union([Type.Enum(ACCESS_LEVELS), Type.Null()])),
        organization_member: Type.Optional(Type.Union([Type.String({ description: 'a personal API key id' }), Type.Null()])),
        role: Type.Optional(Type.Unknown({ description: 'Not supported.' })),
      }),
      response: { 200: AccessControlsAnswer },
    },
    handler: async (request, reply, caller) => {
      const person = await findPerson(queries, caller.project.id, request.params.id)
      await access.set(caller.key, caller.project.id, 'person', String(person.id), request.body)
      return sendFormatted(request, reply, 200, await access.describe(caller.key, caller.project.id, 'person', String(person.id)))
    },
  })
}

async function findPerson(
  queries: PersonQueries,
  teamId: number,
  raw: string,
  opts: { includeDeleted?: boolean } = {},
): Promise<PersonRecord> {
  let person: PersonRecord | null
  if (UUID_RE.test(raw)) person = await queries.get(teamId, { uuid: raw.toLowerCase() }, opts)
  else if (/^\d+$/.test(raw)) person = Number.isSafeInteger(Number(raw)) ? await queries.get(teamId, { id: Number(raw) }, opts) : null
  else
    throw wrenError(
      'invalid_input',
      `'${raw}' is not a person id or uuid. To find a person by distinct id, use /persons/?distinct_id=${encodeURIComponent(raw)}`,
      'id',
    )
  if (!person) throw wrenError('not_found', 'Person not found.')
  return person
}
