// CORS for the two kinds of routes. Browsers call the public routes from any site (posthog-js on the
// customer's pages): capture, decide, flags, remote config and /static stay open to every origin, as
// PostHog's are, and the surveys posthog-js fetches (/api/surveys/). Everything else — the management API with its personal keys, flag definitions for
// server SDKs, operations — answers cross-origin requests only from origins listed in WREN_CORS_ORIGINS,
// WREN_SITE_URL's origin, and the server's own origin; any other origin gets no CORS headers at all
// (its preflight is a 404), never a reflected origin with credentials.
import type { FastifyCorsOptions, FastifyCorsOptionsDelegateCallback } from '@fastify/cors'
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Per-route @fastify/cors options (the plugin reads them; its own types do not declare them). */
    cors?: Partial<FastifyCorsOptions> | false
  }
}

/** Paths browsers call from any site (capture's paths as in capture/routes.ts, recordings' /s, posthog-js's surveys). */
const PUBLIC_PATHS = new Set(['/e', '/i/v0/e', '/track', '/engage', '/capture', '/batch', '/s', '/decide', '/flags', '/api/surveys'])
const PUBLIC_PREFIXES = ['/array/', '/static/']

export function isPublicPath(url: string): boolean {
  const path = url.split('?')[0]
  const bare = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path
  return PUBLIC_PATHS.has(bare) || PUBLIC_PREFIXES.some((p) => path.startsWith(p))
}

const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS']

export function corsDelegator(opts: { allowedOrigins: readonly string[]; siteUrl: string | null }): FastifyCorsOptionsDelegateCallback {
  const allowed = new Set([...opts.allowedOrigins, ...(opts.siteUrl ? [new URL(opts.siteUrl).origin] : [])])
  // Any OPTIONS is answered 204 with the CORS headers, as PostHog does, not only a browser's full preflight.
  const open: FastifyCorsOptions = { origin: true, credentials: true, methods: METHODS, strictPreflight: false }
  const closed: FastifyCorsOptions = { origin: false }
  return (request, done) => {
    if (isPublicPath(request.url)) return done(null, open)
    const origin = request.headers.origin
    if (origin && (allowed.has(origin) || origin === ownOrigin(request))) return done(null, { origin, methods: METHODS })
    done(null, closed)
  }
}

/**
 * The open headers as a route's own onRequest hook, for a scope outside @fastify/cors (app.ts): what its
 * `open` options answer a request that is not a preflight (OPTIONS goes to the plugin's catch-all), without
 * resolving options on every request.
 */
export function openCors(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  reply.header('vary', 'Origin')
  const origin = request.headers.origin
  if (origin) reply.header('access-control-allow-origin', origin)
  reply.header('access-control-allow-credentials', 'true')
  done()
}

function ownOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`
}
