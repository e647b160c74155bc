-- Versions granted to writers of configuration objects in cluster mode (services/platform/log/config-log.ts),
-- written by the one api process that grants them before it answers, so that the next granter (after a
-- rebalance) never grants a version twice, even one whose row is not written yet.
CREATE TABLE IF NOT EXISTS config_versions (
    object String,
    version UInt64
) ENGINE = ReplacingMergeTree ORDER BY (object, version);
