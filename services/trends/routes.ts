// GET|POST /api/environments/:project_id/insights/trend/ (and /api/projects/...), scope insight:read.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { authorize } from '../shared/http/auth'
import { absoluteUrl, formatOf, isRecord } from '../shared/http'
import type { ProjectStore } from '../projects/store'
import { wallDate } from './wall-time'
import { trendCsv } from './csv'
import { mergeInput, parseTrendRequest } from './request'
import type { TrendService } from './service'

type Params = { project_id: string }

export async function trendRoutes(app: FastifyInstance, deps: { projects: ProjectStore; trends: TrendService; siteUrl: string | null }): Promise<void> {
  const handle = async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
    const { project, key } = authorize(request, deps.projects, 'insight:read', request.params.project_id)
    const format = formatOf(request)
    const query = { ...(request.query as Record<string, unknown>) }
    delete query.format
    const input = mergeInput(query, request.body)
    const trendRequest = parseTrendRequest(input)
    const out = await deps.trends.run(project, trendRequest, { refresh: refreshRequested(request.query, request.body), viewer: key })
    if (format === 'csv') {
      const filename = `export (${trendRequest.dateFrom ? wallDate(out.dateFrom) : 'up until'} - ${wallDate(out.dateTo)}) from PostHog.csv`
      return reply.status(200).type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${filename}"`).send(trendCsv(out.body.result, out.floats))
    }
    // PostHog's `next`: a page link once a full page of series came back (the rows are never paged).
    const limit = Number((request.query as Record<string, unknown>).breakdown_limit) || 25
    const offset = Number((request.query as Record<string, unknown>).offset) || 0
    const next = out.body.result.length >= limit ? absoluteUrl(request, deps.siteUrl, { offset: offset + limit }) : null
    return reply.status(200).send({ ...out.body, next })
  }
  for (const prefix of ['/api/environments/:project_id/insights/trend', '/api/projects/:project_id/insights/trend']) {
    app.get<{ Params: Params }>(`${prefix}/`, handle)
    app.post<{ Params: Params }>(`${prefix}/`, handle)
  }
}

/** `refresh` in the query string wins over the body; true, 1, yes and a bare `?refresh` count. */
function refreshRequested(query: unknown, body: unknown): boolean {
  const fromQuery = isRecord(query) ? query.refresh : undefined
  const value = fromQuery !== undefined ? fromQuery : isRecord(body) ? body.refresh : undefined
  if (typeof value === 'boolean') return value
  if (typeof value !== 'string') return false
  const v = value.toLowerCase()
  if (['false', '0', 'no'].includes(v)) return false
  return true
}
