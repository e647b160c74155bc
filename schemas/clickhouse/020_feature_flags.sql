-- Feature flags. Each row is a full version of one flag (the definition as JSON); readers take the
-- latest by version. The management API writes them; decide keeps every project's flags in memory.
CREATE TABLE IF NOT EXISTS feature_flags (
    team_id Int64,
    id Int64,
    key String,
    definition String,
    deleted UInt8,
    version UInt64,
    updated_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree(version) ORDER BY (team_id, id);

CREATE TABLE IF NOT EXISTS feature_flag_activity (
    team_id Int64,
    flag_id Int64,
    activity LowCardinality(String),
    detail String,
    actor String,
    at DateTime64(3, 'UTC')
) ENGINE = MergeTree ORDER BY (team_id, flag_id, at);

-- Experience continuity: the identifier a person's flags hash with, per flag. The first one written wins.
CREATE TABLE IF NOT EXISTS feature_flag_hash_key_overrides (
    team_id Int64,
    person_uuid UUID,
    feature_flag_key String,
    hash_key String,
    created_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree ORDER BY (team_id, person_uuid, feature_flag_key);
