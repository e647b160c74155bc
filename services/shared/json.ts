// How deep user JSON may nest. V8's JSON.parse takes any depth, but JSON.stringify and every recursive walk
// after it overflow the stack a few thousand levels down, which answered 500. PostHog's capture parses with
// serde_json, whose default limit is 128 levels; Wren refuses deeper JSON with a 400 wherever user JSON
// enters: request bodies (capture, decide, the management API) and JSON in query parameters.
import { badRequest, type WrenError } from './errors'

export const MAX_JSON_DEPTH = 128

export function jsonTooDeep(attr: string | null = null): WrenError {
  return badRequest('json_too_deep', `JSON is nested more than ${MAX_JSON_DEPTH} levels deep (objects and arrays within each other); flatten it.`, attr)
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
