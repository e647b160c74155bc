// Computed answers of every kind, by cache key (runner.ts: kind, canonical query, project, timezone, week
// start, the persons hidden from the key). Each entry remembers the project's data version it was computed
// at: once events or persons change, it is stale (served only where PostHog serves stale answers).
import { createHash } from 'node:crypto'

export interface CachedAnswer {
  /** The kind's part of the answer (kind.ts run). */
  answer: Record<string, unknown>
  /** When it was computed (ISO). */
  lastRefresh: string
  /** The project's data version it was computed at (data-version.ts). */
  version: string
}

export class QueryCache {
  private readonly entries = new Map<string, CachedAnswer>()

  constructor(private readonly maxEntries = 500) {}

  /** PostHog's shape of a cache key: `cache_` and a hex digest of what the answer depends on. */
  static key(parts: unknown): string {
    return `cache_${createHash('sha256').update(canonicalJson(parts)).digest('hex').slice(0, 32)}`
  }

  get(key: string): CachedAnswer | undefined {
    const hit = this.entries.get(key)
    if (hit) {
      // Refresh its place in the LRU order.
      this.entries.delete(key)
      this.entries.set(key, hit)
    }
    return hit
  }

  set(key: string, value: CachedAnswer): void {
    this.entries.delete(key)
    this.entries.set(key, value)
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!)
  }
}

/** JSON with object keys sorted: two values that are equal write the same text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  )
}
