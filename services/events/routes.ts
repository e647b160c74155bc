// GET /api/projects/:project_id/events/: the raw event list PostHog has long offered (newest first),
// with `event`, `distinct_id`, `person_id`, `after`, `before`, `properties` filters and `limit`.
import type { FastifyInstance } from 'fastify'
import type { ClickHouseClient } from '../shared/clickhouse'
import { queryRows } from '../shared/clickhouse'
import type { ProjectStore } from '../projects/store'
import { authorize } from '../shared/http/auth'
import { badRequest } from '../shared/errors'
import { absoluteUrl, sendFormatted } from '../shared/http'
import { SqlParams } from '../shared/query/params'
import { parsePropertyFilters } from '../shared/property-filters/parse'
import { listFilterSql } from '../shared/property-filters/sql'
import { hiddenPersons, visibleEventsSql } from '../shared/query/hidden-persons'

type Query = Record<string, string | undefined>
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

interface EventRow {
  uuid: string
  event: string
  distinct_id: string
  properties: string
  timestamp: string
  person_id: string
  elements_chain: string
}

export async function eventRoutes(app: FastifyInstance, deps: { projects: ProjectStore; clickhouse: ClickHouseClient; siteUrl: string | null }): Promise<void> {
  for (const prefix of ['/api/projects/:project_id/events', '/api/environments/:project_id/events']) {
    app.get<{ Params: { project_id: string }; Querystring: Query }>(`${prefix}/`, async (request, reply) => {
      const caller = authorize(request, deps.projects, 'query:read', request.params.project_id)
      const q = request.query
      const limit = Number(q.limit ?? 100)
      if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw badRequest('invalid_input', 'limit must be an integer from 1 to 10000.', 'limit')
      const params = new SqlParams()
      const where = ['team_id = {team:Int64}']
      if (q.event) where.push(`event = ${params.add('String', q.event)}`)
      if (q.distinct_id) where.push(`distinct_id = ${params.add('String', q.distinct_id)}`)
      if (q.person_id) {
        if (!UUID_RE.test(q.person_id)) throw badRequest('invalid_input', `person_id must be a person's uuid, got '${q.person_id}'.`, 'person_id')
        where.push(`person_id = ${params.add('UUID', q.person_id)}`)
      }
      if (q.after) where.push(`timestamp > ${dateParam(params, q.after, 'after')}`)
      if (q.before) where.push(`timestamp < ${dateParam(params, q.before, 'before')}`)
      const filters = parsePropertyFilters(q.properties)
      if (filters.length) where.push(listFilterSql(filters, 'event', params))
      const hidden = await hiddenPersons(deps.clickhouse, caller.key, caller.project.id)
      if (hidden) where.push(visibleEventsSql(hidden, params))
      const rows = await queryRows<EventRow>(
        deps.clickhouse,
        `SELECT uuid, event, distinct_id, properties, timestamp, person_id, elements_chain FROM events
         WHERE ${where.join(' AND ')} ORDER BY timestamp DESC, uuid DESC LIMIT {limit:UInt32}`,
        { ...params.values, team: caller.project.id, limit: limit + 1 },
      )
      const page = rows.slice(0, limit)
      const next = rows.length > limit ? absoluteUrl(request, deps.siteUrl, { before: page[page.length - 1].timestamp, limit }) : null
      const results = page.map((r) => ({
        id: r.uuid,
        distinct_id: r.distinct_id,
        properties: JSON.parse(r.properties) as Record<string, unknown>,
        event: r.event,
        timestamp: r.timestamp,
        person: null,
        person_id: r.person_id,
        elements: [],
        elements_chain: r.elements_chain,
      }))
      return sendFormatted(request, reply, 200, { next, results })
    })
  }
}

function dateParam(params: SqlParams, raw: string, name: string): string {
  if (Number.isNaN(new Date(raw).getTime())) throw badRequest('invalid_input', `${name} must be an ISO date-time, got '${raw}'.`, name)
  return `parseDateTime64BestEffort(${params.add('String', raw)}, 6)`
}
