// Projects and personal API keys. ClickHouse holds them; this store keeps the (small) set in memory so
// that capture and auth never query on the request path. Every write is published on the configuration
// log (platform/log/config-log.ts), from which every process's store keeps up; project ids come from its allocator.
import { DEFAULT_TEST_ACCOUNT_FILTERS } from '../analytics/project-settings'
import { createHash, randomBytes, randomInt } from 'node:crypto'
import type { ClickHouseClient } from '../platform/clickhouse'
import { insertRows, queryRows } from '../platform/clickhouse'
import type { Clock } from '../platform/clock'
import type { KeyOwners, PersonalApiKey, Project, SessionGrant, Tenants } from '../platform/tenancy'
import type { ConfigChange, ConfigLog } from '../platform/log/config-log'
import { VersionedUpdates } from '../platform/versioned-update'

export const PERSONAL_KEY_PREFIX = 'phx_'
export const PROJECT_KEY_PREFIX = 'phc_'

/** How long uses of keys gather in memory before one insert records them (never a write per request). */
const USAGE_FLUSH_MS = 30_000

export function hashKey(value: string): string {
  return createHash('sha256').update(value).digest('hex')
}

const KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const KEY_LENGTH = 40

/** A key as PostHog's look: the prefix, then 40 letters and digits drawn uniformly (~238 bits). */
export function generateKey(prefix: string): string {
  let key = prefix
  for (let i = 0; i < KEY_LENGTH; i++) key += KEY_ALPHABET[randomInt(KEY_ALPHABET.length)]
  return key
}

interface ProjectRow {
  id: string
  name: string
  api_token: string
  timezone: string
  settings: string
  created_at: string
  is_deleted: number
  version: string
}
interface KeyRow {
  id: string
  label: string
  secure_value: string
  mask_value: string
  scopes: string[]
  scoped_teams: string[]
  created_at: string
  is_deleted: number
  version: string
  user_id: string
}

type StoredKey = PersonalApiKey & { hash: string; version: number }

export class ProjectStore implements Tenants {
  private readonly projects = new Map<number, Project & { version: number }>()
  /** Project API key → project id: capture and decide look a project up by its key on every request. */
  private readonly tokens = new Map<string, number>()
  /** Each held project as callers see it (without its version), made once per version rather than per lookup. */
  private readonly shown = new WeakMap<Project & { version: number }, Project>()
  private readonly keysByHash = new Map<string, StoredKey>()
  /** Revoked keys: a refresh whose read began before the revocation landed, or an older change, must not bring them back. */
  private readonly revoked = new Set<string>()
  /** Key id → last use not yet written. */
  private readonly pendingUsage = new Map<string, string>()
  private usageTimer: NodeJS.Timeout | null = null
  /** This process's own key (createProcessKey): apart from the stored keys, so no refresh or change drops it. */
  private processKey: StoredKey | null = null
  private readonly createdHooks: Array<(project: Project) => Promise<void>> = []
  private readonly updates: VersionedUpdates
  /** Users and sessions (attachAccounts, at start): a key acts within its user’s role. */
  private accounts: KeyOwners | null = null

  private constructor(
    private readonly client: ClickHouseClient,
    private readonly clock: Clock,
    private readonly config: ConfigLog,
  ) {
    this.updates = new VersionedUpdates(config)
    config.onChange((change) => this.apply(change))
  }

  static async load(client: ClickHouseClient, clock: Clock, config: ConfigLog): Promise<ProjectStore> {
    const store = new ProjectStore(client, clock, config)
    await store.refresh()
    return store
  }

  /** A project or key stored by any process (this one included): kept when newer than what is held. */
  private apply(change: ConfigChange): void {
    if (change.kind === 'project') {
      const project = change.record as Project & { version: number }
      if ((this.projects.get(project.id)?.version ?? 0) < project.version) this.hold(project)
    } else if (change.kind === 'key') {
      const key = change.record as StoredKey & { deleted?: boolean }
      if (this.revoked.has(key.id)) return
      if (key.deleted) {
        this.revoked.add(key.id)
        this.keysByHash.delete(key.hash)
        return
      }
      const current = this.keysByHash.get(key.hash)
      if (!current) this.keysByHash.set(key.hash, { ...key, lastUsedAt: null })
      else if (current.version < key.version) this.keysByHash.set(key.hash, { ...key, lastUsedAt: current.lastUsedAt })
    }
  }

  /** Reads both tables (cheap: they are small): the projects first, as bootstrapIfEmpty stores its key before its project. */
  async refresh(): Promise<void> {
    const projects = await queryRows<ProjectRow>(this.client, 'SELECT * FROM projects FINAL WHERE is_deleted = 0 ORDER BY id')
    this.projects.clear()
    this.tokens.clear()
    for (const row of projects) this.hold(fromProjectRow(row))
    const keys = await queryRows<KeyRow>(this.client, 'SELECT * FROM personal_api_keys FINAL WHERE is_deleted = 0')
    const usage = await queryRows<{ id: string; last_used_at: string }>(
      this.client,
      'SELECT id, max(last_used_at) AS last_used_at FROM personal_api_key_usage GROUP BY id',
    )
    const usedAt = new Map(usage.map((u) => [u.id, new Date(u.last_used_at).toISOString()]))
    const previous = new Map([...this.keysByHash.values()].map((k) => [k.id, k.lastUsedAt]))
    this.keysByHash.clear()
    for (const row of keys) {
      if (this.revoked.has(row.id)) continue
      const key = fromKeyRow(row)
      key.lastUsedAt = latest(usedAt.get(key.id) ?? null, previous.get(key.id) ?? null)
      this.keysByHash.set(row.secure_value, key)
    }
  }

  isEmpty(): boolean {
    return this.projects.size === 0
  }

  list(): Project[] {
    return [...this.projects.values()].map((p) => this.show(p))
  }

  byId(id: number): Project | undefined {
    const p = this.projects.get(id)
    return p && this.show(p)
  }

  byToken(token: string): Project | undefined {
    const id = this.tokens.get(token)
    const project = id === undefined ? undefined : this.byId(id)
    return project?.apiToken === token ? project : undefined
  }

  private hold(p: Project & { version: number }): void {
    this.projects.set(p.id, p)
    this.tokens.set(p.apiToken, p.id)
  }

  private show(p: Project & { version: number }): Project {
    let project = this.shown.get(p)
    if (!project) {
      const { version: _v, ...rest } = p
      this.shown.set(p, (project = rest))
    }
    return project
  }

  /** From here on, keys act within their users' roles, and sessions are let in. */
  attachAccounts(accounts: KeyOwners): void {
    this.accounts = accounts
  }

  keyByValue(value: string): PersonalApiKey | undefined {
    const hash = hashKey(value)
    const key = this.keysByHash.get(hash)
    if (!key) return this.processKey?.hash === hash ? this.processKey : undefined
    return this.accounts ? this.accounts.limitKey(key) : key
  }

  /** The organization's first owner: whom keys made before accounts belong to. */
  ownerId(): string | undefined {
    return this.accounts?.owner()?.id
  }

  /** A stored key by id, acting within its user's role (for sessions opened with a key). */
  private keyById(id: string): PersonalApiKey | undefined {
    const key = [...this.keysByHash.values()].find((k) => k.id === id)
    return key && (this.accounts ? this.accounts.limitKey(key) : key)
  }

  async sessionByToken(token: string): Promise<SessionGrant | undefined> {
    return this.accounts?.sessionGrant(token, (id) => this.keyById(id))
  }

  /**
   * A key with every scope that lives in this process's memory only, for the CLI on the same data directory
   * (runtime/control.ts): never stored, listed, revocable or counted as used; it dies with the process.
   */
  createProcessKey(): string {
    const value = generateKey(PERSONAL_KEY_PREFIX)
    this.processKey = {
      id: `process-${randomBytes(8).toString('hex')}`,
      label: 'wren process',
      maskValue: `${value.slice(0, 4)}...${value.slice(-4)}`,
      scopes: ['*'],
      scopedTeams: [],
      createdAt: this.clock.now().toISOString(),
      lastUsedAt: null,
      hash: hashKey(value),
      version: 1,
    }
    return value
  }

  listKeys(): PersonalApiKey[] {
    return [...this.keysByHash.values()].map(publicKey).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
  }

  /** Notes a use of `key`; uses are written together later (see USAGE_FLUSH_MS), never one insert per request. */
  markKeyUsed(key: PersonalApiKey): void {
    if (key === this.processKey) return
    const now = this.clock.now().toISOString()
    key.lastUsedAt = now
    // A role-limited copy (keyByValue): the stored key shows the use too.
    const stored = this.keysByHash.get((key as StoredKey).hash)
    if (stored) stored.lastUsedAt = now
    this.pendingUsage.set(key.id, now)
    this.usageTimer ??= setTimeout(() => void this.flushUsage(), USAGE_FLUSH_MS).unref()
  }

  async flushUsage(): Promise<void> {
    if (this.usageTimer) clearTimeout(this.usageTimer)
    this.usageTimer = null
    if (this.pendingUsage.size === 0) return
    const rows = [...this.pendingUsage].map(([id, at]) => ({ id, last_used_at: at }))
    this.pendingUsage.clear()
    // Last-used times are informational: losing one batch to a failed insert is better than retrying forever.
    await insertRows(this.client, 'personal_api_key_usage', rows).catch(() => undefined)
  }

  /** Revokes a key: refused from now on by this process, and by every other once it hears the change. */
  async revokeKey(id: string): Promise<boolean> {
    const outcome = await this.updates.update<StoredKey & { deleted?: boolean }>({
      object: { kind: 'key', id },
      read: async () => {
        const [row] = await queryRows<KeyRow>(
          this.client,
          'SELECT * FROM personal_api_keys FINAL WHERE id = {id:String} AND is_deleted = 0',
          {
            id,
          },
        )
        return row ? fromKeyRow(row) : undefined
      },
      change: (current) => ({ ...current, deleted: true }),
      write: async (next) => {
        this.keysByHash.delete(next.hash)
        this.revoked.add(id)
        await insertRows(this.client, 'personal_api_keys', [{ ...keyRow(next), is_deleted: 1 }])
        await this.config.publish({ kind: 'key', record: next })
      },
    })
    return outcome.status === 'written'
  }

  /** `id` only for the first project of an empty installation (bootstrap): every other id comes from the allocator. */
  async createProject(input: { id?: number; name: string; apiToken?: string; timezone?: string }): Promise<Project> {
    const id = input.id ?? (await this.config.nextId('projects'))
    const project = {
      id,
      name: input.name,
      apiToken: input.apiToken ?? generateKey(PROJECT_KEY_PREFIX),
      timezone: input.timezone ?? 'UTC',
      settings: { test_account_filters: DEFAULT_TEST_ACCOUNT_FILTERS },
      createdAt: this.clock.now().toISOString(),
      version: 1,
    }
    await this.writeProject(project)
    for (const hook of this.createdHooks) await hook(this.byId(id)!)
    return this.byId(id)!
  }

  /** `hook` runs after this process creates a project, before createProject answers (the home dashboard is made so). */
  onCreated(hook: (project: Project) => Promise<void>): void {
    this.createdHooks.push(hook)
  }

  /** Applies `patch` to the project as stored now (so concurrent updates of different fields all stay). */
  async updateProject(id: number, patch: (current: Project) => Partial<Pick<Project, 'name' | 'timezone' | 'settings'>>): Promise<Project> {
    const stored = await this.updates.apply<Project & { version: number }>({
      object: { kind: 'project', id },
      read: async () => {
        const [row] = await queryRows<ProjectRow>(this.client, 'SELECT * FROM projects FINAL WHERE id = {id:UInt64} AND is_deleted = 0', {
          id,
        })
        return row ? fromProjectRow(row) : undefined
      },
      change: (current) => {
        const { version: _v, ...project } = current
        return { ...current, ...patch(project) }
      },
      write: (next) => this.writeProject(next),
    })
    if (!stored) throw new Error(`no project ${id}`)
    const { version: _v, ...project } = stored
    return project
  }

  /** Returns the key's value: shown once, stored only as a hash. */
  async createPersonalKey(input: {
    label: string
    scopes: string[]
    scopedTeams?: number[]
    value?: string
    /** The user it belongs to (none: the owner's). */
    userId?: string
  }): Promise<{ key: PersonalApiKey; value: string }> {
    const value = input.value ?? generateKey(PERSONAL_KEY_PREFIX)
    const key: StoredKey = {
      id: randomBytes(8).toString('hex'),
      label: input.label,
      maskValue: `${value.slice(0, 4)}...${value.slice(-4)}`,
      scopes: input.scopes,
      scopedTeams: input.scopedTeams ?? [],
      createdAt: this.clock.now().toISOString(),
      lastUsedAt: null,
      ...(input.userId ? { userId: input.userId } : {}),
      hash: hashKey(value),
      version: 1,
    }
    await insertRows(this.client, 'personal_api_keys', [keyRow(key)])
    this.keysByHash.set(key.hash, key)
    await this.config.publish({ kind: 'key', record: key })
    return { key: publicKey(key), value }
  }

  /** Writes what is pending and stops the usage timer. */
  async close(): Promise<void> {
    await this.flushUsage()
  }

  private async writeProject(p: Project & { version: number }): Promise<void> {
    await insertRows(this.client, 'projects', [
      {
        id: p.id,
        name: p.name,
        api_token: p.apiToken,
        timezone: p.timezone,
        settings: JSON.stringify(p.settings),
        created_at: p.createdAt,
        is_deleted: 0,
        version: p.version,
      },
    ])
    this.hold(p)
    await this.config.publish({ kind: 'project', record: p })
  }
}

function fromProjectRow(row: ProjectRow): Project & { version: number } {
  return {
    id: Number(row.id),
    name: row.name,
    apiToken: row.api_token,
    timezone: row.timezone,
    settings: JSON.parse(row.settings || '{}') as Record<string, unknown>,
    createdAt: new Date(row.created_at).toISOString(),
    version: Number(row.version),
  }
}

function fromKeyRow(row: KeyRow): StoredKey {
  return {
    id: row.id,
    label: row.label,
    maskValue: row.mask_value,
    scopes: row.scopes,
    scopedTeams: row.scoped_teams.map(Number),
    createdAt: new Date(row.created_at).toISOString(),
    lastUsedAt: null,
    ...(row.user_id ? { userId: row.user_id } : {}),
    hash: row.secure_value,
    version: Number(row.version),
  }
}

function keyRow(k: StoredKey): Record<string, unknown> {
  return {
    id: k.id,
    label: k.label,
    secure_value: k.hash,
    mask_value: k.maskValue,
    scopes: k.scopes,
    scoped_teams: k.scopedTeams,
    created_at: k.createdAt,
    is_deleted: 0,
    version: k.version,
    user_id: k.userId ?? '',
  }
}

function publicKey({ hash: _h, version: _v, ...key }: StoredKey): PersonalApiKey {
  return key
}

function latest(a: string | null, b: string | null): string | null {
  if (a === null || b === null) return a ?? b
  return a > b ? a : b
}
