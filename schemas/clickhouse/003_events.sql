-- Events with persons-on-events: the person's id and properties as they were at ingestion time.
-- Exactly-once comes from insert deduplication tokens per log batch; ReplacingMergeTree also folds
-- SDK retries that resend the same uuid.
CREATE TABLE IF NOT EXISTS events (
    uuid UUID,
    event String,
    properties String CODEC(ZSTD(3)),
    timestamp DateTime64(6, 'UTC'),
    team_id Int64,
    distinct_id String,
    elements_chain String,
    created_at DateTime64(6, 'UTC'),
    person_id UUID,
    person_created_at DateTime64(6, 'UTC'),
    person_properties String CODEC(ZSTD(3)),
    person_mode Enum8('full' = 0, 'propertyless' = 1, 'force_upgrade' = 2),
    group0_properties String CODEC(ZSTD(3)),
    group1_properties String CODEC(ZSTD(3)),
    group2_properties String CODEC(ZSTD(3)),
    group3_properties String CODEC(ZSTD(3)),
    group4_properties String CODEC(ZSTD(3)),
    `$group_0` String MATERIALIZED JSONExtractString(properties, '$group_0'),
    `$group_1` String MATERIALIZED JSONExtractString(properties, '$group_1'),
    `$group_2` String MATERIALIZED JSONExtractString(properties, '$group_2'),
    `$group_3` String MATERIALIZED JSONExtractString(properties, '$group_3'),
    `$group_4` String MATERIALIZED JSONExtractString(properties, '$group_4'),
    `$session_id` String MATERIALIZED JSONExtractString(properties, '$session_id'),
    `$window_id` String MATERIALIZED JSONExtractString(properties, '$window_id'),
    _partition UInt32,
    _offset UInt64
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(timestamp)
ORDER BY (team_id, toDate(timestamp), event, cityHash64(distinct_id), cityHash64(uuid))
SETTINGS non_replicated_deduplication_window = 10000;
