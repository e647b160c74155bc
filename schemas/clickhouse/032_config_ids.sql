-- Ids handed out for configuration rows (projects, flags, actions, cohorts) in cluster mode, written by
-- the one api process that allocates them (services/config/config-log.ts) before it answers, so that the
-- next allocator (after a rebalance) never hands out an id again, even one whose row is not written yet.
CREATE TABLE IF NOT EXISTS config_ids (
    kind LowCardinality(String),
    id UInt64
) ENGINE = ReplacingMergeTree ORDER BY (kind, id);
