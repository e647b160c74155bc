-- Searchable console log lines of session recordings (PostHog's log_entries with log_source
-- 'session_replay'): written by the recordings processor's metadata hook (recordings/metadata-store.ts),
-- per log batch the distinct (level, message) lines of each session, for projects that capture console
-- logs. The list's `console_log_filters` search them. Exactly-once from insert deduplication tokens named
-- after the log batch, as the metadata is.
CREATE TABLE IF NOT EXISTS log_entries (
    team_id Int64,
    log_source LowCardinality(String),
    log_source_id String,
    timestamp DateTime64(3, 'UTC'),
    level LowCardinality(String),
    message String CODEC(ZSTD(3)),
    _partition UInt32,
    _offset UInt64
) ENGINE = MergeTree
PARTITION BY toYYYYMM(timestamp)
ORDER BY (team_id, log_source, log_source_id, timestamp)
SETTINGS non_replicated_deduplication_window = 10000;
