// Turns one capture HTTP request into validated events: the body as text (every SDK encoding, undone by
// platform/http/sdk-body.ts), then the array / batch / single / engage JSON shapes, tokens, ids and sent_at.

import { wrenError } from '../platform/errors'
import { payloadText, routePath, type SdkRequest } from '../platform/http/sdk-body'
import { parseTimestamp } from './timestamp'
import { jsonTooDeep, jsonTooDeepIn, replaceLoneSurrogates } from '../platform/json'

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

type Json = Record<string, unknown>

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
  // Truncate by code points so a surrogate pair is never split (a text no longer in UTF-16 units has no more code points).
  if (text.length <= MAX_DISTINCT_ID_CHARS) return text
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
function resolveSentAt(batchSentAt: unknown, query: SdkRequest['query']): Date | null {
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
export async function decodeCapture(req: SdkRequest): Promise<DecodedCapture> {
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
