// /api/projects/:project_id/surveys/ (and /api/environments/…): PostHog's surveys, with scopes survey:read/write.
// A list (search in name and description), create, retrieve, PATCH (launch with start_date, stop with end_date,
// archive), soft delete (its targeting flag deleted with it, as PostHog's DELETE does), and the stats of one survey
// or of every survey not archived, counted from posthog-js's survey events. Each survey has an internal targeting
// flag, as in PostHog, that keeps it from people who have answered or dismissed it.
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { Type, type Static } from 'typebox'
import { wrenError } from '../platform/errors'
import { hasScope } from '../platform/http/auth'
import { callerGone } from '../platform/http/caller-gone'
import { routesOf } from '../platform/http/route'
import { AnyObject, ListPaging, NoContent, Paginated, RecordId } from '../platform/http/schemas'
import { matchesSearch, pageOfList } from '../platform/http/request-url'
import type { ClickHouseClient } from '../platform/clickhouse'
import type { PersonalApiKey, Tenants } from '../platform/tenancy'
import { isRunning, iterations, MAX_ITERATION_COUNT, SURVEY_TYPES, type Survey, type SurveyFields, type SurveyStore } from './store'
import { interactedFilters, targetingFlagKey, type SurveyFlags } from './flags'
import { OneSurveyStatsAnswer, SurveyAnswer, SurveyStatsAnswer } from './schemas'
import { responseCounts, statsRange, surveyStats } from './stats'
import {
  checkExternal,
  checkLinkedVariant,
  validAppearance,
  validConditions,
  validDate,
  validQuestions,
  validSchedule,
  validTargetingFilters,
  withActions,
  type ConditionAction,
} from './validate'

export interface SurveyRouteDeps {
  projects: Tenants
  surveys: SurveyStore
  flags: SurveyFlags
  /** The project's actions (a survey can be shown after one). */
  actions: { list(teamId: number): Promise<ConditionAction[]> }
  clickhouse: ClickHouseClient
  siteUrl: string | null
  /** A user as PostHog's UserBasicSerializer shows one (null: no such user). */
  userBasic: (uuid: string) => Record<string, unknown> | null
  /** The user a caller (key or session) acts for, or null. */
  callerUser: (caller: PersonalApiKey) => string | null
}

const SurveyId = Type.Object({ id: RecordId('The survey’s id (a uuid).') })
const NullableInt = (opts: { minimum?: number; maximum?: number } = {}) => Type.Union([Type.Integer(opts), Type.Null()])
const fields = {
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 400 })),
  description: Type.Optional(Type.String()),
  type: Type.Optional(
    Type.Enum([...SURVEY_TYPES], {
      description: 'popover (posthog-js shows it), widget (behind a button or tab), api (your own UI), external_survey (a page of its own)',
    }),
  ),
  schedule: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'once, recurring or always' })),
  linked_flag_id: Type.Optional(NullableInt({ minimum: 1 })),
  targeting_flag_id: Type.Optional(Type.Integer({ minimum: 1, description: 'An existing flag to target with' })),
  targeting_flag_filters: Type.Optional(Type.Union([AnyObject('A flag’s filters: who sees it; a flag is made from them'), Type.Null()])),
  remove_targeting_flag: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  questions: Type.Optional(Type.Unknown({ description: 'open, link, rating, single_choice or multiple_choice questions' })),
  conditions: Type.Optional(
    Type.Unknown({ description: 'url, urlMatchType, selector, deviceTypes, events, seenSurveyWaitPeriodInDays, …' }),
  ),
  appearance: Type.Optional(Type.Unknown()),
  start_date: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'set: launched' })),
  end_date: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'set: stopped' })),
  archived: Type.Optional(Type.Boolean()),
  responses_limit: Type.Optional(NullableInt({ minimum: 0 })),
  iteration_count: Type.Optional(NullableInt({ minimum: 0, maximum: MAX_ITERATION_COUNT })),
  iteration_frequency_days: Type.Optional(NullableInt({ minimum: 0 })),
  enable_partial_responses: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
}
const StatsRange = Type.Object({
  date_from: Type.Optional(Type.String({ description: 'ISO 8601 with a timezone' })),
  date_to: Type.Optional(Type.String({ description: 'ISO 8601 with a timezone' })),
})
const PatchBody = Type.Object(fields)
type Body = Static<typeof PatchBody>

export async function surveyRoutes(app: FastifyInstance, deps: SurveyRouteDeps): Promise<void> {
  const { projects, surveys, flags } = deps
  const route = routesOf(app, { projects, tag: 'surveys' })

  const serialize = (s: Survey, viewer: PersonalApiKey) => {
    const linked = s.linkedFlagId !== null ? flags.minimal(s.teamId, s.linkedFlagId) : null
    const targeting = s.targetingFlagId !== null ? flags.minimal(s.teamId, s.targetingFlagId) : null
    const internal = s.internalTargetingFlagId !== null ? flags.minimal(s.teamId, s.internalTargetingFlagId) : null
    const iteration = iterations(s)
    return {
      id: s.uuid,
      name: s.name,
      description: s.description,
      type: s.type,
      schedule: s.schedule,
      linked_flag: linked,
      linked_flag_id: linked ? s.linkedFlagId : null,
      targeting_flag: targeting,
      internal_targeting_flag: internal,
      questions: s.questions,
      conditions: s.conditions,
      appearance: s.appearance,
      created_at: s.createdAt,
      created_by: s.createdBy ? deps.userBasic(s.createdBy) : null,
      start_date: s.startDate,
      end_date: s.endDate,
      archived: s.archived,
      responses_limit: s.responsesLimit,
      feature_flag_keys: [
        { key: 'linked_flag_key', value: linked?.key ?? null },
        { key: 'targeting_flag_key', value: targeting?.key ?? null },
        { key: 'internal_targeting_flag_key', value: internal?.key ?? null },
        { key: 'internal_response_sampling_flag_key', value: null },
      ],
      iteration_count: s.iterationCount,
      iteration_frequency_days: s.iterationFrequencyDays,
      iteration_start_dates: iteration.startDates,
      current_iteration: iteration.current,
      current_iteration_start_date: iteration.currentStart,
      response_sampling_start_date: null,
      response_sampling_interval_type: 'week',
      response_sampling_interval: null,
      response_sampling_limit: null,
      response_sampling_daily_limits: null,
      enable_partial_responses: s.enablePartialResponses,
      user_access_level: hasScope(viewer, 'survey:write') ? 'editor' : 'viewer',
    }
  }
  const find = async (teamId: number, id: string) => {
    const survey = await surveys.byUuid(teamId, id)
    if (!survey) throw wrenError('not_found', `Survey ${id} does not exist.`)
    return survey
  }
  const nameTaken = async (teamId: number, name: string, except: number | null) => {
    if ((await surveys.list(teamId)).some((s) => s.name === name && s.id !== except))
      throw wrenError(
        'unique',
        except === null ? 'There is already a survey with this name.' : 'There is already another survey with this name.',
        'name',
      )
  }
  const linkedFlag = (teamId: number, id: number | null) => {
    if (id === null) return null
    const variants = flags.variants(teamId, id)
    if (variants === null) throw wrenError('invalid_input', 'Feature Flag with this ID does not exist', 'linked_flag_id')
    return { variants }
  }
  /** The fields a body sets, checked, over `current` (a PATCH) or from nothing (a create). */
  const fieldsOf = (teamId: number, body: Body, current: Survey | null): Partial<SurveyFields> => {
    const out: Partial<SurveyFields> = {}
    if (body.name !== undefined) out.name = body.name
    if (body.description !== undefined) out.description = body.description
    if (body.type !== undefined) out.type = body.type
    if ('schedule' in body) out.schedule = validSchedule(body.schedule)
    if ('questions' in body) out.questions = validQuestions(body.questions)
    if ('conditions' in body) out.conditions = validConditions(body.conditions)
    if ('appearance' in body) out.appearance = validAppearance(body.appearance)
    if ('start_date' in body) out.startDate = validDate(body.start_date, 'start_date')
    if ('end_date' in body) out.endDate = validDate(body.end_date, 'end_date')
    if (body.archived !== undefined) out.archived = body.archived
    if ('responses_limit' in body) out.responsesLimit = body.responses_limit ?? null
    if ('iteration_count' in body) out.iterationCount = body.iteration_count ?? null
    if ('iteration_frequency_days' in body) out.iterationFrequencyDays = body.iteration_frequency_days ?? null
    if ('enable_partial_responses' in body) out.enablePartialResponses = body.enable_partial_responses ?? null
    if ('linked_flag_id' in body) out.linkedFlagId = body.linked_flag_id ?? null
    const linkedId = out.linkedFlagId !== undefined ? out.linkedFlagId : (current?.linkedFlagId ?? null)
    const conditions = out.conditions !== undefined ? out.conditions : (current?.conditions ?? null)
    checkLinkedVariant(conditions, linkedFlag(teamId, linkedId))
    const type = out.type ?? current?.type
    if (type === 'external_survey')
      checkExternal(body, conditions, out.appearance !== undefined ? out.appearance : (current?.appearance ?? null))
    if (body.targeting_flag_id !== undefined) {
      if (flags.variants(teamId, body.targeting_flag_id) === null)
        throw wrenError('invalid_input', 'Feature Flag with this ID does not exist', 'targeting_flag_id')
      out.targetingFlagId = body.targeting_flag_id
    }
    const iteration = current ? iterations(current).current : null
    if (typeof body.iteration_count === 'number' && iteration && iteration > body.iteration_count && body.iteration_count > 0)
      throw wrenError(
        'invalid_input',
        `Cannot change survey recurrence to ${body.iteration_count}, should be at least ${iteration}`,
        'iteration_count',
      )
    return out
  }
  /** The survey's flags are on while it runs, off otherwise (PostHog turns them off when a survey is stopped). */
  const syncFlags = async (s: Survey, actor: string) => {
    for (const id of [s.targetingFlagId, s.internalTargetingFlagId]) {
      const flag = id !== null ? flags.minimal(s.teamId, id) : null
      if (flag && id !== null && flag.active !== isRunning(s)) await flags.update(s.teamId, id, { active: isRunning(s) }, actor)
    }
  }

  route({
    method: 'GET',
    url: '/surveys/',
    summary: 'List surveys, the newest first',
    access: { project: 'survey:read' },
    schema: {
      querystring: Type.Object({ ...ListPaging('the name and description'), archived: Type.Optional(Type.Boolean()) }),
      response: { 200: Paginated(SurveyAnswer) },
    },
    handler: async (request, _reply, caller) => {
      const q = request.query
      const shown = (await surveys.list(caller.project.id))
        .filter((s) => matchesSearch(q.search, s.name, s.description) && (q.archived === undefined || s.archived === q.archived))
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id - a.id)
      const page = pageOfList(request, deps.siteUrl, shown, q, 100)
      return { ...page, results: page.results.map((s) => serialize(s, caller.key)) }
    },
  })

  route({
    method: 'GET',
    url: '/surveys/:id/',
    summary: 'Retrieve a survey',
    access: { project: 'survey:read' },
    schema: { params: SurveyId, response: { 200: SurveyAnswer } },
    handler: async (request, _reply, caller) => serialize(await find(caller.project.id, request.params.id), caller.key),
  })

  route({
    method: 'POST',
    url: '/surveys/',
    summary: 'Create a survey (targeting_flag_filters make its targeting flag)',
    access: { project: 'survey:write' },
    schema: {
      body: Type.Object({ ...fields, name: Type.String({ minLength: 1, maxLength: 400 }), type: Type.Enum([...SURVEY_TYPES]) }),
      response: { 201: SurveyAnswer },
    },
    handler: async (request, reply, caller) => {
      const teamId = caller.project.id
      const body: Body = request.body
      const given = fieldsOf(teamId, body, null)
      if (given.conditions) given.conditions = await withActions(given.conditions, () => deps.actions.list(teamId))
      await nameTaken(teamId, given.name!, null)
      const filters = validTargetingFilters(body.targeting_flag_filters)
      const actor = caller.key.label
      const draft = {
        name: given.name!,
        type: given.type!,
        archived: given.archived ?? false,
        description: given.description ?? '',
        schedule: given.schedule ?? 'once',
        questions: given.questions ?? null,
        conditions: given.conditions ?? null,
        appearance: given.appearance ?? null,
        startDate: given.startDate ?? null,
        endDate: given.endDate ?? null,
        responsesLimit: given.responsesLimit ?? null,
        iterationCount: given.iterationCount ?? null,
        iterationFrequencyDays: given.iterationFrequencyDays ?? null,
        enablePartialResponses: given.enablePartialResponses ?? false,
        linkedFlagId: given.linkedFlagId ?? null,
        targetingFlagId: given.targetingFlagId ?? null,
        internalTargetingFlagId: null as number | null,
        createdBy: deps.callerUser(caller.key) ?? '',
        uuid: randomUUID(),
      }
      const running = isRunning({ ...draft, deleted: false })
      const flagName = `Targeting flag for survey ${draft.name}`
      if (filters)
        draft.targetingFlagId = await flags.create(teamId, { key: targetingFlagKey(), name: flagName, filters, active: running }, actor)
      const iteration = iterations(draft)
      draft.internalTargetingFlagId = await flags.create(
        teamId,
        {
          key: `${targetingFlagKey()}-custom`,
          name: flagName,
          filters: interactedFilters(draft.uuid, iteration.current, draft.iterationCount),
          active: running,
        },
        actor,
      )
      const survey = await surveys.create(teamId, draft)
      return reply.status(201).send(serialize(survey, caller.key))
    },
  })

  route({
    method: 'PATCH',
    url: '/surveys/:id/',
    summary: 'Update a survey: start_date launches it, end_date stops it',
    access: { project: 'survey:write' },
    schema: { params: SurveyId, body: PatchBody, response: { 200: SurveyAnswer } },
    handler: async (request, _reply, caller) => {
      const teamId = caller.project.id
      const body: Body = request.body
      const current = await find(teamId, request.params.id)
      const given = fieldsOf(teamId, body, current)
      if (given.conditions) given.conditions = await withActions(given.conditions, () => deps.actions.list(teamId))
      if (given.name !== undefined && given.name !== current.name) await nameTaken(teamId, given.name, current.id)
      const filters = validTargetingFilters(body.targeting_flag_filters)
      const actor = caller.key.label
      if (body.remove_targeting_flag === true) {
        if (current.targetingFlagId !== null) await flags.update(teamId, current.targetingFlagId, { deleted: true }, actor)
        given.targetingFlagId = null
      }
      if (filters) {
        const existing = body.remove_targeting_flag === true ? null : current.targetingFlagId
        const flag = existing !== null ? flags.minimal(teamId, existing) : null
        if (flag && existing !== null) await flags.update(teamId, existing, { filters: { ...(flag.filters as object), ...filters } }, actor)
        else
          given.targetingFlagId = await flags.create(
            teamId,
            { key: targetingFlagKey(), name: `Targeting flag for survey ${given.name ?? current.name}`, filters, active: false },
            actor,
          )
      }
      const saved = await surveys.update(teamId, current.id, (now) => {
        if (now.deleted) throw wrenError('not_found', `Survey ${request.params.id} does not exist.`)
        return given
      })
      if (!saved) throw wrenError('not_found', `Survey ${request.params.id} does not exist.`)
      await syncFlags(saved, actor)
      return serialize(saved, caller.key)
    },
  })

  route({
    method: 'DELETE',
    url: '/surveys/:id/',
    summary: 'Delete a survey and its targeting flag (soft: kept, marked deleted)',
    access: { project: 'survey:write' },
    schema: { params: SurveyId, response: { 204: NoContent } },
    handler: async (request, reply, caller) => {
      const teamId = caller.project.id
      const survey = await find(teamId, request.params.id)
      for (const id of [survey.targetingFlagId, survey.internalTargetingFlagId])
        if (id !== null && flags.minimal(teamId, id)) await flags.update(teamId, id, { deleted: true }, caller.key.label)
      await surveys.update(teamId, survey.id, () => ({ deleted: true }))
      return reply.status(204).send()
    },
  })

  route({
    method: 'GET',
    url: '/surveys/:id/stats/',
    summary: 'A survey’s stats: shown, dismissed and sent, their persons, and its response and dismissal rates',
    access: { project: 'survey:read' },
    schema: { params: SurveyId, querystring: StatsRange, response: { 200: OneSurveyStatsAnswer } },
    handler: async (request, reply, caller) => {
      const survey = await find(caller.project.id, request.params.id)
      const range = statsRange(request.query.date_from, request.query.date_to)
      const answer = await surveyStats(deps.clickhouse, caller.project.id, [survey.uuid], range, callerGone(reply))
      return { ...answer, survey_id: survey.uuid, start_date: survey.startDate, end_date: survey.endDate }
    },
  })

  route({
    method: 'GET',
    url: '/surveys/stats/',
    summary: 'The stats of every survey that is not archived, together',
    access: { project: 'survey:read' },
    schema: { querystring: StatsRange, response: { 200: SurveyStatsAnswer } },
    handler: async (request, reply, caller) => {
      const range = statsRange(request.query.date_from, request.query.date_to)
      const ids = (await surveys.list(caller.project.id)).filter((s) => !s.archived).map((s) => s.uuid)
      return surveyStats(deps.clickhouse, caller.project.id, ids, range, callerGone(reply))
    },
  })

  route({
    method: 'GET',
    url: '/surveys/responses_count/',
    summary: 'How many responses each survey has (survey id → count), since the first launch',
    access: { project: 'survey:read' },
    schema: { response: { 200: Type.Record(Type.String(), Type.Integer()) } },
    handler: async (_request, reply, caller) => {
      const all = await surveys.list(caller.project.id)
      const starts = all.flatMap((s) => (s.startDate ? [Date.parse(s.startDate)] : []))
      if (starts.length === 0) return {}
      return Object.fromEntries(await responseCounts(deps.clickhouse, caller.project.id, Math.min(...starts), callerGone(reply)))
    },
  })
}
