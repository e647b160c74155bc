-- Recording retention (recordings/retention.ts): each block and metadata row carries the retention, in days,
-- of its project when it was stored (PostHog's session_recording_retention_period, '30d' by default, as
-- PostHog's session_replay_events keeps retention_period_days per row), and ClickHouse drops the row one
-- day after it expires. Readers hide a recording as soon as its start is older than the shorter of that
-- retention and the project's current one; the extra day means no row of a session (a session lasts at
-- most a day) is dropped while the session is still shown, so a recording never comes back truncated.
-- Rows stored before this migration keep 30 days.
ALTER TABLE session_recording_blocks ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 30;
ALTER TABLE session_recording_blocks MODIFY TTL toDateTime(first_timestamp) + toIntervalDay(retention_days + 1);
ALTER TABLE session_recording_metadata ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 30;
ALTER TABLE session_recording_metadata MODIFY TTL toDateTime(start_time) + toIntervalDay(retention_days + 1);
-- Console lines of recordings (038) go with their recordings.
ALTER TABLE log_entries ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 30;
ALTER TABLE log_entries MODIFY TTL toDateTime(timestamp) + toIntervalDay(retention_days + 1);
