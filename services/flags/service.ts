// Flag management's logic, apart from HTTP: a flag looked up by the id in a path, the list with its
// filters, a create, and a PATCH (the fields given, validated against the project's other flags and
// cohorts; a version and an activity entry per real change, none for a PATCH that changes nothing).
import { wrenError } from '../platform/errors'
import { matchesSearch } from '../platform/http/request-url'
import type { FlagStore } from './store'
import type { FeatureFlag, FlagFilters } from './types'
import { serializeFlag } from './serialize'
import { cohortIdsOf, validateFilters, validateKey } from './validate'

/** A flag's fields as the API sends them (PostHog's names); each is optional on a PATCH. */
export interface FlagFields {
  key?: string
  name?: string | null
  filters?: unknown
  /** Shorthand for one group with no conditions at this rollout. */
  rollout_percentage?: number
  active?: boolean
  deleted?: boolean
  ensure_experience_continuity?: boolean
  tags?: string[] | null
  evaluation_runtime?: FeatureFlag['evaluationRuntime'] | null
  evaluation_tags?: string[] | null
  bucketing_identifier?: FeatureFlag['bucketingIdentifier']
}

/** The fields a change to which is a new version, by their API names (as the activity log names them). */
const EDITABLE = [
  'key',
  'name',
  'filters',
  'active',
  'deleted',
  'ensure_experience_continuity',
  'tags',
  'evaluation_runtime',
  'evaluation_tags',
  'bucketing_identifier',
] as const

export class FlagManagement {
  constructor(
    private readonly flags: Pick<FlagStore, 'all' | 'get' | 'allocateId' | 'save' | 'update' | 'now'>,
    /** The project's cohorts as stored (not decide's cache, which may lag a cohort created a moment ago). */
    private readonly cohorts: { list(teamId: number): Promise<Array<{ id: number }>> },
  ) {}

  /** The project's flag of a path's `:id` (deleted ones included); not_found otherwise. */
  get(teamId: number, id: string): FeatureFlag {
    const n = Number(id)
    const flag = Number.isInteger(n) ? this.flags.get(teamId, n) : undefined
    if (!flag) throw wrenError('not_found')
    return flag
  }

  /** The project's flags that are not deleted, newest first. `active`: 'true' or 'false' selects; `search` matches key and name. */
  list(teamId: number, q: { active?: string; search?: string }): FeatureFlag[] {
    let flags = this.flags.all(teamId).filter((f) => !f.deleted)
    if (q.active === 'true' || q.active === 'false') flags = flags.filter((f) => f.active === (q.active === 'true'))
    if (q.search) flags = flags.filter((f) => matchesSearch(q.search, f.key, f.name))
    flags.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id - a.id)
    return flags
  }

  async create(teamId: number, body: FlagFields & { key: string }, actor: string): Promise<FeatureFlag> {
    const siblings = this.flags.all(teamId)
    const key = validateKey(body.key, siblings, null)
    let filters: unknown = body.filters
    if (filters === undefined && typeof body.rollout_percentage === 'number')
      filters = { groups: [{ properties: [], rollout_percentage: body.rollout_percentage }] }
    const now = this.flags.now()
    const flag: FeatureFlag = {
      id: await this.flags.allocateId(),
      teamId,
      key,
      name: body.name ?? '',
      filters: await this.checkCohorts(teamId, validateFilters(filters, siblings, null)),
      active: body.active ?? true,
      deleted: body.deleted ?? false,
      ensureExperienceContinuity: body.ensure_experience_continuity ?? false,
      version: 1,
      evaluationRuntime: body.evaluation_runtime ?? 'all',
      evaluationTags: body.evaluation_tags ?? [],
      bucketingIdentifier: body.bucketing_identifier ?? null,
      tags: body.tags ?? [],
      createdAt: now,
      createdBy: actor,
      updatedAt: now,
      lastModifiedBy: actor,
    }
    await this.flags.save(flag, { flagId: flag.id, activity: 'created', detail: { changes: null, name: flag.key }, actor, at: now })
    return flag
  }

  /**
   * Applies the fields given to the flag as stored now (a concurrent PATCH of other fields stays);
   * `deleted: true` deletes. The flag as it is afterwards (unchanged when nothing changed).
   */
  async update(teamId: number, id: string, body: FlagFields, actor: string): Promise<FeatureFlag> {
    const flagId = this.get(teamId, id).id
    const updated = await this.flags.update(teamId, flagId, async (current) => {
      const siblings = this.flags.all(teamId)
      const next: FeatureFlag = { ...current }
      if ('key' in body) next.key = validateKey(body.key, siblings, current.id)
      if ('name' in body) next.name = body.name ?? ''
      if ('filters' in body) next.filters = await this.checkCohorts(teamId, validateFilters(body.filters, siblings, current.id))
      else if (typeof body.rollout_percentage === 'number')
        next.filters = validateFilters(
          { ...current.filters, groups: [{ properties: [], rollout_percentage: body.rollout_percentage }] },
          siblings,
          current.id,
        )
      if (body.active !== undefined) next.active = body.active
      if (body.deleted !== undefined) next.deleted = body.deleted
      if (body.ensure_experience_continuity !== undefined) next.ensureExperienceContinuity = body.ensure_experience_continuity
      if ('evaluation_runtime' in body) next.evaluationRuntime = body.evaluation_runtime ?? 'all'
      if ('evaluation_tags' in body) next.evaluationTags = body.evaluation_tags ?? []
      if ('tags' in body) next.tags = body.tags ?? []
      if ('bucketing_identifier' in body) next.bucketingIdentifier = body.bucketing_identifier ?? null
      // Undeleting a flag whose key was reused since is a key conflict.
      if (current.deleted && !next.deleted) validateKey(next.key, siblings, current.id)
      const changes = EDITABLE.flatMap((field) => {
        const before = serializeFlag(current)[field]
        const after = serializeFlag(next)[field]
        return JSON.stringify(before) === JSON.stringify(after) ? [] : [{ type: 'FeatureFlag', action: 'changed', field, before, after }]
      })
      if (changes.length === 0) return null
      const now = this.flags.now()
      next.updatedAt = now
      next.lastModifiedBy = actor
      const activity = {
        flagId: next.id,
        activity: next.deleted && !current.deleted ? ('deleted' as const) : ('updated' as const),
        detail: { changes, name: next.key },
        actor,
        at: now,
      }
      return { flag: next, activity }
    })
    if (!updated) throw wrenError('not_found')
    return updated
  }

  /** A flag may only use its own project's cohorts (another's would fail every decide of this project). */
  private async checkCohorts(teamId: number, filters: FlagFilters): Promise<FlagFilters> {
    const referenced = cohortIdsOf(filters)
    if (referenced.length === 0) return filters
    const known = new Set((await this.cohorts.list(teamId)).map((c) => c.id))
    for (const id of referenced)
      if (!known.has(id)) throw wrenError('invalid_input', `Cohort ${id} does not exist in this project.`, 'filters')
    return filters
  }
}
