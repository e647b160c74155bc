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
