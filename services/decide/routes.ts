// The public flag endpoints: POST /decide (v1–v4) and POST /flags (v1, v2), the remote config posthog-js
// loads (GET /array/:token/config and config.js), and the definitions server SDKs poll for local
// evaluation (GET /api/feature_flag/local_evaluation and /flags/definitions, with ETag / 304).
import { createHash, randomUUID } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { payloadText } from '../shared/http/sdk-body'
import { wrenError } from '../shared/errors'
import { jsonTooDeep, jsonTooDeepIn } from '../shared/json'
import { canReach } from '../shared/http/auth'
import { routesOf } from '../shared/http/route'
import { AnyObject, ErrorBody, NoContent, RawBody, SDK_CONTENT_TYPES } from '../shared/http/schemas'
import type { ProjectStore } from '../projects/store'
import type { Project } from '../shared/tenancy'
import type { Clock } from '../shared/time/clock'
import type { Metrics } from '../shared/metrics'
import { clientIp } from './geoip'
import { readFlagsRequest } from './request'
import { flagsBodyParts, shapeFor } from './responses'
import { remoteConfig } from './remote-config'
import type { Evaluation, FlagsService } from './service'
import { AnswerCache, MAX_KEY_BODY } from './answers'
import type { PersonSnapshot } from './snapshot'
import type { FeatureFlag, StoredPropertyFilter } from '../flags/types'
import type { CohortReader } from './cohorts'
import { minimalFlag } from '../flags/serialize'

export interface PublicFlagDeps {
  projects: ProjectStore
  service: FlagsService
  snapshot: PersonSnapshot
  cohorts: CohortReader
  clock: Clock
  metrics: Metrics
}

type Query = Record<string, string | undefined>
const BODY_LIMIT = 10 * 1024 * 1024

/**
 * POST /decide and POST /flags, what the SDKs call on every page load and server-side check: a plugin of
 * their own, so that app.ts can give them a scope without per-request CORS resolution.
 */
export async function flagAnswerRoutes(app: FastifyInstance, deps: PublicFlagDeps): Promise<void> {
  acceptFlagBodies(app)

  const projectFor = (token: string): Project => projectOf(deps.projects, token)

  const answers = new AnswerCache()

  // The answer is written as JSON bytes (see flagsBodyParts); a warm distinct id is answered without
  // a promise or a query (FlagsService.evaluate), and a request seen before, while what its evaluation
  // read is unchanged, without evaluating (AnswerCache).
  const answer = (
    request: FastifyRequest,
    reply: FastifyReply,
    endpoint: 'decide' | 'flags',
    project: Project,
    flags: Buffer,
    errors: boolean,
  ): void => {
    const q = request.query as Query
    deps.metrics.inc('wren_decide_requests_total', 1, ENDPOINT_LABELS[endpoint])
    if (errors) deps.metrics.inc('wren_decide_evaluation_errors_total', 1, ENDPOINT_LABELS[endpoint])
    const withConfig = endpoint === 'decide' || q.config === 'true' || (q.v === undefined && q.config === undefined)
    let head = '{'
    if (withConfig) {
      const config = remoteConfig(
        project,
        deps.service.flagsOf(project.id).some((f) => f.active),
        request.headers,
      )
      for (const key of RESPONSE_KEYS) delete config[key]
      const members = JSON.stringify(config).slice(1, -1)
      if (members !== '') head += members + ','
    }
    const tail = `,"requestId":"${randomUUID()}","evaluatedAt":${deps.clock.now().getTime()}}`
    // Written into one buffer (the head as UTF-8, the tail is ASCII), without a buffer per part; sent here,
    // returning nothing: Fastify would otherwise send the handler's return value again.
    const headBytes = Buffer.byteLength(head)
    const body = Buffer.allocUnsafe(headBytes + flags.length + tail.length)
    body.write(head, 0)
    flags.copy(body, headBytes)
    body.write(tail, headBytes + flags.length, 'latin1')
    reply.type('application/json; charset=utf-8').send(body)
  }
  const flagsBytes = (request: FastifyRequest, endpoint: 'decide' | 'flags', evaluation: Evaluation): Buffer =>
    Buffer.concat(flagsBodyParts(shapeFor(endpoint, (request.query as Query).v), evaluation))

  const evaluateParsed = (
    request: FastifyRequest,
    reply: FastifyReply,
    endpoint: 'decide' | 'flags',
    json: unknown,
    key: string | null,
  ): Promise<void> | undefined => {
    const req = readFlagsRequest(json)
    const project = projectFor(req.token)
    // The client address matters only for GeoIP.
    const ip = req.geoipDisable ? null : clientIp(request.headers['x-forwarded-for'], request.socket.remoteAddress)
    const stamp = key === null ? null : deps.service.stamp(project, req)
    const evaluation = deps.service.evaluate(project, req, {
      ip,
      onlyOverrides: (request.query as Query).only_use_override_person_properties === 'true',
    })
    if (evaluation instanceof Promise)
      return evaluation.then((e) => answer(request, reply, endpoint, project, flagsBytes(request, endpoint, e), e.errors))
    const flags = flagsBytes(request, endpoint, evaluation)
    // Answered synchronously from the stamped state: reusable while that state holds.
    if (key !== null && stamp !== null && !evaluation.errors) answers.set(key, { token: req.token, stamp, flags })
    answer(request, reply, endpoint, project, flags, evaluation.errors)
    return undefined
  }

  const evaluate = (request: FastifyRequest, reply: FastifyReply, endpoint: 'decide' | 'flags'): Promise<void> | undefined => {
    const body = plainJsonBody(request)
    const key = body !== null && body.length <= MAX_KEY_BODY ? answerKey(request, endpoint, body) : null
    if (key !== null) {
      const hit = answers.get(key)
      if (hit) {
        const project = projectFor(hit.token)
        if (deps.service.holds(hit.stamp, project)) {
          answer(request, reply, endpoint, project, hit.flags, false)
          return undefined
        }
        answers.delete(key)
      }
    }
    const json = body === null ? NOT_FAST : parsePlain(body)
    if (json === NOT_FAST) return bodyJson(request).then((parsed) => evaluateParsed(request, reply, endpoint, parsed, null))
    return evaluateParsed(request, reply, endpoint, json, key)
  }

  /** The request as far as a flags answer depends on it: the answer's shape, the query, the body, and the address when GeoIP may read it. */
  const answerKey = (request: FastifyRequest, endpoint: 'decide' | 'flags', body: Buffer): string => {
    const q = request.query as Query
    const ip = deps.service.readsIp ? clientIp(request.headers['x-forwarded-for'], request.socket.remoteAddress) : ''
    return `${shapeFor(endpoint, q.v)}\u0000${q.only_use_override_person_properties === 'true'}\u0000${ip}\u0000${body.toString('latin1')}`
  }

  const route = routesOf(app, { projects: deps.projects, tag: 'decide' })
  const evaluation = (endpoint: 'decide' | 'flags') => ({
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
      },
    },
    handler: (request: FastifyRequest, reply: FastifyReply) => evaluate(request, reply, endpoint),
  })
  route(evaluation('decide'))
  route(evaluation('flags'))
}

/** The other public flag routes: GET /decide, the remote config, surveys, and the definitions for local evaluation. */
export async function publicFlagRoutes(app: FastifyInstance, deps: PublicFlagDeps): Promise<void> {
  acceptFlagBodies(app)
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
      return cachedConfig(reply).send({
        token: project.apiToken,
        ...remoteConfig(
          project,
          deps.service.flagsOf(project.id).some((f) => f.active),
          request.headers,
        ),
      })
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
      const config = {
        token: project.apiToken,
        ...remoteConfig(
          project,
          deps.service.flagsOf(project.id).some((f) => f.active),
          request.headers,
        ),
      }
      const js = `(function() {\n  window._POSTHOG_REMOTE_CONFIG = window._POSTHOG_REMOTE_CONFIG || {};\n  window._POSTHOG_REMOTE_CONFIG[${JSON.stringify(project.apiToken)}] = {\n    config: ${JSON.stringify(config)},\n    siteApps: []\n  }\n})();\n`
      return cachedConfig(reply).type('application/javascript').send(js)
    },
  })

  // posthog-js with surveys on asks for the project's surveys with its project key. Wren has no surveys
  // yet: the list is empty, in PostHog's shape, so the SDK stops asking rather than retrying a 404.
  route({
    method: 'GET',
    url: '/api/surveys/',
    summary: 'The surveys posthog-js shows (none yet)',
    access: { public: 'the project API key in `token`.' },
    schema: {
      querystring: Type.Object({ token: Type.String({ description: 'The project API key.' }) }),
      response: { 200: Type.Object({ surveys: Type.Array(AnyObject()) }), 401: ErrorBody },
    },
    handler: async (request, reply) => {
      projectFor(request.query.token)
      return reply.header('cache-control', 'public, max-age=60').send({ surveys: [] })
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
        const body = localEvaluationBody(project.id, deps)
        const text = JSON.stringify(body)
        const etag = `W/"${createHash('sha1').update(text).digest('hex')}"`
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
function acceptFlagBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_req, body, done) => done(null, body))
}

function projectOf(projects: ProjectStore, token: string): Project {
  const project = projects.byToken(token)
  if (!project)
    throw wrenError('invalid_api_key', 'Project API key invalid. You can find your project API key in your Wren project settings.')
  return project
}

const ENDPOINT_LABELS = { decide: { endpoint: 'decide' }, flags: { endpoint: 'flags' } } as const

/** Keys of the flags part of an answer: a project's remote_config cannot shadow them. */
const RESPONSE_KEYS = ['featureFlags', 'featureFlagPayloads', 'errorsWhileComputingFlags', 'flags', 'requestId', 'evaluatedAt']
const NOT_FAST = Symbol('not fast')
const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * The common case without the general decoder: an uncompressed JSON object body, no form, no hints. Any
 * surprise (invalid UTF-8 or JSON) goes the general way, which reports it as that way does.
 */
function plainJsonBody(request: FastifyRequest): Buffer | null {
  const body = request.body
  if (!Buffer.isBuffer(body) || body.length === 0 || body[0] !== 0x7b) return null
  const query = request.query as Query
  if (query.data !== undefined || query.compression !== undefined || request.headers['content-encoding'] !== undefined) return null
  const type = request.headers['content-type']
  if (type !== undefined && type.includes('form')) return null
  return body
}

function parsePlain(body: Buffer): unknown {
  try {
    const json: unknown = JSON.parse(strictUtf8.decode(body))
    return jsonTooDeepIn(json) ? NOT_FAST : json
  } catch {
    return NOT_FAST
  }
}

async function bodyJson(request: FastifyRequest): Promise<unknown> {
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
  const query = request.query as Query
  if (body.length === 0 && !query.data)
    throw wrenError('empty_payload', 'Request body is empty: send a JSON body with token and distinct_id.')
  let text = await payloadText({ path: request.url, query, headers: request.headers, body })
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

/** Active flags with dependency filters rewritten to flag keys plus their dependency chain (reference §3.6, §5). */
export function localEvaluationBody(
  teamId: number,
  deps: { service: FlagsService; snapshot: PersonSnapshot; cohorts: CohortReader },
): Record<string, unknown> {
  const all = deps.service.flagsOf(teamId)
  const byId = new Map(all.map((f) => [String(f.id), f]))
  const flags = all.filter((f) => f.active).map((f) => minimalFlag({ ...f, filters: rewriteDependencies(f, byId) }))
  const mapping = Object.fromEntries([...deps.snapshot.groupTypeNames(teamId)].map(([i, name]) => [String(i), name]))
  const cohorts = Object.fromEntries(
    deps.cohorts
      .list(teamId)
      .filter((c) => !c.isStatic && c.properties)
      .map((c) => [String(c.id), c.properties]),
  )
  return { flags, group_type_mapping: mapping, cohorts }
}

function rewriteDependencies(flag: FeatureFlag, byId: Map<string, FeatureFlag>): FeatureFlag['filters'] {
  const groups = flag.filters.groups
  if (!groups?.some((g) => g.properties?.some((p) => p.type === 'flag'))) return flag.filters
  const chainOf = (id: string, seen: string[]): string[] | null => {
    const dep = byId.get(id)
    if (!dep || seen.includes(id)) return null
    const order: string[] = []
    for (const g of dep.filters.groups ?? []) {
      for (const p of g.properties ?? []) {
        if (p.type !== 'flag') continue
        const sub = chainOf(String(p.key), [...seen, id])
        if (sub === null) return null
        for (const k of sub) if (!order.includes(k)) order.push(k)
      }
    }
    order.push(dep.key)
    return order
  }
  return {
    ...flag.filters,
    groups: groups.map((g) => ({
      ...g,
      properties: (g.properties ?? []).map((p): StoredPropertyFilter => {
        if (p.type !== 'flag') return p
        const dep = byId.get(String(p.key))
        const chain = chainOf(String(p.key), [String(flag.id)])
        return { ...p, key: dep?.key ?? String(p.key), dependency_chain: chain ?? [] }
      }),
    })),
  }
}
