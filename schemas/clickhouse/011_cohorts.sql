-- Cohorts: dynamic ones are defined by person-property groups (`filters`), static ones by a list of
-- distinct ids (cohort_static_members), resolved to persons when a query runs.
CREATE TABLE IF NOT EXISTS cohorts (
    team_id Int64,
    id UInt64,
    name String,
    description String,
    filters String,
    is_static UInt8,
    created_at DateTime64(3, 'UTC'),
    updated_at DateTime64(3, 'UTC'),
    deleted UInt8,
    version UInt64
) ENGINE = ReplacingMergeTree(version) ORDER BY (team_id, id);

CREATE TABLE IF NOT EXISTS cohort_static_members (
    team_id Int64,
    cohort_id UInt64,
    distinct_id String,
    added_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree ORDER BY (team_id, cohort_id, distinct_id);
