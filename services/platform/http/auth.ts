// Management-API authentication: a personal API key (`Authorization: Bearer`, or `personal_api_key` in a
// JSON body or the query string, as PostHog takes it), the scope a route names, and the project in the
// path (an id, or `@current`). Scopes are PostHog's: `<object>:read|write`, or `*` for all; write
// implies read.
import type { FastifyRequest } from 'fastify'
import '@fastify/cookie'
import { timingSafeEqual } from 'node:crypto'
import { wrenError } from '../errors'
import type { PersonalApiKey, Project, SessionGrant, Tenants } from '../tenancy'

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
  'organization_member',
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

/** The name a personal API key goes by in a JSON body or the query string (PostHog's). */
export const PERSONAL_KEY_PARAM = 'personal_api_key'

export interface ShownKey {
  value: string
  source: 'Authorization header' | 'body' | 'query string'
}

/**
 * The personal API key a request shows, and where. PostHog's order: `Authorization: Bearer`, then
 * `personal_api_key` in a JSON body, then in the query string; only the first one found is tried, so a
 * wrong key in the header is refused even beside a right one in the query string.
 */
export function shownKey(request: FastifyRequest): ShownKey | null {
  const header = request.headers.authorization
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null
  if (match) return { value: match[1], source: 'Authorization header' }
  const body = request.body
  if (typeof body === 'object' && body !== null && !Array.isArray(body) && PERSONAL_KEY_PARAM in body)
    return { value: lastString((body as Record<string, unknown>)[PERSONAL_KEY_PARAM]), source: 'body' }
  const query = request.query as Record<string, unknown> | undefined
  if (query && PERSONAL_KEY_PARAM in query) return { value: lastString(query[PERSONAL_KEY_PARAM]), source: 'query string' }
  return null
}

/** A repeated query parameter counts once, by its last value (as Django's request.GET reads it); a non-string is no key. */
function lastString(value: unknown): string {
  const last = Array.isArray(value) ? value.at(-1) : value
  return typeof last === 'string' ? last : ''
}

/**
 * The caller's personal API key. It is a credential, not input: `personal_api_key` is taken out of the body
 * and the query string (wherever the key came from), so no schema refuses it as an unknown field and no
 * handler stores or echoes it.
 */
export function personalKeyFrom(request: FastifyRequest, store: Tenants): PersonalApiKey {
  const shown = shownKey(request)
  if (shown === null)
    throw wrenError('not_authenticated', 'Authentication credentials were not provided. Send `Authorization: Bearer <personal API key>`.')
  const key = store.keyByValue(shown.value)
  if (!key) throw wrenError('authentication_failed', `Personal API key found in request ${shown.source} is invalid.`)
  const body = request.body
  if (typeof body === 'object' && body !== null) delete (body as Record<string, unknown>)[PERSONAL_KEY_PARAM]
  delete (request.query as Record<string, unknown>)[PERSONAL_KEY_PARAM]
  store.markKeyUsed(key)
  return key
}

/** The cookie of a signed-in browser session (HttpOnly; accounts/routes.ts sets it at sign-in). */
export const SESSION_COOKIE = 'wren_session'
/** The cookie the app reads its CSRF token from (not HttpOnly: the app's script reads it), and the header it echoes it in (PostHog's). */
export const CSRF_COOKIE = 'wren_csrftoken'
export const CSRF_HEADER = 'x-csrftoken'
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** The session cookie's value, or null. */
export function sessionTokenOf(request: FastifyRequest): string | null {
  const header = request.headers.cookie
  if (!header || !header.includes(SESSION_COOKIE)) return null
  const value = request.server.parseCookie(header)[SESSION_COOKIE]
  return value ? value : null
}

const sessions = new WeakMap<FastifyRequest, Promise<SessionGrant | undefined>>()

/** The request's live session, looked up once per request (the failure limit asks too), or undefined. */
export function sessionOf(request: FastifyRequest, store: Tenants): Promise<SessionGrant | undefined> {
  const token = sessionTokenOf(request)
  if (token === null) return Promise.resolve(undefined)
  let grant = sessions.get(request)
  if (!grant) sessions.set(request, (grant = store.sessionByToken(token)))
  return grant
}

/**
 * Who is calling: the personal API key the request shows (a key decides whenever one is shown, as in PostHog),
 * else the signed-in session its cookie names. A write through a session must echo the session's CSRF token
 * in X-CSRFToken: a page of another site can make the browser send the cookie, never read the token.
 */
export async function callerKeyFrom(request: FastifyRequest, store: Tenants): Promise<PersonalApiKey> {
  if (shownKey(request) !== null || sessionTokenOf(request) === null) return personalKeyFrom(request, store)
  const grant = await sessionOf(request, store)
  if (!grant) throw wrenError('authentication_failed', 'Your session has ended: sign in again.')
  if (!SAFE_METHODS.has(request.method)) {
    const echoed = request.headers[CSRF_HEADER]
    if (typeof echoed !== 'string' || !sameSecret(echoed, grant.csrfToken))
      throw wrenError('permission_denied', 'CSRF Failed: CSRF token missing or incorrect.')
  }
  return grant.principal
}

function sameSecret(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)]
  return x.length === y.length && timingSafeEqual(x, y)
}

/**
 * `url` (a path with its query, or an absolute URL) without the secrets a query string may carry (a personal
 * API key, a recording's sharing token): for links and logs.
 */
export function withoutSecrets(url: string): string {
  const query = url.indexOf('?')
  if (query < 0) return url
  const params = new URLSearchParams(url.slice(query + 1))
  if (!params.has(PERSONAL_KEY_PARAM) && !params.has(SHARING_TOKEN_PARAM)) return url
  params.delete(PERSONAL_KEY_PARAM)
  params.delete(SHARING_TOKEN_PARAM)
  const rest = params.toString()
  return url.slice(0, query) + (rest ? `?${rest}` : '')
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

/**
 * What PostHog takes in place of a project id for "the project I am in". PostHog reads it from the user's
 * current project; Wren has no users, so it is the key's project: the one it is limited to, and for a key
 * that reaches several (or every) project, the lowest id among them.
 */
export const CURRENT_PROJECT = '@current'

/** Checks the caller (key or session), scope and project; returns who is calling for which project. */
export async function authorize(
  request: FastifyRequest,
  store: Tenants,
  scope: string,
  projectIdParam: string | undefined,
): Promise<Caller> {
  const key = await callerKeyFrom(request, store)
  if (!hasScope(key, scope)) throw missingScope(key, scope)
  const projectId = projectIdParam === CURRENT_PROJECT ? currentProjectOf(key, store) : Number(projectIdParam)
  if (!Number.isInteger(projectId) || projectId <= 0)
    throw wrenError(
      'invalid_project_id',
      `Project id must be a positive integer or '${CURRENT_PROJECT}', got '${projectIdParam}'.`,
      'project_id',
    )
  const project = store.byId(projectId)
  if (!project) throw wrenError('not_found', `Project ${projectId} does not exist.`)
  if (!canReach(key, projectId)) throw wrenError('permission_denied', "You don't have access to the project.")
  return { key, project }
}

/** The user of a password session (it acts as the user, not through a key), else null. */
export function signedInUser(caller: PersonalApiKey): string | null {
  return caller.sessionId !== undefined && caller.id.startsWith('user:') ? (caller.userId ?? null) : null
}

/** The refusal for a caller without `scope`: PostHog's words for a key; for a session, the role is what lacks it. */
export function missingScope(caller: PersonalApiKey, scope: string): Error {
  return signedInUser(caller)
    ? wrenError('permission_denied', `Your role in the organization does not allow this (it needs '${scope}').`)
    : wrenError('permission_denied', `API key missing required scope '${scope}'`)
}

function currentProjectOf(key: PersonalApiKey, store: Tenants): number {
  const reached = store
    .list()
    .map((p) => p.id)
    .filter((id) => canReach(key, id))
  if (reached.length === 0) throw wrenError('not_found', `No project for '${CURRENT_PROJECT}': this key reaches none.`)
  return Math.min(...reached)
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
 * projects are a subset of its own, so no key can mint its way to more. (Only `*` keys manage keys at all,
 * see projects/key-routes.ts, so today the projects decide.)
 */
export function canManageKey(holder: PersonalApiKey, key: Pick<PersonalApiKey, 'scopes' | 'scopedTeams'>): boolean {
  return scopesBeyond(holder, key.scopes).length === 0 && projectsWithin(holder, key.scopedTeams)
}
