// Request bodies in JSON: Fastify's parser, with the nesting bound every user JSON gets (platform/json.ts).
// An empty body is an empty object, on any method: API clients (Python requests with a JSON content type,
// axios defaults) send `Content-Type: application/json` on a DELETE or GET with no body, and PostHog's
// parser takes that as no data. A route that needs fields then names the missing one.
import type { FastifyInstance } from 'fastify'
import { jsonTooDeep, jsonTooDeepIn } from '../json'

/** Fastify's JSON body parser (prototype-poisoning checks included), after the nesting bound every user JSON gets. */
export function installJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if ((body as string).trim() === '') return done(null, {})
    parse(request, body as string, (err, value) =>
      err ? done(err) : jsonTooDeepIn(value) ? done(jsonTooDeep(), undefined) : done(null, value),
    )
  })
}
