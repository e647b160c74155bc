// One way to declare a route: its method and path, who may call it, the shapes of what it takes and
// answers (TypeBox schemas: checked on the way in, typed in the handler, listed in the OpenAPI document),
// and the handler. The declaration replaces what every handler used to do by hand:
//   - a project route is registered under both URL prefixes, /api/projects/:project_id/… and
//     /api/environments/:project_id/…;
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
import { authorize, hasScope, personalKeyFrom, SCOPE_OBJECTS, type Caller } from './auth'
import { wrenError } from '../errors'
import type { PersonalApiKey, Tenants } from '../tenancy'
import { ErrorBody } from './schemas'

export type Scope = `${(typeof SCOPE_OBJECTS)[number]}:${'read' | 'write'}` | '*'

/**
 * Who may call a route:
 *   { project: scope }  a personal API key holding `scope`, for the project in the path (both prefixes);
 *   { key: scope }      a personal API key holding `scope` (null: any valid key), no project in the path;
 *   { public: how }     no personal API key; `how` says, for the document, what identifies the caller.
 */
export type Access = { project: Scope } | { key: Scope | null } | { public: string }

export interface RouteSchema {
  params?: TObject
  querystring?: TObject
  body?: TSchema
  response?: Record<number, TSchema>
}

type CallerOf<A extends Access> = A extends { project: Scope } ? Caller : A extends { key: Scope | null } ? PersonalApiKey : undefined

export type RouteRequest<S extends RouteSchema> = FastifyRequest<
  RouteGenericInterface,
  RawServerDefault,
  IncomingMessage,
  S,
  TypeBoxTypeProvider
>

export interface RouteDeclaration<S extends RouteSchema, A extends Access> {
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
  handler: (request: RouteRequest<S>, reply: FastifyReply, caller: CallerOf<A>) => unknown
}

export const PROJECT_PREFIXES = ['/api/projects/:project_id', '/api/environments/:project_id'] as const
const ProjectId = Type.Integer({ minimum: 1, description: 'The project (environment) id.' })

/**
 * The declaring function for one route group: `tag` groups its routes in the document. Call it inside
 * the group's plugin; `projects` checks the keys (null for a group of public routes only).
 */
export function routesOf(app: FastifyInstance, deps: { projects: Tenants | null; tag: string }) {
  const { projects, tag } = deps
  return function route<S extends RouteSchema, A extends Access>(decl: RouteDeclaration<S, A>): void {
    const callers = new WeakMap<FastifyRequest, Caller | PersonalApiKey>()
    const access = decl.access as Access
    if (!projects && !('public' in access)) throw new Error(`${decl.url}: a route that takes a personal API key needs the project store`)
    const check = (request: FastifyRequest): void => {
      if ('project' in access)
        callers.set(request, authorize(request, projects!, access.project, (request.params as { project_id?: string }).project_id))
      else if ('key' in access) {
        const key = personalKeyFrom(request, projects!)
        if (access.key !== null && !hasScope(key, access.key))
          throw wrenError('permission_denied', `API key missing required scope '${access.key}'`)
        callers.set(request, key)
      }
    }
    // An empty query value of a numeric parameter (?limit=) means the parameter was not given.
    const numeric = Object.entries(decl.schema.querystring?.properties ?? {})
      .filter(([, s]) => ['integer', 'number'].includes(String((s as { type?: unknown }).type)))
      .map(([name]) => name)
    // Public routes without numeric parameters (capture, decide: the hot paths) get no hook at all.
    const preValidation =
      'public' in access && numeric.length === 0
        ? undefined
        : async (request: FastifyRequest): Promise<void> => {
            check(request)
            const query = request.query as Record<string, unknown>
            for (const name of numeric) if (query[name] === '') delete query[name]
          }
    const urls = 'project' in access ? PROJECT_PREFIXES.map((prefix) => prefix + decl.url) : [decl.url]
    const params =
      'project' in access ? Type.Object({ project_id: ProjectId, ...(decl.schema.params?.properties ?? {}) }) : decl.schema.params
    const schema = {
      ...decl.schema,
      ...(params ? { params } : {}),
      summary: decl.summary,
      description: describe(decl.description, access),
      tags: [tag],
      ...(decl.consumes ? { consumes: decl.consumes } : {}),
      ...('public' in access ? {} : { security: [{ PersonalAPIKey: [] }] }),
      response: { ...errorAnswers(access, decl.schema), ...decl.schema.response },
    }
    for (const url of urls) {
      const options: RouteOptions = {
        method: decl.method,
        url,
        schema,
        ...(decl.bodyLimit ? { bodyLimit: decl.bodyLimit } : {}),
        ...(preValidation ? { preValidation } : {}),
        handler: (request, reply) => decl.handler(request as unknown as RouteRequest<S>, reply, callers.get(request) as CallerOf<A>),
      }
      app.route(options)
    }
  }
}

function describe(description: string | undefined, access: Access): string {
  const who =
    'project' in access
      ? `Needs a personal API key with scope \`${access.project}\` that reaches the project.`
      : 'key' in access
        ? access.key === null
          ? 'Needs a personal API key.'
          : `Needs a personal API key with scope \`${access.key}\`.`
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
