// The one error handler every route group shares: WrenErrors and Fastify's own errors rendered as one JSON
// body, 404/405 for paths no route takes, and errors Node's HTTP parser raises before there is a request.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import Router from 'find-my-way'
import { RETRY_LATER, WrenError, fromClickHouseError, wrenError } from '../errors'

/**
 * The error handler, and (returned, for the caller to set with setNotFoundHandler in the scope whose hooks
 * unknown paths should run) the answer for a request no route takes: 405 with `Allow` when the path has
 * routes for other methods (as PostHog answers), else 404. Call before any route is added: a second
 * router (Fastify's own, find-my-way) learns every route's path and method to tell the two apart.
 */
export function installErrorHandler(app: FastifyInstance): (request: FastifyRequest, reply: FastifyReply) => void {
  app.setErrorHandler(renderError)
  const known = Router({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true })
  const methodsByPath = new Map<string, Set<string>>()
  app.addHook('onRoute', (route) => {
    if (route.url.includes('*')) return // catch-alls (CORS preflight, static files) say nothing about a path
    // One entry per path shape: `/persons/:id/` and `/persons/:uuid/` are the same path to a caller.
    const shape = route.url.replace(/:[^/]+/g, ':p')
    let methods = methodsByPath.get(shape)
    if (!methods) {
      methodsByPath.set(shape, (methods = new Set()))
      known.on('GET', shape, () => {}, { shape })
    }
    for (const method of [route.method].flat()) methods.add(method)
  })
  return (request, reply) => {
    const path = request.url.split('?')[0]
    const found = known.find('GET', path)
    const allowed = found ? methodsByPath.get((found.store as { shape: string }).shape) : undefined
    if (allowed && !allowed.has(request.method)) {
      const allow = [...allowed].sort().join(', ')
      void reply
        .status(405)
        .header('allow', allow)
        .send(new WrenError('method_not_allowed', `Method "${request.method}" not allowed on ${path}; this path takes ${allow}.`).toJSON())
      return
    }
    void reply.status(404).send(new WrenError('not_found', `No route ${request.method} ${path}.`).toJSON())
  }
}

/** The one error renderer: route errors, and Fastify's own before routing (its `frameworkErrors` option, e.g. a malformed URL). */
export function renderError(error: FastifyError | WrenError, request: FastifyRequest, reply: FastifyReply): void {
  const wren = error instanceof WrenError ? error : fromFastifyError(error, request)
  // Backpressure refusals are an answer (thousands a second in a flood), counted in /_metrics, not logged.
  // A caller who went away stopped its own query: no one reads the answer, and nothing in Wren failed.
  if (wren.code === 'query_cancelled') request.log.info({ code: wren.code }, 'request stopped: the caller went away')
  else if (wren.status >= 500 && !RETRY_LATER.has(wren.code)) request.log.error({ err: error }, 'request failed')
  void reply.status(wren.status).headers(wren.headers).type('application/json').send(wren.toJSON())
}

/**
 * Errors Node's HTTP parser raises before there is a request (malformed HTTP, headers too large, a request not
 * received within the timeout): answered with the same JSON body as every other error, then the socket closes.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const wren =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new WrenError('request_timeout', 'The request was not received in time: send its headers and body without pausing.')
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? new WrenError('headers_too_large', 'The request line and headers are larger than this server accepts.')
        : wrenError('malformed_request', 'The request is not valid HTTP.')
  if (socket.writable) {
    const body = JSON.stringify(wren.toJSON())
    socket.write(
      `HTTP/1.1 ${wren.status} ${STATUS_CODES[wren.status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    )
  }
  socket.destroy(error)
}

function fromFastifyError(error: FastifyError, request: FastifyRequest): WrenError {
  const fromClickHouse = fromClickHouseError(error)
  if (fromClickHouse) return fromClickHouse
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return wrenError('payload_too_large', 'Request body is larger than this endpoint accepts.')
  if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
    return wrenError('invalid_json', `Request body is not valid JSON: ${error.message}`)
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return wrenError('unsupported_media_type', `Unsupported media type "${request.headers['content-type'] ?? ''}" in request.`)
  if (error.validation) return wrenError('invalid_input', error.message, error.validationContext ?? null)
  const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500
  return status === 500 ? wrenError('server_error') : new WrenError('invalid_request', error.message, null, { status })
}
