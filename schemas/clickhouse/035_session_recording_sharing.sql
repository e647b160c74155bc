-- A recording's sharing configuration (recordings/sharing-store.ts): one row per write, the latest version
-- per team and session wins (argMax by version). Read from here on every request that shows a sharing
-- token, never from a copy in memory, so that a disable or a rotation made through any api process holds
-- at once in every other. The token is kept as it is (the sharing routes show it again, as PostHog's do);
-- lookups by token go by its SHA-256.
CREATE TABLE IF NOT EXISTS session_recording_sharing (
    team_id Int64,
    session_id String,
    enabled UInt8,
    access_token String,
    access_token_sha256 String,
    -- JSON object, or '' for none
    settings String DEFAULT '',
    created_at DateTime64(3, 'UTC'),
    version UInt64
) ENGINE = ReplacingMergeTree(version)
ORDER BY (team_id, session_id);
