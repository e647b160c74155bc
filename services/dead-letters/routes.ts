// /api/dead_letters/: list the messages ingestion could not handle, and replay them after a fix. Dead
// letters can belong to no project (a message that does not decode), so only a key holding every scope
// (*) and limited to no project may see or replay them.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { personalKeyFrom } from '../shared/http/auth'
import { badRequest, forbidden } from '../shared/errors'
import { absoluteUrl, isRecord } from '../shared/http'
import type { Log } from '../shared/log/log'
import type { Metrics } from '../shared/metrics'
import type { ProjectStore } from '../projects/store'
import { payloadPreview, type DeadLetterRecord, type DeadLetterStore } from './store'

export interface DeadLetterRouteDeps {
  projects: ProjectStore
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
    payload_preview: payloadPreview(l.payload),
  }
}

export async function deadLetterRoutes(app: FastifyInstance, deps: DeadLetterRouteDeps): Promise<void> {
  const requireAdmin = (request: FastifyRequest) => {
    const key = personalKeyFrom(request, deps.projects)
    if (!key.scopes.includes('*')) throw forbidden('permission_denied', 'Dead letters need a personal API key holding every scope (*).')
    if (key.scopedTeams.length > 0) throw forbidden('permission_denied', 'Dead letters can belong to no project: a key limited to some projects cannot see them.')
  }

  app.get<{ Querystring: Record<string, string | undefined> }>('/api/dead_letters/', async (request) => {
    requireAdmin(request)
    const limit = intParam(request.query.limit, DEFAULT_LIMIT, 1, MAX_LIMIT, 'limit')
    const offset = intParam(request.query.offset, 0, 0, Number.MAX_SAFE_INTEGER, 'offset')
    const { count, results } = await deps.store.list({ limit, offset })
    return {
      count,
      next: offset + limit < count ? absoluteUrl(request, deps.siteUrl, { limit, offset: offset + limit }) : null,
      previous: offset > 0 ? absoluteUrl(request, deps.siteUrl, { limit, offset: Math.max(0, offset - limit) }) : null,
      results: results.map(serializeDeadLetter),
    }
  })

  app.post<{ Body: unknown }>('/api/dead_letters/replay/', async (request) => {
    requireAdmin(request)
    const body = isRecord(request.body) ? request.body : {}
    const ids = body.ids
    const all = body.all === true
    if (!all && !(Array.isArray(ids) && ids.length > 0 && ids.every((id) => typeof id === 'string'))) {
      throw badRequest('invalid_input', 'Send {"ids": ["wren_ingest/0/123", …]} or {"all": true}.', 'ids')
    }
    const { replayed } = await deps.store.replay(deps.log, all ? { all: true } : { ids: ids as string[] })
    deps.metrics.inc('wren_dead_letters_replayed_total', replayed.length)
    return { replayed: replayed.length, ids: replayed }
  })
}

function intParam(value: string | undefined, fallback: number, min: number, max: number, name: string): number {
  if (value === undefined || value === '') return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < min || n > max) throw badRequest('invalid_input', `${name} must be an integer from ${min} to ${max}.`, name)
  return n
}
