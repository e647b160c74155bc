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
}

/** Projects and keys as the request path reads them: from memory, never a query per request. */
export interface Tenants {
  byId(id: number): Project | undefined
  /** Every project (for `@current`, the key's project). */
  list(): Project[]
  byToken(token: string): Project | undefined
  keyByValue(value: string): PersonalApiKey | undefined
  /** Notes a use of `key` (written later, in batches). */
  markKeyUsed(key: PersonalApiKey): void
}
