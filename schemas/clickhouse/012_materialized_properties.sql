-- Hot event properties as columns, so trends that break down or filter on them read one small column
-- instead of parsing every row's properties JSON (the query builder maps these keys to the columns).
-- Old parts compute them on read; new rows store them.
ALTER TABLE events ADD COLUMN IF NOT EXISTS `mat_$browser` String MATERIALIZED JSONExtractString(properties, '$browser');
ALTER TABLE events ADD COLUMN IF NOT EXISTS `mat_$os` String MATERIALIZED JSONExtractString(properties, '$os');
ALTER TABLE events ADD COLUMN IF NOT EXISTS `mat_$device_type` String MATERIALIZED JSONExtractString(properties, '$device_type');
ALTER TABLE events ADD COLUMN IF NOT EXISTS `mat_$current_url` String MATERIALIZED JSONExtractString(properties, '$current_url');
ALTER TABLE events ADD COLUMN IF NOT EXISTS `mat_$host` String MATERIALIZED JSONExtractString(properties, '$host');
