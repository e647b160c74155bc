// The Query API, on both prefixes (/api/environments/:project_id/ and /api/projects/:project_id/), scope
// query:read (PostHog's QueryViewSet: every action is a read):
//   POST query/          run a query (its kind from the table, kinds.ts), by `refresh` (runner.ts)
//   POST query/:kind/    the same; the path's kind must be the query's
//   GET query/:id/       an asynchronous query's status, with its answer once complete
//   DELETE query/:id/    cancel it: its ClickHouse query is killed
// and the legacy trend endpoint (trend-routes.ts), a dialect of TrendsQuery run by the same runner.
import type { FastifyInstance, FastifyReply } from 'fastify'
import type { Static } from 'typebox'
import type { Caller } from '../platform/http/auth'
import { Type } from 'typebox'
import { wrenError } from '../platform/errors'
import { callerGone } from '../platform/http/caller-gone'
import { routesOf } from '../platform/http/route'
import { ErrorBody } from '../platform/http/schemas'
import { isRecord } from '../platform/json'
import type { Tenants } from '../platform/tenancy'
import type { DashboardFilter } from './kind'
import { endpointRefresh, type QueryRunner } from './runner'
import { CancelAnswer, FailedStatusAnswer, QueryAnswer, QueryRequestBody, QueryStatusAnswer } from './schemas'
import { trendRoutes } from './trend-routes'

export interface QueryRouteDeps {
  projects: Tenants
  runner: QueryRunner
  siteUrl: string | null
}

const QueryId = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200, description: 'The query id (its client_query_id).' }) })
const KindParam = Type.Object({ kind: Type.String({ minLength: 1, maxLength: 100, description: 'The query’s kind, e.g. HogQLQuery.' }) })
const answers = { 200: QueryAnswer, 202: QueryAnswer, 429: ErrorBody }

export async function queryRoutes(app: FastifyInstance, deps: QueryRouteDeps): Promise<void> {
  const { runner } = deps
  const route = routesOf(app, { projects: deps.projects, tag: 'query' })

  const run = async (body: Static<typeof QueryRequestBody>, reply: FastifyReply, { project, key }: Caller) => {
    const mode = endpointRefresh(body.refresh, body.async)
    const outcome = await runner.query(
      {
        query: body.query,
        filtersOverride: (body.filters_override ?? null) as DashboardFilter | null,
        variablesOverride: body.variables_override ?? null,
      },
      {
        project,
        viewer: key,
        // A blocking run stops when its caller leaves; a job runs under its own signal (DELETE stops it).
        signal: callerGone(reply),
        mode,
        clientQueryId: body.client_query_id ?? null,
      },
    )
    return reply.status(outcome.status).send(outcome.body)
  }

  const description =
    'PostHog’s Query API. 200 with the answer; 202 with query_status while an asynchronous run computes it (poll GET …/query/:id/). A kind PostHog has that Wren does not compute yet is a 400 saying so.'
  route({
    method: 'POST',
    url: '/query/',
    summary: 'Run a query',
    description,
    access: { project: 'query:read' },
    schema: { body: QueryRequestBody, response: answers },
    handler: (request, reply, caller) => run(request.body, reply, caller),
  })

  route({
    method: 'POST',
    url: '/query/:kind/',
    summary: 'Run a query of the kind the path names',
    description: `${description} The path’s kind must be the query’s.`,
    access: { project: 'query:read' },
    schema: { params: KindParam, body: QueryRequestBody, response: answers },
    handler: (request, reply, caller) => {
      const { kind } = request.params
      const sent = isRecord(request.body.query) ? request.body.query.kind : undefined
      if (sent !== kind)
        throw wrenError('invalid_input', `Kind mismatch: the path says ${kind}, the query is ${String(sent)}.`, 'query.kind')
      return run(request.body, reply, caller)
    },
  })

  route({
    method: 'GET',
    url: '/query/:id/',
    summary: 'An asynchronous query’s status, with its answer once complete',
    description:
      '202 while running, 200 when complete (query_status.results holds the answer), 400 when it failed with a message, 500 without. An unknown, expired or forgotten id (statuses live in memory: a restart forgets them) is a 404.',
    access: { project: 'query:read' },
    schema: {
      params: QueryId,
      querystring: Type.Object({
        show_progress: Type.Optional(Type.String({ description: 'Accepted; Wren reports no progress (query_progress is null).' })),
        showProgress: Type.Optional(Type.String()),
      }),
      response: { 200: QueryStatusAnswer, 202: QueryStatusAnswer, 400: FailedStatusAnswer, 500: FailedStatusAnswer },
    },
    handler: (request, reply, { project }) => {
      const { status, body } = runner.status(project, request.params.id)
      return reply.status(status).send(body)
    },
  })

  route({
    method: 'DELETE',
    url: '/query/:id/',
    summary: 'Cancel an asynchronous query',
    description: 'Its ClickHouse query is killed and its status forgotten (a GET then is a 404).',
    access: { project: 'query:read' },
    schema: { params: QueryId, response: { 200: CancelAnswer } },
    handler: async (request, reply, { project }) => reply.status(200).send(await runner.cancel(project, request.params.id)),
  })

  trendRoutes(routesOf(app, { projects: deps.projects, tag: 'insights' }), deps)
}
