// Accounts: the instance's one organization, its users (with their membership level), invitations and
// browser sessions, in ClickHouse (schemas/clickhouse/051_accounts.sql) like every other configuration object.
//
// The organization, users and invitations are few: this store holds them in memory and keeps up with every
// process's writes through the configuration log, as the project store does with projects and keys. Updates
// are compare-and-set on the record's version (platform/versioned-update.ts), so an invitation is accepted once
// however many api processes are asked at the same moment.
//
// Sessions are read from ClickHouse on every request that shows a session cookie when several processes share the
// storage (cluster mode), never from a copy in memory: signing out, or an owner ending someone's sessions, holds at
// once in every api process (the log reaches the others only when they next read it), the reason recordings'
// sharing tokens are read the same way. In embedded mode this process is the only one that writes sessions, so it
// keeps the sessions it has read (a read cost ~5.5 ms of a signed-in request's 6.5; bench/accounts.ts) and forgets
// each one it ends.
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import type { ClickHouseClient } from '../platform/clickhouse'
import { insertRows, queryRows } from '../platform/clickhouse'
import type { Clock } from '../platform/clock'
import type { ConfigChange, ConfigLog } from '../platform/log/config-log'
import { VersionedUpdates } from '../platform/versioned-update'
import type { KeyOwners, PersonalApiKey, SessionGrant } from '../platform/tenancy'
import { LEVELS, scopesOfLevel, withinLevel } from './roles'

export interface Organization {
  id: string
  name: string
  createdAt: string
  version: number
}

export interface User {
  id: string
  email: string
  firstName: string
  lastName: string
  /** '' until the user sets a password (the owner before setup). */
  passwordHash: string
  level: number
  isActive: boolean
  /**
   * The owner's one-time setup token while it has no password, else ''. Kept as it is (not hashed), so that every
   * api process's start prints the same link until it is used: a start that made a new one would void the link
   * another process printed a moment before.
   */
  setupToken: string
  createdAt: string
  updatedAt: string
  lastLogin: string | null
  version: number
}

export interface Invite {
  id: string
  tokenHash: string
  targetEmail: string
  firstName: string
  level: number
  createdBy: string
  createdAt: string
  expiresAt: string
  deleted: boolean
  version: number
}

export interface Session {
  /** sha256 of the cookie's value. */
  id: string
  userId: string
  /** The personal API key the session was opened with, or '' (a password sign-in). */
  keyId: string
  csrfToken: string
  createdAt: string
  expiresAt: string
}

/** PostHog's SESSION_COOKIE_AGE: two weeks. */
export const SESSION_DAYS = 14
/** Sessions an embedded Wren keeps in memory at most. */
const MAX_HELD_SESSIONS = 10_000
/** PostHog's INVITE_DAYS_VALIDITY. */
export const INVITE_DAYS = 3

export const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex')
const newToken = (): string => randomBytes(32).toString('base64url')
const DAY_MS = 86_400_000
const NEVER = '1970-01-01T00:00:00.000Z'

export function normalEmail(email: string): string {
  return email.trim().toLowerCase()
}

type Record_ = ({ type: 'user' } & User) | ({ type: 'invite' } & Invite) | ({ type: 'organization' } & Organization)

export class AccountStore implements KeyOwners {
  private organizationHeld: Organization | null = null
  private readonly users = new Map<string, User>()
  private readonly invites = new Map<string, Invite>()
  private readonly updates: VersionedUpdates
  /** Sessions read, by id: embedded mode only (null when other processes may end them; see the top of this file). */
  private readonly sessions: Map<string, Session> | null

  private constructor(
    private readonly client: ClickHouseClient,
    private readonly clock: Clock,
    private readonly config: ConfigLog,
    shared: boolean,
  ) {
    this.updates = new VersionedUpdates(config)
    this.sessions = shared ? null : new Map()
    config.onChange((change) => this.apply(change))
  }

  /** `shared`: other processes use the same storage (cluster mode), and may end sessions. */
  static async load(client: ClickHouseClient, clock: Clock, config: ConfigLog, shared: boolean): Promise<AccountStore> {
    const store = new AccountStore(client, clock, config, shared)
    await store.refresh()
    return store
  }

  async refresh(): Promise<void> {
    const [org] = await queryRows<OrganizationRow>(this.client, 'SELECT * FROM organization FINAL ORDER BY created_at LIMIT 1')
    if (org) this.hold({ type: 'organization', ...fromOrganizationRow(org) })
    for (const row of await queryRows<UserRow>(this.client, 'SELECT * FROM users FINAL')) this.hold({ type: 'user', ...fromUserRow(row) })
    for (const row of await queryRows<InviteRow>(this.client, 'SELECT * FROM organization_invites FINAL WHERE is_deleted = 0'))
      this.hold({ type: 'invite', ...fromInviteRow(row) })
  }

  private lastRefresh = 0
  private refreshing: Promise<void> | null = null

  /**
   * `find` on what is held, or after a read of the tables when it finds nothing: a user, invitation or session made
   * by another api process a moment ago (its change not heard yet) is found at once. Reads at most once a second,
   * however many lookups miss (a guesser's unknown tokens and emails).
   */
  async lookUp<T>(find: () => T | undefined): Promise<T | undefined> {
    const found = find()
    if (found !== undefined || Date.now() - this.lastRefresh < 1000) return found
    this.refreshing ??= this.refresh().finally(() => {
      this.lastRefresh = Date.now()
      this.refreshing = null
    })
    await this.refreshing
    return find()
  }

  private apply(change: ConfigChange): void {
    if (change.kind === 'account') this.hold(change.record as Record_)
  }

  /** Keeps a record when it is newer than the one held. */
  private hold(record: Record_): void {
    const { type, ...rest } = record
    if (type === 'organization') {
      const org = rest as Organization
      if (!this.organizationHeld || this.organizationHeld.version < org.version) this.organizationHeld = org
    } else if (type === 'user') {
      const user = rest as User
      if ((this.users.get(user.id)?.version ?? 0) < user.version) this.users.set(user.id, user)
    } else {
      const invite = rest as Invite
      if ((this.invites.get(invite.id)?.version ?? 0) < invite.version) this.invites.set(invite.id, invite)
    }
  }

  private async publish(record: Record_): Promise<void> {
    this.hold(record)
    await this.config.publish({ kind: 'account', record })
  }

  organization(): Organization {
    if (!this.organizationHeld) throw new Error('the organization is not set up yet (AccountStore.setUp)')
    return this.organizationHeld
  }

  /**
   * Makes the organization and its owner on a first start, once across every process (a claim on version 0).
   * `owner` (WREN_OWNER_EMAIL and WREN_OWNER_PASSWORD) creates an owner who can sign in; without it the owner
   * waits for setup, and the answer is the one-time setup token to print (the same at each start until the owner
   * has used it). Null once the owner can sign in.
   */
  async setUp(input: {
    organizationName: string
    owner: { email: string; passwordHash: string } | null
  }): Promise<{ setupToken: string | null }> {
    if (!this.organizationHeld && (await this.config.claimVersion({ kind: 'account', id: 'organization' }, 0))) {
      const now = this.clock.now().toISOString()
      const org = { id: randomUUID(), name: input.organizationName, createdAt: now, version: 1 }
      await insertRows(this.client, 'organization', [{ id: org.id, name: org.name, created_at: org.createdAt, version: 1 }])
      await this.publish({ type: 'organization', ...org })
    }
    // Another process won the claim: its row lands a moment later (a few seconds at most, or the start fails).
    for (let tries = 0; !this.organizationHeld && tries < 100; tries++) {
      await this.refresh()
      if (!this.organizationHeld) await new Promise((resolve) => setTimeout(resolve, 100))
    }
    if (!this.organizationHeld) throw new Error('The organization was claimed by another process but never stored: restart Wren.')
    const owner = this.owner()
    if (owner?.passwordHash) return { setupToken: null }
    if (input.owner) {
      if (owner)
        await this.update(owner.id, { email: normalEmail(input.owner.email), passwordHash: input.owner.passwordHash, setupToken: '' })
      else await this.createUser({ email: input.owner.email, passwordHash: input.owner.passwordHash, level: LEVELS.owner })
      return { setupToken: null }
    }
    if (owner?.setupToken) return { setupToken: owner.setupToken }
    const token = newToken()
    if (owner) await this.update(owner.id, { setupToken: token })
    else if (await this.config.claimVersion({ kind: 'account', id: 'first-owner' }, 0))
      await this.createUser({ email: '', passwordHash: '', level: LEVELS.owner, setupToken: token })
    else return { setupToken: null } // another api process made the owner: it prints the link
    return { setupToken: token }
  }

  /** The first owner who can sign in, else the one waiting for setup: whom keys made before accounts belong to. */
  owner(): User | undefined {
    return [...this.users.values()]
      .filter((u) => u.isActive && u.level >= LEVELS.owner)
      .sort(
        (a, b) =>
          Number(b.passwordHash !== '') - Number(a.passwordHash !== '') ||
          a.createdAt.localeCompare(b.createdAt) ||
          a.id.localeCompare(b.id),
      )[0]
  }

  /** The owner waiting for setup whose token this is. */
  ownerBySetupToken(token: string): User | undefined {
    const hash = sha256(token)
    return [...this.users.values()].find((u) => u.isActive && u.setupToken !== '' && sha256(u.setupToken) === hash)
  }

  user(id: string): User | undefined {
    return this.users.get(id)
  }

  /** Active users who can sign in or have an email (not an owner still waiting for setup), oldest first. */
  members(): User[] {
    return [...this.users.values()]
      .filter((u) => u.isActive && u.email !== '')
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
  }

  /** The active user with this email (emails compare case-insensitively). */
  userByEmail(email: string): User | undefined {
    const wanted = normalEmail(email)
    return wanted === '' ? undefined : this.members().find((u) => u.email === wanted)
  }

  /** A user, or an earlier one with the same email brought back (removed members can be invited again). */
  async createUser(input: { email: string; firstName?: string; passwordHash: string; level: number; setupToken?: string }): Promise<User> {
    const email = normalEmail(input.email)
    const removed = email === '' ? undefined : [...this.users.values()].find((u) => !u.isActive && u.email === email)
    const fields = {
      email,
      passwordHash: input.passwordHash,
      level: input.level,
      setupToken: input.setupToken ?? '',
      isActive: true,
    }
    if (removed) return this.update(removed.id, { ...fields, ...(input.firstName !== undefined ? { firstName: input.firstName } : {}) })
    const now = this.clock.now().toISOString()
    const user: User = {
      id: randomUUID(),
      firstName: input.firstName ?? '',
      lastName: '',
      createdAt: now,
      updatedAt: now,
      lastLogin: null,
      version: 1,
      ...fields,
    }
    await insertRows(this.client, 'users', [userRow(user)])
    await this.publish({ type: 'user', ...user })
    return user
  }

  /** Applies `patch` to the user as stored now. */
  async update(id: string, patch: Partial<Omit<User, 'id' | 'version' | 'createdAt'>>): Promise<User> {
    const outcome = await this.updates.update<User>({
      object: { kind: 'account', id: `user:${id}` },
      read: async () => {
        const [row] = await queryRows<UserRow>(this.client, 'SELECT * FROM users FINAL WHERE id = {id:String}', { id })
        return row ? fromUserRow(row) : undefined
      },
      change: (current) => ({ ...current, ...patch, updatedAt: this.clock.now().toISOString() }),
      write: async (next) => {
        await insertRows(this.client, 'users', [userRow(next)])
        await this.publish({ type: 'user', ...next })
      },
    })
    if (outcome.status !== 'written') throw new Error(`no user ${id}`)
    return outcome.next
  }

  // Invitations.

  /** Open invitations (not accepted, not revoked; expired ones too, marked by the caller), newest first. */
  invitations(): Invite[] {
    return [...this.invites.values()].filter((i) => !i.deleted).sort((a, b) => b.createdAt.localeCompare(a.createdAt))
  }

  invite(id: string): Invite | undefined {
    const invite = this.invites.get(id)
    return invite && !invite.deleted ? invite : undefined
  }

  /** The open, unexpired invitation a link's token opens. */
  inviteByToken(token: string): Invite | undefined {
    const hash = sha256(token)
    const now = this.clock.now().toISOString()
    return this.invitations().find((i) => i.tokenHash === hash && i.expiresAt > now)
  }

  isExpired(invite: Invite): boolean {
    return invite.expiresAt <= this.clock.now().toISOString()
  }

  /** Returns the invitation and its link's token (shown once: only its hash is kept). */
  async createInvite(input: {
    targetEmail: string
    firstName: string
    level: number
    createdBy: string
  }): Promise<{ invite: Invite; token: string }> {
    const token = newToken()
    const now = this.clock.now()
    const invite: Invite = {
      id: randomUUID(),
      tokenHash: sha256(token),
      targetEmail: normalEmail(input.targetEmail),
      firstName: input.firstName,
      level: input.level,
      createdBy: input.createdBy,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + INVITE_DAYS * DAY_MS).toISOString(),
      deleted: false,
      version: 1,
    }
    await insertRows(this.client, 'organization_invites', [inviteRow(invite)])
    await this.publish({ type: 'invite', ...invite })
    return { invite, token }
  }

  /**
   * Closes an invitation (accepted or revoked): true for the one caller that closed it, false when it was
   * closed already, here or in another process (the claim on its version decides).
   */
  async closeInvite(id: string): Promise<boolean> {
    const outcome = await this.updates.update<Invite>({
      object: { kind: 'account', id: `invite:${id}` },
      read: async () => {
        const [row] = await queryRows<InviteRow>(this.client, 'SELECT * FROM organization_invites FINAL WHERE id = {id:String}', { id })
        return row ? fromInviteRow(row) : undefined
      },
      change: (current) => (current.deleted ? null : { ...current, deleted: true }),
      write: async (next) => {
        await insertRows(this.client, 'organization_invites', [inviteRow(next)])
        await this.publish({ type: 'invite', ...next })
      },
    })
    return outcome.status === 'written'
  }

  // Sessions.

  /** A new session: the cookie's value is returned once; only its hash is stored. */
  async createSession(userId: string, keyId = ''): Promise<{ token: string; session: Session }> {
    const token = newToken()
    const now = this.clock.now()
    const session: Session = {
      id: sha256(token),
      userId,
      keyId,
      csrfToken: newToken(),
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + SESSION_DAYS * DAY_MS).toISOString(),
    }
    await insertRows(this.client, 'user_sessions', [sessionRow(session, 0)])
    return { token, session }
  }

  /** The live session with this cookie value (see the top of this file for where it is read from). */
  async session(token: string): Promise<Session | undefined> {
    const id = sha256(token)
    const now = this.clock.now()
    let session = this.sessions?.get(id)
    if (!session) {
      const [row] = await queryRows<SessionRow>(
        this.client,
        `SELECT * FROM user_sessions FINAL WHERE id = {id:String} AND is_deleted = 0 AND expires_at > fromUnixTimestamp64Milli({now:Int64})`,
        { id, now: now.getTime() },
      )
      if (!row) return undefined
      session = fromSessionRow(row)
      if (this.sessions) {
        // Sessions are few; a bound all the same, the oldest read forgotten first (read again if used).
        if (this.sessions.size >= MAX_HELD_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!)
        this.sessions.set(id, session)
      }
    }
    if (session.expiresAt <= now.toISOString()) return undefined
    return (await this.lookUp(() => this.users.get(session.userId)))?.isActive ? session : undefined
  }

  /** Ends one session at once, in every process. */
  async endSession(session: Session): Promise<void> {
    this.sessions?.delete(session.id)
    await insertRows(this.client, 'user_sessions', [sessionRow(session, 1)])
  }

  /** Ends every session of `userId` (but `keep`): after a password change, or when the user is removed. */
  async endSessionsOf(userId: string, keep?: string): Promise<void> {
    const rows = await queryRows<SessionRow>(
      this.client,
      'SELECT * FROM user_sessions FINAL WHERE user_id = {user:String} AND is_deleted = 0',
      {
        user: userId,
      },
    )
    const ended = rows.map(fromSessionRow).filter((s) => s.id !== keep)
    for (const [id, s] of this.sessions ?? []) if (s.userId === userId && id !== keep) this.sessions!.delete(id)
    await insertRows(
      this.client,
      'user_sessions',
      ended.map((s) => sessionRow(s, 1)),
    )
  }

  // Who a key or a session acts as.

  /** The user a key belongs to: its own, or for a key made before accounts (or at bootstrap), the owner. */
  keyUser(key: Pick<PersonalApiKey, 'userId'>): User | undefined {
    const user = key.userId ? this.users.get(key.userId) : this.owner()
    return user?.isActive ? user : undefined
  }

  /** `key` acting with what both it and its user's role hold; undefined when its user is no longer a member. */
  limitKey<K extends PersonalApiKey>(key: K): K | undefined {
    // Before the first start sets accounts up (the CLI on a new data directory), keys act as they are.
    if (!key.userId && !this.owner()) return key
    const user = this.keyUser(key)
    if (!user) return undefined
    return user.level >= LEVELS.admin ? key : { ...key, scopes: withinLevel(key.scopes, user.level) }
  }

  /**
   * The live session with this cookie value as a caller: a password session acts as its user with the role's
   * scopes; a session opened with a key acts as that key (`keyById`: the key as it is now, role-limited), and
   * ends with it.
   */
  async sessionGrant(token: string, keyById: (id: string) => PersonalApiKey | undefined): Promise<SessionGrant | undefined> {
    const session = await this.session(token)
    if (!session) return undefined
    const user = this.users.get(session.userId)!
    if (session.keyId) {
      const key = keyById(session.keyId)
      return key ? { principal: { ...key, sessionId: session.id }, csrfToken: session.csrfToken } : undefined
    }
    return { principal: userPrincipal(user, session.id), csrfToken: session.csrfToken }
  }

  async renameOrganization(name: string): Promise<void> {
    const org = this.organization()
    const outcome = await this.updates.update<Organization>({
      object: { kind: 'account', id: `organization:${org.id}` },
      read: async () => {
        const [row] = await queryRows<OrganizationRow>(this.client, 'SELECT * FROM organization FINAL WHERE id = {id:String}', {
          id: org.id,
        })
        return row ? fromOrganizationRow(row) : undefined
      },
      change: (current) => (current.name === name ? null : { ...current, name }),
      write: async (next) => {
        await insertRows(this.client, 'organization', [{ id: next.id, name: next.name, created_at: next.createdAt, version: next.version }])
        await this.publish({ type: 'organization', ...next })
      },
    })
    if (outcome.status === 'missing') throw new Error('no organization')
  }

  async recordLogin(id: string): Promise<void> {
    await this.update(id, { lastLogin: this.clock.now().toISOString() })
  }
}

/** A user acting through a password session: the role's scopes, every project. */
export function userPrincipal(user: User, sessionId?: string): PersonalApiKey {
  return {
    id: `user:${user.id}`,
    label: user.email,
    maskValue: '',
    scopes: scopesOfLevel(user.level),
    scopedTeams: [],
    createdAt: user.createdAt,
    lastUsedAt: null,
    userId: user.id,
    ...(sessionId ? { sessionId } : {}),
  }
}

interface OrganizationRow {
  id: string
  name: string
  created_at: string
  version: string
}
interface UserRow {
  id: string
  email: string
  first_name: string
  last_name: string
  password_hash: string
  level: number
  is_active: number
  setup_token: string
  created_at: string
  updated_at: string
  last_login: string
  version: string
}
interface InviteRow {
  id: string
  token_sha256: string
  target_email: string
  first_name: string
  level: number
  created_by: string
  created_at: string
  expires_at: string
  is_deleted: number
  version: string
}
interface SessionRow {
  id: string
  user_id: string
  key_id: string
  csrf_token: string
  created_at: string
  expires_at: string
  is_deleted: number
  version: string
}

const iso = (value: string): string => new Date(value).toISOString()

function fromOrganizationRow(row: OrganizationRow): Organization {
  return { id: row.id, name: row.name, createdAt: iso(row.created_at), version: Number(row.version) }
}

function fromUserRow(row: UserRow): User {
  const lastLogin = iso(row.last_login)
  return {
    id: row.id,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    passwordHash: row.password_hash,
    level: Number(row.level),
    isActive: Number(row.is_active) === 1,
    setupToken: row.setup_token,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    lastLogin: lastLogin === NEVER ? null : lastLogin,
    version: Number(row.version),
  }
}

function userRow(u: User): Record<string, unknown> {
  return {
    id: u.id,
    email: u.email,
    first_name: u.firstName,
    last_name: u.lastName,
    password_hash: u.passwordHash,
    level: u.level,
    is_active: u.isActive ? 1 : 0,
    setup_token: u.setupToken,
    created_at: u.createdAt,
    updated_at: u.updatedAt,
    last_login: u.lastLogin ?? NEVER,
    version: u.version,
  }
}

function fromInviteRow(row: InviteRow): Invite {
  return {
    id: row.id,
    tokenHash: row.token_sha256,
    targetEmail: row.target_email,
    firstName: row.first_name,
    level: Number(row.level),
    createdBy: row.created_by,
    createdAt: iso(row.created_at),
    expiresAt: iso(row.expires_at),
    deleted: Number(row.is_deleted) === 1,
    version: Number(row.version),
  }
}

function inviteRow(i: Invite): Record<string, unknown> {
  return {
    id: i.id,
    token_sha256: i.tokenHash,
    target_email: i.targetEmail,
    first_name: i.firstName,
    level: i.level,
    created_by: i.createdBy,
    created_at: i.createdAt,
    expires_at: i.expiresAt,
    is_deleted: i.deleted ? 1 : 0,
    version: i.version,
  }
}

function fromSessionRow(row: SessionRow): Session {
  return {
    id: row.id,
    userId: row.user_id,
    keyId: row.key_id,
    csrfToken: row.csrf_token,
    createdAt: iso(row.created_at),
    expiresAt: iso(row.expires_at),
  }
}

/** A session's row: version 1 while it lives, 2 once ended (ending is final: nothing writes it again). */
function sessionRow(s: Session, deleted: 0 | 1): Record<string, unknown> {
  return {
    id: s.id,
    user_id: s.userId,
    key_id: s.keyId,
    csrf_token: s.csrfToken,
    created_at: s.createdAt,
    expires_at: s.expiresAt,
    is_deleted: deleted,
    version: deleted + 1,
  }
}
