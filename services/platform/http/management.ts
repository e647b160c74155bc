// What every management route (the routes that take a personal API key) gets, attached when the route
// is registered so that public routes (capture, decide, flags, remote config) pay nothing:
//   - a limit on failed authentications per client address (@fastify/rate-limit's store): after `max`
//     failures in a window, that address's failing requests get 429 with Retry-After on every management
//     route until the window ends. It slows guessing only: a request with a valid key, or with a valid
//     sharing token on a route that takes one (a shared player makes several per view), or a live session, neither counts nor
//     is ever refused, since behind a proxy every client shares one address and one guesser would
//     otherwise lock everyone out. It runs once the body is parsed (the key may be in it), before the
//     route's own checks;
//   - the field size limits (limits.ts);
//   - the list of these routes (the authorization test enumerates it, so a new route is covered the day
//     it is added).
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import rateLimit from '@fastify/rate-limit'
import proxyAddr from '@fastify/proxy-addr'
import type { AuthFailureLimit } from '../config'
import type { Tenants } from '../tenancy'
import { sessionOf, sharingGrantOf, shownKey, type SharingTokens } from './auth'
import { wrenError } from '../errors'
import { checkFieldSizes } from './limits'

export interface ManagementRoute {
  method: string
  url: string
}

/**
 * The address a failure counts against: the peer, or, when the peer is a trusted proxy, the client its
 * X-Forwarded-For names (any client can write that header, so it is believed only from those proxies).
 */
export function clientAddressOf(trustedProxies: readonly string[]): (request: Pick<FastifyRequest, 'raw'>) => string {
  if (trustedProxies.length === 0) return (request) => request.raw.socket.remoteAddress ?? 'unknown'
  const trust = proxyAddr.compile([...trustedProxies])
  return (request) => proxyAddr(request.raw, trust)
}

/** Call before any route is registered. Returns the management routes, filled in as they are registered. */
export async function guardManagementRoutes(
  app: FastifyInstance,
  deps: { projects: Tenants; authFailures: AuthFailureLimit; sharing?: SharingTokens },
): Promise<ManagementRoute[]> {
  const { projects, authFailures, sharing } = deps
  const routes: ManagementRoute[] = []
  let limitFailures: ((request: FastifyRequest, reply: FastifyReply) => Promise<void>) | null = null
  const sharedGrant = async (request: FastifyRequest): Promise<boolean> => {
    const takesSharing = request.routeOptions.config?.sharedRecording !== undefined
    return takesSharing && sharing !== undefined && (await sharingGrantOf(request, sharing)) !== null
  }
  if (authFailures.max > 0) {
    await app.register(rateLimit, { global: false })
    const failures = app.createRateLimit({
      max: authFailures.max,
      timeWindow: authFailures.windowMs,
      keyGenerator: clientAddressOf(authFailures.trustedProxies),
    })
    limitFailures = async (request, reply) => {
      const key = shownKey(request)
      const valid =
        (key !== null ? projects.keyByValue(key.value) !== undefined : (await sessionOf(request, projects)) !== undefined) ||
        (await sharedGrant(request))
      if (valid) return
      const state = await failures(request)
      if (!state.isAllowed && state.isExceeded) {
        reply.header('retry-after', String(state.ttlInSeconds))
        throw wrenError('throttled', `Too many failed authentications from this address. Retry in ${state.ttlInSeconds} seconds.`)
      }
    }
  }

  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.config?.personalKey) return
    for (const method of [route.method].flat()) if (method !== 'HEAD') routes.push({ method, url: route.url! })
    route.preValidation = [
      ...(limitFailures ? [limitFailures] : []),
      ...[route.preValidation ?? []].flat(),
      async (request) => checkFieldSizes(request.body),
    ]
  })
  return routes
}
