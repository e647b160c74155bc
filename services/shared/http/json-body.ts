// Request bodies in JSON: Fastify's parser, with the nesting bound every user JSON gets (shared/json.ts).
import type { FastifyInstance } from 'fastify'
import { jsonTooDeep, jsonTooDeepIn } from '../json'

/** Fastify's JSON body parser (prototype-poisoning checks included), after the nesting bound every user JSON gets. */
export function installJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    parse(request, body as string, (err, value) =>
      err ? done(err) : jsonTooDeepIn(value) ? done(jsonTooDeep(), undefined) : done(null, value),
    )
  })
}
