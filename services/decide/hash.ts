// PostHog's bucketing hash: sha1 of `<prefix><identifier><salt>`, the first 15 hex digits read as an
// integer, divided by 0xFFFFFFFFFFFFFFF. Every SDK and the server compute exactly this, so the same
// person lands in the same bucket wherever a flag is evaluated (reference §1.1).
//
// Decide hashes the same (flag, identifier) pairs over and over for warm persons, so flag hashes are
// memoized per identifier, then per flag key (the flag's own key string, so the inner lookups hit V8's
// cached string hash); the memo is bounded and simply starts over.
import * as crypto from 'node:crypto'

const LONG_SCALE = 0xfffffffffffffff

// crypto.hash (Node ≥ 20.12) is a one-shot digest without a Hash object: about twice as fast.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash
const sha1Hex: (text: string) => string = oneShot
  ? (text) => oneShot('sha1', text, 'hex')
  : (text) => crypto.createHash('sha1').update(text, 'utf8').digest('hex')

function hashText(text: string): number {
  return parseInt(sha1Hex(text).slice(0, 15), 16) / LONG_SCALE
}

export function hashOf(prefix: string, identifier: string, salt = ''): number {
  return hashText(prefix + identifier + salt)
}

const MEMO_IDENTIFIERS = 1 << 16
const MEMO_FLAGS = 4096

/** The memoized rollout and variant hashes of one identifier, by flag key. */
export class IdentifierHashes {
  private readonly rollouts = new Map<string, number>()
  private readonly variants = new Map<string, number>()

  constructor(readonly identifier: string) {}

  rollout(flagKey: string): number {
    let value = this.rollouts.get(flagKey)
    if (value === undefined) {
      value = hashText(flagKey + '.' + this.identifier)
      if (this.rollouts.size < MEMO_FLAGS) this.rollouts.set(flagKey, value)
    }
    return value
  }

  variant(flagKey: string): number {
    let value = this.variants.get(flagKey)
    if (value === undefined) {
      value = hashText(flagKey + '.' + this.identifier + 'variant')
      if (this.variants.size < MEMO_FLAGS) this.variants.set(flagKey, value)
    }
    return value
  }
}

const memo = new Map<string, IdentifierHashes>()

export function hashesFor(identifier: string): IdentifierHashes {
  let hashes = memo.get(identifier)
  if (hashes === undefined) {
    if (memo.size >= MEMO_IDENTIFIERS) memo.clear()
    memo.set(identifier, (hashes = new IdentifierHashes(identifier)))
  }
  return hashes
}

/** The rollout hash (salt '') or the variant hash (salt 'variant') of one flag for one identifier. */
export function flagHash(flagKey: string, identifier: string, salt: '' | 'variant' = ''): number {
  const hashes = hashesFor(identifier)
  return salt === '' ? hashes.rollout(flagKey) : hashes.variant(flagKey)
}

/** Holdouts hash without the flag key, so a person is in or out of a holdout for every flag that uses it. */
export function holdoutHash(identifier: string): number {
  return hashText('holdout-' + identifier)
}

export interface WeightedVariant {
  key: string
  rollout_percentage: number
}

/** The first variant whose running (float64) sum of percentages exceeds the hash; null if they sum below it. */
export function variantFor(hash: number, variants: readonly WeightedVariant[]): string | null {
  let cumulative = 0
  for (const variant of variants) {
    cumulative += Number(variant.rollout_percentage) / 100
    if (hash < cumulative) return variant.key
  }
  return null
}
