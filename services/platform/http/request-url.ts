// A request's URL as others see it, never with a secret in it: in the log, and in the absolute links
// (`next`, `previous`) an answer carries.
import type { FastifyRequest } from 'fastify'
import { withoutSecrets } from './auth'
import { wrenError } from '../errors'
import { MAX_OFFSET } from './schemas'

/**
 * How a request reads in the log (Fastify's `req` fields), its URL without secrets: PostHog's clients may send
 * a personal API key as `?personal_api_key=`, a shared recording's page and requests carry its token.
 */
export function requestForLog(request: FastifyRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: withoutSecrets(request.url ?? '').replace(/^\/shared\/[^/?#]+/, '/shared/<token>'),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  }
}

/**
 * The absolute URL of this request with some query parameters replaced (null: removed), never with a
 * personal API key in it.
 */
export function absoluteUrl(request: FastifyRequest, siteUrl: string | null, params: Record<string, string | number | null>): string {
  const base = siteUrl ?? `${request.protocol}://${request.host}`
  const url = new URL(withoutSecrets(request.url), base.endsWith('/') ? base : base + '/')
  for (const [k, v] of Object.entries(params)) {
    if (v === null) url.searchParams.delete(k)
    else url.searchParams.set(k, String(v))
  }
  return url.toString()
}

/**
 * Which page of a list a request asks for: `limit` results from `offset`. Every list route reads its
 * `?limit` and `?offset` (schemas.ts Paging) through this. An activity log (`by: 'page'`, schemas.ts
 * ActivityPaging) also takes PostHog's `?page` (from 1) and links by page as PostHog's do, unless the
 * request sent an offset. Other routes never read `?page` (an undeclared parameter stays in the query).
 */
export interface PageRequest {
  limit: number
  offset: number
  byPage: boolean
}

export function pageRequest(
  query: { limit?: number; offset?: number; page?: number },
  defaultLimit: number,
  by: 'offset' | 'page' = 'offset',
): PageRequest {
  const limit = query.limit ?? defaultLimit
  const page = by === 'page' ? query.page : undefined
  if (page === undefined) return { limit, offset: query.offset ?? 0, byPage: by === 'page' && query.offset === undefined }
  if (query.offset !== undefined) throw wrenError('invalid_input', 'Send page or offset, not both.', 'offset')
  const offset = (page - 1) * limit
  if (offset > MAX_OFFSET)
    throw wrenError('invalid_input', `page ${page} of ${limit} results starts past offset ${MAX_OFFSET}, the most a list skips.`, 'page')
  return { limit, offset, byPage: true }
}

/**
 * The `next` and `previous` links of a page, one rule for every list (DRF's LimitOffsetPagination): the
 * request's URL, its filters kept, at the next or previous offset (or page). `rest` says whether anything
 * follows the page: the list's `count`, or `more` when the route read one row past the limit instead. A
 * list in an order with a key pages `next` by the key (`after`: the parameters that start the next page,
 * below the page's last row; the offset is dropped), which holds still while new rows arrive at the top.
 */
export function pageLinks(
  request: FastifyRequest,
  siteUrl: string | null,
  page: PageRequest,
  rest: { count: number } | { more: boolean; after?: Record<string, string | number> },
): { next: string | null; previous: string | null } {
  const { limit, offset, byPage } = page
  const at = (start: number) =>
    absoluteUrl(request, siteUrl, byPage ? { limit, page: Math.floor(start / limit) + 1 } : { limit, offset: start })
  const more = 'count' in rest ? offset + limit < rest.count : rest.more
  const after = 'after' in rest ? rest.after : undefined
  return {
    next: !more ? null : after ? absoluteUrl(request, siteUrl, { ...after, limit, offset: null }) : at(offset + limit),
    previous: after || offset === 0 ? null : at(Math.max(0, offset - limit)),
  }
}

/** A page (DRF's envelope) of a whole list already in its order. */
export function pageOfList<T>(
  request: FastifyRequest,
  siteUrl: string | null,
  all: readonly T[],
  query: { limit?: number; offset?: number },
  defaultLimit: number,
): { count: number; next: string | null; previous: string | null; results: T[] } {
  const page = pageRequest(query, defaultLimit)
  return {
    count: all.length,
    ...pageLinks(request, siteUrl, page, { count: all.length }),
    results: all.slice(page.offset, page.offset + page.limit),
  }
}

/** Whether any of `texts` holds `search`, any case (DRF's SearchFilter with one term). */
export function matchesSearch(search: string | undefined, ...texts: Array<string | null | undefined>): boolean {
  if (!search) return true
  const wanted = search.toLowerCase()
  return texts.some((t) => typeof t === 'string' && t.toLowerCase().includes(wanted))
}
