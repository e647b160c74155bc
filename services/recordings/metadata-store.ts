// Session recording metadata in ClickHouse (session_recording_metadata, schemas/clickhouse/034): the
// recordings processor's metadata hook stores, per log batch, one row per team and session with the
// accumulator's state (metadata.ts) for that session's events in the batch. Readers gather a session's rows:
// what is exact in SQL (start, end, duration, distinct id) filters and sorts there; the rest comes from
// merging the rows' states in TypeScript, in log order.
import type { ClickHouseClient } from '../shared/clickhouse'
import { insertRows, queryRows } from '../shared/clickhouse'
import type { BatchRange, SnapshotBlock } from './blocks'
import { RecordingMetadata, type RecordingMetadataState, type RecordingSummary } from './metadata'
import { NOT_DELETED, VIEWED } from './recording-state'

/** A session's metadata as stored: who, and the merged summary. */
export interface StoredRecording {
  sessionId: string
  distinctId: string
  /** ms since the epoch of the latest event (for `ongoing`). */
  endTimestamp: number
  summary: RecordingSummary
  /** PATCH {viewed: true} was sent (recording-state.ts). */
  viewed: boolean
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
}

/** Per team and session: the metadata of one batch's blocks (in the order the batch sent them). */
export function metadataOf(
  blocks: SnapshotBlock[],
): Array<{ teamId: number; sessionId: string; distinctId: string; metadata: RecordingMetadata }> {
  const sessions = new Map<
    string,
    { teamId: number; sessionId: string; distinctId: string; metadata: RecordingMetadata; messages: number }
  >()
  for (const block of blocks) {
    const key = `${block.teamId}\u0000${block.sessionId}`
    let session = sessions.get(key)
    if (!session) {
      session = {
        teamId: block.teamId,
        sessionId: block.sessionId,
        distinctId: block.distinctId,
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
    })
    session.messages += block.messageCount
  }
  return [...sessions.values()].map(({ messages, metadata, ...rest }) => {
    // A block gathers several `$snapshot` messages: count the messages, not the blocks.
    const state = metadata.toState()
    return { ...rest, metadata: RecordingMetadata.fromState({ ...state, messageCount: state.eventCount === 0 ? 0 : messages }) }
  })
}

const timestamp = (ms: number | null): string => new Date(ms ?? 0).toISOString()

export class ClickHouseMetadataStore {
  constructor(private readonly client: ClickHouseClient) {}

  /** The processor's metadata hook: one row per team and session of the batch, once per range. */
  async write(range: BatchRange, blocks: SnapshotBlock[]): Promise<void> {
    const rows = metadataOf(blocks)
      .map(({ teamId, sessionId, distinctId, metadata }) => ({ teamId, sessionId, distinctId, state: metadata.toState() }))
      .filter((s) => s.state.eventCount > 0)
      .map(({ teamId, sessionId, distinctId, state }) => ({
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
        _partition: range.partition,
        _offset: range.lastOffset,
      }))
    const token = `session_recording_metadata:${range.topic}:${range.partition}:${range.firstOffset}-${range.lastOffset}`
    await insertRows(this.client, 'session_recording_metadata', rows, token)
  }

  /** A project's recordings, newest first by start, with `limit + 1` rows at most (the caller tells has_next). */
  async list(teamId: number, query: RecordingQuery): Promise<StoredRecording[]> {
    const where = ['team_id = {team:Int64}', NOT_DELETED]
    const having: string[] = []
    const params: Record<string, unknown> = { team: teamId, limit: query.limit + 1, offset: query.offset }
    if (query.sessionIds) {
      where.push('session_id IN {sessions:Array(String)}')
      params.sessions = query.sessionIds
    }
    if (query.distinctIds) {
      having.push('distinct_id IN {distinctIds:Array(String)}')
      params.distinctIds = query.distinctIds
    }
    if (query.dateFrom !== undefined) {
      having.push('first_ts >= parseDateTime64BestEffort({dateFrom:String}, 3)')
      params.dateFrom = query.dateFrom
    }
    if (query.dateTo !== undefined) {
      having.push('first_ts <= parseDateTime64BestEffort({dateTo:String}, 3)')
      params.dateTo = query.dateTo
    }
    if (query.minDuration !== undefined) {
      having.push(`dateDiff('second', first_ts, last_ts) >= {minDuration:Float64}`)
      params.minDuration = query.minDuration
    }
    const rows = await queryRows<{ session_id: string; distinct_id: string; end_ms: string | number; states: string[]; viewed: number }>(
      this.client,
      `SELECT session_id,
              argMin(distinct_id, (start_time, _partition, _offset)) AS distinct_id,
              min(start_time) AS first_ts,
              max(end_time) AS last_ts,
              toUnixTimestamp64Milli(last_ts) AS end_ms,
              arrayMap(x -> x.4, arraySort(groupArray((start_time, _partition, _offset, state)))) AS states,
              ${VIEWED} AS viewed
       FROM session_recording_metadata
       WHERE ${where.join(' AND ')}
       GROUP BY session_id
       ${having.length ? `HAVING ${having.join(' AND ')}` : ''}
       ORDER BY first_ts DESC, session_id
       LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
      params,
    )
    return rows.map((r) => {
      const metadata = RecordingMetadata.empty()
      for (const state of r.states) metadata.merge(RecordingMetadata.fromState(JSON.parse(state) as RecordingMetadataState))
      return {
        sessionId: r.session_id,
        distinctId: r.distinct_id,
        endTimestamp: Number(r.end_ms),
        summary: metadata.summary(),
        viewed: Number(r.viewed) === 1,
      }
    })
  }

  /** One recording, or null when the project has none with that session id. */
  async get(teamId: number, sessionId: string): Promise<StoredRecording | null> {
    const [recording] = await this.list(teamId, { limit: 1, offset: 0, sessionIds: [sessionId] })
    return recording ?? null
  }
}
