// Computed trends, per project and filter. The key includes the project's data version (how far its
// events and persons have been ingested), so new data makes old entries unreachable rather than stale.
import { createHash } from 'node:crypto'

export interface CachedTrend {
  result: unknown
  lastRefresh: string
}

export class TrendCache {
  private readonly entries = new Map<string, CachedTrend>()

  constructor(private readonly maxEntries = 500) {}

  static key(parts: unknown): string {
    return createHash('sha256').update(JSON.stringify(parts)).digest('hex')
  }

  get(key: string): CachedTrend | undefined {
    const hit = this.entries.get(key)
    if (hit) {
      // Refresh its place in the LRU order.
      this.entries.delete(key)
      this.entries.set(key, hit)
    }
    return hit
  }

  set(key: string, value: CachedTrend): void {
    this.entries.delete(key)
    this.entries.set(key, value)
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!)
  }
}
