// The body of an SDK request as text. SDKs in the field span many years of versions, so this undoes every wire
// encoding PostHog capture accepts (reference §1.2–1.3): GET ?data=, urlencoded forms, base64 (once or twice),
// gzip (hinted or sniffed) and lz-string. Capture (/e/, /batch, /s/) and decide (/decide, /flags) both read
// their bodies through it; what the JSON means is each one's own.

import { promisify } from 'node:util'
import { gunzip } from 'node:zlib'
import { type WrenError, wrenError } from '../errors'
import { decompressLzBase64, LzOutputTooLarge } from './lz-string'
import { EXPANSION, type MemoryCharge } from './memory-budget'

export interface SdkRequest {
  path: string // route path as requested, e.g. '/e/', '/batch', '/engage/', '/i/v0/e/', '/capture/', '/track/'
  query: Record<string, string | undefined>
  headers: Record<string, string | string[] | undefined> // lower-case names
  body: Buffer // raw body bytes (empty Buffer for GET)
  /** The request's memory charge (memory-budget.ts), raised as a compressed body inflates; throws past the budget. */
  memory?: MemoryCharge
}

export const MAX_DECOMPRESSED_BYTES = 20 * 1024 * 1024

const gunzipAsync = promisify(gunzip)
/**
 * The pieces an async gunzip inflates into, each a turn of the thread pool and the event loop: zlib's default of
 * 16 KiB made a body that inflates to the 20 MiB cap 1,280 turns (80 ms of CPU, and seconds of waiting on a busy
 * event loop); 256 KiB, 80 turns and 15 ms. A small body takes the same time either way.
 */
const GUNZIP_CHUNK_BYTES = 256 * 1024
type Compression = 'gzip' | 'lz64' | 'base64' | null

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

/** The route path without query and trailing slash: '/engage/' → '/engage'. */
export function routePath(path: string): string {
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

function header(req: SdkRequest, name: string): string | undefined {
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
    out = await gunzipAsync(bytes, { maxOutputLength: MAX_DECOMPRESSED_BYTES, chunkSize: GUNZIP_CHUNK_BYTES })
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
function extractPayload(req: SdkRequest): { payload: Buffer; compression: Compression } {
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
function isForm(req: SdkRequest, payload: Buffer): boolean {
  if (startsWithGzipMagic(payload)) return false
  const head = headOf(payload)
  if (!looksLikeForm(head)) return false
  const mediaType = (header(req, 'content-type') ?? '').split(';')[0].trim().toLowerCase()
  return mediaType === 'application/x-www-form-urlencoded' || FORM_FIELDS.some((f) => head.startsWith(f))
}

/** The request body as text, undone from every encoding the SDKs send. */
export async function payloadText(req: SdkRequest): Promise<string> {
  const { payload, compression } = extractPayload(req)
  let text: string
  // A gzip hint on bytes without the gzip magic could never gunzip (e.g. a proxy already inflated the body), so
  // those are read as plain text instead of failing.
  if (startsWithGzipMagic(payload)) text = await gunzipCapped(payload)
  else if (compression === 'lz64') text = await lz64(decodeUtf8(payload, 'lz64 payload'))
  else text = decodeUtf8(payload, 'payload')
  // The work after this (parsing, re-encoding) grows with the text, not with the compressed body charged so far.
  if (text.length > payload.length) req.memory?.raise(text.length * EXPANSION)

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
