-- Durable queue of deferred deletions (a person's events), run in a weekly batch.
CREATE TABLE IF NOT EXISTS deletion_tasks (
    id UUID,
    team_id Int64,
    kind LowCardinality(String),
    key String,
    -- the person's distinct ids when the task was queued: its events may carry older person ids
    distinct_ids Array(String),
    created_at DateTime64(3, 'UTC'),
    status Enum8('queued' = 0, 'done' = 1),
    finished_at Nullable(DateTime64(3, 'UTC')),
    version UInt64
) ENGINE = ReplacingMergeTree(version) ORDER BY (team_id, id);
