-- Annotations (annotations/store.ts): a note at a moment, shown on charts. Each row is a full version; readers take
-- the latest per id (argMax by version). `dashboard_item` is the insight a dashboard_item-scoped one belongs to (0:
-- none); `created_by` the user's uuid ('' for one made with a key that has no user).
CREATE TABLE IF NOT EXISTS annotations (
    team_id Int64,
    id UInt64,
    content String,
    date_marker DateTime64(3, 'UTC'),
    scope LowCardinality(String),
    dashboard_item UInt64 DEFAULT 0,
    creation_type LowCardinality(String) DEFAULT 'USR',
    created_by String DEFAULT '',
    created_at DateTime64(3, 'UTC'),
    updated_at DateTime64(3, 'UTC'),
    deleted UInt8,
    version UInt64
) ENGINE = ReplacingMergeTree(version) ORDER BY (team_id, id);
