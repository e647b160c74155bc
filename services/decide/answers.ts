// Decide's answer to one POST /decide or /flags, as the bytes the route writes: the project by the body's
// token, the evaluation (FlagsService), the remote config where the endpoint includes it, and whole answers
// kept for reuse. SDKs ask again and again with the same body for the same user (every page load, every
// server-side check), and between two changes of the state an evaluation reads (see Stamp) the answer is
// the same: it is kept as its encoded bytes, under the request itself, and checked against the current
// state on every use, so a $set, a flag, cohort or group change is seen by the next request without any
// invalidation message.
import { randomUUID } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import { wrenError } from '../platform/errors'
import { jsonTooDeepIn } from '../platform/json'
import type { Clock } from '../platform/clock'
import type { Metrics } from '../platform/metrics'
import type { Project, Tenants } from '../platform/tenancy'
import { clientIp } from './geoip'
import { readFlagsRequest } from './request'
import { flagsBodyParts, shapeFor } from './responses'
import { remoteConfig, type SurveyReader } from './remote-config'
import type { Evaluation, FlagsService, Stamp } from './service'

export type FlagsEndpoint = 'decide' | 'flags'

/** What of an HTTP request a flags answer reads (a FastifyRequest is one; a test can write one). */
export interface FlagsCall {
  url: string
  query: unknown
  headers: IncomingHttpHeaders
  /** The raw body bytes. */
  body: unknown
  socket: { remoteAddress?: string }
  /** Node's request: what its memory charge is kept under (platform/http/memory-budget.ts). */
  raw?: object
}

export interface FlagAnswersDeps {
  projects: Pick<Tenants, 'byToken'>
  service: Pick<FlagsService, 'readsIp' | 'flagsOf' | 'stamp' | 'holds' | 'evaluate'>
  surveys: SurveyReader
  clock: Clock
  metrics: Metrics
  /** The body as JSON in any of the SDKs' encodings (forms, base64, gzip, lz64): the route's decoder. */
  decodeBody: (call: FlagsCall) => Promise<unknown>
}

type Query = Record<string, string | undefined>

export class FlagAnswers {
  private readonly cache = new AnswerCache()

  constructor(private readonly deps: FlagAnswersDeps) {}

  /**
   * The whole answer to one request, as JSON bytes (see flagsBodyParts): a warm distinct id is answered
   * without a promise or a query (FlagsService.evaluate), and a request seen before, while what its
   * evaluation read is unchanged, without evaluating. Throws (or rejects with) the request's WrenError.
   */
  answer(endpoint: FlagsEndpoint, call: FlagsCall): Buffer | Promise<Buffer> {
    const body = plainJsonBody(call)
    const key = body !== null && body.length <= MAX_KEY_BODY ? this.key(call, endpoint, body) : null
    if (key !== null) {
      const hit = this.cache.get(key)
      if (hit) {
        const project = projectOf(this.deps.projects, hit.token)
        if (this.deps.service.holds(hit.stamp, project)) return this.bytes(call, endpoint, project, hit.flags, false)
        this.cache.delete(key)
      }
    }
    const json = body === null ? NOT_FAST : parsePlain(body)
    if (json === NOT_FAST) return this.deps.decodeBody(call).then((parsed) => this.evaluate(call, endpoint, parsed, null))
    return this.evaluate(call, endpoint, json, key)
  }

  private evaluate(call: FlagsCall, endpoint: FlagsEndpoint, json: unknown, key: string | null): Buffer | Promise<Buffer> {
    const req = readFlagsRequest(json)
    const project = projectOf(this.deps.projects, req.token)
    // The client address matters only for GeoIP.
    const ip = req.geoipDisable ? null : clientIp(call.headers['x-forwarded-for'], call.socket.remoteAddress)
    const stamp = key === null ? null : this.deps.service.stamp(project, req)
    const evaluation = this.deps.service.evaluate(project, req, {
      ip,
      onlyOverrides: (call.query as Query).only_use_override_person_properties === 'true',
    })
    if (evaluation instanceof Promise)
      return evaluation.then((e) => this.bytes(call, endpoint, project, flagsBytes(call, endpoint, e), e.errors))
    const flags = flagsBytes(call, endpoint, evaluation)
    // Answered synchronously from the stamped state: reusable while that state holds.
    if (key !== null && stamp !== null && !evaluation.errors) this.cache.set(key, { token: req.token, stamp, flags })
    return this.bytes(call, endpoint, project, flags, evaluation.errors)
  }

  /** The remote config where the endpoint includes it, the flags members, then the request id and time. */
  private bytes(call: FlagsCall, endpoint: FlagsEndpoint, project: Project, flags: Buffer, errors: boolean): Buffer {
    const q = call.query as Query
    this.deps.metrics.inc('wren_decide_requests_total', 1, ENDPOINT_LABELS[endpoint])
    if (errors) this.deps.metrics.inc('wren_decide_evaluation_errors_total', 1, ENDPOINT_LABELS[endpoint])
    const withConfig = endpoint === 'decide' || q.config === 'true' || (q.v === undefined && q.config === undefined)
    let head = '{'
    if (withConfig) {
      const config = remoteConfig(
        project,
        this.deps.service.flagsOf(project.id).some((f) => f.active),
        this.deps.surveys,
        call.headers,
      )
      for (const key of RESPONSE_KEYS) delete config[key]
      // Whether there are surveys, as PostHog's decide says it; posthog-js then fetches them (GET /api/surveys/).
      config.surveys = config.surveys !== false
      const members = JSON.stringify(config).slice(1, -1)
      if (members !== '') head += members + ','
    }
    const tail = `,"requestId":"${randomUUID()}","evaluatedAt":${this.deps.clock.now().getTime()}}`
    // Written into one buffer (the head as UTF-8, the tail is ASCII), without a buffer per part.
    const headBytes = Buffer.byteLength(head)
    const body = Buffer.allocUnsafe(headBytes + flags.length + tail.length)
    body.write(head, 0)
    flags.copy(body, headBytes)
    body.write(tail, headBytes + flags.length, 'latin1')
    return body
  }

  /** The request as far as a flags answer depends on it: the answer's shape, the query, the body, and the address when GeoIP may read it. */
  private key(call: FlagsCall, endpoint: FlagsEndpoint, body: Buffer): string {
    const q = call.query as Query
    const ip = this.deps.service.readsIp ? clientIp(call.headers['x-forwarded-for'], call.socket.remoteAddress) : ''
    return `${shapeFor(endpoint, q.v)}\u0000${q.only_use_override_person_properties === 'true'}\u0000${ip}\u0000${body.toString('latin1')}`
  }
}

/** The project of a project API key (the public routes' only credential). */
export function projectOf(projects: Pick<Tenants, 'byToken'>, token: string): Project {
  const project = projects.byToken(token)
  if (!project)
    throw wrenError('invalid_api_key', 'Project API key invalid. You can find your project API key in your Wren project settings.')
  return project
}

function flagsBytes(call: FlagsCall, endpoint: FlagsEndpoint, evaluation: Evaluation): Buffer {
  return Buffer.concat(flagsBodyParts(shapeFor(endpoint, (call.query as Query).v), evaluation))
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
function plainJsonBody(call: FlagsCall): Buffer | null {
  const body = call.body
  if (!Buffer.isBuffer(body) || body.length === 0 || body[0] !== 0x7b) return null
  const query = call.query as Query
  if (query.data !== undefined || query.compression !== undefined || call.headers['content-encoding'] !== undefined) return null
  const type = call.headers['content-type']
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

interface CachedAnswer {
  token: string
  stamp: Stamp
  /** The flags members of the answer (flagsBodyParts), joined. */
  flags: Buffer
}

const DEFAULT_MAX_BYTES = 64 * 1024 * 1024
/** Bodies longer than this are not kept as keys (SDK bodies are a few hundred bytes). */
const MAX_KEY_BODY = 8 * 1024
/** Rough bytes an entry holds besides its answer and key (the stamp, the map's slot). */
const ENTRY_OVERHEAD = 200

class AnswerCache {
  private readonly entries = new Map<string, CachedAnswer>()
  private bytes = 0

  constructor(private readonly maxBytes = DEFAULT_MAX_BYTES) {}

  get(key: string): CachedAnswer | undefined {
    return this.entries.get(key)
  }

  set(key: string, answer: CachedAnswer): void {
    this.delete(key)
    this.entries.set(key, answer)
    this.bytes += sizeOf(key, answer)
    // Bounded: past the cap, the oldest entries go (insertion order).
    for (const [old] of this.entries) {
      if (this.bytes <= this.maxBytes) break
      this.delete(old)
    }
  }

  delete(key: string): void {
    const old = this.entries.get(key)
    if (!old) return
    this.entries.delete(key)
    this.bytes -= sizeOf(key, old)
  }

  get size(): number {
    return this.entries.size
  }
}

function sizeOf(key: string, answer: CachedAnswer): number {
  return key.length + answer.flags.length + ENTRY_OVERHEAD
}
