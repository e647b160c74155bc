// Management-API authentication: `Authorization: Bearer <personal API key>`, the scope a route names,
// and the project in the path. Scopes are PostHog's: `<object>:read|write`, or `*` for all; write
// implies read.
import type { FastifyRequest } from 'fastify'
import { wrenError } from '../errors'
import type { PersonalApiKey, Project, Tenants } from '../tenancy'

export const SCOPE_OBJECTS = [
  'access_control',
  'action',
  'activity_log',
  'annotation',
  'cohort',
  'dashboard',
  'early_access_feature',
  'event_definition',
  'experiment',
  'export',
  'feature_flag',
  'group',
  'insight',
  'notebook',
  'organization',
  'person',
  'project',
  'property_definition',
  'query',
  'session_recording',
  'session_recording_playlist',
  'sharing_configuration',
  'survey',
  'user',
  'webhook',
] as const

export function isValidScope(scope: string): boolean {
  if (scope === '*') return true
  const [object, access] = scope.split(':')
  return (SCOPE_OBJECTS as readonly string[]).includes(object) && (access === 'read' || access === 'write')
}

export function hasScope(key: PersonalApiKey, required: string): boolean {
  if (key.scopes.includes('*') || key.scopes.includes(required)) return true
  const [object, access] = required.split(':')
  return access === 'read' && key.scopes.includes(`${object}:write`)
}

/** The token of `Authorization: Bearer <token>`, if the header has that form. */
export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null
  return match ? match[1] : null
}

export function personalKeyFrom(request: FastifyRequest, store: Tenants): PersonalApiKey {
  const token = bearerToken(request)
  if (token === null)
    throw wrenError('not_authenticated', 'Authentication credentials were not provided. Send `Authorization: Bearer <personal API key>`.')
  const key = store.keyByValue(token)
  if (!key) throw wrenError('authentication_failed', 'Personal API key found in request Authorization header is invalid.')
  store.markKeyUsed(key)
  return key
}

export interface Caller {
  key: PersonalApiKey
  project: Project
}

/** The query parameter that carries a sharing token (PostHog's name). */
export const SHARING_TOKEN_PARAM = 'sharing_access_token'

/** What an enabled sharing configuration opens: one recording of one project. */
export interface SharedRecording {
  teamId: number
  sessionId: string
}

/** Sharing tokens as the request path checks them (recordings/sharing-store.ts implements it). */
export interface SharingTokens {
  /** The recording an enabled configuration with this token shares, or null (unknown, rotated or disabled alike). */
  findEnabled(token: string): Promise<SharedRecording | null>
}

/** A caller let in by a sharing token rather than a key: it may read one recording of `project`. */
export interface SharedCaller {
  key: null
  project: Project
  sessionId: string
}

export function sharingTokenOf(request: FastifyRequest): string | null {
  const value = (request.query as Record<string, unknown> | undefined)?.[SHARING_TOKEN_PARAM]
  return typeof value === 'string' && value !== '' ? value : null
}

const grants = new WeakMap<FastifyRequest, Promise<SharedRecording | null>>()

/** What the request's sharing token opens, looked up once per request (the failure limit asks too), or null. */
export function sharingGrantOf(request: FastifyRequest, tokens: SharingTokens): Promise<SharedRecording | null> {
  const token = sharingTokenOf(request)
  if (token === null) return Promise.resolve(null)
  let grant = grants.get(request)
  if (!grant) grants.set(request, (grant = tokens.findEnabled(token)))
  return grant
}

/**
 * A request that shows `?sharing_access_token=`: the token alone decides (as in PostHog, where it is
 * tried before any key), and it opens only a GET of the recording it shares, in that recording's project.
 */
export async function authorizeShared(
  request: FastifyRequest,
  store: Tenants,
  tokens: SharingTokens,
  sessionParam: string,
): Promise<SharedCaller> {
  if (request.method !== 'GET' && request.method !== 'HEAD')
    throw wrenError('authentication_failed', 'A sharing access token is accepted only for GET requests.')
  const grant = await sharingGrantOf(request, tokens)
  if (!grant) throw wrenError('authentication_failed', 'Sharing access token is invalid.')
  const params = request.params as Record<string, string | undefined>
  const project = store.byId(Number(params.project_id))
  if (!project || project.id !== grant.teamId || params[sessionParam] !== grant.sessionId)
    throw wrenError('permission_denied', 'A sharing access token opens only the recording it shares.')
  return { key: null, project, sessionId: grant.sessionId }
}

/** Checks key, scope and project; returns who is calling for which project. */
export function authorize(request: FastifyRequest, store: Tenants, scope: string, projectIdParam: string | undefined): Caller {
  const key = personalKeyFrom(request, store)
  if (!hasScope(key, scope)) throw wrenError('permission_denied', `API key missing required scope '${scope}'`)
  const projectId = Number(projectIdParam)
  if (!Number.isInteger(projectId) || projectId <= 0)
    throw wrenError('invalid_project_id', `Project id must be a positive integer, got '${projectIdParam}'.`, 'project_id')
  const project = store.byId(projectId)
  if (!project) throw wrenError('not_found', `Project ${projectId} does not exist.`)
  if (!canReach(key, projectId)) throw wrenError('permission_denied', "You don't have access to the project.")
  return { key, project }
}

export function canReach(key: PersonalApiKey, projectId: number): boolean {
  return key.scopedTeams.length === 0 || key.scopedTeams.includes(projectId)
}

/** The scopes in `scopes` that `holder` does not hold (write implies read; `*` only from `*`). */
export function scopesBeyond(holder: PersonalApiKey, scopes: readonly string[]): string[] {
  return scopes.filter((s) => (s === '*' ? !holder.scopes.includes('*') : !hasScope(holder, s)))
}

/** Whether a key limited to `scopedTeams` (empty: every project) reaches no project `holder` cannot. */
export function projectsWithin(holder: PersonalApiKey, scopedTeams: readonly number[]): boolean {
  if (holder.scopedTeams.length === 0) return true
  return scopedTeams.length > 0 && scopedTeams.every((t) => holder.scopedTeams.includes(t))
}

/**
 * A key manages (creates, lists, revokes) only keys that can do no more than itself: their scopes and
 * projects are a subset of its own, so no key can mint its way to more.
 */
export function canManageKey(holder: PersonalApiKey, key: Pick<PersonalApiKey, 'scopes' | 'scopedTeams'>): boolean {
  return scopesBeyond(holder, key.scopes).length === 0 && projectsWithin(holder, key.scopedTeams)
}
