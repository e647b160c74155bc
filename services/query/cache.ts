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

/**
 * At most `maxEntries` answers and `maxBytes` of their JSON, the least recently used going first: a HogQL answer
 * may hold 50,000 rows, so a count alone would not bound the memory. An answer larger than a quarter of the
 * budget is not kept.
 */
export class QueryCache {
  private readonly entries = new Map<string, CachedAnswer & { bytes: number }>()
  private bytes = 0

  constructor(
    private readonly maxEntries = 500,
    private readonly maxBytes = 256 << 20,
  ) {}

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
    this.drop(key)
    // UTF-16 code units of its JSON: near enough to what the answer holds in memory for a bound.
    const bytes = 2 * JSON.stringify(value.answer).length
    if (bytes > this.maxBytes / 4) return
    this.entries.set(key, { ...value, bytes })
    this.bytes += bytes
    while (this.entries.size > this.maxEntries || this.bytes > this.maxBytes) this.drop(this.entries.keys().next().value!)
  }

  private drop(key: string): void {
    const old = this.entries.get(key)
    if (!old) return
    this.entries.delete(key)
    this.bytes -= old.bytes
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
