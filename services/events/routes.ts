// GET /api/projects/:project_id/events/: the raw event list PostHog has long offered (newest first),
// with `event`, `distinct_id`, `person_id`, `after`, `before`, `properties` filters, `limit` and `offset`.
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { ClickHouseClient } from '../platform/clickhouse'
import { queryRows } from '../platform/clickhouse'
import type { Tenants } from '../platform/tenancy'
import { wrenError } from '../platform/errors'
import { pageLinks, pageRequest } from '../platform/http/request-url'
import { sendFormatted } from '../platform/http/format'
import { routesOf } from '../platform/http/route'
import { callerGone } from '../platform/http/caller-gone'
import { Format, Limit, OffsetUpTo } from '../platform/http/schemas'
import { EventPage } from './schemas'
import { SqlParams } from '../platform/clickhouse/params'
import { parsePropertyFilters } from '../analytics/property-filters/parse'
import { listFilterSql } from '../analytics/property-filters/sql'
import { visibleEventsSql } from '../platform/http/hidden-persons'
import { SESSION_JOIN_SETTINGS, SessionColumns, sessionJoin } from '../analytics/sql/sessions'

interface EventRow {
  uuid: string
  event: string
  distinct_id: string
  properties: string
  timestamp: string
  person_id: string
  elements_chain: string
}

const MAX_LIMIT = 10_000
/** PostHog's largest offset on this list: further back, `next` (by time) or `before` reach. */
const MAX_OFFSET = 100_000

export async function eventRoutes(
  app: FastifyInstance,
  deps: { projects: Tenants; clickhouse: ClickHouseClient; siteUrl: string | null },
): Promise<void> {
  const route = routesOf(app, { projects: deps.projects, tag: 'events', clickhouse: deps.clickhouse })
  route({
    method: 'GET',
    url: '/events/',
    summary: 'List events, newest first',
    description: `Newest first (then by uuid), the order \`offset\` counts in. \`next\` pages further back in time from the page’s last event, without limit; \`offset\` goes up to ${MAX_OFFSET.toLocaleString('en')}, as PostHog’s.`,
    access: { project: 'query:read' },
    personData: true,
    schema: {
      querystring: Type.Object({
        limit: Type.Optional(Limit(100, MAX_LIMIT)),
        offset: Type.Optional(OffsetUpTo(MAX_OFFSET)),
        event: Type.Optional(Type.String()),
        distinct_id: Type.Optional(Type.String()),
        person_id: Type.Optional(Type.String({ format: 'uuid', description: 'a person’s uuid' })),
        after: Type.Optional(Type.String({ description: 'an ISO date-time' })),
        before: Type.Optional(Type.String({ description: 'an ISO date-time' })),
        before_uuid: Type.Optional(
          Type.String({
            format: 'uuid',
            description:
              'With `before`: the last event already seen at that instant (`next` sets it, so events sharing a timestamp are not skipped).',
          }),
        ),
        properties: Type.Optional(Type.String({ description: 'A JSON list of property filters.' })),
        format: Type.Optional(Format),
      }),
      response: { 200: EventPage },
    },
    handler: async (request, reply, caller, hidden) => {
      const q = request.query
      const paging = pageRequest(q, 100)
      const { limit } = paging
      const params = new SqlParams()
      const where = ['team_id = {team:Int64}']
      if (q.event) where.push(`event = ${params.add('String', q.event)}`)
      if (q.distinct_id) where.push(`distinct_id = ${params.add('String', q.distinct_id)}`)
      if (q.person_id) where.push(`person_id = ${params.add('UUID', q.person_id)}`)
      const after = q.after ? dateParam(params, q.after, 'after') : undefined
      const before = q.before ? dateParam(params, q.before, 'before') : undefined
      if (after) where.push(`timestamp > ${after}`)
      if (before) {
        // The page is ordered by (timestamp, uuid): the next one starts after the last row's pair.
        where.push(q.before_uuid ? `(timestamp, uuid) < (${before}, ${params.add('UUID', q.before_uuid)})` : `timestamp < ${before}`)
      }
      const filters = parsePropertyFilters(q.properties)
      // Session filters (and HogQL's session.<field>) join the sessions of the events within a day of the page's bounds, only when used.
      const sessions = new SessionColumns()
      if (filters.length) where.push(listFilterSql(filters, 'event', params, { sessions }))
      if (hidden) where.push(visibleEventsSql(hidden, params))
      const join = sessions.used ? sessionJoin('team_id = {team:Int64}', { from: after, to: before }) : ''
      const rows = await queryRows<EventRow>(
        deps.clickhouse,
        `SELECT uuid, event, distinct_id, properties, timestamp, person_id, elements_chain FROM events ${join}
         WHERE ${where.join(' AND ')} ORDER BY timestamp DESC, uuid DESC
         LIMIT {limit:UInt32} OFFSET {offset:UInt32}${sessions.used ? ` SETTINGS ${SESSION_JOIN_SETTINGS}` : ''}`,
        { ...params.values, team: caller.project.id, limit: limit + 1, offset: paging.offset },
        { signal: callerGone(reply) },
      )
      const page = rows.slice(0, limit)
      const last = page[page.length - 1]
      const { next } = pageLinks(request, deps.siteUrl, paging, {
        more: rows.length > limit,
        after: last && { before: last.timestamp, before_uuid: last.uuid },
      })
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
    },
  })
}

function dateParam(params: SqlParams, raw: string, name: string): string {
  if (Number.isNaN(new Date(raw).getTime())) throw wrenError('invalid_input', `${name} must be an ISO date-time, got '${raw}'.`, name)
  return `parseDateTime64BestEffort(${params.add('String', raw)}, 6)`
}
