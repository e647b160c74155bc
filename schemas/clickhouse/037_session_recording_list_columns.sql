-- What the recordings list filters on besides the counts (recordings/list-query.ts), per metadata row:
-- the batch's own active time (PostHog filters on the sum of its blocks' active_milliseconds), the urls
-- the batch visited (a `visited_page` filter matches any of a session's urls) and where it was recorded.
ALTER TABLE session_recording_metadata ADD COLUMN IF NOT EXISTS active_milliseconds UInt64;
ALTER TABLE session_recording_metadata ADD COLUMN IF NOT EXISTS urls Array(String);
ALTER TABLE session_recording_metadata ADD COLUMN IF NOT EXISTS snapshot_source LowCardinality(String);
