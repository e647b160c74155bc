// Saved insights: configuration objects (platform/config-objects.ts) with PostHog's short ids. Nothing else
// caches them, so a write publishes nothing.
import { randomBytes } from 'node:crypto'
import type { ClickHouseClient } from '../platform/clickhouse'
import { ConfigObjectStore, timestamp, type ConfigObjectKind } from '../platform/config-objects'
import type { Clock } from '../platform/clock'
import type { ConfigLog } from '../platform/log/config-log'

export interface Insight {
  id: number
  teamId: number
  shortId: string
  name: string
  description: string
  /** PostHog's query (an InsightVizNode, or any other node), or null for a legacy `filters` insight. */
  query: Record<string, unknown> | null
  filters: Record<string, unknown>
  saved: boolean
  favorited: boolean
  tags: string[]
  createdAt: string
  /** The last change to what the insight shows (MATERIAL below); `updatedAt` is the last write of any kind. */
  lastModifiedAt: string
  updatedAt: string
  deleted: boolean
  version: number
}

export type InsightFields = Pick<Insight, 'name' | 'description' | 'query' | 'filters' | 'saved' | 'favorited' | 'tags'>

/** PostHog's short ids: 8 characters from a URL-safe alphabet. */
function shortId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'
  return [...randomBytes(8)].map((b) => alphabet[b % alphabet.length]).join('')
}

/** What changes what an insight shows, as PostHog's Insight.MATERIAL_INSIGHT_FIELDS (with the query). */
const MATERIAL = ['name', 'description', 'filters', 'query'] as const

export const INSIGHTS: ConfigObjectKind<Insight, InsightFields> = {
  table: 'insights',
  object: 'insight',
  columns: ['short_id', 'name', 'description', 'query', 'filters', 'saved', 'favorited', 'tags', 'last_modified_at', 'updated_at'],
  create: (fields, now) => ({ ...fields, shortId: shortId(), lastModifiedAt: now, updatedAt: now }),
  touch: (next, current, now) => ({
    ...next,
    lastModifiedAt: MATERIAL.some((f) => JSON.stringify(next[f]) !== JSON.stringify(current[f])) ? now : current.lastModifiedAt,
    updatedAt: now,
  }),
  toRow: (i) => ({
    short_id: i.shortId,
    name: i.name,
    description: i.description,
    query: i.query ? JSON.stringify(i.query) : '',
    filters: JSON.stringify(i.filters),
    saved: i.saved ? 1 : 0,
    favorited: i.favorited ? 1 : 0,
    tags: i.tags,
    last_modified_at: i.lastModifiedAt,
    updated_at: i.updatedAt,
  }),
  fromRow: (r) => ({
    shortId: r.short_id as string,
    name: r.name as string,
    description: r.description as string,
    query: r.query ? (JSON.parse(r.query as string) as Record<string, unknown>) : null,
    filters: JSON.parse((r.filters as string) || '{}') as Record<string, unknown>,
    saved: Number(r.saved) === 1,
    favorited: Number(r.favorited) === 1,
    tags: r.tags as string[],
    lastModifiedAt: timestamp(r.last_modified_at),
    updatedAt: timestamp(r.updated_at),
  }),
}

export class InsightStore extends ConfigObjectStore<Insight, InsightFields> {
  constructor(client: ClickHouseClient, clock: Clock, config: ConfigLog) {
    super(client, clock, config, INSIGHTS)
  }
}
