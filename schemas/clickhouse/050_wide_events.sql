-- Events of wide persons, waiting for their copy into `events` (ingestion/persons/wide.ts). Every event
-- row carries its person's properties, so one person with hundreds of KB of properties makes each of its
-- events that big, and thousands of them would hold the ingestion of every project while ClickHouse
-- takes gigabytes. Such an event is stored here with its part of the log instead, the person's properties
-- once per part (wide_event_persons), and copied into `events` by ClickHouse in chunks once its range is
-- stored; then deleted here. Rows are keyed by the part that wrote them: (_partition, _offset), the
-- part's last offset, as on every row ingestion writes. Inserts carry the part's deduplication token.
CREATE TABLE IF NOT EXISTS wide_events (
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
    person_properties_ref UInt32,
    person_mode Enum8('full' = 0, 'propertyless' = 1, 'force_upgrade' = 2),
    group0_properties String CODEC(ZSTD(3)),
    group1_properties String CODEC(ZSTD(3)),
    group2_properties String CODEC(ZSTD(3)),
    group3_properties String CODEC(ZSTD(3)),
    group4_properties String CODEC(ZSTD(3)),
    chunk UInt32,
    seq UInt32,
    _partition UInt32,
    _offset UInt64
) ENGINE = MergeTree
ORDER BY (_partition, _offset, chunk, seq)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE TABLE IF NOT EXISTS wide_event_persons (
    person_properties_ref UInt32,
    person_properties String CODEC(ZSTD(3)),
    _partition UInt32,
    _offset UInt64
) ENGINE = MergeTree
ORDER BY (_partition, _offset, person_properties_ref)
SETTINGS non_replicated_deduplication_window = 10000;
