// Deterministic person UUIDs, so the same distinct id always names the same person (PostHog compatible).
import { v5 } from 'uuid'
import { PERSON_UUID_NAMESPACE } from './types'

export function personUuid(teamId: number, distinctId: string): string {
  return v5(`${teamId}:${distinctId}`, PERSON_UUID_NAMESPACE)
}

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** Lower-cased UUID, or null when the text is not shaped like one. */
export function normalizeUuid(text: string): string | null {
  const lower = text.trim().toLowerCase()
  return UUID_SHAPE.test(lower) ? lower : null
}
