-- When an insight was last written, apart from last_modified_at (changed only by its name, description,
-- filters or query, as PostHog's Insight.MATERIAL_INSIGHT_FIELDS): PostHog's clients read both. Rows
-- stored before this migration read their last modification.
ALTER TABLE insights ADD COLUMN IF NOT EXISTS updated_at DateTime64(3, 'UTC') DEFAULT last_modified_at;
