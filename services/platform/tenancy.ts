// Who calls and for which project: the project and personal-API-key shapes every service shares, and
// the lookups auth and capture make on the request path. The project store (projects/store.ts) keeps
// them and implements Tenants; shared code and every feature outside projects/ depend on this interface,
// never on the store (only the composition root builds it).

export interface Project {
  id: number
  name: string
  apiToken: string
  timezone: string
  settings: Record<string, unknown>
  createdAt: string
}

export interface PersonalApiKey {
  id: string
  label: string
  maskValue: string
  scopes: string[]
  /** Empty: every project. */
  scopedTeams: number[]
  createdAt: string
  /** Last authenticated request with this key (kept in memory, written in batches). */
  lastUsedAt: string | null
  /** The user the key belongs to (accounts/store.ts); absent for this process's own key. */
  userId?: string
  /** Set when the caller is a signed-in browser session (the principal is the session's, not a stored key). */
  sessionId?: string
}

/** A signed-in browser session as the request path sees it. */
export interface SessionGrant {
  /** Who the session acts as: its user with the role's scopes, or the personal API key it was opened with. */
  principal: PersonalApiKey
  /** What every write made with the session must echo in its X-CSRFToken header. */
  csrfToken: string
}

/** Projects and keys as the request path reads them: from memory, never a query per request. */
export interface Tenants {
  byId(id: number): Project | undefined
  /** Every project (for `@current`, the key's project). */
  list(): Project[]
  byToken(token: string): Project | undefined
  /** The key with this value, acting with what both it and its user's role hold. */
  keyByValue(value: string): PersonalApiKey | undefined
  /** The live session with this cookie value (not ended, not expired, its user still a member). */
  sessionByToken(token: string): Promise<SessionGrant | undefined>
  /** Notes a use of `key` (written later, in batches). */
  markKeyUsed(key: PersonalApiKey): void
}

/** Whom keys belong to and which sessions are live: accounts/store.ts implements it, the project store asks it. */
export interface KeyOwners {
  /** `key` acting within its user's role; undefined when its user is no longer a member. */
  limitKey<K extends PersonalApiKey>(key: K): K | undefined
  /** The live session with this cookie value (`keyById`: a stored key as it acts now). */
  sessionGrant(token: string, keyById: (id: string) => PersonalApiKey | undefined): Promise<SessionGrant | undefined>
  /** The organization's first owner (keys made before accounts are theirs). */
  owner(): { id: string } | undefined
}
