// The metadata of one session recording (reference §4.3), computed from the rrweb events of its `$snapshot` events.
// A RecordingMetadata is an accumulator: the recordings processor feeds it each batch of a session, and two
// accumulators of the same session merge into what one pass over both inputs would give, so a session seen across
// batches (or processes) sums up exactly. `toState`/`fromState` turn it into plain JSON and back for storage.

import {
  asRrwebEvent,
  consoleLineFrom,
  hrefFrom,
  isActive,
  isClick,
  isKeypress,
  isMouseActivity,
  type ConsoleLevel,
  type RrwebEvent,
} from './rrweb'
import { activeMilliseconds, activityOf, emptyActivity, mergeActivity, type ActivityState } from './segmentation'

const MAX_URLS = 25
const MAX_URL_CHARS = 4 * 1024
const MAX_START_URL_CHARS = 512
const MAX_SNAPSHOT_FIELD_CHARS = 1000
/** Distinct console lines kept per session for search; the counts still count every line. */
export const MAX_CONSOLE_ENTRIES = 1000

/** The rrweb events of one `$snapshot` event (one flush of one window), with where they came from. */
export interface SnapshotBatch {
  windowId: string
  events: unknown[]
  snapshotSource?: string | null // `$snapshot_source`; 'web' when absent
  snapshotLibrary?: string | null // `$lib`
  /**
   * The bytes of the events' stored JSONL lines (["<window id>", <event>] each), when the caller already has
   * them (the recordings processor's blocks, whose events are all valid): saves serializing each event again.
   */
  bytes?: number
}

export interface ConsoleEntry {
  level: ConsoleLevel
  message: string
  timestamp: number // epoch ms of the first line with this level and message
}

export interface RecordingMetadataState {
  firstTimestamp: number | null
  lastTimestamp: number | null
  startUrl: { url: string; timestamp: number } | null
  urls: string[]
  clickCount: number
  keypressCount: number
  mouseActivityCount: number
  consoleLogCount: number
  consoleWarnCount: number
  consoleErrorCount: number
  consoleEntries: ConsoleEntry[]
  size: number
  eventCount: number
  messageCount: number
  snapshotSource: string | null
  snapshotLibrary: string | null
  activity: ActivityState
}

/** What the recordings API shows for a session, in PostHog's field names. */
export interface RecordingSummary {
  start_time: string | null
  end_time: string | null
  recording_duration: number
  active_seconds: number
  inactive_seconds: number
  click_count: number
  keypress_count: number
  mouse_activity_count: number
  console_log_count: number
  console_warn_count: number
  console_error_count: number
  start_url: string | null
  urls: string[]
  snapshot_source: string
  snapshot_library: string | null
  activity_score: number
  size: number
  event_count: number
  message_count: number
}

/** The batch a `$snapshot` event's properties describe (`$snapshot_data` as capture receives it, or `$snapshot_items`). */
export function snapshotBatchFrom(properties: Record<string, unknown>, sessionId: string): SnapshotBatch {
  const data = properties.$snapshot_data ?? properties.$snapshot_items
  const windowId = properties.$window_id
  return {
    windowId: typeof windowId === 'string' && windowId !== '' ? windowId : sessionId,
    events: Array.isArray(data) ? data : data === undefined || data === null ? [] : [data],
    snapshotSource: typeof properties.$snapshot_source === 'string' ? properties.$snapshot_source : null,
    snapshotLibrary: typeof properties.$lib === 'string' ? properties.$lib : null,
  }
}

const minOf = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.min(a, b))
const maxOf = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.max(a, b))

/** The first `limit` distinct items of `a` then `b`, in that order: capped lists merge like one capped pass. */
function firstDistinct<T>(a: T[], b: T[], key: (item: T) => string, limit: number): T[] {
  const seen = new Set(a.map(key))
  const out = [...a]
  for (const item of b) {
    if (out.length >= limit) break
    if (!seen.has(key(item))) {
      seen.add(key(item))
      out.push(item)
    }
  }
  return out
}

const consoleKey = (entry: ConsoleEntry) => `${entry.level}\u0000${entry.message}`

export class RecordingMetadata {
  private constructor(private state: RecordingMetadataState) {}

  static empty(): RecordingMetadata {
    return new RecordingMetadata({
      firstTimestamp: null,
      lastTimestamp: null,
      startUrl: null,
      urls: [],
      clickCount: 0,
      keypressCount: 0,
      mouseActivityCount: 0,
      consoleLogCount: 0,
      consoleWarnCount: 0,
      consoleErrorCount: 0,
      consoleEntries: [],
      size: 0,
      eventCount: 0,
      messageCount: 0,
      snapshotSource: null,
      snapshotLibrary: null,
      activity: emptyActivity(),
    })
  }

  static fromState(state: RecordingMetadataState): RecordingMetadata {
    return new RecordingMetadata(structuredClone(state))
  }

  /** Metadata of the given batches, in the order they were sent. */
  static of(batches: SnapshotBatch[]): RecordingMetadata {
    const metadata = RecordingMetadata.empty()
    for (const batch of batches) metadata.add(batch)
    return metadata
  }

  toState(): RecordingMetadataState {
    return structuredClone(this.state)
  }

  /**
   * Folds one batch in. Events without a numeric type or a positive timestamp are skipped, and a batch with no other
   * event is ignored whole, as PostHog does.
   */
  add(batch: SnapshotBatch): this {
    const part = RecordingMetadata.empty().state
    part.messageCount = 1
    part.snapshotSource = (batch.snapshotSource || 'web').slice(0, MAX_SNAPSHOT_FIELD_CHARS)
    part.snapshotLibrary = batch.snapshotLibrary ? batch.snapshotLibrary.slice(0, MAX_SNAPSHOT_FIELD_CHARS) : null
    const active: number[] = []
    const inactive: number[] = []
    const urls: string[] = []
    const consoleEntries: ConsoleEntry[] = []
    for (const value of batch.events) {
      const event = asRrwebEvent(value)
      if (!event) continue
      countEvent(part, event)
      if (batch.bytes === undefined) part.size += Buffer.byteLength(JSON.stringify([batch.windowId, event]) + '\n')
      ;(isActive(event) ? active : inactive).push(event.timestamp)
      const href = hrefFrom(event)?.slice(0, MAX_URL_CHARS)
      if (href) {
        urls.push(href)
        if (!part.startUrl || event.timestamp < part.startUrl.timestamp) part.startUrl = { url: href, timestamp: event.timestamp }
      }
      const line = consoleLineFrom(event)
      if (line) {
        if (line.level === 'error') part.consoleErrorCount++
        else if (line.level === 'warn') part.consoleWarnCount++
        else part.consoleLogCount++
        consoleEntries.push({ ...line, timestamp: event.timestamp })
      }
    }
    if (part.eventCount === 0) return this
    if (batch.bytes !== undefined) part.size = batch.bytes
    part.urls = firstDistinct([], urls, (url) => url, MAX_URLS)
    part.consoleEntries = firstDistinct([], consoleEntries, consoleKey, MAX_CONSOLE_ENTRIES)
    part.activity = activityOf(active, inactive)
    this.state = combine(this.state, part)
    return this
  }

  /** Folds in another accumulator of the same session whose batches came after this one's. */
  merge(later: RecordingMetadata): this {
    this.state = combine(this.state, later.state)
    return this
  }

  summary(): RecordingSummary {
    const s = this.state
    // Like ClickHouse's dateDiff('second'): second boundaries crossed.
    const duration =
      s.firstTimestamp === null || s.lastTimestamp === null ? 0 : Math.floor(s.lastTimestamp / 1000) - Math.floor(s.firstTimestamp / 1000)
    const activeMs = activeMilliseconds(s.activity)
    const activeSeconds = activeMs / 1000
    const engaged = activeSeconds + s.clickCount + s.keypressCount + s.consoleErrorCount
    const exposure = s.mouseActivityCount + duration + s.consoleErrorCount + s.consoleLogCount + s.consoleWarnCount
    return {
      start_time: s.firstTimestamp === null ? null : new Date(s.firstTimestamp).toISOString(),
      end_time: s.lastTimestamp === null ? null : new Date(s.lastTimestamp).toISOString(),
      recording_duration: duration,
      active_seconds: activeSeconds,
      // A recording shorter than a second can have 1 ms of activity and a duration of 0; never show negative idleness.
      inactive_seconds: Math.max(0, duration - activeSeconds),
      click_count: s.clickCount,
      keypress_count: s.keypressCount,
      mouse_activity_count: s.mouseActivityCount,
      console_log_count: s.consoleLogCount,
      console_warn_count: s.consoleWarnCount,
      console_error_count: s.consoleErrorCount,
      start_url: s.startUrl ? s.startUrl.url.slice(0, MAX_START_URL_CHARS) : null,
      urls: [...s.urls],
      snapshot_source: s.snapshotSource ?? 'web',
      snapshot_library: s.snapshotLibrary,
      activity_score: exposure === 0 ? 0 : Math.round((engaged / exposure) * 100 * 100) / 100,
      size: s.size,
      event_count: s.eventCount,
      message_count: s.messageCount,
    }
  }

  /** Distinct console lines (first occurrence of each level and message), for the searchable log entries. */
  consoleEntries(): ConsoleEntry[] {
    return this.state.consoleEntries.map((entry) => ({ ...entry }))
  }
}

function countEvent(part: RecordingMetadataState, event: RrwebEvent): void {
  part.eventCount++
  part.firstTimestamp = minOf(part.firstTimestamp, event.timestamp)
  part.lastTimestamp = maxOf(part.lastTimestamp, event.timestamp)
  if (isClick(event)) part.clickCount++
  if (isKeypress(event)) part.keypressCount++
  if (isMouseActivity(event)) part.mouseActivityCount++
}

/** `a` then `b`: sums add, extremes widen, the earliest url wins (`a` on a tie), and "first" fields keep `a`'s. */
function combine(a: RecordingMetadataState, b: RecordingMetadataState): RecordingMetadataState {
  return {
    firstTimestamp: minOf(a.firstTimestamp, b.firstTimestamp),
    lastTimestamp: maxOf(a.lastTimestamp, b.lastTimestamp),
    startUrl: !a.startUrl || (b.startUrl && b.startUrl.timestamp < a.startUrl.timestamp) ? b.startUrl : a.startUrl,
    urls: firstDistinct(a.urls, b.urls, (url) => url, MAX_URLS),
    clickCount: a.clickCount + b.clickCount,
    keypressCount: a.keypressCount + b.keypressCount,
    mouseActivityCount: a.mouseActivityCount + b.mouseActivityCount,
    consoleLogCount: a.consoleLogCount + b.consoleLogCount,
    consoleWarnCount: a.consoleWarnCount + b.consoleWarnCount,
    consoleErrorCount: a.consoleErrorCount + b.consoleErrorCount,
    consoleEntries: firstDistinct(a.consoleEntries, b.consoleEntries, consoleKey, MAX_CONSOLE_ENTRIES),
    size: a.size + b.size,
    eventCount: a.eventCount + b.eventCount,
    messageCount: a.messageCount + b.messageCount,
    snapshotSource: a.snapshotSource ?? b.snapshotSource,
    snapshotLibrary: a.snapshotLibrary ?? b.snapshotLibrary,
    activity: mergeActivity(a.activity, b.activity),
  }
}
