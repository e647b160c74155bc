// What a query kind is. Every kind PostHog's Query API names that Wren computes is one row of the table in
// kinds.ts, built from one folder kinds/<kind>/ that exports a QueryKind. The runner (runner.ts) owns what
// every kind shares: the cache and its staleness, `refresh`, the async jobs and their cancellation, the
// answer's envelope. A kind owns its model, its plan, its SQL and the shape of its results. A kind never
// imports a sibling kind (test/runtime/layout.test.ts holds that); what two kinds share lives in
// services/query/common/ or lower (services/analytics/).
import type { PersonalApiKey, Project } from '../platform/tenancy'

/** PostHog's intervals; the cache's staleness is set by the query's (PostHog's caching/utils.py). */
export type StaleInterval = 'minute' | 'hour' | 'day' | 'week' | 'month'

/** A dashboard's filters as `filters_override` carries them (PostHog's DashboardFilter). */
export interface DashboardFilter {
  date_from?: string | null
  date_to?: string | null
  explicitDate?: boolean | null
  properties?: unknown
  breakdown_filter?: Record<string, unknown> | null
  interval?: string | null
  filterTestAccounts?: boolean | null
}

/** One run of one query: who asks, for which project, when, and the signal that ends it. */
export interface QueryRun {
  project: Project
  /** The key asking: rows of persons it may not see are left out (platform/http/hidden-persons.ts). */
  viewer?: PersonalApiKey
  /** The instant relative dates resolve at. */
  now: Date
  /** Aborted when the caller leaves or cancels (DELETE …/query/:id/): pass it to every queryRows. */
  signal: AbortSignal
}

/**
 * One data point of an insight kind, as PostHog's InsightActorsQuery names it: `day` (a trend's bucket, as its
 * `days` list it), `series` (index), `breakdown` (the clicked value), `compare` ('current' | 'previous'),
 * `status` (lifecycle), `interval` (retention), `operator` (stickiness). What a kind does not read, it ignores; what it cannot apply
 * is a 400 naming the field.
 */
export interface ActorsPoint {
  day: string | number | null
  series: number
  breakdown: unknown
  compare: 'current' | 'previous' | null
  status: string | null
  interval: number | null
  /** A StickinessActorsQuery's comparison of `day` (the number of intervals): exact (default), gte or lte. */
  operator?: 'exact' | 'gte' | 'lte' | null
  /** A FunnelsActorsQuery's point (PostHog's): read by the funnel kind only. */
  funnel?: FunnelActorsPoint
}

/**
 * The actors of a funnel's point: `funnelStep` (1-based) positive, those who reached the step; negative, those who
 * reached the step before and dropped off before abs(n); `funnelStepBreakdown` the bar's breakdown value; for a
 * conversion trend, the period entered (`funnelTrendsEntrancePeriodStart`) and whether the dropped off are asked.
 */
export interface FunnelActorsPoint {
  funnelStep: number | null
  /** 1-based steps: those whose furthest step is one of them (PostHog's funnelCustomSteps; wins over funnelStep). */
  funnelCustomSteps: number[] | null
  funnelStepBreakdown: unknown
  funnelTrendsDropOff: boolean | null
  funnelTrendsEntrancePeriodStart: string | null
  /**
   * Also the times of the point's step on each actor's furthest path, as columns of the actors SQL (µs, Int64):
   * `target_time` the first event of the step (0-based: funnelStep - 1, or abs(funnelStep) - 2 for those who
   * dropped off), `previous_time` the step before's (null for the first step), `window_end` the target's time
   * plus the funnel's conversion window. Only with a funnelStep.
   */
  stepTimes?: boolean
}

/**
 * The actors behind a data point as SQL (PostHog's to_actors_query): rows of `actor_id` (a person's uuid),
 * `event_count` (its matching events) and `event_distinct_ids` (the distinct ids they were sent with), one
 * row per actor; `params` its parameters. The ActorsQuery joins it to the persons.
 */
export interface ActorsSql {
  sql: string
  params: Record<string, unknown>
  /**
   * Columns of the point's own an ActorsQuery may select by name, as SQL over its rows (aliased `source`), e.g.
   * a retention cohort's `appearances`.
   */
  columns?: Record<string, string>
  /** The actors are groups of this type (`actor_id` their key), not persons: PostHog's GroupStrategy. */
  groupTypeIndex?: number
}

/**
 * An insight read by its own kind (kinds.ts wires it, so a kind never imports another): the actors SQL of one of
 * its points, and what its answer depends on (the kind's `definitions`).
 */
export interface InsightActors<D> {
  actors(deps: D, run: QueryRun, point: ActorsPoint): Promise<ActorsSql>
  definitions(deps: D, project: Project): Promise<unknown>
}

export interface QueryKind<Q, Deps> {
  /** PostHog's kind name, e.g. 'HogQLQuery'. */
  readonly kind: string
  /** An insight kind (TrendsQuery, FunnelsQuery, …): PostHog's longer client refresh interval applies. */
  readonly insight: boolean
  /**
   * The node (with its `kind`) validated into the kind's model; a 400 naming the field otherwise. The
   * runner has already put `variables_override` into the node's `variables` (PostHog's
   * apply_dashboard_variables: a value replaced, its code_name kept). The model is the query's canonical
   * form: the cache key is made of it (runner.ts), so two nodes that mean the same share an answer.
   */
  parse(node: Record<string, unknown>): Q
  /** `filters_override` applied as PostHog's apply_dashboard_filters does; absent: the kind takes none. */
  withDashboardFilters?(query: Q, filters: DashboardFilter): Q
  /**
   * Throws the 400 a query naming what the project does not have (another project's action) gets, without
   * running it: a saved insight is checked with it. Absent: parsing is the whole check.
   */
  check?(deps: Deps, project: Project, query: Q): Promise<void>
  /**
   * What the answer depends on besides the query and the project's events and persons (the runner's key
   * has the project, its timezone and week start, the persons hidden from the key; the data version makes
   * an answer stale): the definitions the kind resolves (actions, cohorts, project settings such as the
   * test-account filters), so that editing one gives a new cache key. Absent: nothing else.
   */
  definitions?(deps: Deps, project: Project, query: Q): Promise<unknown>
  /** The interval its cached answer goes stale by; null: PostHog's default (no date range: 'minute'). */
  staleInterval(query: Q): StaleInterval | null
  /**
   * The kind's part of the answer: `results` and the fields PostHog's response of this kind carries
   * (`columns`, `types`, `hasMore`, `hogql`, `resolved_date_range`, …). The runner adds the envelope
   * (`is_cached`, `cache_key`, …). It must be JSON (it is cached and may be read long after). With
   * `resolved_date_range.date_to` before the computation, the cached answer never goes stale by age.
   */
  run(deps: Deps, run: QueryRun, query: Q): Promise<Record<string, unknown>>
  /** An insight kind whose points have actors: the SQL of the actors behind one (an ActorsQuery's source). */
  actors?(deps: Deps, run: QueryRun, query: Q, point: ActorsPoint): Promise<ActorsSql>
}
