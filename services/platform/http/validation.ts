// How declared schemas check requests, and how a failed check reads. Two ajv instances: the URL's parts
// (path parameters, query string) arrive as strings and are coerced to the declared types ('5' → 5,
// 'abc' stays a 400); a JSON body is taken as sent, so {"name": 5} is refused, never turned into "5".
// A failure answers PostHog's DRF shape, {type: 'validation_error', code, detail, attr}, with the
// offending field in attr. A repeated query parameter takes its first value; an integer is a safe one
// (past 2^53 it is a 400 naming the field, and a record id past 2^53 is a 404: nothing has that id).
import type { FastifyInstance, FastifySchemaValidationError } from 'fastify'
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv'
import { parse as parseQuery } from 'fast-querystring'
import { wrenError, type ErrorCode, type WrenError } from '../errors'

/** Schema keywords Wren adds (OpenAPI extensions): the error code a failed field answers with. */
export const ERROR_CODE_KEYWORD = 'x-error-code'
/** A path parameter naming a record by id (an integer, or for some records a uuid): see RecordId. */
export const RECORD_ID_KEYWORD = 'x-record-id'
/** A URL part's number is finite: see safeIntegers. */
const FINITE_KEYWORD = 'x-finite'

const common: Options = {
  allErrors: false,
  useDefaults: true,
  verbose: true,
  strict: true,
  keywords: [ERROR_CODE_KEYWORD, 'example', 'x-raw'],
  code: { optimize: false },
}
const formats: Record<string, RegExp> = {
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
}

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ ...common, ...options })
  for (const [name, pattern] of Object.entries(formats)) ajv.addFormat(name, pattern)
  // Descriptive only (the OpenAPI document); not checked.
  for (const name of ['date-time', 'binary']) ajv.addFormat(name, true)
  ajv.addKeyword({
    keyword: RECORD_ID_KEYWORD,
    type: 'string',
    schemaType: 'boolean',
    validate: (on: boolean, id: string) => !on || !pastSafe(id),
  })
  // Not typed 'number': ajv runs its number keywords only on finite numbers.
  ajv.addKeyword({
    keyword: FINITE_KEYWORD,
    schemaType: 'boolean',
    validate: (on: boolean, n: unknown) => !on || typeof n !== 'number' || Number.isFinite(n),
  })
  return ajv
}

/** A number (in any notation: 1e30, 99999999999999999999) no integer id can be: past ±2^53. */
function pastSafe(text: string): boolean {
  const n = Number(text)
  return text.trim() !== '' && !Number.isNaN(n) && Math.abs(n) > Number.MAX_SAFE_INTEGER
}

/**
 * A copy of a URL part's schema whose integers stay within ±2^53: past it a number loses its digits, and
 * the ClickHouse clients refuse to send it (a 500), so it is a 400 naming the field. Its numbers are finite:
 * ajv coerces '1e400' and 'Infinity' to Infinity and skips its range checks for it. The declared schema
 * (the OpenAPI document's) is left as it is.
 */
function safeIntegers(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(safeIntegers)
  if (schema === null || typeof schema !== 'object') return schema
  const copy: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema))
    copy[key] = ['default', 'enum', 'const', 'example', 'examples'].includes(key) ? value : safeIntegers(value)
  if (copy.type === 'integer') {
    copy.minimum ??= -Number.MAX_SAFE_INTEGER
    copy.maximum ??= Number.MAX_SAFE_INTEGER
  }
  if (copy.type === 'integer' || copy.type === 'number') copy[FINITE_KEYWORD] = true
  return copy
}

/**
 * The query-string parser every route uses (Fastify's own, fast-querystring) with one rule on top: a repeated
 * parameter (?v=3&v=1) takes its first value, so no handler or SDK decoder (capture, /s/ and decide read the
 * query themselves) meets an array where it reads a string. No route declares an array query parameter
 * (routesOf refuses one).
 */
export function firstValueQuery(text: string): Record<string, unknown> {
  if (text.length === 0) return {}
  const query = parseQuery(text) as Record<string, unknown>
  for (const name in query) {
    const value = query[name]
    if (Array.isArray(value)) query[name] = value[0]
  }
  return query
}

/**
 * `ajv.compile`, once per distinct schema: routes repeat theirs (a project id, an export format), and ajv
 * remembers a schema by its object only. A Wren compiled 407 schemas at start, 68 of them distinct, which
 * was 60% of its start. Sharing a check is safe: its errors are read right after it runs.
 */
function compileOnce(ajv: Ajv): (schema: object) => ValidateFunction {
  const compiled = new Map<string, ValidateFunction>()
  return (schema) => {
    const key = JSON.stringify(schema)
    let validate = compiled.get(key)
    if (!validate) compiled.set(key, (validate = ajv.compile(schema)))
    return validate
  }
}

/**
 * The checks of the process, made by its first Wren: a schema is the same text in every Wren, so a later one
 * (the tests start one per file in each of their processes) finds its checks compiled.
 */
let compilers: { url: (schema: object) => ValidateFunction; body: (schema: object) => ValidateFunction } | null = null

export function installValidation(app: FastifyInstance): void {
  compilers ??= { url: compileOnce(makeAjv({ coerceTypes: 'array' })), body: compileOnce(makeAjv({ coerceTypes: false })) }
  const { url, body } = compilers
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (httpPart !== 'body') return url(safeIntegers(schema) as object)
    // A raw body (capture, decide: bytes in many encodings) is decoded by its route, not checked here.
    if ((schema as Record<string, unknown>)['x-raw'] === true) return () => true
    // No body at all reads as an empty JSON object (as DRF's request.data does): its required fields are missing.
    const validate = body(schema)
    const check = (data: unknown) => {
      const value = data === undefined ? {} : data
      const valid = validate(value)
      check.errors = validate.errors
      return valid ? { value } : false
    }
    check.errors = null as typeof validate.errors
    return check
  })
  // Response schemas document the answer; the answer is written as JSON.stringify writes it (a schema
  // never drops or reshapes a field on the way out).
  app.setSerializerCompiler(() => (data) => JSON.stringify(data))
  app.setSchemaErrorFormatter((errors, dataVar) => toWrenError(errors, dataVar))
}

/** The first failed check as a WrenError naming its field. */
export function toWrenError(errors: FastifySchemaValidationError[], part: string): WrenError {
  const error = errors[0] as ErrorObject
  const path = error.instancePath.split('/').slice(1).map(unescapePointer)
  if (error.keyword === 'required') path.push(String(error.params.missingProperty))
  if (error.keyword === 'additionalProperties') path.push(String(error.params.additionalProperty))
  // attr names the request's field (as DRF's does); the detail names the place inside it.
  const attr = path.length ? path[0] : part === 'body' ? null : part
  const schema = (error.parentSchema ?? {}) as Record<string, unknown>
  const code = (schema[ERROR_CODE_KEYWORD] as ErrorCode | undefined) ?? codeOf(error.keyword)
  return wrenError(code, detailOf(error, path.length ? path.join('.') : 'The request body', schema), attr)
}

function codeOf(keyword: string): ErrorCode {
  if (keyword === 'required') return 'required'
  if (keyword === 'enum' || keyword === 'const') return 'invalid_choice'
  if (keyword === 'maxLength' || keyword === 'maxItems') return 'max_length'
  if (keyword === 'additionalProperties') return 'unknown_field'
  if (keyword === RECORD_ID_KEYWORD) return 'not_found'
  return 'invalid_input'
}

function detailOf(error: ErrorObject, name: string, schema: Record<string, unknown>): string {
  const got = error.keyword === 'required' ? '' : `, got ${shown(error.data)}`
  if (error.keyword === 'required') return `${name} is required.`
  if (error.keyword === 'additionalProperties') return `${name} is not a known field.`
  if (error.keyword === RECORD_ID_KEYWORD) return `No record has ${name} ${shown(error.data)}: ids stay below 2^53.`
  if (schema.type === 'integer' && ['type', 'minimum', 'maximum', FINITE_KEYWORD].includes(error.keyword)) {
    const { minimum, maximum } = schema as { minimum?: number; maximum?: number }
    const range =
      minimum !== undefined && maximum !== undefined ? ` from ${minimum} to ${maximum}` : minimum !== undefined ? ` ≥ ${minimum}` : ''
    return `${name} must be an integer${range}${got}.`
  }
  if (error.keyword === 'enum') return `${name} must be one of ${(schema.enum as unknown[]).map((v) => `'${String(v)}'`).join(', ')}${got}.`
  if (error.keyword === 'format' || error.keyword === 'pattern')
    return `${name} must be ${String(schema.description ?? `a valid ${String(error.params.format ?? 'value')}`)}${got}.`
  return `${name} ${error.message ?? 'is not valid'}${got}.`
}

function shown(value: unknown): string {
  const text = typeof value === 'string' || typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value))
  return `'${text.length > 100 ? text.slice(0, 100) + '…' : text}'`
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~')
}

/**
 * For tests: every JSON answer is checked against the response schema its route declares for the status
 * (or its `4xx`/`default` entry). A mismatch answers 500 naming the route and the field, so a schema cannot
 * drift from what the route sends without a test failing. Answers a route writes as bytes are checked too.
 */
export function checkAnswers(app: FastifyInstance): void {
  const ajv = makeAjv({ coerceTypes: false, useDefaults: false, allErrors: true })
  const compiled = new WeakMap<object, ReturnType<Ajv['compile']>>()
  app.addHook('onSend', (request, reply, payload, done) => {
    const responses = request.routeOptions.schema?.response as Record<string, object> | undefined
    const status = String(reply.statusCode)
    const schema = responses?.[status] ?? responses?.[`${status[0]}xx`] ?? responses?.default
    const type = String(reply.getHeader('content-type') ?? '')
      .split(';')[0]
      .trim()
    // JSON only: JSONL (recording blocks), CSV and HTML answers are text their schema describes in words.
    const json = type === 'application/json' || type.endsWith('+json')
    if (!schema || !json || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) return done(null, payload)
    let validate = compiled.get(schema)
    if (!validate) compiled.set(schema, (validate = ajv.compile(schema)))
    if (validate(JSON.parse(payload.toString()))) return done(null, payload)
    const where = `${request.method} ${request.routeOptions.url} ${status}`
    const detail = ajv.errorsText(validate.errors, { dataVar: 'answer' })
    request.log.error({ route: where, errors: validate.errors }, 'answer does not match its declared schema')
    reply.status(500)
    done(null, JSON.stringify({ type: 'server_error', code: 'answer_schema', detail: `${where}: ${detail}`, attr: null }))
  })
}
