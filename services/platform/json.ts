// How deep user JSON may nest. V8's JSON.parse takes any depth, but JSON.stringify and every recursive walk
// after it overflow the stack a few thousand levels down, which answered 500. PostHog's capture parses with
// serde_json, whose default limit is 128 levels; Wren refuses deeper JSON with a 400 wherever user JSON
// enters: request bodies (capture, decide, the management API) and JSON in query parameters.
import { type WrenError, wrenError } from './errors'

export const MAX_JSON_DEPTH = 128

export function jsonTooDeep(attr: string | null = null): WrenError {
  return wrenError(
    'json_too_deep',
    `JSON is nested more than ${MAX_JSON_DEPTH} levels deep (objects and arrays within each other); flatten it.`,
    attr,
  )
}

/**
 * True when `value` (parsed JSON) holds objects/arrays more than MAX_JSON_DEPTH within each other. Checked after
 * JSON.parse, which takes any depth without recursion: walking the parsed value costs a fraction of parsing it,
 * where scanning the text again would cost about as much as the parse.
 */
export function jsonTooDeepIn(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false
  const stack: unknown[] = [value]
  const depths: number[] = [1]
  while (stack.length > 0) {
    const node = stack.pop() as Record<string, unknown> | unknown[]
    const depth = depths.pop() as number
    if (depth > MAX_JSON_DEPTH) return true
    const children = Array.isArray(node) ? node : Object.values(node)
    for (const child of children) {
      if (typeof child === 'object' && child !== null) {
        stack.push(child)
        depths.push(depth + 1)
      }
    }
  }
  return false
}

// A high surrogate not followed by a low one, or a low one not preceded by a high one: half a character.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/**
 * Replaces lone UTF-16 surrogates (half of an emoji, from a client that cut a string in two) with U+FFFD, in
 * the keys and strings of parsed JSON, in place. JSON.parse lets them through; UTF-8 cannot carry them, and
 * code that encodes them (encodeURIComponent in the person uuid) throws.
 */
export function replaceLoneSurrogates<T>(value: T): T {
  if (typeof value === 'string') return fix(value) as T
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const node = stack.pop()
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const item: unknown = node[i]
        if (typeof item === 'string') node[i] = fix(item)
        else if (typeof item === 'object' && item !== null) stack.push(item)
      }
    } else if (typeof node === 'object' && node !== null) {
      const record = node as Record<string, unknown>
      for (const key of Object.keys(record)) {
        const item = record[key]
        const fixedKey = fix(key)
        const fixedItem = typeof item === 'string' ? fix(item) : item
        if (fixedKey !== key) delete record[key]
        // defineProperty, not assignment: an own "__proto__" key must stay a plain property.
        if (fixedKey !== key || fixedItem !== item)
          Object.defineProperty(record, fixedKey, { value: fixedItem, writable: true, enumerable: true, configurable: true })
        if (typeof item === 'object' && item !== null) stack.push(item)
      }
    }
  }
  return value
}

function fix(text: string): string {
  LONE_SURROGATE.lastIndex = 0
  return LONE_SURROGATE.test(text) ? text.replace(LONE_SURROGATE, '\ufffd') : text
}

const NUL = /\u0000/g

/** `text` with NUL characters replaced by U+FFFD (PostHog does this at ingestion, so no tool downstream meets a raw NUL). */
export function withoutNul(text: string): string {
  return text.includes('\u0000') ? text.replace(NUL, '\uFFFD') : text
}

/** Parsed JSON with NUL replaced in every string, keys included. */
export function withoutNulDeep<T>(value: T): T {
  if (typeof value === 'string') return withoutNul(value) as T
  if (Array.isArray(value)) return value.map(withoutNulDeep) as T
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [withoutNul(k), withoutNulDeep(v)])) as T
  return value
}

/** A JSON object: not null, not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A JSON text's value, or undefined when it is not JSON (a query parameter a caller wrote). */
export function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
