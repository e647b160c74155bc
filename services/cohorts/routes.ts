// /api/projects/:project_id/cohorts/ (and /api/environments/...): CRUD with scopes cohort:read/write.
// Static cohorts take `distinct_ids` in JSON, or a CSV file (multipart field `csv`, or a text/csv body: upload.ts).
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { wrenError } from '../platform/errors'
import { sendFormatted } from '../platform/http/format'
import { routesOf } from '../platform/http/route'
import { AnyObject, Format, NoContent, ListPaging, Paginated, RecordId } from '../platform/http/schemas'
import { matchesSearch, pageOfList } from '../platform/http/request-url'
import { CohortAnswer } from './schemas'
import { SqlParams } from '../platform/clickhouse/params'
import type { Tenants } from '../platform/tenancy'
import type { ClickHouseClient } from '../platform/clickhouse'
import type { Clock } from '../platform/clock'
import type { HiddenPersons } from '../platform/http/hidden-persons'
import { cohortGroup, cohortIdsIn, cohortResolver, validateCohortGroup } from './membership'
import type { Cohort, CohortStore } from './store'
import { isRecord, jsonTooDeep, jsonTooDeepIn } from '../platform/json'
import { acceptUploads, membersFromCsv, type PersonDirectory } from './upload'

const CohortId = Type.Object({ id: RecordId('The cohort’s id.') })
const FormatOnly = Type.Object({ format: Type.Optional(Format) })
const Name = Type.String({ minLength: 1, pattern: '\\S', description: 'a non-empty name' })
// A multipart form or a CSV body carries strings: is_static may be 'true', filters a JSON string.
const fields = {
  description: Type.Optional(Type.String()),
  is_static: Type.Optional(Type.Union([Type.Boolean(), Type.Enum(['true', 'false'])])),
  filters: Type.Optional(
    Type.Union([
      AnyObject('{properties: a group of person-property and cohort filters}'),
      Type.String({ description: 'the same, as JSON' }),
    ]),
  ),
  groups: Type.Optional(Type.Unknown({ description: 'PostHog’s older form of filters.' })),
  distinct_ids: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Number()]), { description: 'The members of a static cohort.' })),
  csv: Type.Optional(
    Type.String({
      description:
        'A CSV of distinct ids (one column), or with a header naming a person_id, distinct_id or email column: a multipart file or field `csv`, or a text/csv body.',
    }),
  ),
}
const CONSUMES = ['application/json', 'multipart/form-data', 'text/csv']

export async function cohortRoutes(
  app: FastifyInstance,
  deps: {
    projects: Tenants
    cohorts: CohortStore
    persons: PersonDirectory
    clickhouse: ClickHouseClient
    clock: Clock
    siteUrl: string | null
  },
): Promise<void> {
  const { projects, cohorts, persons } = deps
  await acceptUploads(app)

  // The count leaves out the persons hidden from the key: else it answers whether a hidden person has a property.
  const count = async (c: Cohort, hidden: HiddenPersons | null, known?: Map<number, Cohort>) => {
    if (c.deleted) return 0
    const params = new SqlParams()
    const all = new Map(known ?? (await cohorts.list(c.teamId)).map((x) => [x.id, x] as const))
    all.set(c.id, c)
    try {
      const sql = cohortResolver(c.teamId, all, params)(c.id)
      return await cohorts.countMembers(c.teamId, sql, params.values, hidden?.uuids ?? [])
    } catch {
      return null
    }
  }
  // Members are counted when the cohort is read, so its calculation is as of now and never pending.
  const serialize = async (c: Cohort, hidden: HiddenPersons | null, known?: Map<number, Cohort>) => {
    const members = await count(c, hidden, known)
    return {
      id: c.id,
      name: c.name,
      description: c.description,
      groups: [],
      filters: c.filters,
      query: null,
      version: c.version,
      pending_version: c.version,
      is_static: c.isStatic,
      cohort_type: c.isStatic ? 'static' : 'person_property',
      is_calculating: false,
      last_calculation: deps.clock.now().toISOString(),
      errors_calculating: members === null ? 1 : 0,
      last_error_message: null,
      count: members,
      experiment_set: [],
      created_by: null,
      created_at: c.createdAt,
      updated_at: c.updatedAt,
      deleted: c.deleted,
      team_id: c.teamId,
    }
  }
  const find = async (teamId: number, raw: string) => {
    const id = Number(raw)
    const cohort = Number.isInteger(id) && id > 0 ? await cohorts.get(teamId, id) : undefined
    if (!cohort) throw wrenError('not_found', `Cohort ${raw} does not exist.`)
    return cohort
  }

  const route = routesOf(app, { projects, tag: 'cohorts', clickhouse: deps.clickhouse })

  route({
    method: 'GET',
    url: '/cohorts/',
    summary: 'List cohorts, with their member counts',
    access: { project: 'cohort:read' },
    personData: true,
    schema: {
      querystring: Type.Object({
        format: Type.Optional(Format),
        ...ListPaging('the name and description'),
      }),
      response: { 200: Paginated(CohortAnswer) },
    },
    handler: async (request, reply, { project }, hidden) => {
      const list = await cohorts.list(project.id)
      const known = new Map(list.map((c) => [c.id, c] as const))
      const shown = list.filter((c) => matchesSearch(request.query.search, c.name, c.description))
      const page = pageOfList(request, deps.siteUrl, shown, request.query, 100)
      return sendFormatted(request, reply, 200, {
        ...page,
        results: await Promise.all(page.results.map((c) => serialize(c, hidden, known))),
      })
    },
  })

  route({
    method: 'GET',
    url: '/cohorts/:id/',
    summary: 'Retrieve a cohort',
    access: { project: 'cohort:read' },
    personData: true,
    schema: { params: CohortId, querystring: FormatOnly, response: { 200: CohortAnswer } },
    handler: async (request, reply, { project }, hidden) =>
      sendFormatted(request, reply, 200, await serialize(await find(project.id, request.params.id), hidden)),
  })

  route({
    method: 'POST',
    url: '/cohorts/',
    summary: 'Create a cohort: dynamic (person-property filters) or static (a list of distinct ids, or a CSV)',
    access: { project: 'cohort:write' },
    personData: true,
    consumes: CONSUMES,
    schema: { body: Type.Object({ name: Name, ...fields }), response: { 201: CohortAnswer } },
    handler: async (request, reply, { project }, hidden) => {
      const body = request.body
      const distinctIds = await staticMembersOf(project.id, body, persons)
      const isStatic = body.is_static === true || body.is_static === 'true' || distinctIds !== null
      const filters = isStatic ? { properties: { type: 'AND', values: [] } } : await definitionOf(project.id, body, cohorts)
      const cohort = await cohorts.create(project.id, { name: body.name, description: body.description ?? '', filters, isStatic })
      if (distinctIds) await cohorts.addStaticMembers(project.id, cohort.id, distinctIds)
      return reply.status(201).send(await serialize(cohort, hidden))
    },
  })

  route({
    method: 'PATCH',
    url: '/cohorts/:id/',
    summary: 'Update a cohort; a static cohort takes more distinct ids or a CSV',
    description: 'deleted: true deletes it.',
    access: { project: 'cohort:write' },
    personData: true,
    consumes: CONSUMES,
    schema: {
      params: CohortId,
      querystring: FormatOnly,
      body: Type.Object({ name: Type.Optional(Name), ...fields, deleted: Type.Optional(Type.Boolean()) }),
      response: { 200: CohortAnswer },
    },
    handler: async (request, reply, { project }, hidden) => {
      const current = await find(project.id, request.params.id)
      const body = request.body
      const distinctIds = await staticMembersOf(project.id, body, persons)
      if (distinctIds && !current.isStatic)
        throw wrenError('invalid_input', 'Only static cohorts take a list of distinct ids or a CSV.', 'csv')
      const redefined = !current.isStatic && (body.filters !== undefined || body.groups !== undefined)
      const filters = redefined ? await definitionOf(project.id, body, cohorts, current.id) : undefined
      // The fields given, onto the cohort as stored now: a concurrent update of other fields stays.
      const updated = await cohorts.update(project.id, current.id, (stored) => {
        if (stored.deleted) throw wrenError('not_found', `Cohort ${request.params.id} does not exist.`)
        return {
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
          ...(filters !== undefined ? { filters } : {}),
          deleted: body.deleted === true,
        }
      })
      if (!updated) throw wrenError('not_found', `Cohort ${request.params.id} does not exist.`)
      if (distinctIds) await cohorts.addStaticMembers(project.id, current.id, distinctIds)
      return sendFormatted(request, reply, 200, await serialize(updated, hidden))
    },
  })

  route({
    method: 'DELETE',
    url: '/cohorts/:id/',
    summary: 'Delete a cohort',
    access: { project: 'cohort:write' },
    schema: { params: CohortId, response: { 204: NoContent } },
    handler: async (request, reply, { project }) => {
      const current = await find(project.id, request.params.id)
      await cohorts.update(project.id, current.id, () => ({ deleted: true }))
      return reply.status(204).send()
    },
  })
}

/** A dynamic cohort's definition, checked: person/cohort filters only, known cohorts, no cycles. */
async function definitionOf(
  teamId: number,
  body: Record<string, unknown>,
  cohorts: CohortStore,
  selfId?: number,
): Promise<Cohort['filters']> {
  let filters = body.filters
  if (typeof filters === 'string') {
    try {
      filters = JSON.parse(filters)
    } catch {
      throw wrenError('invalid_input', 'filters must be a JSON object.', 'filters')
    }
    if (jsonTooDeepIn(filters)) throw jsonTooDeep('filters')
  }
  const group = cohortGroup(filters, body.groups)
  // Said empty (`groups: []`, or an empty filters.properties), as a client that creates first and defines
  // after does: a cohort of no one until it is given filters, as in PostHog. Not saying anything is a 400.
  const saidEmpty = Array.isArray(body.groups) || (isRecord(filters) && filters.properties !== undefined)
  if (group.values.length === 0 && !saidEmpty)
    throw wrenError(
      'required',
      'A dynamic cohort needs filters.properties (person-property groups) or groups; for a fixed list use is_static with distinct_ids or a CSV.',
      'filters',
    )
  validateCohortGroup(group)
  const referenced = cohortIdsIn(group)
  if (selfId !== undefined && referenced.includes(selfId)) throw wrenError('invalid_input', 'A cohort cannot contain itself.', 'filters')
  if (referenced.length) {
    const known = new Map((await cohorts.list(teamId)).map((c) => [c.id, c] as const))
    for (const id of referenced)
      if (!known.has(id)) throw wrenError('invalid_input', `Cohort ${id} does not exist in this project.`, 'filters')
  }
  return { properties: group }
}

/** distinct ids from `distinct_ids` or a CSV (upload.ts: its ids may be distinct ids, person ids or emails). */
async function staticMembersOf(teamId: number, body: Record<string, unknown>, persons: PersonDirectory): Promise<string[] | null> {
  if (Array.isArray(body.distinct_ids)) {
    if (!body.distinct_ids.every((d) => typeof d === 'string' || typeof d === 'number'))
      throw wrenError('invalid_input', 'distinct_ids must be a list of strings.', 'distinct_ids')
    return body.distinct_ids.map(String)
  }
  if (typeof body.csv !== 'string') return null
  const { key, ids } = membersFromCsv(body.csv)
  return key === 'distinct_id' ? ids : persons.distinctIdsOfPersons(teamId, key, ids)
}
