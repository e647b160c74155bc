// Turns one capture HTTP request into validated events. SDKs in the field span many years of versions, so this
// accepts every wire variant PostHog capture accepts (reference §1.2–1.3): GET ?data=, urlencoded forms, base64
// (once or twice), gzip (hinted or sniffed), lz-string, and the array / batch / single / engage JSON shapes.

import { promisify } from 'node:util'
import { gunzip } from 'node:zlib'
import { type WrenError, wrenError } from '../shared/errors'
import { parseTimestamp } from './timestamp'
import { decompressLzBase64, LzOutputTooLarge } from './lz-string'
import { jsonTooDeep, jsonTooDeepIn, replaceLoneSurrogates } from '../shared/json'

export interface CaptureRequest {
  path: string // route path as requested, e.g. '/e/', '/batch', '/engage/', '/i/v0/e/', '/capture/', '/track/'
  query: Record<string, string | undefined>
  headers: Record<string, string | string[] | undefined> // lower-case names
  body: Buffer // raw body bytes (empty Buffer for GET)
}

export interface DecodedEvent {
  uuid: string | null // null when not sent (or sent as ''); validated UUID otherwise
  event: string
  distinctId: string
  properties: Record<string, unknown>
  timestamp: string | null
  offset: number | null
  set: Record<string, unknown> | null // top-level $set
  setOnce: Record<string, unknown> | null // top-level $set_once
}

export interface DecodedCapture {
  token: string
  events: DecodedEvent[]
  sentAt: Date | null
  historicalMigration: boolean
}

export const MAX_DECOMPRESSED_BYTES = 20 * 1024 * 1024

const gunzipAsync = promisify(gunzip)
type Compression = 'gzip' | 'lz64' | 'base64' | null
type Json = Record<string, unknown>

// ---------------------------------------------------------------------------------------------------------------
// Bytes → JSON text

const STRICT_BASE64_RE = /^[A-Za-z0-9+/]+={0,2}$/
const BASE64_HEAD_RE = /^[A-Za-z0-9+/=]+$/
// After urldecoding, the '+' of base64 has become ' '.
const LOOSE_BASE64_RE = /^[A-Za-z0-9+/= ]+$/
const FORM_FIELDS = ['data=', '_=', 'ip=', 'compression=']
const LEGACY_PATHS = new Set(['/e', '/capture', '/engage', '/track'])
const utf8 = new TextDecoder('utf-8', { fatal: true })

function isStrictBase64(text: string): boolean {
  return text.length % 4 === 0 && STRICT_BASE64_RE.test(text)
}

/** The first 128 bytes: enough to tell a form or base64 from JSON, as PostHog does. */
function headOf(bytes: Buffer): string {
  return bytes.subarray(0, 128).toString('latin1')
}

/** A known form field at the start of the head, or after an '&' in it. */
function looksLikeForm(head: string): boolean {
  return FORM_FIELDS.some((f) => head.startsWith(f) || head.includes(`&${f}`))
}

function routePath(path: string): string {
  const bare = path.split('?')[0]
  return bare.length > 1 && bare.endsWith('/') ? bare.slice(0, -1) : bare
}

function parseCompression(value: string | undefined): Compression {
  switch (value?.trim().toLowerCase()) {
    case 'gzip':
    case 'gzip-js':
      return 'gzip'
    case 'lz64':
    case 'lz-string':
      return 'lz64'
    case 'base64':
    case 'b64':
      return 'base64'
    default:
      return null
  }
}

function header(req: CaptureRequest, name: string): string | undefined {
  const value = req.headers[name]
  return Array.isArray(value) ? value[0] : value
}

function decodeUtf8(bytes: Uint8Array, what: string): string {
  try {
    return utf8.decode(bytes)
  } catch {
    throw wrenError('invalid_payload', `Failed to decode ${what}: invalid UTF-8`)
  }
}

function tooLarge(): WrenError {
  return wrenError('payload_too_large', `Payload exceeds ${MAX_DECOMPRESSED_BYTES} bytes (after decompression)`)
}

async function gunzipCapped(bytes: Buffer): Promise<string> {
  let out: Buffer
  try {
    // Async on purpose: the Sync variant would block the event loop for every other request.
    out = await gunzipAsync(bytes, { maxOutputLength: MAX_DECOMPRESSED_BYTES })
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge()
    throw wrenError('invalid_payload', `Failed to decode gzip payload: ${(err as Error).message}`)
  }
  return decodeUtf8(out, 'gzip payload')
}

async function lz64(text: string): Promise<string> {
  let out: string | null
  try {
    // Capped while decoding (lz-string.ts): a crafted stream asks for billions of characters from a few KB.
    // UTF-16 units never outnumber UTF-8 bytes, so a cap in units lets through everything the byte cap does.
    out = await decompressLzBase64(text.trim(), MAX_DECOMPRESSED_BYTES)
  } catch (err) {
    if (err instanceof LzOutputTooLarge) throw tooLarge()
    throw err
  }
  if (!out) throw wrenError('invalid_payload', 'Failed to decode lz64 payload')
  if (Buffer.byteLength(out, 'utf8') > MAX_DECOMPRESSED_BYTES) throw tooLarge()
  return out
}

/** Restores the '+' that urldecoding turned into ' ', when the value is base64. */
function unmangleBase64(value: string): string {
  return LOOSE_BASE64_RE.test(value) && value.length % 4 === 0 ? value.replace(/ /g, '+') : value
}

function startsWithGzipMagic(bytes: Buffer): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b
}

/** Where the payload is, and the compression hint: query, then form, then Content-Encoding (reference §1.3). */
function extractPayload(req: CaptureRequest): { payload: Buffer; compression: Compression } {
  const queryHint = parseCompression(req.query.compression)
  const headerHint = parseCompression(header(req, 'content-encoding'))
  let payload: Buffer
  if (req.query.data) payload = Buffer.from(unmangleBase64(req.query.data), 'utf8')
  else if (req.body.length > 0) payload = req.body
  else throw wrenError('empty_payload', 'Empty request payload')
  if (payload.length > MAX_DECOMPRESSED_BYTES) throw tooLarge()

  // Some SDKs base64 the whole body (even a form). lz-string output is base64 text too, so not when hinted lz64.
  // The cheap look at the head first spares copying every large JSON body into a string.
  const head = headOf(payload)
  if (queryHint !== 'lz64' && headerHint !== 'lz64' && !looksLikeForm(head) && BASE64_HEAD_RE.test(head)) {
    const raw = payload.toString('latin1')
    if (isStrictBase64(raw)) payload = Buffer.from(raw, 'base64')
  }

  let formHint: Compression = null
  if (isForm(req, payload)) {
    const form = new URLSearchParams(decodeUtf8(payload, 'form body'))
    formHint = parseCompression(form.get('compression') ?? undefined)
    const data = form.get('data')
    // Like PostHog, a form without a data field leaves the body as the payload (JSON parsing then decides).
    if (data) payload = Buffer.from(unmangleBase64(data), 'utf8')
  }
  return { payload, compression: queryHint ?? formHint ?? headerHint }
}

/**
 * A form is recognised by its fields. With a form Content-Type that is enough; without one, only a body that
 * starts like a form counts, so a mislabelled beacon still decodes but a JSON body whose first URL happens to
 * contain "&ip=" is never taken for a form.
 */
function isForm(req: CaptureRequest, payload: Buffer): boolean {
  if (startsWithGzipMagic(payload)) return false
  const head = headOf(payload)
  if (!looksLikeForm(head)) return false
  const mediaType = (header(req, 'content-type') ?? '').split(';')[0].trim().toLowerCase()
  return mediaType === 'application/x-www-form-urlencoded' || FORM_FIELDS.some((f) => head.startsWith(f))
}

/** The request body as text, undone from every encoding capture accepts (decide reuses this). */
export async function payloadText(req: CaptureRequest): Promise<string> {
  const { payload, compression } = extractPayload(req)
  let text: string
  // A gzip hint on bytes without the gzip magic could never gunzip (e.g. a proxy already inflated the body), so
  // those are read as plain text instead of failing.
  if (startsWithGzipMagic(payload)) text = await gunzipCapped(payload)
  else if (compression === 'lz64') text = await lz64(decodeUtf8(payload, 'lz64 payload'))
  else text = decodeUtf8(payload, 'payload')

  // Legacy endpoints (and anything hinted base64) may still carry one more layer of base64.
  if ((LEGACY_PATHS.has(routePath(req.path)) || compression === 'base64') && isStrictBase64(text)) {
    try {
      text = decodeUtf8(Buffer.from(text, 'base64'), 'base64 payload')
    } catch {
      // Not base64 after all: keep the text and let JSON parsing report it.
    }
  }
  return text
}

// ---------------------------------------------------------------------------------------------------------------
// JSON → events

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

interface RawShape {
  events: Json[]
  batchToken: string | null
  batchSentAt: unknown
  historicalMigration: boolean
}

function readShape(json: unknown, path: string): RawShape {
  const shape: RawShape = { events: [], batchToken: null, batchSentAt: undefined, historicalMigration: false }
  let items: unknown[]
  if (Array.isArray(json)) {
    items = json
  } else if (isObject(json) && Array.isArray(json.batch)) {
    items = json.batch
    const token = json.api_key ?? json.token
    shape.batchToken = typeof token === 'string' ? token : null
    shape.batchSentAt = json.sent_at
    shape.historicalMigration = json.historical_migration === true
  } else if (isObject(json)) {
    items = [json]
  } else {
    throw wrenError('invalid_payload', 'Payload must be a JSON object or array')
  }
  // Legacy engage ({$token, $distinct_id, $set}) has no event name; only /engage turns it into $identify.
  const engage = routePath(path) === '/engage'
  for (const item of items) {
    if (!isObject(item)) throw wrenError('invalid_payload', 'Every event must be a JSON object')
    shape.events.push(engage && item.event == null ? { ...item, event: '$identify' } : item)
  }
  return shape
}

const UUID_RE = /^(?:urn:uuid:)?\{?([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})\}?$/i

function readUuid(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null
  const m = typeof value === 'string' ? UUID_RE.exec(value) : null
  if (!m) throw wrenError('invalid_uuid', `Invalid event uuid: ${JSON.stringify(value)}`, 'uuid')
  return m.slice(1).join('-').toLowerCase()
}

function eventToken(e: Json): string | null {
  for (const key of ['token', '$token', 'api_key']) {
    if (typeof e[key] === 'string') return e[key] as string
  }
  const props = e.properties
  return isObject(props) && typeof props.token === 'string' ? props.token : null
}

/** Batch-level token wins; otherwise the events' tokens, which must agree (events without one don't count). */
function resolveToken(shape: RawShape): string {
  let token = shape.batchToken
  if (token === null) {
    const tokens = new Set(
      shape.events
        .map(eventToken)
        .filter((t): t is string => t !== null)
        .map((t) => t.trim()),
    )
    if (tokens.size > 1) throw wrenError('multiple_tokens', 'Events in one request must share one project API key')
    token = tokens.values().next().value ?? null
  }
  // A copied key with a stray newline is still the key.
  token = token?.trim() ?? ''
  if (token === '') throw wrenError('ingest_key_required', 'Project API key missing: send api_key or token')
  if (token.startsWith('phx_')) {
    throw wrenError('ingest_key_invalid', 'A personal API key (phx_...) cannot be used as a project API key')
  }
  return token
}

const MAX_DISTINCT_ID_CHARS = 200

function readDistinctId(e: Json, props: Json): string {
  const top = e.distinct_id ?? e.$distinct_id
  const value = top ?? props.distinct_id
  if (value === undefined || value === null) throw wrenError('missing_distinct_id', 'Event has no distinct_id', 'distinct_id')
  const text = (typeof value === 'string' ? value : JSON.stringify(value)).replace(/\0/g, '\uFFFD')
  if (text === '') throw wrenError('missing_distinct_id', 'Event has an empty distinct_id', 'distinct_id')
  // Truncate by code points so a surrogate pair is never split.
  const chars = Array.from(text)
  return chars.length > MAX_DISTINCT_ID_CHARS ? chars.slice(0, MAX_DISTINCT_ID_CHARS).join('') : text
}

function toDecodedEvent(e: Json, uuid: string | null): DecodedEvent {
  if (e.event === undefined || e.event === null || e.event === '') {
    throw wrenError('missing_event_name', 'Event has no event name', 'event')
  }
  if (typeof e.event !== 'string') throw wrenError('invalid_payload', 'Event name must be a string', 'event')
  const properties = isObject(e.properties) ? e.properties : {}
  const ts = e.timestamp
  return {
    uuid,
    event: e.event,
    distinctId: readDistinctId(e, properties),
    properties,
    timestamp: typeof ts === 'string' ? ts : typeof ts === 'number' ? String(ts) : null,
    offset: typeof e.offset === 'number' && Number.isFinite(e.offset) ? Math.trunc(e.offset) : null,
    set: isObject(e.$set) ? e.$set : null,
    setOnce: isObject(e.$set_once) ? e.$set_once : null,
  }
}

/** Batch sent_at (ISO), else query sent_at / _ in ms; ms values that read as ≤ 2020 are really seconds: ignored. */
function resolveSentAt(batchSentAt: unknown, query: CaptureRequest['query']): Date | null {
  const fromBatch = typeof batchSentAt === 'string' ? parseTimestamp(batchSentAt) : null
  if (fromBatch) return fromBatch
  const raw = query.sent_at ?? query._
  if (!raw || !/^\d+$/.test(raw.trim())) return null
  const date = new Date(Number(raw.trim()))
  return date.getUTCFullYear() > 2020 ? date : null
}

const SURROGATE_RE = /[\ud800-\udfff]|\\u[dD][89a-fA-F]/

function parseJson(text: string): unknown {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (err) {
    throw wrenError('invalid_payload', `Failed to parse payload as JSON: ${(err as Error).message}`)
  }
  if (jsonTooDeepIn(json)) throw jsonTooDeep()
  // The walk only when the text holds a surrogate at all, raw or escaped (a few ms to find out on 20 MB).
  return SURROGATE_RE.test(text) ? replaceLoneSurrogates(json) : json
}

/** Decodes and validates a capture request. Any bad event fails the whole request: nothing is half-accepted. */
export async function decodeCapture(req: CaptureRequest): Promise<DecodedCapture> {
  const shape = readShape(parseJson(await payloadText(req)), req.path)
  if (shape.events.length === 0) throw wrenError('empty_payload', 'Request contains no events')

  const uuids = shape.events.map((e) => readUuid(e.uuid))
  const kept = shape.events.map((e, i) => ({ e, uuid: uuids[i] })).filter(({ e }) => e.event !== '$performance_event')
  if (kept.length === 0) throw wrenError('empty_payload_filtered', 'Every event in the request was filtered out')

  const token = resolveToken(shape)
  return {
    token,
    events: kept.map(({ e, uuid }) => toDecodedEvent(e, uuid)),
    sentAt: resolveSentAt(shape.batchSentAt, req.query),
    historicalMigration: shape.historicalMigration,
  }
}
