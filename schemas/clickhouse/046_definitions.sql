-- Event and property definitions (ingestion/definitions.ts writes them, definitions/ reads them): one row
-- per key per ingested part, folded by key. Each insert carries the part's deduplication token, so a
-- replayed part adds nothing; readers still GROUP BY the key, as rows of parts not yet merged are apart.

-- A project's event names: when ingestion first and last saw each.
CREATE TABLE IF NOT EXISTS event_definitions (
    team_id Int64,
    name String,
    created_at SimpleAggregateFunction(min, DateTime64(6, 'UTC')),
    last_seen_at SimpleAggregateFunction(max, DateTime64(6, 'UTC'))
) ENGINE = AggregatingMergeTree
ORDER BY (team_id, name)
SETTINGS non_replicated_deduplication_window = 10000;

-- Property names per kind (event, person, group of a type index; -1 for the others). A property keeps the
-- type it was first seen with, as PostHog's does: the earliest (seen at, type) pair wins ('' is no type,
-- stored with a time after every typed sighting).
CREATE TABLE IF NOT EXISTS property_definitions (
    team_id Int64,
    type Enum8('event' = 1, 'person' = 2, 'group' = 3),
    group_type_index Int8,
    name String,
    first_type SimpleAggregateFunction(min, Tuple(DateTime64(6, 'UTC'), String))
) ENGINE = AggregatingMergeTree
ORDER BY (team_id, type, group_type_index, name)
SETTINGS non_replicated_deduplication_window = 10000;

-- Which event each event property was seen on (PostHog's EventProperty): the API's event_names filter.
CREATE TABLE IF NOT EXISTS event_properties (
    team_id Int64,
    event String,
    property String
) ENGINE = ReplacingMergeTree
ORDER BY (team_id, event, property)
SETTINGS non_replicated_deduplication_window = 10000;
