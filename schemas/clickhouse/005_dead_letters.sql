-- Log messages a processor could not handle, kept (not dropped) so a person can look and replay.
CREATE TABLE IF NOT EXISTS dead_letters (
    topic LowCardinality(String),
    partition UInt32,
    offset UInt64,
    error String,
    payload String,
    at DateTime64(3, 'UTC')
) ENGINE = MergeTree ORDER BY (topic, partition, offset)
SETTINGS non_replicated_deduplication_window = 10000;
