-- Who may access a resource at what level (PostHog's access_controls action). member '' is the rule
-- for everyone; otherwise a personal API key id.
CREATE TABLE IF NOT EXISTS access_controls (
    team_id Int64,
    resource LowCardinality(String),
    resource_id String,
    member String,
    access_level LowCardinality(String),
    created_at DateTime64(3, 'UTC'),
    updated_at DateTime64(3, 'UTC'),
    is_deleted UInt8,
    version UInt64
) ENGINE = ReplacingMergeTree(version) ORDER BY (team_id, resource, resource_id, member);
