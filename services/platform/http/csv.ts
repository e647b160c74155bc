// `?format=csv`: rows with nested objects and arrays flattened into dotted columns (properties.email,
// distinct_ids.0), one column per key in the order the keys first appear, streamed to the reply.
import { Readable, pipeline } from 'node:stream'
import type { FastifyReply } from 'fastify'
import { stringify } from 'csv-stringify'
import { isRecord } from '../json'

/** The rows of a CSV, read twice (columns first, then the rows): a list, or a function that reads them again each time. */
export type CsvRows = unknown[] | (() => AsyncIterable<unknown>)

/**
 * Sends rows as CSV. The columns are known only once every row has been seen, so a source is read twice:
 * once for the columns, then again while writing, through csv-stringify into the reply with backpressure
 * (a slow reader pauses the source), so a large export never sits in memory.
 */
export async function sendCsv(reply: FastifyReply, status: number, rows: CsvRows): Promise<FastifyReply> {
  const read = Array.isArray(rows) ? () => rows : rows
  const columns: string[] = []
  const seen = new Set<string>()
  for await (const row of read()) for (const key of Object.keys(flatten(row))) if (!seen.has(key)) (seen.add(key), columns.push(key))
  reply.status(status).type('text/csv; charset=utf-8')
  if (columns.length === 0) return reply.send('')
  const flatRows = async function* () {
    for await (const row of read()) yield flatten(row)
  }
  // pipeline destroys the source when the reply goes away (a client that hangs up stops the reads); an error
  // mid-way ends the response early, since its status is already sent.
  const csv = pipeline(Readable.from(flatRows()), stringify({ header: true, columns }), (err) => {
    if (err && err.code !== 'ERR_STREAM_PREMATURE_CLOSE') reply.log.error({ err }, 'CSV export failed')
  })
  return reply.send(csv)
}

function flatten(value: unknown, prefix = '', out: Record<string, string> = {}): Record<string, string> {
  if (Array.isArray(value) || isRecord(value)) {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value)
    if (entries.length === 0 && prefix) out[prefix] = Array.isArray(value) ? '[]' : '{}'
    for (const [k, v] of entries) flatten(v, prefix ? `${prefix}.${k}` : k, out)
  } else if (prefix) {
    out[prefix] = value === null || value === undefined ? '' : String(value)
  } else {
    out.value = value === null || value === undefined ? '' : String(value)
  }
  return out
}
