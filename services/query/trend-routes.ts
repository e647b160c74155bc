// GET|POST /api/environments/:project_id/insights/trend/ (and /api/projects/...), scope insight:read: the
// legacy trend endpoint. Its filter is a dialect of the TrendsQuery kind, read into the same model and run by
// the same runner (cache and all) as POST …/query/ with a TrendsQuery.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Caller } from '../platform/http/auth'
import { Type } from 'typebox'
import { absoluteUrl } from '../platform/http/request-url'
import { callerGone } from '../platform/http/caller-gone'
import { formatOf } from '../platform/http/format'
import { isRecord } from '../platform/json'
import type { routesOf } from '../platform/http/route'
import { AnyObject, Format } from '../platform/http/schemas'
import { TrendAnswer } from './kinds/trends/schemas'
import { trendCsv } from './kinds/trends/csv'
import { floatsOf, type TrendAnswer as TrendResults } from './kinds/trends/compute'
import { trendsKind } from './kinds/trends'
import { BREAKDOWN_TYPES } from './common/breakdown'
import { DISPLAYS, mergeInput, parseTrendRequest } from './kinds/trends/request'
import type { QueryRunner } from './runner'

// PostHog's legacy trend filter: in the query string, lists and objects are JSON-encoded; in a POST body
// they are JSON. request.ts reads both into one TrendRequest and names the field of any bad input.
const FIELDS: Record<string, string> = {
  events: 'JSON list of event series: [{id, name, math, math_property, properties, custom_name, order}]',
  actions: 'JSON list of action series: [{id, math, …}]',
  properties: 'JSON property filters (a list, or a group {type, values}) applied to every series',
  filter_test_accounts: 'true: leave out the project’s test accounts',
  date_from: 'ISO date, or relative (-7d, -1m, mStart, all)',
  date_to: 'ISO date, or relative',
  explicit_date: 'true: date_from/date_to are exact times, not whole days',
  interval: 'minute, hour, day, week or month',
  display: DISPLAYS.join(', '),
  breakdown: 'a property name, a cohort id list (JSON), or a HogQL expression',
  breakdown_type: BREAKDOWN_TYPES.join(', '),
  breakdown_limit: 'how many breakdown values before "other" (default 25)',
  breakdown_group_type_index: 'the group type of a group breakdown',
  breakdown_normalize_url: 'true: strip query strings and trailing slashes of URL values',
  breakdown_hide_other_aggregation: 'true: no "other" series',
  breakdowns: 'JSON list of up to three {property, type} breakdowns',
  compare: 'true: add the previous period',
  compare_to: 'a relative offset for compare, e.g. -1w',
  formula: 'a formula over the series letters, e.g. A/B',
  refresh: 'true: recompute, do not answer from the cache',
  offset: 'the series page, with breakdown_limit',
}
const TrendQuery = Type.Object({
  ...Object.fromEntries(Object.entries(FIELDS).map(([k, description]) => [k, Type.Optional(Type.String({ description }))])),
  format: Type.Optional(Format),
})

/** Declared in the query routes' group (routes.ts). */
export function trendRoutes(route: ReturnType<typeof routesOf>, deps: { runner: QueryRunner; siteUrl: string | null }): void {
  const handle = async (request: FastifyRequest, reply: FastifyReply, { project, key }: Caller, body: unknown) => {
    const format = formatOf(request)
    const query = { ...(request.query as Record<string, unknown>) }
    delete query.format
    const input = mergeInput(query, body)
    const trendRequest = parseTrendRequest(input)
    const { body: answer } = await deps.runner.execute(trendsKind, trendRequest, {
      project,
      viewer: key,
      signal: callerGone(reply),
      mode: refreshRequested(request.query, body) ? 'force_blocking' : 'blocking',
    })
    const out = answer as TrendResults & { is_cached: boolean; last_refresh: string; timezone: string }
    if (format === 'csv') {
      // The range's first and last days, in the project's timezone (the resolved dates carry its offset).
      const [from, to] = [out.resolved_date_range.date_from.slice(0, 10), out.resolved_date_range.date_to.slice(0, 10)]
      const filename = `export (${trendRequest.dateFrom ? from : 'up until'} - ${to}) from PostHog.csv`
      return reply
        .status(200)
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${filename}"`)
        .send(trendCsv(out.results, floatsOf(out.results, trendRequest)))
    }
    // PostHog's `next` raises `offset` by the limit; Wren's pages the breakdown values, and ends at the last.
    const next = out.hasMore
      ? absoluteUrl(request, deps.siteUrl, { offset: trendRequest.breakdownOffset + trendRequest.breakdownLimit })
      : null
    return reply
      .status(200)
      .send({ is_cached: out.is_cached, last_refresh: out.last_refresh, timezone: out.timezone, result: out.results, next })
  }
  const summary = 'Compute a trend: event counts (or other math) per interval, per series and breakdown'
  const answer = { 200: TrendAnswer }
  route({
    method: 'GET',
    url: '/insights/trend/',
    summary,
    description: 'Lists and objects in the query string are JSON-encoded. ?format=csv answers the table PostHog exports.',
    access: { project: 'insight:read' },
    schema: { querystring: TrendQuery, response: answer },
    handler: (request, reply, caller) => handle(request, reply, caller, undefined),
  })
  route({
    method: 'POST',
    url: '/insights/trend/',
    summary,
    description: 'The fields may come in the query string (lists JSON-encoded) or the JSON body; the body wins.',
    access: { project: 'insight:read' },
    schema: {
      querystring: TrendQuery,
      body: AnyObject(`The query string's fields, as JSON: ${Object.keys(FIELDS).join(', ')}.`),
      response: answer,
    },
    handler: (request, reply, caller) => handle(request, reply, caller, request.body),
  })
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
