// Flag management (reference §2.3) under /api/projects/:project_id/feature_flags/ and the environments
// prefix: list, create, retrieve, PATCH, soft delete by `deleted: true` (HTTP DELETE is refused), and
// the activity log. Scopes feature_flag:read / feature_flag:write.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { authorize, type Caller } from '../shared/http/auth'
import { badRequest, methodNotAllowed, notFound } from '../shared/errors'
import { absoluteUrl, isRecord, sendFormatted } from '../shared/http'
import type { ProjectStore } from '../projects/store'
import type { FlagStore } from './store'
import type { FeatureFlag, FlagFilters } from './types'
import { serializeFlag } from './serialize'
import { cohortIdsOf, validateFilters, validateKey } from './validate'

export interface FlagRouteDeps {
  projects: ProjectStore
  flags: FlagStore
  /** The project's cohorts as stored (not decide's cache, which may lag a cohort created a moment ago). */
  cohorts: { list(teamId: number): Promise<Array<{ id: number }>> }
  /** The project's group types by index (decide's snapshot keeps them; management only lists them). */
  snapshot: { groupTypeNames(teamId: number): Map<number, string> }
  siteUrl: string | null
}

type Params = { project_id: string; id: string }
type Query = Record<string, string | undefined>

const EDITABLE = ['key', 'name', 'filters', 'active', 'deleted', 'ensure_experience_continuity', 'tags', 'evaluation_runtime', 'evaluation_tags', 'bucketing_identifier'] as const

export async function flagRoutes(app: FastifyInstance, deps: FlagRouteDeps): Promise<void> {
  const flagFor = (caller: Caller, id: string): FeatureFlag => {
    const n = Number(id)
    const flag = Number.isInteger(n) ? deps.flags.get(caller.project.id, n) : undefined
    if (!flag) throw notFound()
    return flag
  }

  /** A flag may only use its own project's cohorts (another's would fail every decide of this project). */
  const checkCohorts = async (teamId: number, filters: FlagFilters): Promise<FlagFilters> => {
    const referenced = cohortIdsOf(filters)
    if (referenced.length === 0) return filters
    const known = new Set((await deps.cohorts.list(teamId)).map((c) => c.id))
    for (const id of referenced) if (!known.has(id)) throw badRequest('invalid_input', `Cohort ${id} does not exist in this project.`, 'filters')
    return filters
  }

  // The project's group types (the $groups types seen in events, indices 0–4), as flags aggregate by them.
  for (const prefix of ['/api/projects/:project_id/groups_types', '/api/environments/:project_id/groups_types']) {
    app.get<{ Params: Params }>(`${prefix}/`, async (request, reply) => {
      const caller = authorize(request, deps.projects, 'group:read', request.params.project_id)
      const types = [...deps.snapshot.groupTypeNames(caller.project.id)].sort((a, b) => a[0] - b[0])
      return sendFormatted(request, reply, 200, types.map(([index, name]) => ({ group_type: name, group_type_index: index, name_singular: null, name_plural: null })))
    })
  }

  for (const prefix of ['/api/projects/:project_id/feature_flags', '/api/environments/:project_id/feature_flags']) {
    app.get<{ Params: Params; Querystring: Query }>(`${prefix}/`, async (request, reply) => {
      const caller = authorize(request, deps.projects, 'feature_flag:read', request.params.project_id)
      const q = request.query
      const limit = intParam(q.limit, 100, 'limit', 1, 1000)
      const offset = intParam(q.offset, 0, 'offset', 0, Number.MAX_SAFE_INTEGER)
      let flags = deps.flags.all(caller.project.id).filter((f) => !f.deleted)
      if (q.active === 'true' || q.active === 'false') flags = flags.filter((f) => f.active === (q.active === 'true'))
      if (q.search) flags = flags.filter((f) => f.key.toLowerCase().includes(q.search!.toLowerCase()) || f.name.toLowerCase().includes(q.search!.toLowerCase()))
      flags.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id - a.id)
      const page = flags.slice(offset, offset + limit)
      const next = offset + page.length < flags.length ? absoluteUrl(request, deps.siteUrl, { limit, offset: offset + limit }) : null
      const previous = offset > 0 ? absoluteUrl(request, deps.siteUrl, { limit, offset: Math.max(0, offset - limit) }) : null
      return sendFormatted(request, reply, 200, { count: flags.length, next, previous, results: page.map(serializeFlag) })
    })

    app.post<{ Params: Params; Body: unknown }>(`${prefix}/`, async (request, reply) => {
      const caller = authorize(request, deps.projects, 'feature_flag:write', request.params.project_id)
      const body = bodyOf(request)
      const siblings = deps.flags.all(caller.project.id)
      const key = validateKey(body.key, siblings, null)
      let filters = body.filters
      if (filters === undefined && typeof body.rollout_percentage === 'number') filters = { groups: [{ properties: [], rollout_percentage: body.rollout_percentage }] }
      const now = deps.flags.now()
      const actor = caller.key.label
      const flag: FeatureFlag = {
        id: await deps.flags.allocateId(),
        teamId: caller.project.id,
        key,
        name: stringField(body.name, 'name') ?? '',
        filters: await checkCohorts(caller.project.id, validateFilters(filters, siblings, null)),
        active: boolField(body.active, 'active') ?? true,
        deleted: boolField(body.deleted, 'deleted') ?? false,
        ensureExperienceContinuity: boolField(body.ensure_experience_continuity, 'ensure_experience_continuity') ?? false,
        version: 1,
        evaluationRuntime: runtimeField(body.evaluation_runtime) ?? 'all',
        evaluationTags: stringList(body.evaluation_tags, 'evaluation_tags') ?? [],
        bucketingIdentifier: bucketingField(body.bucketing_identifier) ?? null,
        tags: stringList(body.tags, 'tags') ?? [],
        createdAt: now,
        createdBy: actor,
        updatedAt: now,
        lastModifiedBy: actor,
      }
      await deps.flags.save(flag, { flagId: flag.id, activity: 'created', detail: { changes: null, name: flag.key }, actor, at: now })
      return sendFormatted(request, reply, 201, serializeFlag(flag))
    })

    app.get<{ Params: Params }>(`${prefix}/:id/`, async (request, reply) => {
      const caller = authorize(request, deps.projects, 'feature_flag:read', request.params.project_id)
      return sendFormatted(request, reply, 200, serializeFlag(flagFor(caller, request.params.id)))
    })

    const update = async (request: FastifyRequest<{ Params: Params; Body: unknown }>) => {
      const caller = authorize(request, deps.projects, 'feature_flag:write', request.params.project_id)
      const current = flagFor(caller, request.params.id)
      const body = bodyOf(request)
      const siblings = deps.flags.all(caller.project.id)
      const next: FeatureFlag = { ...current }
      if ('key' in body) next.key = validateKey(body.key, siblings, current.id)
      if ('name' in body) next.name = stringField(body.name, 'name') ?? ''
      if ('filters' in body) next.filters = await checkCohorts(caller.project.id, validateFilters(body.filters, siblings, current.id))
      else if (typeof body.rollout_percentage === 'number') next.filters = validateFilters({ ...current.filters, groups: [{ properties: [], rollout_percentage: body.rollout_percentage }] }, siblings, current.id)
      if ('active' in body) next.active = boolField(body.active, 'active') ?? current.active
      if ('deleted' in body) next.deleted = boolField(body.deleted, 'deleted') ?? current.deleted
      if ('ensure_experience_continuity' in body) next.ensureExperienceContinuity = boolField(body.ensure_experience_continuity, 'ensure_experience_continuity') ?? false
      if ('evaluation_runtime' in body) next.evaluationRuntime = runtimeField(body.evaluation_runtime) ?? 'all'
      if ('evaluation_tags' in body) next.evaluationTags = stringList(body.evaluation_tags, 'evaluation_tags') ?? []
      if ('tags' in body) next.tags = stringList(body.tags, 'tags') ?? []
      if ('bucketing_identifier' in body) next.bucketingIdentifier = bucketingField(body.bucketing_identifier) ?? null
      // Undeleting a flag whose key was reused since is a key conflict.
      if (current.deleted && !next.deleted) validateKey(next.key, siblings, current.id)
      const changes = EDITABLE.flatMap((field) => {
        const before = serializeFlag(current)[field]
        const after = serializeFlag(next)[field]
        return JSON.stringify(before) === JSON.stringify(after) ? [] : [{ type: 'FeatureFlag', action: 'changed', field, before, after }]
      })
      if (changes.length === 0) return current
      const now = deps.flags.now()
      next.version = current.version + 1
      next.updatedAt = now
      next.lastModifiedBy = caller.key.label
      await deps.flags.save(next, { flagId: next.id, activity: next.deleted && !current.deleted ? 'deleted' : 'updated', detail: { changes, name: next.key }, actor: caller.key.label, at: now })
      return next
    }
    app.patch<{ Params: Params; Body: unknown }>(`${prefix}/:id/`, async (request, reply) => sendFormatted(request, reply, 200, serializeFlag(await update(request))))
    app.put<{ Params: Params; Body: unknown }>(`${prefix}/:id/`, async (request, reply) => sendFormatted(request, reply, 200, serializeFlag(await update(request))))

    app.delete<{ Params: Params }>(`${prefix}/:id/`, async (request) => {
      authorize(request, deps.projects, 'feature_flag:write', request.params.project_id)
      throw methodNotAllowed('Method "DELETE" not allowed. Delete a feature flag by PATCHing {"deleted": true}.')
    })

    app.get<{ Params: Params; Querystring: Query }>(`${prefix}/activity/`, async (request, reply) => {
      const caller = authorize(request, deps.projects, 'activity_log:read', request.params.project_id)
      return sendFormatted(request, reply, 200, await activityPage(deps, caller, null, request.query))
    })
    app.get<{ Params: Params; Querystring: Query }>(`${prefix}/:id/activity/`, async (request, reply) => {
      const caller = authorize(request, deps.projects, 'activity_log:read', request.params.project_id)
      const flag = flagFor(caller, request.params.id)
      return sendFormatted(request, reply, 200, await activityPage(deps, caller, flag.id, request.query))
    })
  }
}

async function activityPage(deps: FlagRouteDeps, caller: Caller, flagId: number | null, q: Query) {
  const limit = intParam(q.limit, 10, 'limit', 1, 1000)
  const page = intParam(q.page, 1, 'page', 1, Number.MAX_SAFE_INTEGER)
  const { total, rows } = await deps.flags.activity(caller.project.id, flagId, limit, (page - 1) * limit)
  return {
    results: rows.map((r) => ({
      user: { first_name: r.actor, email: null },
      activity: r.activity,
      scope: 'FeatureFlag',
      item_id: String(r.flagId),
      detail: { ...r.detail, short_id: null, type: null },
      created_at: r.at,
    })),
    total_count: total,
    next: null,
    previous: null,
  }
}

function bodyOf(request: FastifyRequest): Record<string, unknown> {
  if (!isRecord(request.body)) throw badRequest('invalid_input', 'Request body must be a JSON object.')
  return request.body
}

function stringField(value: unknown, attr: string): string | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') throw badRequest('invalid_input', `${attr} must be a string.`, attr)
  return value
}

function boolField(value: unknown, attr: string): boolean | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'boolean') throw badRequest('invalid_input', `${attr} must be true or false.`, attr)
  return value
}

function stringList(value: unknown, attr: string): string[] | undefined {
  if (value === undefined || value === null) return undefined
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw badRequest('invalid_input', `${attr} must be a list of strings.`, attr)
  return value as string[]
}

function runtimeField(value: unknown): FeatureFlag['evaluationRuntime'] | undefined {
  if (value === undefined || value === null) return undefined
  if (value !== 'server' && value !== 'client' && value !== 'all') throw badRequest('invalid_choice', `"${String(value)}" is not a valid choice: server, client or all.`, 'evaluation_runtime')
  return value
}

function bucketingField(value: unknown): FeatureFlag['bucketingIdentifier'] | undefined {
  if (value === undefined || value === null) return undefined
  if (value !== 'distinct_id' && value !== 'device_id') throw badRequest('invalid_choice', `"${String(value)}" is not a valid choice: distinct_id or device_id.`, 'bucketing_identifier')
  return value
}

function intParam(raw: string | undefined, fallback: number, attr: string, min: number, max: number): number {
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < min || n > max) throw badRequest('invalid_input', `${attr} must be an integer from ${min} to ${max}.`, attr)
  return n
}
