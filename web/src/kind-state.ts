// What the lifecycle, stickiness, retention and paths editors share: a store of their state (one object, edited
// by patches), that state in the page's URL (each field that differs from the kind's defaults, as JSON), and an
// entity (an event or an action) in the Query API's words. No DOM here: the unit tests run it in Node.
import type { StateStore } from './components/url-store'
import { isRecord, parseJson } from './query'

type Json = Record<string, unknown>

export interface PatchStore<Q> extends StateStore<Q> {
  set(patch: Partial<Q>): void
}

export function createPatchStore<Q extends object>(initial: Q): PatchStore<Q> {
  let state = initial
  const listeners = new Set<(query: Q) => void>()
  const commit = (next: Q) => {
    if (next === state) return
    state = next
    for (const listener of listeners) listener(state)
  }
  return {
    get: () => state,
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    replace: commit,
    set: (patch) => commit({ ...state, ...patch }),
  }
}

/** The fields of `q` that differ from `d`'s, as URL parameters of JSON (a field whose default is a string: as it is). Lossless. */
export function encodeState<Q extends object>(q: Q, d: Q): string {
  const params = new URLSearchParams()
  for (const key of Object.keys(d) as Array<keyof Q & string>) {
    const value = q[key]
    if (JSON.stringify(value) === JSON.stringify(d[key])) continue
    params.set(key, typeof d[key] === 'string' ? String(value) : JSON.stringify(value))
  }
  return params.toString()
}

/** The state a URL's search part holds: each field of `d`'s shape read back; missing or malformed ones take `d`'s. */
export function decodeState<Q extends object>(search: string, d: Q): Q {
  const params = new URLSearchParams(search)
  const out = { ...d } as Record<string, unknown>
  for (const [key, fallback] of Object.entries(d)) {
    const raw = params.get(key)
    if (raw === null) continue
    const value = typeof fallback === 'string' ? raw : parseJson(raw)
    if (sameShape(value, fallback)) out[key] = value
  }
  return out as Q
}

/** Whether `value` can stand where `fallback` stands (a null field takes a string or null). */
function sameShape(value: unknown, fallback: unknown): boolean {
  if (fallback === null) return value === null || typeof value === 'string' || typeof value === 'number'
  if (Array.isArray(fallback)) return Array.isArray(value)
  if (isRecord(fallback)) return isRecord(value)
  return typeof value === typeof fallback
}

/** An event (its name; empty: still being picked) or an action (its id). */
export interface Entity {
  kind: 'events' | 'actions'
  id: string
}

export const entityComplete = (e: Entity) => e.id.trim() !== ''

/** An entity as a series node (EventsNode or ActionsNode). */
export const entityNode = (e: Entity, extra: Json = {}): Json =>
  e.kind === 'actions'
    ? { kind: 'ActionsNode', id: Number(e.id), ...extra }
    : { kind: 'EventsNode', event: e.id.trim(), name: e.id.trim(), ...extra }

/** A series node (or a retention entity: `{id, type}`) as the editor's entity; `$pageview` when unreadable. */
export function nodeEntity(node: unknown): Entity {
  if (!isRecord(node)) return { kind: 'events', id: '$pageview' }
  const actions = node.kind === 'ActionsNode' || node.type === 'actions'
  const id = actions ? node.id : (node.event ?? node.id)
  return { kind: actions ? 'actions' : 'events', id: id === null || id === undefined ? '' : String(id) }
}

/** The source node of a saved insight's query (bare or in an InsightVizNode) when it is of `kind`, else null. */
export function sourceOf(query: unknown, kind: string): Json | null {
  if (!isRecord(query)) return null
  const source = query.kind === 'InsightVizNode' && isRecord(query.source) ? query.source : query
  return source.kind === kind ? source : null
}

/** An entity as the page names it. */
export const entityName = (e: Entity, actionName: (id: string) => string) => (e.kind === 'actions' ? actionName(e.id) : e.id.trim())
