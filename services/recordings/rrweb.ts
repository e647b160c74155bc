// rrweb event shapes as posthog-js sends them inside `$snapshot_data`, and the few facts about them that recording
// metadata needs. Reference: capture-persons-recordings.md §4.1 (enums) and §4.3 (what counts as a click, a keypress, …).
// No Node imports: the player page's script (services/recordings/player/) bundles this module for the browser.

import { replaceLoneSurrogates } from '../platform/json'

export const EventType = {
  DomContentLoaded: 0,
  Load: 1,
  FullSnapshot: 2,
  IncrementalSnapshot: 3,
  Meta: 4,
  Custom: 5,
  Plugin: 6,
} as const

export const IncrementalSource = {
  Mutation: 0,
  MouseMove: 1,
  MouseInteraction: 2,
  Scroll: 3,
  ViewportResize: 4,
  Input: 5,
  TouchMove: 6,
  MediaInteraction: 7,
  StyleSheetRule: 8,
  CanvasMutation: 9,
  Font: 10,
  Log: 11,
  Drag: 12,
  StyleDeclaration: 13,
  Selection: 14,
  AdoptedStyleSheet: 15,
  CustomElement: 16,
} as const

export const MouseInteraction = {
  MouseUp: 0,
  MouseDown: 1,
  Click: 2,
  ContextMenu: 3,
  DblClick: 4,
  Focus: 5,
  Blur: 6,
  TouchStart: 7,
  TouchMoveDeparted: 8,
  TouchEnd: 9,
  TouchCancel: 10,
} as const

/** posthog-js marks events whose bulky fields it gzipped with this compression version. */
export const COMPRESSION_VERSION = '2024-10'
export const CONSOLE_PLUGIN = 'rrweb/console@1'

/** An rrweb event: only `type` and `timestamp` are guaranteed; everything else is read defensively. */
export interface RrwebEvent {
  type: number
  timestamp: number
  data?: unknown
  cv?: string
  [key: string]: unknown
}

export type ConsoleLevel = 'info' | 'warn' | 'error'

// A tap ends with TouchEnd; MouseDown/MouseUp, Focus and TouchStart would count one gesture twice or are not clicks.
const CLICK_TYPES: ReadonlySet<number> = new Set([
  MouseInteraction.Click,
  MouseInteraction.DblClick,
  MouseInteraction.ContextMenu,
  MouseInteraction.TouchEnd,
])
const MOUSE_ACTIVITY_SOURCES: ReadonlySet<number> = new Set([
  IncrementalSource.MouseInteraction,
  IncrementalSource.MouseMove,
  IncrementalSource.TouchMove,
])
const ACTIVE_SOURCES: ReadonlySet<number> = new Set([
  IncrementalSource.MouseMove,
  IncrementalSource.MouseInteraction,
  IncrementalSource.Scroll,
  IncrementalSource.ViewportResize,
  IncrementalSource.Input,
  IncrementalSource.TouchMove,
  IncrementalSource.MediaInteraction,
  IncrementalSource.Drag,
])
// console.* method → the level PostHog counts it under; anything unknown is info.
const CONSOLE_LEVELS: ReadonlyMap<string, ConsoleLevel> = new Map([
  ['warn', 'warn'],
  ['countReset', 'warn'],
  ['error', 'error'],
  ['assert', 'error'],
])
const MAX_CONSOLE_ITEM_CHARS = 2999

/** The value as an object of fields, or null for anything else (arrays too). */
export function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null
}

/** The value as an rrweb event, or null when it lacks a numeric type or a positive timestamp (PostHog drops those). */
export function asRrwebEvent(value: unknown): RrwebEvent | null {
  const event = record(value)
  if (!event || typeof event.type !== 'number' || typeof event.timestamp !== 'number') return null
  if (!Number.isFinite(event.timestamp) || event.timestamp <= 0) return null
  return event as RrwebEvent
}

function incrementalSource(event: RrwebEvent): number | null {
  if (event.type !== EventType.IncrementalSnapshot) return null
  const source = record(event.data)?.source
  return typeof source === 'number' ? source : null
}

export function isClick(event: RrwebEvent): boolean {
  if (incrementalSource(event) !== IncrementalSource.MouseInteraction) return false
  const kind = record(event.data)?.type
  return typeof kind === 'number' && CLICK_TYPES.has(kind)
}

/** Every Input event counts as one keypress (rrweb records the field's new value, not the keys). */
export function isKeypress(event: RrwebEvent): boolean {
  return incrementalSource(event) === IncrementalSource.Input
}

export function isMouseActivity(event: RrwebEvent): boolean {
  const source = incrementalSource(event)
  return source !== null && MOUSE_ACTIVITY_SOURCES.has(source)
}

/** Whether the event shows a user at the page, for the active/inactive segmentation. */
export function isActive(event: RrwebEvent): boolean {
  const source = incrementalSource(event)
  return source !== null && ACTIVE_SOURCES.has(source)
}

/** The page address an event carries: Meta events in `data.href`, posthog-js's custom and plugin events in `data.payload.href`. */
export function hrefFrom(event: RrwebEvent): string | null {
  const data = record(event.data)
  const href = data?.href ?? record(data?.payload)?.href
  if (typeof href !== 'string') return null
  const trimmed = href.trim()
  return trimmed === '' ? null : trimmed
}

export interface ConsoleLine {
  level: ConsoleLevel
  message: string
}

/** The console line of an `rrweb/console@1` plugin event: its string arguments, each cut to 2999 chars, joined by spaces. */
export function consoleLineFrom(event: RrwebEvent): ConsoleLine | null {
  if (event.type !== EventType.Plugin) return null
  const data = record(event.data)
  if (data?.plugin !== CONSOLE_PLUGIN) return null
  const payload = record(data.payload)
  const level = typeof payload?.level === 'string' ? (CONSOLE_LEVELS.get(payload.level) ?? 'info') : 'info'
  const args = Array.isArray(payload?.payload) ? payload.payload : []
  const message = args
    .filter((item): item is string => typeof item === 'string' && item !== '')
    // cutting can split a surrogate pair
    .map((item) => replaceLoneSurrogates(item.slice(0, MAX_CONSOLE_ITEM_CHARS)))
    .join(' ')
  return { level, message }
}

/**
 * A gzipped JSON value that posthog-js stored as a binary string (one char per byte, fflate's `strFromU8(…, true)`).
 * DecompressionStream is the web platform's gunzip, in Node and in browsers alike.
 */
async function gunzipField(value: unknown): Promise<unknown> {
  if (typeof value !== 'string') return value
  const bytes = Uint8Array.from(value, (char) => char.charCodeAt(0))
  const text = await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).text()
  return JSON.parse(text)
}

async function gunzipFields(data: Record<string, unknown>, fields: readonly string[]): Promise<Record<string, unknown>> {
  const values = await Promise.all(fields.map((field) => gunzipField(data[field])))
  return { ...data, ...Object.fromEntries(fields.map((field, i) => [field, values[i]])) }
}

/**
 * The event with posthog-js's partial compression (`cv: '2024-10'`) undone: a full snapshot's `data`, a mutation's
 * `texts`/`attributes`/`removes`/`adds` and a style sheet rule's `adds`/`removes` are gzipped JSON in binary strings.
 * Other events come back as they are. Rejects when a field marked compressed is not valid gzipped JSON.
 */
export async function decompressEvent(event: RrwebEvent): Promise<RrwebEvent> {
  if (event.cv !== COMPRESSION_VERSION) return event
  const { cv: _cv, ...rest } = event
  if (event.type === EventType.FullSnapshot) return { ...rest, data: await gunzipField(event.data) }
  const data = record(event.data)
  const source = incrementalSource(event)
  if (data && source === IncrementalSource.Mutation)
    return { ...rest, data: await gunzipFields(data, ['texts', 'attributes', 'removes', 'adds']) }
  if (data && source === IncrementalSource.StyleSheetRule)
    return {
      ...rest,
      data: await gunzipFields(
        data,
        ['adds', 'removes'].filter((field) => data[field] !== undefined),
      ),
    }
  return rest as RrwebEvent
}
