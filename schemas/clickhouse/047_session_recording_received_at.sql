-- When each metadata row's snapshots reached capture (the latest `now` of the batch's messages): PostHog
-- calls a recording ongoing while data for it arrived in the last five minutes (max(_timestamp), the
-- ingestion time), however old its events are. Rows stored before this migration read their end time.
ALTER TABLE session_recording_metadata ADD COLUMN IF NOT EXISTS received_at DateTime64(3, 'UTC') DEFAULT end_time;
