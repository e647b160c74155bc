// One runner for every kind (the rows of kinds.ts): `refresh` with PostHog's meaning, the cache and its
// staleness, identical concurrent runs computed once, the asynchronous jobs, and the answer's envelope.
// A kind computes (kind.ts); the runner decides whether to, and wraps what it answers.
import type { ClickHouseClient } from '../platform/clickhouse'
import type { Clock } from '../platform/clock'
import { wrenError } from '../platform/errors'
import { hiddenPersons } from '../platform/http/hidden-persons'
import { isRecord } from '../platform/json'
import type { PersonalApiKey, Project } from '../platform/tenancy'
import { SharedWork } from '../platform/work'
import { QueryCache, type CachedAnswer } from './cache'
import { weekStartOf } from './common/dates'
import { DataVersion } from './data-version'
import { newQueryId, QueryJobs, type JobContext, type QueryStatus } from './jobs'
import type { DashboardFilter, StaleInterval } from './kind'
import { computedKind, unwrapNode, type AnyKind, type QueryDeps } from './kinds'

/** PostHog's RefreshType. */
export const REFRESH_MODES = [
  'blocking',
  'async',
  'async_except_on_cache_miss',
  'lazy_async',
  'force_blocking',
  'force_async',
  'force_cache',
] as const
export type RefreshMode = (typeof REFRESH_MODES)[number]

/** The modes that answer a stale cached result at once and compute in the background. */
const ASYNC_IF_STALE = new Set<RefreshMode>(['async', 'async_except_on_cache_miss', 'lazy_async'])

/**
 * `refresh` (and the legacy `async`) as the query endpoint reads them (PostHog's execution_mode_from_refresh
 * and _process_query_request): true is force_blocking; `async: true` is async; absent, false and force_cache
 * are blocking there (the endpoint always computes what is missing or stale). Any other value is a 400.
 */
export function endpointRefresh(refresh: unknown, legacyAsync: unknown): RefreshMode {
  if (refresh !== undefined && refresh !== null && typeof refresh !== 'boolean' && !REFRESH_MODES.includes(refresh as RefreshMode))
    throw wrenError('invalid_input', `refresh must be one of ${REFRESH_MODES.join(', ')} or a boolean.`, 'refresh')
  let mode: RefreshMode | null = refresh === true ? 'force_blocking' : typeof refresh === 'string' ? (refresh as RefreshMode) : null
  if (legacyAsync === true) mode = 'async'
  return mode === null || mode === 'force_cache' ? 'blocking' : mode
}

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
/** PostHog's staleness thresholds (caching/utils.py): by the query's interval, and the longer ones of lazy_async. */
const STALE_AFTER: Record<StaleInterval, { normal: number; lazy: number }> = {
  minute: { normal: 5 * MINUTE, lazy: 15 * MINUTE },
  hour: { normal: HOUR, lazy: 2 * HOUR },
  day: { normal: 6 * HOUR, lazy: 12 * HOUR },
  week: { normal: DAY, lazy: DAY },
  month: { normal: 2 * DAY, lazy: 2 * DAY },
}
/** When the client may ask to recompute (PostHog: 15 minutes for insights, 1 minute otherwise). */
const CLIENT_REFRESH = { insight: 15 * MINUTE, other: MINUTE }

export interface RunnerDeps extends QueryDeps {
  clickhouse: ClickHouseClient
  clock: Clock
}

/** One call of the runner: who asks, for which project, how (`mode`), and the signal that ends a blocking run. */
export interface QueryCall extends JobContext {
  project: Project
  viewer?: PersonalApiKey
  /** The caller's: a blocking computation stops once every caller waiting for it has gone. Jobs have their own. */
  signal: AbortSignal
  mode: RefreshMode
  /** The async job's id (PostHog's client_query_id); a new one when absent. */
  clientQueryId?: string | null
}

/** The endpoint's request (PostHog's QueryRequest), its fields read. */
export interface QueryRequest {
  query: Record<string, unknown>
  filtersOverride?: DashboardFilter | null
  variablesOverride?: Record<string, unknown> | null
}

export interface QueryOutcome {
  /** 202 while a job is under way for it (query_status.complete false), else 200. */
  status: 200 | 202
  body: Record<string, unknown>
}

/** The fields of PostHog's response models a kind may leave out: present, as null (PostHog dumps them so). */
const ABSENT_AS_NULL = {
  results: null,
  error: null,
  hogql: null,
  modifiers: null,
  timings: null,
  query_status: null,
  resolved_date_range: null,
  calculation_trigger: null,
  query_metadata: null,
}

export class QueryRunner {
  readonly jobs: QueryJobs
  private readonly cache = new QueryCache()
  private readonly computing = new SharedWork<CachedAnswer>()
  private readonly version: DataVersion

  constructor(
    private readonly deps: RunnerDeps,
    opts: { maxAsync: number },
  ) {
    this.jobs = new QueryJobs(deps.clock, opts.maxAsync)
    this.version = new DataVersion(deps.clickhouse)
  }

  /** A node's kind (its wrappers taken off) and its model, `variables_override` applied; the 400s of parse. */
  parse(node: Record<string, unknown>, variablesOverride?: Record<string, unknown> | null): { kind: AnyKind; query: unknown } {
    const source = withVariables(unwrapNode(node), variablesOverride)
    const kind = computedKind(source)
    return { kind, query: kind.parse(source) }
  }

  /** The endpoint's request: parsed, `filters_override` applied, and run. */
  async query(request: QueryRequest, call: QueryCall): Promise<QueryOutcome> {
    const { kind, query } = this.parse(request.query, request.variablesOverride)
    return this.execute(kind, this.withFilters(kind, query, request.filtersOverride), call)
  }

  /** Throws the 400 of a query naming what the project does not have (kind.ts check), without running it. */
  async check(kind: AnyKind, project: Project, query: unknown): Promise<void> {
    await kind.check?.(this.deps, project, query)
  }

  /** `filters_override` through the kind's withDashboardFilters (a kind without one takes none). */
  withFilters<Q>(kind: AnyKind, query: Q, filters: DashboardFilter | null | undefined): Q {
    return filters && kind.withDashboardFilters ? (kind.withDashboardFilters(query, filters) as Q) : query
  }

  /** A parsed query run by `call.mode` (§2.2 of the reference: cache, staleness, async jobs). */
  async execute(kind: AnyKind, query: unknown, call: QueryCall): Promise<QueryOutcome> {
    const { project, mode } = call
    const key = await this.cacheKey(kind, query, call)
    const startJob = () =>
      this.jobs.start(project.id, call.clientQueryId || newQueryId(), call, async (signal) =>
        this.envelope(kind, query, key, await this.compute(kind, query, key, { ...call, signal }), false, project),
      )
    if (mode === 'force_async') return { status: 202, body: { query_status: startJob() } }
    const cached = mode === 'force_blocking' ? undefined : this.cache.get(key)
    if (cached) {
      if (mode === 'force_cache') return { status: 200, body: this.envelope(kind, query, key, cached, true, project) }
      const version = await this.version.of(project.id, call.signal)
      if (!this.isStale(kind, query, cached, version, mode === 'lazy_async'))
        return { status: 200, body: this.envelope(kind, query, key, cached, true, project) }
      if (ASYNC_IF_STALE.has(mode))
        return this.pending({ ...this.envelope(kind, query, key, cached, true, project), query_status: startJob() })
    } else if (mode === 'force_cache') return { status: 200, body: { cache_key: key, query_status: null } }
    else if (mode === 'async' || mode === 'lazy_async') return this.pending({ cache_key: key, query_status: startJob() })
    return { status: 200, body: this.envelope(kind, query, key, await this.compute(kind, query, key, call), false, project) }
  }

  /** A job's status (GET …/query/:id/): 202 running, 200 complete, 400 failed with a message, 500 without. */
  status(project: Project, id: string): { status: 200 | 202 | 400 | 500; body: { query_status: QueryStatus } } {
    const status = this.jobs.status(project.id, id)
    const code = !status.complete ? 202 : !status.error ? 200 : status.error_message ? 400 : 500
    return { status: code, body: { query_status: status } }
  }

  /** DELETE …/query/:id/: the job cancelled and forgotten. */
  async cancel(project: Project, id: string): Promise<{ message: string }> {
    return { message: await this.jobs.cancel(project.id, id) }
  }

  private pending(body: Record<string, unknown>): QueryOutcome {
    const status = body.query_status as QueryStatus
    return { status: status.complete ? 200 : 202, body }
  }

  /** Computes and caches; identical queries asked at once are computed once (their cache key is their identity). */
  private compute(kind: AnyKind, query: unknown, key: string, call: QueryCall): Promise<CachedAnswer> {
    const { project, viewer } = call
    return this.computing.run(key, call.signal, async (signal) => {
      // Read before computing: data arriving during the computation makes the answer stale, never wrongly fresh.
      const version = await this.version.of(project.id, signal)
      const now = this.deps.clock.now()
      const answer = await kind.run(this.deps, { project, viewer, now, signal }, query)
      const entry: CachedAnswer = { answer, lastRefresh: isoSeconds(now), version }
      this.cache.set(key, entry)
      return entry
    })
  }

  /**
   * What the answer depends on (PostHog's get_cache_key): the kind, its canonical query, the definitions it
   * resolves (kind.ts definitions), the project, its timezone and week start, and the persons hidden from
   * the key asking. The data version is not in it: a
   * cached answer of an older version is stale (isStale).
   */
  private async cacheKey(kind: AnyKind, query: unknown, call: QueryCall): Promise<string> {
    const { project, viewer } = call
    const [hidden, definitions] = await Promise.all([
      viewer ? hiddenPersons(this.deps.clickhouse, viewer, project.id) : null,
      kind.definitions?.(this.deps, project, query),
    ])
    return QueryCache.key({
      kind: kind.kind,
      query,
      definitions: definitions ?? null,
      team: project.id,
      timezone: timezoneOf(project),
      weekStart: weekStartOf(project),
      hidden: hidden ? [...hidden.uuids].sort() : null,
    })
  }

  /**
   * PostHog's is_stale: computed at another data version, or older than its interval's threshold, except that
   * an answer whose range ended before it was computed never ages (past data does not change).
   */
  private isStale(kind: AnyKind, query: unknown, cached: CachedAnswer, version: string, lazy: boolean): boolean {
    if (cached.version !== version) return true
    const lastRefresh = Date.parse(cached.lastRefresh)
    const range = cached.answer.resolved_date_range
    const dateTo = isRecord(range) && typeof range.date_to === 'string' ? Date.parse(range.date_to) : NaN
    if (Number.isFinite(dateTo) && dateTo < lastRefresh - 10_000) return false
    const threshold = STALE_AFTER[kind.staleInterval(query) ?? 'minute']
    return this.deps.clock.now().getTime() > lastRefresh + (lazy ? threshold.lazy : threshold.normal)
  }

  /** The kind's answer in PostHog's envelope (CachedQueryResponseMixin), absent optional fields as null. */
  private envelope(
    kind: AnyKind,
    query: unknown,
    key: string,
    entry: CachedAnswer,
    isCached: boolean,
    project: Project,
  ): Record<string, unknown> {
    const lastRefresh = Date.parse(entry.lastRefresh)
    const threshold = STALE_AFTER[kind.staleInterval(query) ?? 'minute'].normal
    return {
      ...ABSENT_AS_NULL,
      ...entry.answer,
      is_cached: isCached,
      last_refresh: entry.lastRefresh,
      next_allowed_client_refresh: isoSeconds(new Date(lastRefresh + (kind.insight ? CLIENT_REFRESH.insight : CLIENT_REFRESH.other))),
      cache_key: key,
      cache_target_age: isoSeconds(new Date(lastRefresh + threshold)),
      timezone: timezoneOf(project),
    }
  }
}

/** `variables_override` put into the node's `variables` (PostHog's apply_dashboard_variables): values replaced, code_name kept. */
function withVariables(node: Record<string, unknown>, overrides: Record<string, unknown> | null | undefined): Record<string, unknown> {
  if (!overrides || !isRecord(node.variables)) return node
  const variables: Record<string, unknown> = { ...node.variables }
  for (const [id, override] of Object.entries(overrides)) {
    const current = variables[id]
    if (!isRecord(current) || !isRecord(override)) continue
    variables[id] = { ...current, ...override, code_name: current.code_name }
  }
  return { ...node, variables }
}

const timezoneOf = (project: Project): string => project.timezone || 'UTC'

/** ISO without zero milliseconds, as PostHog writes its times ("2020-01-10T12:14:00Z"). */
const isoSeconds = (d: Date): string => d.toISOString().replace('.000Z', 'Z')
