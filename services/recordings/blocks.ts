// Snapshot blocks: what the recordings processor makes of one log batch (one block per team, session and
// window, the window's rrweb events in the order they were sent), and their store in ClickHouse
// (session_recording_blocks, schemas/clickhouse/033). Blocks are JSONL lines ["<window id>", <event>], the
// snapshots API's format (reference §4.4), so they are served as stored.
import type { ClickHouseClient } from '../platform/clickhouse'
import { insertMissing, insertRows, queryRows } from '../platform/clickhouse'
import type { SnapshotItem } from '../platform/log/contract'
import type { LogBatch } from '../platform/log/log'
import { LONGEST_RETENTION, retentionParams, withinRetention, type Retention } from './retention'
import { NOT_DELETED } from './recording-state'

/** An rrweb event: `type` and `timestamp` (ms) are all the processor relies on. */
export interface RrwebEvent {
  type: number
  timestamp: number
  data?: unknown
  [key: string]: unknown
}

export interface SnapshotBlock {
  teamId: number
  sessionId: string
  windowId: string
  distinctId: string
  snapshotSource: string
  snapshotLibrary: string
  /** The rrweb events, in the order they were sent (what the metadata hook reads). */
  events: RrwebEvent[]
  /** ms since the epoch: the events' earliest and latest timestamps. */
  firstTimestamp: number
  lastTimestamp: number
  /** Snapshot messages the block gathers. */
  messageCount: number
  /** ms since the epoch: when capture received the latest of them (its `now`; for `ongoing`). */
  receivedAt: number
  /** The stored text: one JSONL line ["<window id>", <event>] per event. */
  lines: string
  /** The text's UTF-8 bytes. */
  bytes: number
}

/** The log range a write comes from: its deduplication tokens are named after it. */
export type BatchRange = Pick<LogBatch, 'topic' | 'partition' | 'firstOffset' | 'lastOffset'>

/** PostHog's parser drops a message whose first or last event is this far from when it arrived. */
const MAX_EVENT_AGE_MS = 7 * 24 * 3_600_000

/** An event counts (PostHog's message parser) when it is an object with a numeric type and a positive timestamp. */
function isValid(e: unknown): e is RrwebEvent {
  return (
    typeof e === 'object' &&
    e !== null &&
    typeof (e as RrwebEvent).type === 'number' &&
    typeof (e as RrwebEvent).timestamp === 'number' &&
    Number.isFinite((e as RrwebEvent).timestamp) &&
    (e as RrwebEvent).timestamp > 0
  )
}

/** A message's events that count, in the order sent, each with its JSON text. */
export interface MessageEvents {
  events: RrwebEvent[]
  /** JSON.stringify of each event. */
  texts: string[]
}

/**
 * The events that count of a message's JSON array of rrweb events, with their texts. Capture wrote the array
 * with JSON.stringify, which JSON.parse then JSON.stringify give back unchanged, so each event's text is cut
 * from the array rather than serialized again (text that JSON.stringify would not have written, such as
 * whitespace between values, is serialized again instead).
 */
export function eventsOf(json: string): MessageEvents {
  const all: unknown = JSON.parse(json)
  if (!Array.isArray(all)) return { events: [], texts: [] }
  const elements = arrayElements(json)
  const exact = elements?.length === all.length
  const out: MessageEvents = { events: [], texts: [] }
  for (let i = 0; i < all.length; i++) {
    const e: unknown = all[i]
    if (!isValid(e)) continue
    out.events.push(e)
    out.texts.push(exact ? elements[i] : JSON.stringify(e))
  }
  return out
}

/** The texts of a JSON array's elements as JSON.stringify writes them, or null when the text has whitespace outside strings. */
function arrayElements(json: string): string[] | null {
  const elements: string[] = []
  const end = json.length - 1
  let depth = 0
  let start = 1
  for (let i = 1; i < end; i++) {
    const c = json.charCodeAt(i)
    if (c === QUOTE) {
      // Past the string: a backslash escapes the character after it.
      for (i++; i < end && json.charCodeAt(i) !== QUOTE; i++) if (json.charCodeAt(i) === BACKSLASH) i++
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--
    else if (c === COMMA && depth === 0) {
      elements.push(json.slice(start, i))
      start = i + 1
    } else if (c <= SPACE) return null
  }
  if (end > 1) elements.push(json.slice(start, end))
  return elements
}
const code = (c: string) => c.charCodeAt(0)
const QUOTE = code('"')
const BACKSLASH = code('\\')
const OPEN_BRACE = code('{')
const CLOSE_BRACE = code('}')
const OPEN_BRACKET = code('[')
const CLOSE_BRACKET = code(']')
const COMMA = code(',')
const SPACE = code(' ')

/**
 * Why a message is dropped whole, or null: no valid event, or events 7 days or more from when capture
 * received it (measured from the message's own `now`, so a replay drops the same messages).
 */
export function dropReason(item: SnapshotItem, events: RrwebEvent[]): 'no_events' | 'out_of_range' | null {
  if (events.length === 0) return 'no_events'
  const now = Date.parse(item.now)
  const { first, last } = span(events)
  return Math.abs(first - now) >= MAX_EVENT_AGE_MS || Math.abs(last - now) >= MAX_EVENT_AGE_MS ? 'out_of_range' : null
}

function span(events: RrwebEvent[]): { first: number; last: number } {
  let first = Infinity
  let last = -Infinity
  for (const e of events) {
    if (e.timestamp < first) first = e.timestamp
    if (e.timestamp > last) last = e.timestamp
  }
  return { first, last }
}

/**
 * A block's most JSONL characters before the next message of its session and window starts another block.
 * A block is one row of one insert, and ClickHouse's JSON input refuses an object past 100 MiB; a block's text
 * grows by about half again when escaped into that row. PostHog's blob ingester also cuts a session's blocks
 * by size.
 */
export const MAX_BLOCK_CHARS = 16 * 1024 * 1024

/**
 * Gathers a batch's messages into blocks, one per team, session and window, in the order first seen; a
 * session's window whose text would pass `maxChars` continues in a new block (a message is never split).
 */
export function toBlocks(messages: Array<{ item: SnapshotItem } & MessageEvents>, maxChars = MAX_BLOCK_CHARS): SnapshotBlock[] {
  const open = new Map<string, SnapshotBlock>()
  const blocks: SnapshotBlock[] = []
  for (const { item, events, texts } of messages) {
    const key = `${item.teamId}\u0000${item.sessionId}\u0000${item.windowId}`
    const text = lines(item.windowId, texts)
    let block = open.get(key)
    if (!block || (block.lines.length > 0 && block.lines.length + text.length > maxChars)) {
      block = {
        teamId: item.teamId,
        sessionId: item.sessionId,
        windowId: item.windowId,
        distinctId: item.distinctId,
        snapshotSource: item.snapshotSource,
        snapshotLibrary: item.snapshotLibrary,
        events: [],
        lines: '',
        bytes: 0,
        firstTimestamp: Infinity,
        lastTimestamp: -Infinity,
        messageCount: 0,
        receivedAt: 0,
      }
      open.set(key, block)
      blocks.push(block)
    }
    const { first, last } = span(events)
    for (const e of events) block.events.push(e)
    block.lines += text
    block.firstTimestamp = Math.min(block.firstTimestamp, first)
    block.lastTimestamp = Math.max(block.lastTimestamp, last)
    block.messageCount++
    block.receivedAt = Math.max(block.receivedAt, Date.parse(item.now) || 0)
  }
  for (const block of blocks) block.bytes = Buffer.byteLength(block.lines)
  return blocks
}

/** Stored text: one JSONL line ["<window id>", <event>] per event (its text: JSON.stringify of the event). */
function lines(windowId: string, texts: string[]): string {
  // What JSON.stringify([windowId, e]) gives, with the window id serialized once.
  const head = `[${JSON.stringify(windowId)},`
  let text = ''
  for (const e of texts) text += `${head}${e}]\n`
  return text
}

export interface StoredBlock {
  windowId: string
  firstTimestamp: string
  lastTimestamp: string
  distinctId: string
  /** JSONL lines ["<window id>", <event>]. */
  events: string
  eventCount: number
  size: number
  snapshotSource: string
  snapshotLibrary: string
}

export interface BlockStore {
  /**
   * Stores a batch's blocks; writing the same range again stores nothing more. `replayed`: the range was handed
   * out before (or its partition was just got): a crash may have cut an earlier write of it anywhere.
   */
  write(range: BatchRange, blocks: SnapshotBlock[], replayed?: boolean): Promise<void>
  /** Whether the store answers at all (a write that fails while it does not is no message's fault). */
  ping(): Promise<{ success: boolean; error?: Error }>
}

/**
 * One session's blocks, in one order everywhere: by start, then by where they came from in the log; none
 * once the session is deleted or past its retention (recordings/retention.ts).
 */
const SESSION_BLOCKS = `WHERE team_id = {team:Int64} AND session_id = {session:String} AND ${NOT_DELETED}
  AND (SELECT ${withinRetention('min(first_timestamp)', 'min(retention_days)')} FROM session_recording_blocks
       WHERE team_id = {team:Int64} AND session_id = {session:String})
  ORDER BY first_timestamp, _partition, _offset, window_id`

export class ClickHouseBlockStore implements BlockStore {
  /** `retention`: what each block is stored with, and which sessions readers still see. */
  constructor(
    private readonly client: ClickHouseClient,
    private readonly retention: Retention = LONGEST_RETENTION,
  ) {}

  ping(): Promise<{ success: boolean; error?: Error }> {
    return this.client.ping()
  }

  async write(range: BatchRange, blocks: SnapshotBlock[], replayed = false): Promise<void> {
    const rows = blocks.map((b) => {
      const events = b.lines
      return {
        team_id: b.teamId,
        session_id: b.sessionId,
        window_id: b.windowId,
        first_timestamp: new Date(b.firstTimestamp).toISOString(),
        last_timestamp: new Date(b.lastTimestamp).toISOString(),
        distinct_id: b.distinctId,
        events,
        event_count: b.events.length,
        size: b.bytes,
        message_count: b.messageCount,
        snapshot_source: b.snapshotSource,
        snapshot_library: b.snapshotLibrary,
        retention_days: this.retention.daysOf(b.teamId),
        _partition: range.partition,
        _offset: range.lastOffset,
      }
    })
    const token = `session_recording_blocks:${range.topic}:${range.partition}:${range.firstOffset}-${range.lastOffset}`
    if (!replayed) return insertRows(this.client, 'session_recording_blocks', rows, token)
    // Each block is looked for, not only the part: a crash may have stored some of its chunks and not the rest.
    const held = await queryRows<{ id: string }>(
      this.client,
      `SELECT concat(toString(team_id), '/', session_id, '/', window_id, '/', toString(toUnixTimestamp64Milli(first_timestamp)),
         '/', toString(event_count), '/', toString(size)) AS id
       FROM session_recording_blocks WHERE _partition = {p:UInt32} AND _offset = {o:UInt64}`,
      { p: range.partition, o: range.lastOffset },
      { unbounded: true },
    )
    const idOf = (r: (typeof rows)[number]) =>
      [r.team_id, r.session_id, r.window_id, Date.parse(r.first_timestamp), r.event_count, r.size].join('/')
    await insertMissing(
      this.client,
      'session_recording_blocks',
      rows,
      held.map((h) => h.id),
      idOf,
      token,
    )
  }

  /** A session's blocks' time spans, in the order the snapshots API numbers them (its blob keys). */
  async spans(teamId: number, sessionId: string): Promise<Array<{ firstTimestamp: string; lastTimestamp: string }>> {
    const rows = await queryRows<{ first_timestamp: string; last_timestamp: string }>(
      this.client,
      `SELECT first_timestamp, last_timestamp FROM session_recording_blocks ${SESSION_BLOCKS}`,
      { team: teamId, session: sessionId, ...retentionParams(this.retention, teamId) },
    )
    return rows.map((r) => ({ firstTimestamp: r.first_timestamp, lastTimestamp: r.last_timestamp }))
  }

  /** The JSONL text of a session's blocks `start`..`end` (blob keys, inclusive), concatenated. */
  async lines(teamId: number, sessionId: string, start: number, end: number): Promise<string> {
    const rows = await queryRows<{ events: string }>(
      this.client,
      `SELECT events FROM session_recording_blocks ${SESSION_BLOCKS} LIMIT {count:UInt32} OFFSET {start:UInt32}`,
      { team: teamId, session: sessionId, start, count: end - start + 1, ...retentionParams(this.retention, teamId) },
    )
    return rows.map((r) => r.events).join('')
  }

  /** A session's blocks in time order (the snapshots API's sources, in the order it numbers them). */
  async blocks(teamId: number, sessionId: string): Promise<StoredBlock[]> {
    const rows = await queryRows<{
      window_id: string
      first_timestamp: string
      last_timestamp: string
      distinct_id: string
      events: string
      event_count: number
      size: number
      snapshot_source: string
      snapshot_library: string
    }>(
      this.client,
      `SELECT window_id, first_timestamp, last_timestamp, distinct_id, events, event_count, size, snapshot_source, snapshot_library
       FROM session_recording_blocks ${SESSION_BLOCKS}`,
      { team: teamId, session: sessionId, ...retentionParams(this.retention, teamId) },
    )
    return rows.map((r) => ({
      windowId: r.window_id,
      firstTimestamp: r.first_timestamp,
      lastTimestamp: r.last_timestamp,
      distinctId: r.distinct_id,
      events: r.events,
      eventCount: Number(r.event_count),
      size: Number(r.size),
      snapshotSource: r.snapshot_source,
      snapshotLibrary: r.snapshot_library,
    }))
  }
}
