// Deterministic person UUIDs, so the same distinct id always names the same person (PostHog compatible).
import { v5 } from 'uuid'
import { PERSON_UUID_NAMESPACE } from '../types'

// The rules ask for the same ids several times per event; a bounded memo saves the sha1 each time.
const memo = new Map<string, string>()
const MEMO_SIZE = 50_000

export function personUuid(teamId: number, distinctId: string): string {
  const name = `${teamId}:${distinctId}`
  let uuid = memo.get(name)
  if (uuid === undefined) {
    uuid = v5(name, PERSON_UUID_NAMESPACE)
    if (memo.size >= MEMO_SIZE) memo.clear()
    memo.set(name, uuid)
  }
  return uuid
}

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** Lower-cased UUID, or null when the text is not shaped like one. */
export function normalizeUuid(text: string): string | null {
  const lower = text.trim().toLowerCase()
  return UUID_SHAPE.test(lower) ? lower : null
}
