// A static cohort's members uploaded as a CSV: a multipart/form-data field or file `csv` (what PostHog's
// app sends), or a text/csv body. Read by @fastify/multipart and csv-parse; which column holds the ids
// follows PostHog's cohort upload.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import multipart from '@fastify/multipart'
import { parse } from 'csv-parse/sync'
import { WrenError, wrenError } from '../platform/errors'

/** Bytes of one upload: a CSV body, or each field and file of a form. */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024

const PERSON_ID_HEADERS = ['person_id', 'person-id', 'person .id']
const DISTINCT_ID_HEADERS = ['distinct_id', 'distinct-id']
const EMAIL_HEADERS = ['email', 'e-mail']

export type MemberKey = 'distinct_id' | 'person_id' | 'email'

/** Finds the distinct ids of the persons a CSV names by email or person id (the persons service answers it). */
export interface PersonDirectory {
  distinctIdsOfPersons(teamId: number, by: Exclude<MemberKey, 'distinct_id'>, values: string[]): Promise<string[]>
}

/**
 * Lets the routes of `app` (the cohorts' encapsulated scope) take multipart forms, as a body of string
 * fields (files read as UTF-8 text), and text/csv bodies as `{csv}`.
 */
export async function acceptUploads(app: FastifyInstance): Promise<void> {
  await app.register(multipart, { limits: { fileSize: MAX_UPLOAD_BYTES, fieldSize: MAX_UPLOAD_BYTES, parts: 100 } })
  app.addHook('preValidation', async (request) => {
    if (request.isMultipart()) request.body = await formFields(request)
  })
  app.addContentTypeParser('text/csv', { parseAs: 'buffer', bodyLimit: MAX_UPLOAD_BYTES }, (_request, body, done) => {
    try {
      done(null, { csv: utf8(body as Buffer, 'csv') })
    } catch (err) {
      done(err as Error, undefined)
    }
  })
}

async function formFields(request: FastifyRequest): Promise<Record<string, string>> {
  const fields: Record<string, string> = {}
  let name: string | undefined
  try {
    for await (const part of request.parts()) {
      name = part.fieldname
      if (part.type === 'file') fields[name] = utf8(await part.toBuffer(), name)
      else if (part.valueTruncated) throw tooLarge(name)
      else fields[name] = String(part.value)
    }
  } catch (err) {
    if (err instanceof WrenError) throw err
    const code = (err as { code?: string }).code
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(name ?? 'csv')
    if ((err as { statusCode?: number }).statusCode === 413)
      throw wrenError('payload_too_large', `The form has more parts than this endpoint accepts: ${(err as Error).message}.`)
    throw wrenError('invalid_input', `The multipart/form-data body is not valid: ${(err as Error).message}.`)
  }
  return fields
}

function tooLarge(field: string): WrenError {
  return wrenError('payload_too_large', `${field} is larger than the ${MAX_UPLOAD_BYTES / 2 ** 20} MiB an upload may be.`, field)
}

function utf8(bytes: Buffer, field: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw wrenError('invalid_csv', `${field} is not UTF-8 text: save the file as UTF-8 and upload it again.`, field)
  }
}

/**
 * The ids a CSV lists, and what they are. As PostHog reads an upload: blank lines are skipped; when the
 * first row has one non-empty column it is the ids (its first cell is a header when that names a person
 * id, an email or a distinct id column); with more columns the first row is a header, and the column
 * named person_id, else distinct_id, else email holds the ids. Values are trimmed; empty ones are skipped.
 */
export function membersFromCsv(text: string): { key: MemberKey; ids: string[] } {
  let rows: string[][]
  try {
    rows = parse(text, { bom: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, trim: true }) as string[][]
  } catch (err) {
    throw wrenError('invalid_csv', `The CSV is not valid: ${(err as Error).message}`, 'csv')
  }
  const first = rows.findIndex((r) => r.length > 0)
  if (first < 0) throw wrenError('invalid_csv', 'The CSV is empty: upload a file with at least one row.', 'csv')
  const header = rows[first].map((h) => h.trim().toLowerCase())
  const body = rows.slice(first + 1)
  let key: MemberKey
  let column: number
  if (header.filter((h) => h !== '').length <= 1) {
    column = 0
    key = PERSON_ID_HEADERS.includes(header[0]) ? 'person_id' : EMAIL_HEADERS.includes(header[0]) ? 'email' : 'distinct_id'
    if (key === 'distinct_id' && !DISTINCT_ID_HEADERS.includes(header[0])) body.unshift(rows[first])
  } else {
    const found = (['person_id', 'distinct_id', 'email'] as const)
      .map((k) => [k, header.findIndex((h) => headersOf(k).includes(h))] as const)
      .find(([, i]) => i >= 0)
    if (!found)
      throw wrenError(
        'invalid_csv',
        `A CSV of several columns needs a header naming the id column: person_id, distinct_id or email. Its columns: ${rows[first].filter((h) => h).join(', ')}.`,
        'csv',
      )
    ;[key, column] = found
  }
  const ids = body.map((r) => (r[column] ?? '').trim()).filter((v) => v !== '')
  if (ids.length === 0) throw wrenError('invalid_csv', 'The CSV lists no person ids, distinct ids or emails.', 'csv')
  return { key, ids }
}

function headersOf(key: MemberKey): string[] {
  return key === 'person_id' ? PERSON_ID_HEADERS : key === 'distinct_id' ? DISTINCT_ID_HEADERS : EMAIL_HEADERS
}
