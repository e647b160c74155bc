-- Person state, written only by the ingestion processor. _partition/_offset name the log batch that
-- produced a row, so a replay after a crash can rebuild the state from before that batch. They are part
-- of the sorting key of every versioned table: a ReplacingMergeTree folds rows of one key into the
-- latest version at any time, and a replayed batch needs the version from before it, not only the one
-- the batch itself wrote before the crash. So merges fold only a range's rewrites; readers take
-- argMax(..., version) over the versions kept. Versions of committed batches, which no replay needs but
-- the latest, are folded by the ingest role's person compaction (services/ingestion/persons/compaction.ts)
-- into one row per key at _partition 4294967295, _offset 0.
CREATE TABLE IF NOT EXISTS person (
    team_id Int64,
    uuid UUID,
    id Int64,
    properties String CODEC(ZSTD(3)),
    is_identified UInt8,
    is_deleted UInt8,
    version UInt64,
    created_at DateTime64(6, 'UTC'),
    _partition UInt32,
    _offset UInt64
) ENGINE = ReplacingMergeTree(version) ORDER BY (team_id, uuid, _partition, _offset)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE TABLE IF NOT EXISTS person_distinct_id (
    team_id Int64,
    distinct_id String,
    person_uuid UUID,
    is_deleted UInt8,
    version Int64,
    _partition UInt32,
    _offset UInt64
) ENGINE = ReplacingMergeTree(version) ORDER BY (team_id, distinct_id, _partition, _offset)
SETTINGS non_replicated_deduplication_window = 10000, index_granularity = 512;

CREATE TABLE IF NOT EXISTS person_activity (
    team_id Int64,
    person_uuid UUID,
    activity LowCardinality(String),
    detail String,
    at DateTime64(6, 'UTC'),
    _partition UInt32,
    _offset UInt64
) ENGINE = MergeTree ORDER BY (team_id, person_uuid, at)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE TABLE IF NOT EXISTS groups (
    team_id Int64,
    group_type_index UInt8,
    group_key String,
    properties String,
    created_at DateTime64(6, 'UTC'),
    version UInt64,
    _partition UInt32,
    _offset UInt64
) ENGINE = ReplacingMergeTree(version) ORDER BY (team_id, group_type_index, group_key, _partition, _offset)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE TABLE IF NOT EXISTS group_type_mapping (
    team_id Int64,
    group_type String,
    group_type_index UInt8,
    _partition UInt32,
    _offset UInt64
) ENGINE = ReplacingMergeTree ORDER BY (team_id, group_type_index)
SETTINGS non_replicated_deduplication_window = 10000;
