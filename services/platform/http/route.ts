// One way to declare a route: its method and path, who may call it, the shapes of what it takes and
// answers (TypeBox schemas: checked on the way in, typed in the handler, listed in the OpenAPI document),
// and the handler. The declaration replaces what every handler used to do by hand:
//   - a project route is registered under both URL prefixes, /api/projects/:project_id/… and
//     /api/environments/:project_id/…, where :project_id is an id or `@current` (the key's project: the
//     handler always sees the id);
//   - its key, scope and project are checked from `access` before the request is validated or handled
//     (the handler is handed the caller), so a refused request never learns whether its input was valid;
//   - the OpenAPI entry (tags, security, the scope, the error answers) comes from the same declaration.
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HTTPMethods,
  RawServerDefault,
  RouteGenericInterface,
  RouteOptions,
} from 'fastify'
import type { IncomingMessage } from 'node:http'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type, type TObject, type TSchema } from 'typebox'
import {
  authorize,
  authorizeShared,
  CURRENT_PROJECT,
  hasScope,
  callerKeyFrom,
  missingScope,
  SCOPE_OBJECTS,
  SHARING_TOKEN_PARAM,
  sharingTokenOf,
  type Caller,
  type SharedCaller,
  type SharingTokens,
} from './auth'
import { wrenError } from '../errors'
import type { PersonalApiKey, Tenants } from '../tenancy'
import type { ClickHouseClient } from '../clickhouse'
import { hiddenPersons, type HiddenPersons } from './hidden-persons'
import { ErrorBody } from './schemas'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The path parameter naming the recording a sharing token may open on this route (see Access). */
    sharedRecording?: string
    /** The route takes a personal API key (access `project` or `key`): management.ts guards it. */
    personalKey?: boolean
    /** The route reads person-derived data and its handler is handed the key's hidden persons (see personData). */
    personData?: boolean
  }
}

export type Scope = `${(typeof SCOPE_OBJECTS)[number]}:${'read' | 'write'}` | '*'

/**
 * Who may call a route:
 *   { project: scope }  a personal API key holding `scope`, for the project in the path (both prefixes);
 *     with `sharedRecording: '<path parameter>'` (GET routes only), a request that shows
 *     `?sharing_access_token=` instead is let in by the token alone, when an enabled sharing configuration
 *     of that project shares the recording the parameter names (the handler gets a SharedCaller);
 *   { key: scope }      a personal API key holding `scope` (null: any valid key), no project in the path;
 *     with `allProjects: '<refusal>'`, only a key limited to no project (a limited one gets the refusal, a 403);
 *   { public: how }     no personal API key; `how` says, for the document, what identifies the caller.
 */
export type Access = { project: Scope; sharedRecording?: string } | { key: Scope | null; allProjects?: string } | { public: string }

export interface RouteSchema {
  params?: TObject
  querystring?: TObject
  body?: TSchema
  response?: Record<number, TSchema>
}

type CallerOf<A extends Access> = A extends { project: Scope; sharedRecording: string }
  ? Caller | SharedCaller
  : A extends { project: Scope }
    ? Caller
    : A extends { key: Scope | null }
      ? PersonalApiKey
      : undefined

export type RouteRequest<S extends RouteSchema> = FastifyRequest<
  RouteGenericInterface,
  RawServerDefault,
  IncomingMessage,
  S,
  TypeBoxTypeProvider
>

/** What a `personData` route's handler is handed: the persons hidden from the key (null: none, or a sharing token). */
type HiddenOf<P extends boolean> = P extends true ? HiddenPersons | null : undefined

export interface RouteDeclaration<S extends RouteSchema, A extends Access, P extends boolean = false> {
  method: HTTPMethods | HTTPMethods[]
  /** For `{ project }` access, the path after /api/projects/:project_id (e.g. '/persons/:id/'); otherwise the whole path. */
  url: string
  summary: string
  description?: string
  access: A
  schema: S
  /** The body's content types, for the document (default: JSON); the group's parsers read them. */
  consumes?: string[]
  bodyLimit?: number
  /**
   * The route reads person-derived data (persons, their events, recordings, cohort members): the handler
   * is handed the persons hidden from the key (object access level `none`, hidden-persons.ts) and must leave
   * them out. `{ project }` access only. A sharing token's request is handed null: the token is a grant of
   * its own, independent of who opens it (as in PostHog). test/recordings/recordings-hidden-persons.test.ts holds
   * every route under the person-data paths to declaring this.
   */
  personData?: P
  handler: (request: RouteRequest<S>, reply: FastifyReply, caller: CallerOf<A>, hidden: HiddenOf<P>) => unknown
}

export const PROJECT_PREFIXES = ['/api/projects/:project_id', '/api/environments/:project_id'] as const
const ProjectId = Type.Union([Type.Integer({ minimum: 1 }), Type.Literal(CURRENT_PROJECT)], {
  description: `The project (environment) id, or \`${CURRENT_PROJECT}\`: the key's project (the one it is limited to, else the lowest id it reaches).`,
})

/**
 * The declaring function for one route group: `tag` groups its routes in the document. Call it inside
 * the group's plugin; `projects` checks the keys (null for a group of public routes only); `sharing`
 * checks sharing tokens (needed by routes that declare `sharedRecording`); `clickhouse` reads the hidden
 * persons (needed by routes that declare `personData`).
 */
export function routesOf(
  app: FastifyInstance,
  deps: { projects: Tenants | null; tag: string; sharing?: SharingTokens; clickhouse?: ClickHouseClient },
) {
  const { projects, tag, sharing, clickhouse } = deps
  return function route<S extends RouteSchema, A extends Access, P extends boolean = false>(decl: RouteDeclaration<S, A, P>): void {
    const callers = new WeakMap<FastifyRequest, Caller | SharedCaller | PersonalApiKey>()
    const access = decl.access as Access
    const personData = decl.personData === true
    if (personData && (!('project' in access) || !clickhouse))
      throw new Error(`${decl.url}: a route that reads person data takes { project } access and needs the ClickHouse client`)
    if (!projects && !('public' in access)) throw new Error(`${decl.url}: a route that takes a personal API key needs the project store`)
    const shared = 'project' in access ? access.sharedRecording : undefined
    if (shared !== undefined && (!sharing || decl.method !== 'GET'))
      throw new Error(`${decl.url}: a route that takes sharing tokens is a GET route and needs the sharing store`)
    const check = async (request: FastifyRequest): Promise<void> => {
      if ('project' in access) {
        const caller =
          shared !== undefined && sharingTokenOf(request) !== null
            ? await authorizeShared(request, projects!, sharing!, shared)
            : await authorize(request, projects!, access.project, (request.params as { project_id?: string }).project_id)
        // `@current` becomes the project's id before the parameters are checked, so every handler sees an id.
        ;(request.params as { project_id?: number }).project_id = caller.project.id
        callers.set(request, caller)
      } else if ('key' in access) {
        const key = await callerKeyFrom(request, projects!)
        if (access.key !== null && !hasScope(key, access.key)) throw missingScope(key, access.key)
        if (access.allProjects !== undefined && key.scopedTeams.length > 0) throw wrenError('permission_denied', access.allProjects)
        callers.set(request, key)
      }
    }
    // Every route takes a repeated query parameter's first value (validation.ts): an array one cannot be declared.
    for (const [name, s] of Object.entries(decl.schema.querystring?.properties ?? {}))
      if ((s as { type?: unknown }).type === 'array')
        throw new Error(`${decl.url}: ?${name} is an array; repeated query parameters take their first value`)
    // An empty query value of a numeric parameter (?limit=) means the parameter was not given.
    const numeric = Object.entries(decl.schema.querystring?.properties ?? {})
      .filter(([, s]) => ['integer', 'number'].includes(String((s as { type?: unknown }).type)))
      .map(([name]) => name)
    // Public routes without numeric parameters (capture, decide: the hot paths) get no hook at all.
    const preValidation =
      'public' in access && numeric.length === 0
        ? undefined
        : async (request: FastifyRequest): Promise<void> => {
            await check(request)
            const query = request.query as Record<string, unknown>
            for (const name of numeric) if (query[name] === '') delete query[name]
          }
    const urls = 'project' in access ? PROJECT_PREFIXES.map((prefix) => prefix + decl.url) : [decl.url]
    const params =
      'project' in access ? Type.Object({ project_id: ProjectId, ...(decl.schema.params?.properties ?? {}) }) : decl.schema.params
    const querystring =
      shared === undefined
        ? decl.schema.querystring
        : Type.Object({
            ...(decl.schema.querystring?.properties ?? {}),
            [SHARING_TOKEN_PARAM]: Type.Optional(
              Type.String({ description: 'The access token of this recording’s enabled sharing configuration, in place of a key.' }),
            ),
          })
    const schema = {
      ...decl.schema,
      ...(params ? { params } : {}),
      ...(querystring ? { querystring } : {}),
      summary: decl.summary,
      description: describe(decl.description, access),
      // The scope the route checks, for clients that build keys (the app's keys page lists the served ones first).
      ...(requiredScope(access) ? { 'x-required-scopes': [requiredScope(access)] } : {}),
      tags: [tag],
      ...(decl.consumes ? { consumes: decl.consumes } : {}),
      ...('public' in access ? {} : { security: [{ PersonalAPIKey: [] }, ...(shared === undefined ? [] : [{ SharingAccessToken: [] }])] }),
      response: { ...errorAnswers(access, decl.schema), ...decl.schema.response },
    }
    for (const url of urls) {
      const options: RouteOptions = {
        method: decl.method,
        url,
        schema,
        ...(decl.bodyLimit ? { bodyLimit: decl.bodyLimit } : {}),
        ...(preValidation ? { preValidation } : {}),
        // Read by management.ts: which routes take a personal key (its guards apply), and on which a valid
        // sharing token is no failed authentication.
        config: { personalKey: !('public' in access), personData, ...(shared === undefined ? {} : { sharedRecording: shared }) },
        handler: personData
          ? async (request, reply) => {
              const caller = callers.get(request) as Caller | SharedCaller
              const hidden = caller.key ? await hiddenPersons(clickhouse!, caller.key, caller.project.id) : null
              return decl.handler(request as unknown as RouteRequest<S>, reply, caller as CallerOf<A>, hidden as HiddenOf<P>)
            }
          : (request, reply) =>
              decl.handler(request as unknown as RouteRequest<S>, reply, callers.get(request) as CallerOf<A>, undefined as HiddenOf<P>),
      }
      app.route(options)
    }
  }
}

/** The scope a personal key needs for a route (none for public routes and routes any key may call). */
function requiredScope(access: Access): string | null {
  return 'project' in access ? access.project : 'key' in access ? access.key : null
}

function describe(description: string | undefined, access: Access): string {
  const who =
    'project' in access
      ? `Needs a personal API key with scope \`${access.project}\` that reaches the project${
          access.sharedRecording === undefined
            ? '.'
            : `, or \`?${SHARING_TOKEN_PARAM}=\`: the access token of the recording’s enabled sharing configuration (it opens this recording only).`
        }`
      : 'key' in access
        ? `Needs a personal API key${access.key === null ? '' : ` with scope \`${access.key}\``}${access.allProjects === undefined ? '' : ' limited to no project'}.`
        : `Public: ${access.public}`
  return description ? `${description}\n\n${who}` : who
}

/** The refusals every route of this kind can answer, in the error body's shape. */
function errorAnswers(access: Access, schema: RouteSchema): Record<number, TSchema> {
  const answers: Record<number, TSchema> = {}
  if (schema.params || schema.querystring || schema.body || 'project' in access) answers[400] = ErrorBody
  if (!('public' in access)) Object.assign(answers, { 401: ErrorBody, 403: ErrorBody })
  if ('project' in access || schema.params) answers[404] = ErrorBody
  return answers
}
