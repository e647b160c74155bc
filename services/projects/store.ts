// Projects and personal API keys. ClickHouse holds them; this store keeps the (small) set in memory so
// that capture and auth never query on the request path.
import { createHash, randomBytes } from 'node:crypto'
import type { ClickHouseClient } from '../shared/clickhouse'
import { insertRows, queryRows } from '../shared/clickhouse'
import type { Clock } from '../shared/clock'

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
}

export const PERSONAL_KEY_PREFIX = 'phx_'
export const PROJECT_KEY_PREFIX = 'phc_'

export function hashKey(value: string): string {
  return createHash('sha256').update(value).digest('hex')
}

export function generateKey(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url').replace(/[-_]/g, '').slice(0, 40)
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
}

export class ProjectStore {
  private readonly projects = new Map<number, Project & { version: number }>()
  private readonly keysByHash = new Map<string, PersonalApiKey>()

  private constructor(
    private readonly client: ClickHouseClient,
    private readonly clock: Clock,
  ) {}

  static async load(client: ClickHouseClient, clock: Clock): Promise<ProjectStore> {
    const store = new ProjectStore(client, clock)
    await store.refresh()
    return store
  }

  /** Re-reads both tables (cheap: they are small). */
  async refresh(): Promise<void> {
    const projects = await queryRows<ProjectRow>(this.client, 'SELECT * FROM projects FINAL WHERE is_deleted = 0 ORDER BY id')
    this.projects.clear()
    for (const row of projects) this.projects.set(Number(row.id), fromProjectRow(row))
    const keys = await queryRows<KeyRow>(this.client, 'SELECT * FROM personal_api_keys FINAL WHERE is_deleted = 0')
    this.keysByHash.clear()
    for (const row of keys) this.keysByHash.set(row.secure_value, fromKeyRow(row))
  }

  isEmpty(): boolean {
    return this.projects.size === 0
  }

  list(): Project[] {
    return [...this.projects.values()].map(({ version: _v, ...p }) => p)
  }

  byId(id: number): Project | undefined {
    const p = this.projects.get(id)
    if (!p) return undefined
    const { version: _v, ...project } = p
    return project
  }

  byToken(token: string): Project | undefined {
    for (const p of this.projects.values()) if (p.apiToken === token) return this.byId(p.id)
    return undefined
  }

  keyByValue(value: string): PersonalApiKey | undefined {
    return this.keysByHash.get(hashKey(value))
  }

  async createProject(input: { name: string; apiToken?: string; timezone?: string }): Promise<Project> {
    const id = Math.max(0, ...this.projects.keys()) + 1
    const project = {
      id,
      name: input.name,
      apiToken: input.apiToken ?? generateKey(PROJECT_KEY_PREFIX),
      timezone: input.timezone ?? 'UTC',
      settings: {},
      createdAt: this.clock.now().toISOString(),
      version: 1,
    }
    await this.writeProject(project)
    return this.byId(id)!
  }

  async updateProject(id: number, patch: Partial<Pick<Project, 'name' | 'timezone' | 'settings'>>): Promise<Project> {
    const current = this.projects.get(id)
    if (!current) throw new Error(`no project ${id}`)
    await this.writeProject({ ...current, ...patch, version: current.version + 1 })
    return this.byId(id)!
  }

  /** Returns the key's value: shown once, stored only as a hash. */
  async createPersonalKey(input: { label: string; scopes: string[]; scopedTeams?: number[]; value?: string }): Promise<{ key: PersonalApiKey; value: string }> {
    const value = input.value ?? generateKey(PERSONAL_KEY_PREFIX)
    const key: PersonalApiKey = {
      id: randomBytes(8).toString('hex'),
      label: input.label,
      maskValue: `${value.slice(0, 4)}...${value.slice(-4)}`,
      scopes: input.scopes,
      scopedTeams: input.scopedTeams ?? [],
      createdAt: this.clock.now().toISOString(),
    }
    await insertRows(this.client, 'personal_api_keys', [
      { id: key.id, label: key.label, secure_value: hashKey(value), mask_value: key.maskValue, scopes: key.scopes, scoped_teams: key.scopedTeams, created_at: key.createdAt, is_deleted: 0, version: 1 },
    ])
    this.keysByHash.set(hashKey(value), key)
    return { key, value }
  }

  private async writeProject(p: Project & { version: number }): Promise<void> {
    await insertRows(this.client, 'projects', [
      { id: p.id, name: p.name, api_token: p.apiToken, timezone: p.timezone, settings: JSON.stringify(p.settings), created_at: p.createdAt, is_deleted: 0, version: p.version },
    ])
    this.projects.set(p.id, p)
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

function fromKeyRow(row: KeyRow): PersonalApiKey {
  return {
    id: row.id,
    label: row.label,
    maskValue: row.mask_value,
    scopes: row.scopes,
    scopedTeams: row.scoped_teams.map(Number),
    createdAt: new Date(row.created_at).toISOString(),
  }
}
