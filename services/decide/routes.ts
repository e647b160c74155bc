// The public flag endpoints: POST /decide (v1–v4) and POST /flags (v1, v2), the remote config posthog-js
// loads (GET /array/:token/config and config.js), and the definitions server SDKs poll for local
// evaluation (GET /api/feature_flag/local_evaluation and /flags/definitions, with ETag / 304).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { payloadText } from '../platform/http/sdk-body'
import { chargeOf, chargeRequestMemory, type MemoryBudget } from '../platform/http/memory-budget'
import { wrenError } from '../platform/errors'
import { jsonTooDeep, jsonTooDeepIn } from '../platform/json'
import { canReach } from '../platform/http/auth'
import { routesOf } from '../platform/http/route'
import { AnyObject, ErrorBody, NoContent, RawBody, SDK_CONTENT_TYPES } from '../platform/http/schemas'
import type { Project, Tenants } from '../platform/tenancy'
import type { Clock } from '../platform/clock'
import type { Metrics } from '../platform/metrics'
import { remoteConfig, surveysOf, type ConfigRequest, type SurveyReader } from './remote-config'
import type { FlagsService } from './service'
import { FlagAnswers, projectOf, type FlagsCall, type FlagsEndpoint } from './answers'
import { localEvaluation } from './local-evaluation'
import type { PersonSnapshot } from './snapshot'
import type { CohortReader } from './cohorts'

export interface PublicFlagDeps {
  projects: Tenants
  service: FlagsService
  snapshot: PersonSnapshot
  cohorts: CohortReader
  /** The running surveys posthog-js shows. */
  surveys: SurveyReader
  clock: Clock
  metrics: Metrics
  /** The SDK intake's one memory budget, shared with capture. */
  memory: MemoryBudget
}

type Query = Record<string, string | undefined>
export const BODY_LIMIT = 10 * 1024 * 1024

/**
 * POST /decide and POST /flags, what the SDKs call on every page load and server-side check: a plugin of
 * their own, so that app.ts can give them a scope without per-request CORS resolution. FlagAnswers owns
 * the answer; the route hands it the request and writes its bytes.
 */
export async function flagAnswerRoutes(app: FastifyInstance, deps: PublicFlagDeps): Promise<void> {
  acceptFlagBodies(app, deps.memory)
  const answers = new FlagAnswers({ ...deps, decodeBody: bodyJson })

  // Sent here, returning nothing: Fastify would otherwise send the handler's return value again.
  const send = (reply: FastifyReply, body: Buffer): void => {
    reply.type('application/json; charset=utf-8').send(body)
  }
  const evaluate = (request: FastifyRequest, reply: FastifyReply, endpoint: FlagsEndpoint): Promise<void> | undefined => {
    const body = answers.answer(endpoint, request)
    if (body instanceof Promise) return body.then((b) => send(reply, b))
    send(reply, body)
    return undefined
  }

  const route = routesOf(app, { projects: deps.projects, tag: 'decide' })
  const evaluation = (endpoint: FlagsEndpoint) => ({
    method: 'POST' as const,
    url: `/${endpoint}`,
    summary:
      endpoint === 'flags'
        ? 'Evaluate every flag for a distinct id (what the SDKs call)'
        : 'Evaluate flags, with the remote config (older SDKs)',
    description:
      'The project API key is the body’s token (api_key); person_properties, groups and group_properties override what Wren knows.',
    access: { public: 'the project API key in the body.' },
    bodyLimit: BODY_LIMIT,
    consumes: SDK_CONTENT_TYPES,
    schema: {
      querystring: Type.Object({
        v: Type.Optional(Type.Unknown({ description: 'The answer’s version (decide 1–4, flags 1–2).' })),
        config: Type.Optional(Type.Unknown({ description: 'true: include the remote config.' })),
        only_use_override_person_properties: Type.Optional(
          Type.Unknown({ description: 'true: evaluate on the sent person properties only.' }),
        ),
        compression: Type.Optional(Type.Unknown()),
        data: Type.Optional(Type.Unknown()),
      }),
      body: RawBody('{token, distinct_id, person_properties, groups, group_properties, …}, in any of the SDKs’ encodings'),
      response: {
        200: AnyObject('featureFlags, featureFlagPayloads, errorsWhileComputingFlags (decide) or flags (flags v2), and the remote config'),
        400: ErrorBody,
        401: ErrorBody,
        413: ErrorBody,
        503: ErrorBody,
      },
    },
    handler: (request: FastifyRequest, reply: FastifyReply) => evaluate(request, reply, endpoint),
  })
  route(evaluation('decide'))
  route(evaluation('flags'))
}

/** The other public flag routes: GET /decide, the remote config, surveys, and the definitions for local evaluation. */
export async function publicFlagRoutes(app: FastifyInstance, deps: PublicFlagDeps): Promise<void> {
  acceptFlagBodies(app, deps.memory)
  const projectFor = (token: string): Project => projectOf(deps.projects, token)
  const route = routesOf(app, { projects: deps.projects, tag: 'decide' })
  // A GET of decide answers a minimal config, as PostHog's does.
  route({
    method: 'GET',
    url: '/decide',
    summary: 'A minimal config (as PostHog answers a GET of decide)',
    access: { public: 'no key.' },
    schema: { response: { 200: AnyObject() } },
    handler: async () => ({
      config: { enable_collect_everything: true },
      toolbarParams: {},
      isAuthenticated: false,
      supportedCompression: ['gzip', 'gzip-js'],
      featureFlags: [],
      sessionRecording: false,
    }),
  })

  const Token = Type.Object({ token: Type.String({ description: 'The project API key.' }) })
  const configOf = (project: Project, headers: ConfigRequest) => ({
    token: project.apiToken,
    ...remoteConfig(
      project,
      deps.service.flagsOf(project.id).some((f) => f.active),
      deps.surveys,
      headers,
    ),
  })
  // Cached a minute; the answer depends on the page's site (recording_domains), so caches key on it too.
  const cachedConfig = (reply: FastifyReply) => {
    const vary = reply.getHeader('vary')
    return reply.header('cache-control', 'public, max-age=60').header('vary', vary ? `${String(vary)}, Origin, Referer` : 'Origin, Referer')
  }
  route({
    method: 'GET',
    url: '/array/:token/config',
    summary: 'The remote config posthog-js loads',
    access: { public: 'the project API key in the path.' },
    schema: { params: Token, response: { 200: AnyObject(), 401: ErrorBody } },
    handler: async (request, reply) => {
      const project = projectFor(request.params.token)
      return cachedConfig(reply).send(configOf(project, request.headers))
    },
  })
  route({
    method: 'GET',
    url: '/array/:token/config.js',
    summary: 'The remote config as a script posthog-js loads',
    access: { public: 'the project API key in the path.' },
    schema: { params: Token, response: { 200: Type.String({ description: 'JavaScript' }), 401: ErrorBody } },
    handler: async (request, reply) => {
      const project = projectFor(request.params.token)
      const config = configOf(project, request.headers)
      const js = `(function() {\n  window._POSTHOG_REMOTE_CONFIG = window._POSTHOG_REMOTE_CONFIG || {};\n  window._POSTHOG_REMOTE_CONFIG[${JSON.stringify(project.apiToken)}] = {\n    config: ${JSON.stringify(config)},\n    siteApps: []\n  }\n})();\n`
      return cachedConfig(reply).type('application/javascript').send(js)
    },
  })

  // posthog-js with surveys on asks for the project's surveys with its project key: the running ones (launched, not
  // stopped nor archived), in PostHog's SurveyAPISerializer shape. A project that set surveys_opt_in: false has none.
  route({
    method: 'GET',
    url: '/api/surveys/',
    summary: 'The running surveys posthog-js shows',
    access: { public: 'the project API key in `token`.' },
    schema: {
      querystring: Type.Object({ token: Type.String({ description: 'The project API key.' }) }),
      response: { 200: Type.Object({ surveys: Type.Array(AnyObject()), survey_config: Type.Null() }), 401: ErrorBody },
    },
    handler: async (request, reply) => {
      const project = projectFor(request.query.token)
      return reply.send({ surveys: surveysOf(project, deps.surveys), survey_config: null })
    },
  })

  for (const url of ['/api/feature_flag/local_evaluation', '/flags/definitions']) {
    route({
      method: 'GET',
      url,
      summary: 'The flag definitions server SDKs poll for local evaluation (ETag / 304)',
      description: 'The project is ?token=, or the one project the key is limited to, or the only project.',
      access: { key: 'feature_flag:read' },
      schema: {
        querystring: Type.Object({
          token: Type.Optional(Type.String({ description: 'The project API key.' })),
          send_cohorts: Type.Optional(Type.Unknown()),
        }),
        response: {
          200: Type.Object({ flags: Type.Array(AnyObject()), group_type_mapping: AnyObject(), cohorts: AnyObject() }),
          304: NoContent,
        },
      },
      handler: async (request, reply, key) => {
        const token = request.query.token
        let project: Project | undefined
        if (token) project = deps.projects.byToken(token)
        else if (key.scopedTeams.length === 1) project = deps.projects.byId(key.scopedTeams[0])
        else if (deps.projects.list().length === 1) project = deps.projects.list()[0]
        if (!project)
          throw token
            ? wrenError('invalid_api_key', 'Project API key invalid.')
            : wrenError('missing_token', 'Send ?token=<project API key>.', 'token')
        if (!canReach(key, project.id)) throw wrenError('permission_denied', "You don't have access to the project.")
        const { text, etag } = localEvaluation(project.id, deps)
        reply.header('etag', etag).header('cache-control', 'private, must-revalidate')
        const inm = request.headers['if-none-match']
        if (typeof inm === 'string' && inm.split(',').some((t) => t.trim() === etag || t.trim() === etag.slice(2)))
          return reply.status(304).send()
        return reply.type('application/json').send(text)
      },
    })
  }
}

/** Old posthog-js sends forms, base64 and gzip: every body is read as bytes and decoded like capture's. */
function acceptFlagBodies(app: FastifyInstance, memory: MemoryBudget): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_req, body, done) => done(null, body))
  chargeRequestMemory(app, memory)
}

/** A body in any of the SDKs' encodings, as JSON (what FlagAnswers asks for when the body is not plain JSON). */
async function bodyJson(request: FlagsCall): Promise<unknown> {
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
  const query = request.query as Query
  if (body.length === 0 && !query.data)
    throw wrenError('empty_payload', 'Request body is empty: send a JSON body with token and distinct_id.')
  let text = await payloadText({ path: request.url, query, headers: request.headers, body, memory: chargeOf(request) })
  const trimmed = text.trim()
  // A form's data= value (and old base64 bodies) may still be base64 of the JSON.
  if (!trimmed.startsWith('{') && /^[A-Za-z0-9+/= \r\n]+$/.test(trimmed)) {
    const decoded = Buffer.from(trimmed.replace(/ /g, '+'), 'base64').toString('utf8')
    if (decoded.trim().startsWith('{')) text = decoded
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw wrenError('invalid_payload', 'Request body could not be decoded: send JSON, gzip, base64, lz64 or a data= form.')
  }
  if (jsonTooDeepIn(json)) throw jsonTooDeep()
  return json
}
