// A request's URL as others see it, never with a secret in it: in the log, and in the absolute links
// (`next`, `previous`) an answer carries.
import type { FastifyRequest } from 'fastify'
import { withoutSecrets } from './auth'

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

/** The absolute URL of this request with some query parameters replaced, never with a personal API key in it. */
export function absoluteUrl(request: FastifyRequest, siteUrl: string | null, params: Record<string, string | number>): string {
  const base = siteUrl ?? `${request.protocol}://${request.host}`
  const url = new URL(withoutSecrets(request.url), base.endsWith('/') ? base : base + '/')
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, String(v))
  return url.toString()
}

/** DRF's `next` and `previous` links of a limit/offset page of `count` results. */
export function pageLinks(
  request: FastifyRequest,
  siteUrl: string | null,
  page: { limit: number; offset: number; count: number },
): { next: string | null; previous: string | null } {
  const { limit, offset, count } = page
  return {
    next: offset + limit < count ? absoluteUrl(request, siteUrl, { limit, offset: offset + limit }) : null,
    previous: offset > 0 ? absoluteUrl(request, siteUrl, { limit, offset: Math.max(0, offset - limit) }) : null,
  }
}

/** A limit/offset page (DRF's envelope) of a whole list already in its order. */
export function pageOfList<T>(
  request: FastifyRequest,
  siteUrl: string | null,
  all: readonly T[],
  query: { limit?: number; offset?: number },
  defaultLimit: number,
): { count: number; next: string | null; previous: string | null; results: T[] } {
  const { limit = defaultLimit, offset = 0 } = query
  return {
    count: all.length,
    ...pageLinks(request, siteUrl, { limit, offset, count: all.length }),
    results: all.slice(offset, offset + limit),
  }
}

/** Whether any of `texts` holds `search`, any case (DRF's SearchFilter with one term). */
export function matchesSearch(search: string | undefined, ...texts: Array<string | null | undefined>): boolean {
  if (!search) return true
  const wanted = search.toLowerCase()
  return texts.some((t) => typeof t === 'string' && t.toLowerCase().includes(wanted))
}
