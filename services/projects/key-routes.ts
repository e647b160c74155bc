// /api/personal_api_keys/: create, list and revoke personal API keys. A user signed in with a password
// manages their own keys (as in PostHog), with scopes their role holds. Through a key, managing keys needs
// `*`: a key with some scopes only would otherwise mint itself a copy that outlives its revocation. Any key
// reads itself (`@current` or its own id, as in PostHog) and may revoke itself. A `*` key manages only keys
// that can do no more than itself (projects a subset of its own, see canManageKey), so no key can reach more
// than it has. Every key belongs to a user (a `*` key's new keys to its own user) and acts within its role.
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { canManageKey, hasScope, projectsWithin, SCOPE_OBJECTS, scopesBeyond, signedInUser } from '../platform/http/auth'
import { wrenError } from '../platform/errors'
import { sendFormatted } from '../platform/http/format'
import { routesOf } from '../platform/http/route'
import { Format, MAX_LIST_LIMIT, NoContent, Paginated, Paging } from '../platform/http/schemas'
import { pageOfList } from '../platform/http/request-url'
import { Key } from './schemas'
import type { ProjectStore } from './store'
import type { PersonalApiKey } from '../platform/tenancy'

/** PostHog's shape; the value itself is shown once, at creation. */
export function serializeKey(k: PersonalApiKey): Record<string, unknown> {
  return {
    id: k.id,
    label: k.label,
    mask_value: k.maskValue,
    scopes: k.scopes,
    scoped_teams: k.scopedTeams,
    scoped_organizations: [],
    created_at: k.createdAt,
    last_used_at: k.lastUsedAt,
  }
}

/** The scope key management needs. */
const MANAGE = '*'
/** PostHog's name for the key making the request. */
const CURRENT_KEY = '@current'
const KeyId = Type.Object({
  id: Type.String({ description: `a key's id, or \`${CURRENT_KEY}\`: the key making the request` }),
})
const SCOPES = ['*', ...SCOPE_OBJECTS.flatMap((o) => [`${o}:read`, `${o}:write`])]

export async function keyRoutes(app: FastifyInstance, deps: { projects: ProjectStore; siteUrl: string | null }): Promise<void> {
  const { projects, siteUrl } = deps
  const route = routesOf(app, { projects, tag: 'personal API keys' })
  /**
   * The key `id` names, for `caller`: itself (`@current` or its own id) always; another only for a key
   * holding `*` (403 otherwise, whether or not it exists), and beyond that key's reach it does not exist.
   */
  const keyFor = (caller: PersonalApiKey, id: string): PersonalApiKey | undefined => {
    const user = signedInUser(caller)
    if (user !== null) return managed(caller).find((k) => k.id === id)
    if (id === CURRENT_KEY || id === caller.id) return caller
    if (!hasScope(caller, MANAGE))
      throw wrenError('permission_denied', `API key missing required scope '${MANAGE}': a key without it may read or revoke only itself.`)
    return projects.listKeys().find((k) => k.id === id && canManageKey(caller, k))
  }
  /** The keys `caller` manages: a signed-in user's own, or those a `*` key can do no less than. */
  const managed = (caller: PersonalApiKey): PersonalApiKey[] => {
    const user = signedInUser(caller)
    if (user !== null) return projects.listKeys().filter((k) => (k.userId ?? projects.ownerId()) === user)
    if (!hasScope(caller, MANAGE))
      throw wrenError(
        'permission_denied',
        `API key missing required scope '${MANAGE}': only a signed-in user or a '${MANAGE}' key manages keys.`,
      )
    return projects.listKeys().filter((k) => canManageKey(caller, k))
  }

  route({
    method: 'POST',
    url: '/api/personal_api_keys/',
    summary: 'Create a personal API key (its value is shown once, here)',
    description: 'The new key reaches only projects the caller reaches (a key limited to projects creates keys limited within them).',
    access: { key: null },
    schema: {
      body: Type.Object({
        label: Type.Optional(Type.String()),
        scopes: Type.Array(Type.Enum(SCOPES), {
          minItems: 1,
          description: 'e.g. ["person:read", "insight:read"], or ["*"] for every scope',
        }),
        scoped_teams: Type.Optional(
          Type.Array(Type.Integer(), { description: 'the project ids the key is limited to; empty: every project' }),
        ),
      }),
      response: { 201: Type.Intersect([Key, Type.Object({ value: Type.String() })]) },
    },
    handler: async (request, reply, caller) => {
      managed(caller)
      const { scopes, scoped_teams: teams = [], label = 'api' } = request.body
      for (const t of teams) if (!projects.byId(t)) throw wrenError('not_found', `Project ${t} does not exist.`)
      const missing = scopesBeyond(caller, scopes)
      if (missing.length)
        throw wrenError(
          'permission_denied',
          `A key can only create keys with scopes it holds itself; this key does not hold ${missing.map((s) => `'${s}'`).join(', ')}.`,
        )
      if (!projectsWithin(caller, teams)) {
        throw wrenError(
          'permission_denied',
          `This key is limited to projects ${caller.scopedTeams.join(', ')}: the keys it creates must list scoped_teams within those.`,
        )
      }
      const { key, value } = await projects.createPersonalKey({
        label,
        scopes,
        scopedTeams: teams,
        userId: caller.userId ?? projects.ownerId(),
      })
      return reply.status(201).send({ ...serializeKey(key), value })
    },
  })

  route({
    method: 'GET',
    url: '/api/personal_api_keys/',
    summary: 'List the keys you manage: your own when signed in, or those a `*` key can do no less than',
    access: { key: null },
    description: 'Oldest first.',
    schema: {
      querystring: Type.Object({ ...Paging(100, MAX_LIST_LIMIT), format: Type.Optional(Format) }),
      response: { 200: Paginated(Key) },
    },
    handler: async (request, reply, caller) => {
      const page = pageOfList(request, siteUrl, managed(caller), request.query, 100)
      return sendFormatted(request, reply, 200, { ...page, results: page.results.map(serializeKey) })
    },
  })

  route({
    method: 'GET',
    url: '/api/personal_api_keys/:id/',
    summary: 'Retrieve a key',
    description: `Any key reads itself (\`${CURRENT_KEY}\` or its own id); other keys need \`${MANAGE}\`.`,
    access: { key: null },
    schema: { params: KeyId, querystring: Type.Object({ format: Type.Optional(Format) }), response: { 200: Key } },
    handler: async (request, reply, caller) => {
      const key = keyFor(caller, request.params.id)
      if (!key) throw wrenError('not_found', 'Personal API key not found.')
      return sendFormatted(request, reply, 200, serializeKey(key))
    },
  })

  route({
    method: 'DELETE',
    url: '/api/personal_api_keys/:id/',
    summary: 'Revoke a key',
    description: `Any key revokes itself (\`${CURRENT_KEY}\` or its own id); other keys need \`${MANAGE}\`.`,
    access: { key: null },
    schema: { params: KeyId, response: { 204: NoContent } },
    handler: async (request, reply, caller) => {
      const key = keyFor(caller, request.params.id)
      if (!key || !(await projects.revokeKey(key.id))) throw wrenError('not_found', 'Personal API key not found.')
      return reply.status(204).send()
    },
  })
}
