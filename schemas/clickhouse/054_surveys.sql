-- Surveys (surveys/store.ts): what posthog-js shows a person, and the flags that choose who sees it. Each row is a
-- full version; readers take the latest per id (argMax by version). `id` is the allocator's integer, `uuid` the id
-- the API and posthog-js name a survey by (PostHog's surveys have uuids); `definition` holds the rest as JSON (the
-- questions, conditions, appearance, launch and stop dates, iterations), so a stop that clears end_date is a new
-- version like any other. `created_by` is the user's uuid ('' for one made with a key that has no user).
CREATE TABLE IF NOT EXISTS surveys (
    team_id Int64,
    id UInt64,
    uuid String,
    name String,
    type LowCardinality(String),
    definition String,
    archived UInt8 DEFAULT 0,
    created_by String DEFAULT '',
    created_at DateTime64(3, 'UTC'),
    updated_at DateTime64(3, 'UTC'),
    deleted UInt8,
    version UInt64
) ENGINE = ReplacingMergeTree(version) ORDER BY (team_id, id);
