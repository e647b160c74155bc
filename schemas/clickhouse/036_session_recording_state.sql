-- What users did to a recording (recordings/recording-state.ts), per team and session.
-- Viewed: PATCH {viewed: true}. Wren has no users, so a recording is viewed or not for the whole project.
CREATE TABLE IF NOT EXISTS session_recording_viewed (
    team_id Int64,
    session_id String,
    viewed_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree
ORDER BY (team_id, session_id);

-- Deleted: DELETE removes the session's blocks and metadata rows and leaves this tombstone, which every
-- reader of blocks and metadata respects, so blocks of the session that reach ClickHouse later (a replay
-- of the log after a crash, a late /s/ request) do not bring the recording back.
CREATE TABLE IF NOT EXISTS session_recording_deletions (
    team_id Int64,
    session_id String,
    deleted_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree
ORDER BY (team_id, session_id);
