// Session recording metadata in ClickHouse: the recordings processor's metadata hook stores, per log batch,
// one row per team and session with the accumulator's state (metadata.ts) for that session's events in the
// batch (session_recording_metadata, schemas/clickhouse/034 and 037), the same session's columns the list
// filters and sorts on in session_recording_sessions (048: pre-aggregated, one row per session once
// merged), and the session's distinct console lines in log_entries (038) when the project captures console
// logs. The list filters, sorts and pages sessions in SQL over session_recording_sessions FINAL (SESSION_SQL),
// and only the page's sessions have their states merged in TypeScript, in log order.
import type { ClickHouseClient } from '../platform/clickhouse'
import { insertRows, queryRows, replayTokens } from '../platform/clickhouse'
import type { BatchRange, SnapshotBlock } from './blocks'
import { RecordingMetadata, type RecordingMetadataState, type RecordingSummary } from './metadata'
import { activeMilliseconds } from './segmentation'
import { LONGEST_RETENTION, retentionParams, withinRetention, type Retention } from './retention'
import { NOT_DELETED, VIEWED } from './recording-state'
import { SESSION_JOIN_SETTINGS } from '../analytics/sql/sessions'

/** A session of the list's page, before its summary is read: who, when received, whether viewed. */
export interface RecordingPageRow {
  sessionId: string
  distinctId: string
  /** ms since the epoch: when capture received the session's latest snapshots (for `ongoing`). */
  receivedAt: number
  /** PATCH {viewed: true} was sent (recording-state.ts). */
  viewed: boolean
}

/** A session's metadata as stored: who, and the merged summary. */
export interface StoredRecording extends RecordingPageRow {
  summary: RecordingSummary
}

export interface RecordingQuery {
  limit: number
  offset: number
  dateFrom?: string
  dateTo?: string
  distinctIds?: string[]
  /** Seconds. */
  minDuration?: number
  sessionIds?: string[]
  /** More conditions on each session (over SESSION_SQL's expressions and `session_id`), with their parameters. */
  conditions?: string[]
  params?: Record<string, unknown>
  /** A SESSION_SQL key; newest first (start_time DESC) when absent. */
  orderBy?: { key: SessionColumn; direction: 'ASC' | 'DESC' }
  /** Some condition joins events to their sessions' properties (analytics/sql/sessions.ts: it needs SESSION_JOIN_SETTINGS). */
  joinsSessions?: boolean
  /** The caller's (platform/http/caller-gone.ts): the page's query stops once it aborts. */
  signal?: AbortSignal
}

/**
 * A session's metadata as SQL over its row of session_recording_sessions read with FINAL: what filters and
 * orders the list. Counts and active time are sums over the session's batches, as PostHog sums them over its
 * blocks.
 */
const DURATION = "dateDiff('second', start_time, end_time)"
export const SESSION_SQL = {
  start_time: 'start_time',
  end_time: 'end_time',
  duration: DURATION,
  active_seconds: 'active_milliseconds / 1000',
  inactive_seconds: `greatest(0, ${DURATION} - active_milliseconds / 1000)`,
  click_count: 'click_count',
  keypress_count: 'keypress_count',
  mouse_activity_count: 'mouse_activity_count',
  console_log_count: 'console_log_count',
  console_warn_count: 'console_warn_count',
  console_error_count: 'console_error_count',
  activity_score: `ifNull(round((active_milliseconds / 1000 + click_count + keypress_count + console_error_count)
    / nullIf(mouse_activity_count + ${DURATION} + console_error_count
      + console_log_count + console_warn_count, 0) * 100, 2), 0)`,
  snapshot_source: "if(tupleElement(first, 5) = '', 'web', tupleElement(first, 5))",
  /** Every url any of the session's batches visited. */
  urls: 'urls',
  /** Every distinct id the session was sent with. */
  distinct_ids: 'distinct_ids',
  /** When capture received the session's latest snapshots (PostHog's max(_timestamp)). */
  received_at: 'received_at',
  /** The distinct id the recording shows: its first batch's. */
  distinct_id: 'tupleElement(first, 4)',
} as const
export type SessionColumn = keyof typeof SESSION_SQL

/** Per team and session: the metadata of one batch's blocks (in the order the batch sent them). */
export function metadataOf(
  blocks: SnapshotBlock[],
): Array<{ teamId: number; sessionId: string; distinctId: string; receivedAt: number; state: RecordingMetadataState }> {
  const sessions = new Map<
    string,
    { teamId: number; sessionId: string; distinctId: string; receivedAt: number; metadata: RecordingMetadata; messages: number }
  >()
  for (const block of blocks) {
    const key = `${block.teamId}\u0000${block.sessionId}`
    let session = sessions.get(key)
    if (!session) {
      session = {
        teamId: block.teamId,
        sessionId: block.sessionId,
        distinctId: block.distinctId,
        receivedAt: 0,
        metadata: RecordingMetadata.empty(),
        messages: 0,
      }
      sessions.set(key, session)
    }
    session.metadata.add({
      windowId: block.windowId,
      events: block.events,
      snapshotSource: block.snapshotSource,
      snapshotLibrary: block.snapshotLibrary,
      bytes: block.bytes,
    })
    session.messages += block.messageCount
    session.receivedAt = Math.max(session.receivedAt, block.receivedAt)
  }
  return [...sessions.values()].map(({ messages, metadata, ...rest }) => {
    const state = metadata.toState()
    // A block gathers several `$snapshot` messages: count the messages, not the blocks.
    state.messageCount = state.eventCount === 0 ? 0 : messages
    return { ...rest, state }
  })
}

const timestamp = (ms: number | null): string => new Date(ms ?? 0).toISOString()

/**
 * The state without its console lines: PostHog counts and keeps console logs only for a project that captures
 * them (the remote config then tells posthog-js to send them; reference §4.3).
 */
function withoutConsole(state: RecordingMetadataState): RecordingMetadataState {
  return { ...state, consoleLogCount: 0, consoleWarnCount: 0, consoleErrorCount: 0, consoleEntries: [] }
}

/** PostHog's log_entries source for session recordings' console lines. */
const LOG_SOURCE = 'session_replay'

export class ClickHouseMetadataStore {
  /**
   * `capturesConsoleLogs`: whether a project takes console logs (asked when its batch is written);
   * `retention`: what each row is stored with, and which recordings readers still see (recordings/retention.ts).
   */
  constructor(
    private readonly client: ClickHouseClient,
    private readonly capturesConsoleLogs: (teamId: number) => boolean = () => true,
    private readonly retention: Retention = LONGEST_RETENTION,
  ) {}

  /** Computes and stores one range's metadata (prepare, then its write; `replayed`: the range was handed out before). */
  async write(range: BatchRange, blocks: SnapshotBlock[], replayed = false): Promise<void> {
    await this.prepare(range, blocks)(replayed)
  }

  /**
   * The processor's metadata hook (recordings/processor.ts BlockListener): computes, now, one row per team and
   * session of the range and their console lines; the returned write stores them once per range.
   */
  prepare(range: BatchRange, blocks: SnapshotBlock[]): (replayed: boolean) => Promise<void> {
    const sessions = metadataOf(blocks)
      .map((session) => (this.capturesConsoleLogs(session.teamId) ? session : { ...session, state: withoutConsole(session.state) }))
      .filter((s) => s.state.eventCount > 0)
    const rows = sessions.map(({ teamId, sessionId, distinctId, receivedAt, state }) => ({
      team_id: teamId,
      session_id: sessionId,
      distinct_id: distinctId,
      start_time: timestamp(state.firstTimestamp),
      end_time: timestamp(state.lastTimestamp),
      click_count: state.clickCount,
      keypress_count: state.keypressCount,
      mouse_activity_count: state.mouseActivityCount,
      console_log_count: state.consoleLogCount,
      console_warn_count: state.consoleWarnCount,
      console_error_count: state.consoleErrorCount,
      event_count: state.eventCount,
      size: state.size,
      state: JSON.stringify(state),
      active_milliseconds: activeMilliseconds(state.activity),
      urls: state.urls,
      snapshot_source: state.snapshotSource ?? 'web',
      received_at: timestamp(receivedAt),
      retention_days: this.retention.daysOf(teamId),
      _partition: range.partition,
      _offset: range.lastOffset,
    }))
    // The same session's columns, to be summed up with its other batches' (048).
    // Its columns are the metadata row's but the state (and the first batch's fields, gathered in `first`).
    const aggregated = rows.map(({ distinct_id, snapshot_source, _partition, _offset, state: _, ...same }) => ({
      ...same,
      distinct_ids: [distinct_id],
      first: [same.start_time, _partition, _offset, distinct_id, snapshot_source],
      origins: [[_partition, _offset]],
    }))
    const batch = `${range.topic}:${range.partition}:${range.firstOffset}-${range.lastOffset}`
    // The accumulator keeps each level and message once (its first line), up to MAX_CONSOLE_ENTRIES a session.
    const lines = sessions.flatMap(({ teamId, sessionId, state }) =>
      state.consoleEntries.map((entry) => ({
        team_id: teamId,
        log_source: LOG_SOURCE,
        log_source_id: sessionId,
        timestamp: timestamp(entry.timestamp),
        level: entry.level,
        message: entry.message,
        retention_days: this.retention.daysOf(teamId),
        _partition: range.partition,
        _offset: range.lastOffset,
      })),
    )
    const tables = [
      { table: 'session_recording_metadata', rows },
      // A session's rows merge across parts: its `origins` tell which parts it holds.
      {
        table: 'session_recording_sessions',
        rows: aggregated,
        holds: 'session_id IN {sessions:Array(String)} AND has(origins, ({p:UInt32}, {o:UInt64}))',
        params: { sessions: aggregated.map((r) => r.session_id) },
      },
      { table: 'log_entries', rows: lines },
    ]
    const usual = (table: string) => `${table}:${batch}`
    // The three inserts are independent (each under its own token): they run together, and the write fails
    // (to be retried whole) if any of them does. A replayed range looks for its rows first (replayTokens).
    return async (replayed) => {
      const origin = { partition: range.partition, offset: range.lastOffset }
      const counted = tables.map((t) => ({ ...t, rows: t.rows.length }))
      const tokenOf = replayed ? await replayTokens(this.client, origin, counted, usual) : usual
      const written = await Promise.allSettled(
        tables.map(({ table, rows }) => {
          const token = tokenOf(table)
          return token === null ? undefined : insertRows(this.client, table, rows, token)
        }),
      )
      for (const result of written) if (result.status === 'rejected') throw result.reason
    }
  }

  /**
   * A project's recordings in the query's order (newest first by start), with `limit + 1` at most (the caller
   * tells has_next). Sessions are filtered, sorted and paged in SQL (page); only the page's states are read (summarize).
   */
  async list(teamId: number, query: RecordingQuery): Promise<StoredRecording[]> {
    return this.summarize(teamId, await this.page(teamId, query))
  }

  /** The query's page of sessions, without their summaries (summarize reads those): `limit + 1` at most. */
  async page(teamId: number, query: RecordingQuery): Promise<RecordingPageRow[]> {
    // Recordings past their retention are gone for readers, before ClickHouse's TTL drops their rows.
    const where = [
      'team_id = {team:Int64}',
      NOT_DELETED,
      withinRetention(SESSION_SQL.start_time, 'retention_days'),
      ...(query.conditions ?? []),
    ]
    const params: Record<string, unknown> = {
      ...query.params,
      team: teamId,
      limit: query.limit + 1,
      offset: query.offset,
      ...retentionParams(this.retention, teamId),
    }
    if (query.sessionIds) {
      where.push('session_id IN {sessions:Array(String)}')
      params.sessions = query.sessionIds
    }
    if (query.distinctIds) {
      where.push(`${SESSION_SQL.distinct_id} IN {distinctIds:Array(String)}`)
      params.distinctIds = query.distinctIds
    }
    if (query.dateFrom !== undefined) {
      where.push(`${SESSION_SQL.start_time} >= parseDateTime64BestEffort({dateFrom:String}, 3)`)
      params.dateFrom = query.dateFrom
    }
    if (query.dateTo !== undefined) {
      where.push(`${SESSION_SQL.start_time} <= parseDateTime64BestEffort({dateTo:String}, 3)`)
      params.dateTo = query.dateTo
    }
    if (query.minDuration !== undefined) {
      where.push(`${SESSION_SQL.duration} >= {minDuration:Float64}`)
      params.minDuration = query.minDuration
    }
    const order = query.orderBy ?? { key: 'start_time', direction: 'DESC' }
    const page = await queryRows<{ session_id: string; recording_distinct_id: string; received_ms: string | number; viewed: number }>(
      this.client,
      `SELECT session_id, ${SESSION_SQL.distinct_id} AS recording_distinct_id, toUnixTimestamp64Milli(${SESSION_SQL.received_at}) AS received_ms, ${VIEWED} AS viewed
       FROM session_recording_sessions FINAL
       WHERE ${where.join(' AND ')}
       ORDER BY ${SESSION_SQL[order.key]} ${order.direction}, session_id ${order.direction}
       LIMIT {limit:UInt32} OFFSET {offset:UInt32}${query.joinsSessions ? ` SETTINGS ${SESSION_JOIN_SETTINGS}` : ''}`,
      params,
      { signal: query.signal },
    )
    return page.map((r) => ({
      sessionId: r.session_id,
      distinctId: r.recording_distinct_id,
      receivedAt: Number(r.received_ms),
      viewed: Number(r.viewed) === 1,
    }))
  }

  /** The sessions with their summaries: their states merged in log order (one query for all of them). */
  async summarize(teamId: number, page: RecordingPageRow[]): Promise<StoredRecording[]> {
    if (page.length === 0) return []
    const states = await queryRows<{ session_id: string; states: string[] }>(
      this.client,
      `SELECT session_id, arrayMap(x -> x.4, arraySort(groupArray((start_time, _partition, _offset, state)))) AS states
       FROM session_recording_metadata
       WHERE team_id = {team:Int64} AND session_id IN {sessions:Array(String)}
       GROUP BY session_id`,
      { team: teamId, sessions: page.map((r) => r.sessionId) },
    )
    const bySession = new Map(states.map((r) => [r.session_id, r.states] as const))
    return page.map((r) => {
      const metadata = RecordingMetadata.empty()
      for (const state of bySession.get(r.sessionId) ?? [])
        metadata.merge(RecordingMetadata.fromState(JSON.parse(state) as RecordingMetadataState))
      return { ...r, summary: metadata.summary() }
    })
  }

  /** One recording, or null when the project has none with that session id (or `only`'s conditions leave it out). */
  async get(teamId: number, sessionId: string, only: Pick<RecordingQuery, 'conditions' | 'params'> = {}): Promise<StoredRecording | null> {
    const [recording] = await this.list(teamId, { ...only, limit: 1, offset: 0, sessionIds: [sessionId] })
    return recording ?? null
  }

  /** Whether the project has that recording (and `only`'s conditions keep it): get without reading its states. */
  async has(teamId: number, sessionId: string, only: Pick<RecordingQuery, 'conditions' | 'params'> = {}): Promise<boolean> {
    return (await this.page(teamId, { ...only, limit: 1, offset: 0, sessionIds: [sessionId] })).length > 0
  }
}
