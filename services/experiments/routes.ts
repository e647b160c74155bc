// /api/projects/:project_id/experiments/ (and /api/environments/…): PostHog's experiments, with scopes
// experiment:read/write. A list newest first (search, archived, paging), create (with its flag), retrieve, PATCH
// (launch: start_date; stop: end_date; deleted: true deletes), and DELETE (soft). Results are the Query API's
// (ExperimentQuery, ExperimentExposureQuery).
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { routesOf } from '../platform/http/route'
import { AnyObject, ListPaging, NoContent, Paginated, RecordId } from '../platform/http/schemas'
import { matchesSearch, pageOfList } from '../platform/http/request-url'
import type { PersonalApiKey, Tenants } from '../platform/tenancy'
import { minimalFlag } from '../flags/serialize'
import { FlagManagement } from '../flags/service'
import type { FlagStore } from '../flags/store'
import type { Experiment, ExperimentStore } from './store'
import { ExperimentAnswer } from './schemas'
import { CONCLUSIONS, ExperimentManagement } from './service'

export interface ExperimentRouteDeps {
  projects: Tenants
  experiments: ExperimentStore
  flags: FlagStore
  /** The project's cohorts as stored (a new flag's filters are checked against them). */
  cohorts: { list(teamId: number): Promise<Array<{ id: number }>> }
  siteUrl: string | null
  /** A user as PostHog's UserBasicSerializer shows one (null: no such user). */
  userBasic: (uuid: string) => Record<string, unknown> | null
  /** The user a caller (key or session) acts for, or null. */
  callerUser: (caller: PersonalApiKey) => string | null
}

const ExperimentId = Type.Object({ id: RecordId('The experiment’s id.') })
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Optional(Type.Union([t, Type.Null()]))
const Metrics = Type.Array(AnyObject('an ExperimentMetric: {kind: "ExperimentMetric", metric_type: mean | funnel | ratio, …}'))
const fields = {
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 400 })),
  description: Nullable(Type.String({ maxLength: 3000 })),
  start_date: Nullable(Type.String({ description: 'the launch (ISO 8601); null: a draft' })),
  end_date: Nullable(Type.String({ description: 'the stop (ISO 8601)' })),
  type: Type.Optional(Type.Enum(['product', 'web'])),
  parameters: Nullable(AnyObject('feature_flag_variants [{key, rollout_percentage}], minimum_detectable_effect, rollout_percentage, …')),
  filters: Nullable(AnyObject()),
  secondary_metrics: Nullable(Type.Array(Type.Unknown())),
  metrics: Nullable(Metrics),
  metrics_secondary: Nullable(Metrics),
  stats_config: Nullable(AnyObject('{method: "bayesian", bayesian: {ci_level}}')),
  exposure_criteria: Nullable(AnyObject('{filterTestAccounts, exposure_config, multiple_variant_handling}')),
  archived: Type.Optional(Type.Boolean()),
  conclusion: Nullable(Type.Enum([...CONCLUSIONS])),
  conclusion_comment: Nullable(Type.String()),
  holdout_id: Nullable(Type.Integer()),
  saved_metrics_ids: Nullable(Type.Array(Type.Unknown())),
}

export async function experimentRoutes(app: FastifyInstance, deps: ExperimentRouteDeps): Promise<void> {
  const flags = new FlagManagement(deps.flags, deps.cohorts)
  const experiments = new ExperimentManagement(deps.experiments, flags)
  const route = routesOf(app, { projects: deps.projects, tag: 'experiments' })
  const serialize = (e: Experiment) => {
    const flag = deps.flags.get(e.teamId, e.featureFlagId)
    const uuids = (metrics: Array<Record<string, unknown>>) => metrics.map((m) => String(m.uuid))
    return {
      id: e.id,
      name: e.name,
      description: e.description,
      start_date: e.startDate,
      end_date: e.endDate,
      feature_flag_key: flag?.key ?? '',
      feature_flag: flag ? minimalFlag(flag) : null,
      holdout: null,
      holdout_id: null,
      exposure_cohort: null,
      parameters: e.parameters,
      secondary_metrics: e.secondaryMetrics,
      saved_metrics: [],
      // Wren links no saved metrics (a create naming some is a 400); PostHog's agent toolkit requires the key.
      saved_metrics_ids: null,
      filters: e.filters,
      archived: e.archived,
      deleted: e.deleted,
      created_by: e.createdBy ? deps.userBasic(e.createdBy) : null,
      created_at: e.createdAt,
      updated_at: e.updatedAt,
      type: e.type,
      metrics: e.metrics,
      metrics_secondary: e.metricsSecondary,
      primary_metrics_ordered_uuids: uuids(e.metrics),
      secondary_metrics_ordered_uuids: uuids(e.metricsSecondary),
      stats_config: e.statsConfig,
      exposure_criteria: e.exposureCriteria,
      conclusion: e.conclusion,
      conclusion_comment: e.conclusionComment,
    }
  }

  route({
    method: 'GET',
    url: '/experiments/',
    summary: 'List experiments, newest first',
    access: { project: 'experiment:read' },
    schema: {
      querystring: Type.Object({
        ...ListPaging('the name and description'),
        archived: Type.Optional(Type.Boolean({ description: 'true: only archived ones; false: only the others' })),
      }),
      response: { 200: Paginated(ExperimentAnswer) },
    },
    handler: async (request, _reply, { project }) => {
      const q = request.query
      const shown = (await deps.experiments.list(project.id))
        .filter((e) => matchesSearch(q.search, e.name, e.description) && (q.archived === undefined || e.archived === q.archived))
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id - a.id)
      const page = pageOfList(request, deps.siteUrl, shown, q, 100)
      return { ...page, results: page.results.map(serialize) }
    },
  })

  route({
    method: 'GET',
    url: '/experiments/:id/',
    summary: 'Retrieve an experiment',
    access: { project: 'experiment:read' },
    schema: { params: ExperimentId, response: { 200: ExperimentAnswer } },
    handler: async (request, _reply, { project }) => serialize(await experiments.find(project.id, request.params.id)),
  })

  route({
    method: 'POST',
    url: '/experiments/',
    summary: 'Create an experiment, and its multivariate flag unless one with that key exists',
    access: { project: 'experiment:write' },
    schema: {
      body: Type.Object({
        ...fields,
        name: Type.String({ minLength: 1, maxLength: 400 }),
        feature_flag_key: Type.String({ minLength: 1 }),
      }),
      response: { 201: ExperimentAnswer },
    },
    handler: async (request, reply, caller) => {
      const actor = { user: deps.callerUser(caller.key) ?? '', label: caller.key.label }
      return reply.status(201).send(serialize(await experiments.create(caller.project.id, request.body, actor)))
    },
  })

  route({
    method: 'PATCH',
    url: '/experiments/:id/',
    summary: 'Update an experiment: start_date launches it, end_date stops it, deleted: true deletes it',
    access: { project: 'experiment:write' },
    schema: {
      params: ExperimentId,
      body: Type.Object({ ...fields, feature_flag_key: Type.Optional(Type.String()), deleted: Type.Optional(Type.Boolean()) }),
      response: { 200: ExperimentAnswer },
    },
    handler: async (request, _reply, caller) =>
      serialize(await experiments.update(caller.project.id, request.params.id, request.body, caller.key.label)),
  })

  route({
    method: 'DELETE',
    url: '/experiments/:id/',
    summary: 'Delete an experiment (soft: it is kept, marked deleted; its flag stays)',
    access: { project: 'experiment:write' },
    schema: { params: ExperimentId, response: { 204: NoContent } },
    handler: async (request, reply, { project }) => {
      await experiments.delete(project.id, request.params.id)
      return reply.status(204).send()
    },
  })
}
