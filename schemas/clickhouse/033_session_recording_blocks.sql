-- Session recording snapshot blocks (recordings/processor.ts): per log batch, one row per team, session and
-- window holding that window's rrweb events from the batch, as JSONL lines ["<window id>", <event>] (the
-- snapshots API's format, so blocks are served as stored). Read in (team, session, window, time) order.
-- Exactly-once from insert deduplication tokens named after the log batch.
CREATE TABLE IF NOT EXISTS session_recording_blocks (
    team_id Int64,
    session_id String,
    window_id String,
    first_timestamp DateTime64(3, 'UTC'),
    last_timestamp DateTime64(3, 'UTC'),
    distinct_id String,
    events String CODEC(ZSTD(3)),
    event_count UInt32,
    size UInt64,
    message_count UInt32,
    snapshot_source LowCardinality(String),
    snapshot_library LowCardinality(String),
    _partition UInt32,
    _offset UInt64
) ENGINE = MergeTree
PARTITION BY toYYYYMM(first_timestamp)
ORDER BY (team_id, session_id, window_id, first_timestamp, _partition, _offset)
SETTINGS non_replicated_deduplication_window = 10000;
