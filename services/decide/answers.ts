// Whole flag answers kept for reuse. SDKs ask again and again with the same body for the same user (every
// page load, every server-side check), and between two changes of the state an evaluation reads (see
// Stamp) the answer is the same: it is kept as its encoded bytes, under the request itself, and checked
// against the current state on every use, so a $set, a flag, cohort or group change is seen by the next
// request without any invalidation message.
import type { Stamp } from './service'

export interface CachedAnswer {
  token: string
  stamp: Stamp
  /** The flags members of the answer (flagsBodyParts), joined. */
  flags: Buffer
}

const DEFAULT_MAX_BYTES = 64 * 1024 * 1024
/** Bodies longer than this are not kept as keys (SDK bodies are a few hundred bytes). */
export const MAX_KEY_BODY = 8 * 1024
/** Rough bytes an entry holds besides its answer and key (the stamp, the map's slot). */
const ENTRY_OVERHEAD = 200

export class AnswerCache {
  private readonly entries = new Map<string, CachedAnswer>()
  private bytes = 0

  constructor(private readonly maxBytes = DEFAULT_MAX_BYTES) {}

  get(key: string): CachedAnswer | undefined {
    return this.entries.get(key)
  }

  set(key: string, answer: CachedAnswer): void {
    this.delete(key)
    this.entries.set(key, answer)
    this.bytes += sizeOf(key, answer)
    // Bounded: past the cap, the oldest entries go (insertion order).
    for (const [old] of this.entries) {
      if (this.bytes <= this.maxBytes) break
      this.delete(old)
    }
  }

  delete(key: string): void {
    const old = this.entries.get(key)
    if (!old) return
    this.entries.delete(key)
    this.bytes -= sizeOf(key, old)
  }

  get size(): number {
    return this.entries.size
  }
}

function sizeOf(key: string, answer: CachedAnswer): number {
  return key.length + answer.flags.length + ENTRY_OVERHEAD
}
