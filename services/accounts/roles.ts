// Roles: PostHog's organization membership levels, and the scopes each grants. A user's sessions act with
// its role's scopes, and a personal API key of a user acts with the scopes both the key and the role hold,
// so lowering a role lowers the user's keys at once, and no key outlives what its user may do.
import { SCOPE_OBJECTS } from '../platform/http/auth'

export const LEVELS = { member: 1, admin: 8, owner: 15 } as const
export type Role = keyof typeof LEVELS
export type Level = (typeof LEVELS)[Role]
export const ROLES = Object.keys(LEVELS) as Role[]

export function roleOf(level: number): Role {
  return level >= LEVELS.owner ? 'owner' : level >= LEVELS.admin ? 'admin' : 'member'
}

/**
 * What a member may not change: the organization, its members and invites, and projects (creating one, its
 * settings); as in PostHog, where these need an admin. Everything else a member reads and writes.
 */
const ADMIN_ONLY = new Set(['organization:write', 'organization_member:write', 'project:write', 'access_control:write'])

const MEMBER_SCOPES = SCOPE_OBJECTS.flatMap((o) => [`${o}:read`, `${o}:write`]).filter((s) => !ADMIN_ONLY.has(s))

export function scopesOfLevel(level: number): string[] {
  return level >= LEVELS.admin ? ['*'] : MEMBER_SCOPES
}

/** The part of `scopes` that `level` also holds: a write the role lacks keeps its read, if the role has that; `*` becomes the role's own. */
export function withinLevel(scopes: readonly string[], level: number): string[] {
  if (level >= LEVELS.admin) return [...scopes]
  if (scopes.includes('*')) return MEMBER_SCOPES
  const role = new Set(MEMBER_SCOPES)
  const kept = scopes.map((s) => (role.has(s) ? s : role.has(s.replace(/:write$/, ':read')) ? s.replace(/:write$/, ':read') : null))
  return [...new Set(kept.filter((s): s is string => s !== null))]
}
