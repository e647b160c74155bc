-- Experiments (experiments/store.ts): a multivariate flag's variants compared on metrics. Each row is a full
-- version; readers take the latest per id (argMax by version). `feature_flag_id` is the flag it runs on; the JSON
-- columns (parameters, metrics, …) are read whole, never queried into. `start_date`/`end_date` are launch and stop
-- (null: not yet); `created_by` the user's uuid ('' for one made with a key that has no user).
CREATE TABLE IF NOT EXISTS experiments (
    team_id Int64,
    id UInt64,
    name String,
    description String,
    feature_flag_id UInt64,
    start_date Nullable(DateTime64(3, 'UTC')),
    end_date Nullable(DateTime64(3, 'UTC')),
    type LowCardinality(String) DEFAULT 'product',
    parameters String,
    filters String,
    secondary_metrics String,
    metrics String,
    metrics_secondary String,
    stats_config String,
    exposure_criteria String,
    archived UInt8,
    conclusion String DEFAULT '',
    conclusion_comment String DEFAULT '',
    created_by String DEFAULT '',
    created_at DateTime64(3, 'UTC'),
    updated_at DateTime64(3, 'UTC'),
    deleted UInt8,
    version UInt64
) ENGINE = ReplacingMergeTree(version) ORDER BY (team_id, id);
