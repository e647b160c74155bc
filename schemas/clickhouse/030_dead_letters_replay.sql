-- Dead letters are listed and replayed from this table in both modes (cluster mode also feeds the Kafka
-- topic wren_dead_letters). A letter is named by where its message was: topic/partition/offset.
ALTER TABLE dead_letters ADD COLUMN IF NOT EXISTS team_id Nullable(Int64);
ALTER TABLE dead_letters ADD COLUMN IF NOT EXISTS consumer_group LowCardinality(String) DEFAULT 'ingestion';
ALTER TABLE dead_letters ADD COLUMN IF NOT EXISTS size UInt64 DEFAULT length(base64Decode(payload));

-- When a letter was replayed (its payload appended to its topic again); a letter is replayed once.
CREATE TABLE IF NOT EXISTS dead_letter_replays (
    topic LowCardinality(String),
    partition UInt32,
    offset UInt64,
    replayed_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree ORDER BY (topic, partition, offset);
