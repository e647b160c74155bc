// What users did to a recording (schemas/clickhouse/036): viewed marks (PATCH {viewed: true}) and
// deletions (DELETE). A deletion removes the session's blocks and metadata rows and leaves a tombstone;
// the readers of blocks and metadata (blocks.ts, metadata-store.ts) leave tombstoned sessions out, so
// blocks of the session that reach ClickHouse later (the log replayed after a crash, a late /s/ request)
// never bring a deleted recording back.
import type { ClickHouseClient } from '../platform/clickhouse'
import { insertRows, queryRows } from '../platform/clickhouse'
import type { Clock } from '../platform/clock'
import { deleteFrom } from '../platform/clickhouse/cluster'

/** SQL condition for a query over one team's rows (`{team:Int64}`): the session has not been deleted. */
export const NOT_DELETED = 'session_id NOT IN (SELECT session_id FROM session_recording_deletions WHERE team_id = {team:Int64})'

/** SQL expression, for a query over one team's rows (`{team:Int64}`): the session has been marked viewed. */
export const VIEWED = 'session_id IN (SELECT session_id FROM session_recording_viewed WHERE team_id = {team:Int64})'

export class RecordingStateStore {
  constructor(
    private readonly client: ClickHouseClient,
    private readonly clock: Clock,
    /** CLICKHOUSE_CLUSTER: blocks are sharded there, and deleted from every shard. */
    private readonly cluster: string | null = null,
  ) {}

  /** Marks a recording viewed. Wren has no users: the mark is the project's, not a person's. */
  async markViewed(teamId: number, sessionId: string): Promise<void> {
    await insertRows(this.client, 'session_recording_viewed', [
      { team_id: teamId, session_id: sessionId, viewed_at: this.clock.now().toISOString() },
    ])
  }

  /** Tombstones a recording, then deletes its blocks and metadata rows (the tombstone first: a block stored in between stays hidden). */
  async delete(teamId: number, sessionId: string): Promise<void> {
    await insertRows(this.client, 'session_recording_deletions', [
      { team_id: teamId, session_id: sessionId, deleted_at: this.clock.now().toISOString() },
    ])
    for (const table of ['session_recording_blocks', 'session_recording_metadata', 'session_recording_sessions'])
      await this.client.command({
        query: `${deleteFrom(table, this.cluster)} WHERE team_id = {team:Int64} AND session_id = {session:String}`,
        query_params: { team: teamId, session: sessionId },
      })
  }

  async isDeleted(teamId: number, sessionId: string): Promise<boolean> {
    const rows = await queryRows<{ n: number }>(
      this.client,
      'SELECT count() AS n FROM session_recording_deletions WHERE team_id = {team:Int64} AND session_id = {session:String}',
      { team: teamId, session: sessionId },
    )
    return Number(rows[0]?.n ?? 0) > 0
  }
}
