// Object-level access controls, in PostHog's shape: a rule per (resource, object, member) with a level
// from none < viewer < editor. Wren has no users, so a member is a personal API key; a key holding
// every scope (*) administers access and always has the highest level.
import type { ClickHouseClient } from '../clickhouse'
import { insertRows, queryRows } from '../clickhouse'
import { wrenError } from '../errors'
import type { Clock } from '../clock'
import type { PersonalApiKey } from '../tenancy'

export const ACCESS_LEVELS = ['none', 'viewer', 'editor'] as const
export type AccessLevel = (typeof ACCESS_LEVELS)[number]
export const DEFAULT_LEVEL: AccessLevel = 'editor'

interface Rule {
  member: string
  access_level: AccessLevel
  created_at: string
  updated_at: string
}

export class AccessControls {
  constructor(
    private readonly client: ClickHouseClient,
    private readonly clock: Clock,
  ) {}

  private async rules(teamId: number, resource: string, resourceId: string): Promise<Rule[]> {
    return queryRows<Rule>(
      this.client,
      `SELECT member, argMax(access_level, version) AS access_level, min(created_at) AS created_at, max(updated_at) AS updated_at, argMax(is_deleted, version) AS deleted
       FROM access_controls WHERE team_id = {t:Int64} AND resource = {r:String} AND resource_id = {id:String}
       GROUP BY member HAVING deleted = 0 ORDER BY member`,
      { t: teamId, r: resource, id: resourceId },
    )
  }

  async levelFor(key: PersonalApiKey, teamId: number, resource: string, resourceId: string): Promise<AccessLevel> {
    if (key.scopes.includes('*')) return 'editor'
    const rules = await this.rules(teamId, resource, resourceId)
    return (rules.find((r) => r.member === key.id) ?? rules.find((r) => r.member === ''))?.access_level ?? DEFAULT_LEVEL
  }

  /**
   * The level this key has on every object of `resource` that has a rule for it (its own rule, else the
   * rule for everyone), in one query; objects not in the map have the default level.
   */
  async explicitLevels(key: PersonalApiKey, teamId: number, resource: string): Promise<Map<string, AccessLevel>> {
    return explicitLevels(this.client, key, teamId, resource)
  }

  async require(
    key: PersonalApiKey,
    teamId: number,
    resource: string,
    resourceId: string,
    needed: 'viewer' | 'editor',
  ): Promise<AccessLevel> {
    const level = await this.levelFor(key, teamId, resource, resourceId)
    if (ACCESS_LEVELS.indexOf(level) < ACCESS_LEVELS.indexOf(needed))
      throw wrenError('permission_denied', `You need ${needed} access to this ${resource}; you have '${level}'.`)
    return level
  }

  async describe(key: PersonalApiKey, teamId: number, resource: string, resourceId: string): Promise<Record<string, unknown>> {
    const rules = await this.rules(teamId, resource, resourceId)
    return {
      access_controls: rules.map((r) => ({
        access_level: r.access_level,
        resource,
        resource_id: resourceId,
        organization_member: r.member || null,
        role: null,
        created_by: null,
        created_at: r.created_at,
        updated_at: r.updated_at,
      })),
      available_access_levels: ACCESS_LEVELS,
      default_access_level: DEFAULT_LEVEL,
      minimum_access_level: 'none',
      maximum_access_level: 'editor',
      user_access_level: await this.levelFor(key, teamId, resource, resourceId),
      user_can_edit_access_levels: key.scopes.includes('*'),
    }
  }

  async set(key: PersonalApiKey, teamId: number, resource: string, resourceId: string, body: Record<string, unknown>): Promise<void> {
    if (!key.scopes.includes('*')) throw wrenError('permission_denied', `Must hold every scope (*) to modify ${resource} permissions.`)
    const level = body.access_level
    if (level !== null && !(ACCESS_LEVELS as readonly unknown[]).includes(level))
      throw wrenError('invalid_input', `Invalid access level. Must be one of: ${ACCESS_LEVELS.join(', ')}`, 'access_level')
    if (body.role)
      throw wrenError(
        'invalid_input',
        'Roles are not supported; scope a rule to an organization_member (a personal API key id) or to everyone.',
        'role',
      )
    const member = body.organization_member ?? ''
    if (typeof member !== 'string')
      throw wrenError('invalid_input', 'organization_member must be a personal API key id.', 'organization_member')
    const now = this.clock.now().toISOString()
    const [prev] = await queryRows<{ v: number }>(
      this.client,
      `SELECT max(version) AS v FROM access_controls WHERE team_id = {t:Int64} AND resource = {r:String} AND resource_id = {id:String} AND member = {m:String}`,
      { t: teamId, r: resource, id: resourceId, m: member },
    )
    await insertRows(this.client, 'access_controls', [
      {
        team_id: teamId,
        resource,
        resource_id: resourceId,
        member,
        access_level: level ?? 'none',
        created_at: now,
        updated_at: now,
        is_deleted: level === null ? 1 : 0,
        version: Number(prev?.v ?? 0) + 1,
      },
    ])
  }
}

/** AccessControls.explicitLevels, for readers that only need to know what is hidden (no clock). */
export async function explicitLevels(
  client: ClickHouseClient,
  key: PersonalApiKey,
  teamId: number,
  resource: string,
): Promise<Map<string, AccessLevel>> {
  if (key.scopes.includes('*')) return new Map()
  const rows = await queryRows<{ resource_id: string; level: AccessLevel }>(
    client,
    `SELECT resource_id, if(countIf(member = {m:String}) > 0, anyIf(access_level, member = {m:String}), any(access_level)) AS level FROM (
       SELECT resource_id, member, argMax(access_level, version) AS access_level, argMax(is_deleted, version) AS deleted
       FROM access_controls WHERE team_id = {t:Int64} AND resource = {r:String} AND member IN ('', {m:String})
       GROUP BY resource_id, member HAVING deleted = 0)
     GROUP BY resource_id`,
    { t: teamId, r: resource, m: key.id },
  )
  return new Map(rows.map((r) => [r.resource_id, r.level]))
}
