// /api/dead_letters/: list the messages the processors (ingestion, recordings) could not handle, and
// replay them after a fix. Dead letters can belong to no project (a message that does not decode), so
// only a key holding every scope (*) and limited to no project may see or replay them.
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { wrenError } from '../platform/errors'
import { pageLinks, pageRequest } from '../platform/http/request-url'
import { routesOf } from '../platform/http/route'
import { Paginated, Paging } from '../platform/http/schemas'
import type { Log } from '../platform/log/log'
import type { Metrics } from '../platform/metrics'
import type { Tenants } from '../platform/tenancy'
import type { DeadLetterRecord, DeadLetterStore } from './store'

export interface DeadLetterRouteDeps {
  projects: Tenants
  store: DeadLetterStore
  log: Log
  metrics: Metrics
  siteUrl: string | null
}

const DEFAULT_LIMIT = 100
const MAX_LIMIT = 1000

export function serializeDeadLetter(l: DeadLetterRecord): Record<string, unknown> {
  return {
    id: l.id,
    team_id: l.teamId,
    error: l.error,
    created_at: l.at,
    source: { topic: l.topic, partition: l.partition, offset: l.offset, consumer_group: l.group },
    size: l.size,
    replayed_at: l.replayedAt,
    payload_preview: l.payloadPreview,
  }
}

const DeadLetter = Type.Object({
  id: Type.String({ description: 'topic/partition/offset' }),
  team_id: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  source: Type.Object({ topic: Type.String(), partition: Type.Integer(), offset: Type.Integer(), consumer_group: Type.String() }),
  size: Type.Integer(),
  replayed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  payload_preview: Type.String(),
})

export async function deadLetterRoutes(app: FastifyInstance, deps: DeadLetterRouteDeps): Promise<void> {
  const route = routesOf(app, { projects: deps.projects, tag: 'dead letters' })
  const WHO = 'Dead letters can belong to no project.'
  // Checked before the request is validated: a limited key gets this 403, never a 400 about its body.
  const access = {
    key: '*',
    allProjects: 'Dead letters can belong to no project: a key limited to some projects cannot see them.',
  } as const

  route({
    method: 'GET',
    url: '/api/dead_letters/',
    summary: 'List the messages ingestion and the recordings processor could not handle',
    description: WHO,
    access,
    schema: {
      querystring: Type.Object(Paging(DEFAULT_LIMIT, MAX_LIMIT)),
      response: { 200: Paginated(DeadLetter) },
    },
    handler: async (request) => {
      const page = pageRequest(request.query, DEFAULT_LIMIT)
      const { count, results } = await deps.store.list({ limit: page.limit, offset: page.offset })
      return { count, ...pageLinks(request, deps.siteUrl, page, { count }), results: results.map(serializeDeadLetter) }
    },
  })

  route({
    method: 'POST',
    url: '/api/dead_letters/replay/',
    summary: 'Replay dead letters onto the log, after a fix',
    description: WHO,
    access,
    schema: {
      body: Type.Object({
        ids: Type.Optional(Type.Array(Type.String(), { description: 'e.g. ["wren_ingest/0/123"]' })),
        all: Type.Optional(Type.Boolean({ description: 'Replay every dead letter not replayed yet.' })),
      }),
      response: { 200: Type.Object({ replayed: Type.Integer(), ids: Type.Array(Type.String()) }) },
    },
    handler: async (request) => {
      const { ids, all = false } = request.body
      if (!all && !(ids && ids.length > 0))
        throw wrenError('invalid_input', 'Send {"ids": ["wren_ingest/0/123", …]} or {"all": true}.', 'ids')
      const { replayed } = await deps.store.replay(deps.log, all ? { all: true } : { ids: ids! })
      deps.metrics.inc('wren_dead_letters_replayed_total', replayed.length)
      return { replayed: replayed.length, ids: replayed }
    },
  })
}
