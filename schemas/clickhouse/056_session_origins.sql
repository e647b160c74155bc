-- Which parts of the snapshots topic each session row holds, (_partition, _offset) as the metadata rows carry
-- them: the rows of a session merge across parts, so this is how a part replayed after a crash finds whether
-- its rows are stored (platform/clickhouse replayTokens). Rows stored before it hold none.
ALTER TABLE session_recording_sessions ADD COLUMN IF NOT EXISTS origins SimpleAggregateFunction(groupUniqArrayArray, Array(Tuple(UInt32, UInt64)));
