// A person as the API shows it: PostHog's PersonSerializer fields.
import type { PersonRecord } from './queries'

const NAME_PROPERTIES = ['email', 'Email', '$email', 'name', 'Name', 'username', 'Username', 'UserName']
const UUID_LIKE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Distinct ids a person chose (emails, user ids) come before generated anonymous ones. */
export function sortDistinctIds(ids: string[]): string[] {
  return [...ids].sort((a, b) => Number(UUID_LIKE.test(a)) - Number(UUID_LIKE.test(b)))
}

export function displayName(p: PersonRecord): string {
  for (const key of NAME_PROPERTIES) {
    const v = p.properties[key]
    if (typeof v === 'string' && v) return v
  }
  return sortDistinctIds(p.distinctIds).find((id) => !UUID_LIKE.test(id)) ?? String(p.id)
}

export function serializePerson(p: PersonRecord, userAccessLevel: string): Record<string, unknown> {
  return {
    id: p.id,
    name: displayName(p),
    distinct_ids: sortDistinctIds(p.distinctIds),
    properties: p.properties,
    created_at: p.createdAt,
    uuid: p.uuid,
    is_identified: p.isIdentified,
    user_access_level: userAccessLevel,
  }
}
