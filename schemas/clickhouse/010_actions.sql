-- Actions: named sets of steps that match events (any step matches). Each row is a full version;
-- readers take the latest per id (argMax by version).
CREATE TABLE IF NOT EXISTS actions (
    team_id Int64,
    id UInt64,
    name String,
    description String,
    steps String,
    tags Array(String),
    created_at DateTime64(3, 'UTC'),
    updated_at DateTime64(3, 'UTC'),
    deleted UInt8,
    version UInt64
) ENGINE = ReplacingMergeTree(version) ORDER BY (team_id, id);
