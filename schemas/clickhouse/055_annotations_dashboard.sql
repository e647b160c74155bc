-- The dashboard a dashboard-scoped annotation belongs to (0: none), PostHog's `dashboard_id`.
ALTER TABLE annotations ADD COLUMN IF NOT EXISTS dashboard_id UInt64 DEFAULT 0;
