// Flag management (reference §2.3) under /api/projects/:project_id/feature_flags/ and the environments
// prefix: list, create, retrieve, PATCH, soft delete by `deleted: true` (HTTP DELETE is refused), and
// the activity log. Scopes feature_flag:read / feature_flag:write.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { Caller } from '../platform/http/auth'
import { wrenError } from '../platform/errors'
import { pageLinks, pageOfList, pageRequest, type PageRequest } from '../platform/http/request-url'
import { sendFormatted } from '../platform/http/format'
import { routesOf } from '../platform/http/route'
import {
  ActivityPage,
  ActivityPaging,
  AnyObject,
  ErrorBody,
  Format,
  ListPaging,
  MAX_LIST_LIMIT,
  Paginated,
  RecordId,
} from '../platform/http/schemas'
import { Flag } from './schemas'
import type { Tenants } from '../platform/tenancy'
import type { FlagStore } from './store'
import { serializeFlag } from './serialize'
import { FlagManagement } from './service'

export interface FlagRouteDeps {
  projects: Tenants
  flags: FlagStore
  /** The project's cohorts as stored (not decide's cache, which may lag a cohort created a moment ago). */
  cohorts: { list(teamId: number): Promise<Array<{ id: number }>> }
  /** The project's group types by index (decide's snapshot keeps them; management only lists them). */
  snapshot: { groupTypeNames(teamId: number): Map<number, string> }
  siteUrl: string | null
}

const FormatOnly = Type.Object({ format: Type.Optional(Format) })
const FlagId = Type.Object({ id: RecordId('The flag’s id.') })
const ActivityQuery = Type.Object({ ...ActivityPaging(MAX_LIST_LIMIT), format: Type.Optional(Format) })
const Key = Type.String({ description: 'Letters, numbers, hyphens and underscores; unique among the project’s flags.' })
const Tags = Type.Union([Type.Array(Type.String()), Type.Null()])
const flagFields = {
  name: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  filters: Type.Optional(
    Type.Union([
      AnyObject(
        '{groups: [{properties, rollout_percentage, variant}], multivariate: {variants}, payloads, aggregation_group_type_index, super_groups, holdout_groups}',
      ),
      Type.Null(),
    ]),
  ),
  rollout_percentage: Type.Optional(Type.Number({ description: 'Shorthand for one group with no conditions at this rollout.' })),
  active: Type.Optional(Type.Boolean()),
  deleted: Type.Optional(Type.Boolean()),
  ensure_experience_continuity: Type.Optional(Type.Boolean()),
  tags: Type.Optional(Tags),
  evaluation_runtime: Type.Optional(Type.Union([Type.Enum(['server', 'client', 'all']), Type.Null()])),
  evaluation_tags: Type.Optional(Tags),
  bucketing_identifier: Type.Optional(Type.Union([Type.Enum(['distinct_id', 'device_id']), Type.Null()])),
}

export async function flagRoutes(app: FastifyInstance, deps: FlagRouteDeps): Promise<void> {
  const flags = new FlagManagement(deps.flags, deps.cohorts)

  const route = routesOf(app, { projects: deps.projects, tag: 'feature flags' })

  // The project's group types (the $groups types seen in events, indices 0–4), as flags aggregate by them.
  route({
    method: 'GET',
    url: '/groups_types/',
    summary: 'The project’s group types (from $groups in its events)',
    access: { project: 'group:read' },
    schema: {
      querystring: FormatOnly,
      response: {
        200: Type.Array(
          Type.Object({
            group_type: Type.String(),
            group_type_index: Type.Integer(),
            name_singular: Type.Null(),
            name_plural: Type.Null(),
          }),
        ),
      },
    },
    handler: async (request, reply, caller) => {
      const types = [...deps.snapshot.groupTypeNames(caller.project.id)].sort((a, b) => a[0] - b[0])
      return sendFormatted(
        request,
        reply,
        200,
        types.map(([index, name]) => ({ group_type: name, group_type_index: index, name_singular: null, name_plural: null })),
      )
    },
  })

  route({
    method: 'GET',
    url: '/feature_flags/',
    summary: 'List feature flags, newest first',
    access: { project: 'feature_flag:read' },
    schema: {
      querystring: Type.Object({
        ...ListPaging('the key and name'),
        active: Type.Optional(Type.String({ description: 'true or false: only active or only inactive flags' })),
        format: Type.Optional(Format),
      }),
      response: { 200: Paginated(Flag) },
    },
    handler: async (request, reply, caller) => {
      const page = pageOfList(request, deps.siteUrl, flags.list(caller.project.id, request.query), request.query, 100)
      return sendFormatted(request, reply, 200, { ...page, results: page.results.map((f) => serializeFlag(f, caller.key)) })
    },
  })

  route({
    method: 'POST',
    url: '/feature_flags/',
    summary: 'Create a feature flag',
    access: { project: 'feature_flag:write' },
    schema: { querystring: FormatOnly, body: Type.Object({ key: Key, ...flagFields }), response: { 201: Flag } },
    handler: async (request, reply, caller) =>
      sendFormatted(request, reply, 201, serializeFlag(await flags.create(caller.project.id, request.body, caller.key.label), caller.key)),
  })

  route({
    method: 'GET',
    url: '/feature_flags/:id/',
    summary: 'Retrieve a feature flag',
    access: { project: 'feature_flag:read' },
    schema: { params: FlagId, querystring: FormatOnly, response: { 200: Flag } },
    handler: async (request, reply, caller) =>
      sendFormatted(request, reply, 200, serializeFlag(flags.get(caller.project.id, request.params.id), caller.key)),
  })

  route({
    method: ['PATCH', 'PUT'],
    url: '/feature_flags/:id/',
    summary: 'Update a feature flag (deleted: true deletes it)',
    access: { project: 'feature_flag:write' },
    schema: {
      params: FlagId,
      querystring: FormatOnly,
      body: Type.Object({ key: Type.Optional(Key), ...flagFields }),
      response: { 200: Flag },
    },
    handler: async (request, reply, caller) => {
      const flag = await flags.update(caller.project.id, request.params.id, request.body, caller.key.label)
      return sendFormatted(request, reply, 200, serializeFlag(flag, caller.key))
    },
  })

  route({
    method: 'DELETE',
    url: '/feature_flags/:id/',
    summary: 'Not allowed: delete a flag by PATCHing {"deleted": true}',
    access: { project: 'feature_flag:write' },
    schema: { params: FlagId, response: { 405: ErrorBody } },
    handler: async () => {
      throw wrenError('method_not_allowed', 'Method "DELETE" not allowed. Delete a feature flag by PATCHing {"deleted": true}.')
    },
  })

  route({
    method: 'GET',
    url: '/feature_flags/activity/',
    summary: 'The activity log of every flag of the project',
    access: { project: 'activity_log:read' },
    schema: { querystring: ActivityQuery, response: { 200: ActivityPage } },
    handler: async (request, reply, caller) =>
      sendFormatted(request, reply, 200, await activityPage(request, deps, caller, null, pageRequest(request.query, 10, 'page'))),
  })
  route({
    method: 'GET',
    url: '/feature_flags/:id/activity/',
    summary: 'A flag’s activity log',
    access: { project: 'activity_log:read' },
    schema: { params: FlagId, querystring: ActivityQuery, response: { 200: ActivityPage } },
    handler: async (request, reply, caller) => {
      const flag = flags.get(caller.project.id, request.params.id)
      return sendFormatted(request, reply, 200, await activityPage(request, deps, caller, flag.id, pageRequest(request.query, 10, 'page')))
    },
  })
}

async function activityPage(request: FastifyRequest, deps: FlagRouteDeps, caller: Caller, flagId: number | null, page: PageRequest) {
  const { total, rows } = await deps.flags.activity(caller.project.id, flagId, page.limit, page.offset)
  return {
    results: rows.map((r) => ({
      user: { first_name: r.actor, email: null },
      activity: r.activity,
      scope: 'FeatureFlag',
      item_id: String(r.flagId),
      detail: { ...r.detail, short_id: null, type: null },
      created_at: r.at,
    })),
    ...pageLinks(request, deps.siteUrl, page, { count: total }),
    total_count: total,
  }
}
