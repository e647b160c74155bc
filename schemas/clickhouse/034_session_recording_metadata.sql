-- Session recording metadata (recordings/metadata-store.ts): per log batch, one row per team and session
-- holding the metadata accumulator's state (recordings/metadata.ts) for that session's events in the batch,
-- with the columns the list filters and sorts on. Readers merge a session's rows: exact columns in SQL
-- (min start, max end, sums), the rest by merging the states in TypeScript.
-- Exactly-once from insert deduplication tokens named after the log batch, as the blocks are.
CREATE TABLE IF NOT EXISTS session_recording_metadata (
    team_id Int64,
    session_id String,
    distinct_id String,
    start_time DateTime64(3, 'UTC'),
    end_time DateTime64(3, 'UTC'),
    click_count UInt64,
    keypress_count UInt64,
    mouse_activity_count UInt64,
    console_log_count UInt64,
    console_warn_count UInt64,
    console_error_count UInt64,
    event_count UInt64,
    size UInt64,
    state String CODEC(ZSTD(3)),
    _partition UInt32,
    _offset UInt64
) ENGINE = MergeTree
PARTITION BY toYYYYMM(start_time)
ORDER BY (team_id, session_id, start_time, _partition, _offset)
SETTINGS non_replicated_deduplication_window = 10000;
