-- Accounts (accounts/store.ts): the instance's one organization, its users with their membership level,
-- the invitations to it, and the browser sessions of signed-in users. Each row is a full version; readers
-- take the latest (FINAL, by version), as for projects and keys.
CREATE TABLE IF NOT EXISTS organization (
    id String,
    name String,
    created_at DateTime64(3, 'UTC'),
    version UInt64
) ENGINE = ReplacingMergeTree(version) ORDER BY id;

CREATE TABLE IF NOT EXISTS users (
    id String,
    email String,
    first_name String DEFAULT '',
    last_name String DEFAULT '',
    -- scrypt$N$r$p$salt$hash (accounts/passwords.ts); '' until the user sets one (the owner before setup)
    password_hash String DEFAULT '',
    -- PostHog's organization membership levels: 1 member, 8 admin, 15 owner
    level UInt8,
    -- 0: removed from the organization (it can be invited again)
    is_active UInt8 DEFAULT 1,
    -- the one-time setup link's token of an owner without a password (every api start prints it), else ''
    setup_token String DEFAULT '',
    created_at DateTime64(3, 'UTC'),
    updated_at DateTime64(3, 'UTC'),
    last_login DateTime64(3, 'UTC') DEFAULT toDateTime64(0, 3, 'UTC'),
    version UInt64
) ENGINE = ReplacingMergeTree(version) ORDER BY id;

CREATE TABLE IF NOT EXISTS organization_invites (
    id String,
    -- sha256 of the link's token: the token itself is shown once, to whoever invites
    token_sha256 String,
    target_email String,
    first_name String DEFAULT '',
    level UInt8,
    created_by String,
    created_at DateTime64(3, 'UTC'),
    expires_at DateTime64(3, 'UTC'),
    -- 1 once accepted or revoked: a token opens nothing after that
    is_deleted UInt8 DEFAULT 0,
    version UInt64
) ENGINE = ReplacingMergeTree(version) ORDER BY id;

CREATE TABLE IF NOT EXISTS user_sessions (
    -- sha256 of the session cookie's value
    id String,
    user_id String,
    -- a session opened with a personal API key acts as that key (and ends with it), else ''
    key_id String DEFAULT '',
    csrf_token String,
    created_at DateTime64(3, 'UTC'),
    expires_at DateTime64(3, 'UTC'),
    is_deleted UInt8 DEFAULT 0,
    version UInt64
) ENGINE = ReplacingMergeTree(version) ORDER BY id;

-- The user a personal API key belongs to ('' for keys made before accounts: the owner's).
ALTER TABLE personal_api_keys ADD COLUMN IF NOT EXISTS user_id String DEFAULT '';
