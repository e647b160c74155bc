// What every management route (the routes that take a personal API key) gets, attached when the route
// is registered so that public routes (capture, decide) pay nothing: the field size limits, and the list
// of these routes (the authorization test enumerates it, so a new route is covered the day it is added).
import type { FastifyInstance, RouteOptions } from 'fastify'
import { checkFieldSizes } from './limits'

export interface ManagementRoute {
  method: string
  url: string
}

/** The management API: /api/… and the flag definitions server SDKs fetch with a personal API key. */
export function isManagementUrl(url: string): boolean {
  return url.startsWith('/api/') || url === '/flags/definitions' || url === '/flags/definitions/'
}

/** Call before any route is registered. Returns the management routes, filled in as they are registered. */
export function guardManagementRoutes(app: FastifyInstance): ManagementRoute[] {
  const routes: ManagementRoute[] = []
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!isManagementUrl(route.url ?? '')) return
    for (const method of [route.method].flat()) if (method !== 'HEAD') routes.push({ method, url: route.url! })
    route.preValidation = [...[route.preValidation ?? []].flat(), async (request) => checkFieldSizes(request.body)]
  })
  return routes
}
