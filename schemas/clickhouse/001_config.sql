-- Small configuration tables. Each row is a full version; readers take the latest (argMax by version).
CREATE TABLE IF NOT EXISTS projects (
    id UInt64,
    name String,
    api_token String,
    timezone String DEFAULT 'UTC',
    settings String DEFAULT '{}',
    created_at DateTime64(3, 'UTC'),
    is_deleted UInt8 DEFAULT 0,
    version UInt64
) ENGINE = ReplacingMergeTree(version) ORDER BY id;

CREATE TABLE IF NOT EXISTS personal_api_keys (
    id String,
    label String,
    -- sha256 of the key; the key itself is shown once and never stored
    secure_value String,
    mask_value String,
    scopes Array(String),
    -- empty: every project
    scoped_teams Array(UInt64),
    created_at DateTime64(3, 'UTC'),
    is_deleted UInt8 DEFAULT 0,
    version UInt64
) ENGINE = ReplacingMergeTree(version) ORDER BY id;
