-- When each personal API key was last used. Apart from personal_api_keys so that recording a use never
-- writes a new version of the key row (which could race with a revocation); each process writes the
-- uses it saw in one insert every ~30 s, readers take the latest per key.
CREATE TABLE IF NOT EXISTS personal_api_key_usage (
    id String,
    last_used_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree(last_used_at) ORDER BY id;
