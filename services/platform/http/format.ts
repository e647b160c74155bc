// `?format=`: a route's answer as JSON (the default) or as CSV (csv.ts), as the request asks.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { wrenError } from '../errors'
import { isRecord } from '../json'
import { sendCsv } from './csv'

export type Format = 'json' | 'csv'

export function formatOf(request: FastifyRequest): Format {
  const q = request.query as Record<string, unknown> | undefined
  const format = q?.format ?? 'json'
  if (format !== 'json' && format !== 'csv')
    throw wrenError('invalid_format', `format must be 'json' or 'csv', got '${String(format)}'.`, 'format')
  const accept = request.headers.accept ?? ''
  return format === 'csv' || (q?.format === undefined && accept.startsWith('text/csv')) ? 'csv' : 'json'
}

/** Sends `body` as JSON, or as CSV (csv.ts) with one row per entry of `rows` (default: body.results, or body). */
export async function sendFormatted(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  body: unknown,
  rows?: unknown[],
): Promise<FastifyReply> {
  if (formatOf(request) === 'json') return reply.status(status).send(body)
  return sendCsv(reply, status, rows ?? (isRecord(body) && Array.isArray(body.results) ? body.results : [body]))
}
