-- Saved insights and dashboards (services/insights/). Each row is a full version; readers take the latest
-- per id (argMax by version). Filters, queries and tiles are JSON: they are read whole, never queried into.
CREATE TABLE IF NOT EXISTS insights (
    team_id Int64,
    id UInt64,
    short_id String,
    name String,
    description String,
    query String,
    filters String,
    saved UInt8,
    favorited UInt8,
    tags Array(String),
    created_at DateTime64(3, 'UTC'),
    last_modified_at DateTime64(3, 'UTC'),
    deleted UInt8,
    version UInt64
) ENGINE = ReplacingMergeTree(version) ORDER BY (team_id, id);

CREATE TABLE IF NOT EXISTS dashboards (
    team_id Int64,
    id UInt64,
    name String,
    description String,
    pinned UInt8,
    filters String,
    tiles String,
    tags Array(String),
    created_at DateTime64(3, 'UTC'),
    last_modified_at DateTime64(3, 'UTC'),
    deleted UInt8,
    version UInt64
) ENGINE = ReplacingMergeTree(version) ORDER BY (team_id, id);
