-- The recordings list's sessions, pre-aggregated (recordings/metadata-store.ts): one row per team and session
-- once merged, whose columns are the session's metadata as the list filters and sorts on it (earliest start,
-- latest end, summed counts and active time, every url and distinct id, the first batch's distinct id and
-- source). The metadata hook writes one row per session of each log batch, beside its
-- session_recording_metadata row and under a deduplication token named after the batch as that row is, so a
-- replayed batch adds nothing. Readers read it with FINAL (the rows of a session not merged yet are merged
-- at read time), so the list no longer groups every piece of every session. The states the page shows are
-- still merged from session_recording_metadata, for the page's sessions only.
CREATE TABLE IF NOT EXISTS session_recording_sessions (
    team_id Int64,
    session_id String,
    start_time SimpleAggregateFunction(min, DateTime64(3, 'UTC')),
    end_time SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
    click_count SimpleAggregateFunction(sum, UInt64),
    keypress_count SimpleAggregateFunction(sum, UInt64),
    mouse_activity_count SimpleAggregateFunction(sum, UInt64),
    console_log_count SimpleAggregateFunction(sum, UInt64),
    console_warn_count SimpleAggregateFunction(sum, UInt64),
    console_error_count SimpleAggregateFunction(sum, UInt64),
    event_count SimpleAggregateFunction(sum, UInt64),
    size SimpleAggregateFunction(sum, UInt64),
    active_milliseconds SimpleAggregateFunction(sum, UInt64),
    urls SimpleAggregateFunction(groupUniqArrayArray, Array(String)),
    distinct_ids SimpleAggregateFunction(groupUniqArrayArray, Array(String)),
    -- The first batch's (start_time, _partition, _offset, distinct_id, snapshot_source): the earliest wins.
    first SimpleAggregateFunction(min, Tuple(DateTime64(3, 'UTC'), UInt32, UInt64, String, String)),
    received_at SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
    retention_days SimpleAggregateFunction(min, UInt16)
) ENGINE = AggregatingMergeTree
ORDER BY (team_id, session_id)
TTL toDateTime(start_time) + toIntervalDay(retention_days + 1)
SETTINGS non_replicated_deduplication_window = 10000;

-- The sessions stored before this migration, once: read in order on one thread, so the blocks are the same
-- each time, under a token of their own; a second process running the same migration at the same time (a
-- cluster's nodes starting together) adds nothing. Blocks of 65,536 rows keep a large backfill's memory flat.
-- The columns are named: a later migration adds more (056), and every migration may run again over itself.
INSERT INTO session_recording_sessions (team_id, session_id, start_time, end_time, click_count, keypress_count, mouse_activity_count,
       console_log_count, console_warn_count, console_error_count, event_count, size, active_milliseconds, urls, distinct_ids,
       first, received_at, retention_days)
SETTINGS insert_deduplication_token = '048_session_recording_sessions', max_threads = 1, max_insert_threads = 1, max_block_size = 65536, max_insert_block_size = 65536, min_insert_block_size_rows = 0, min_insert_block_size_bytes = 0
SELECT team_id, session_id, start_time, end_time, click_count, keypress_count, mouse_activity_count, console_log_count,
       console_warn_count, console_error_count, event_count, size, active_milliseconds, urls, [distinct_id],
       (start_time, _partition, _offset, distinct_id, toString(snapshot_source)), received_at, retention_days
FROM session_recording_metadata
ORDER BY team_id, session_id, start_time, _partition, _offset;
