// Planning a lifecycle: the request resolved against the project (its range, its series' action, the cohorts
// its filters name, the persons the viewer may not see) into the SQL of each actor's statuses, as PostHog's
// lifecycle runner defines them. In one pass over the events, per actor (a person, or a group): its periods of
// activity (from one period before the range to one after) and the period it was created in. Each active
// period is `new` (the creation's period, when it is the first active one), `returning` (the period before was
// active too) or `resurrecting`; the period after an active one that is not active is `dormant`.
// Events sent without a person profile ($process_person_profile false) are left out.
import type { PersonalApiKey, Project } from '../../../platform/tenancy'
import type { Action, ActionStore } from '../../../actions/store'
import type { CohortStore } from '../../../cohorts/store'
import { addDays, addMonths } from '../../../analytics/time/wall-time'
import { rangeInputOf, resolveRange, weekStartOf, type DateRange } from '../../common/dates'
import { queryDefinitions } from '../../common/definitions'
import { allOf, eventReads, type EventReads, type EventReadsDeps } from '../../common/event-reads'
import { PERIOD_STEP, periodKey, periodNumberSql } from '../../common/periods'
import { STATUSES, type LifecycleRequest } from './model'

export interface LifecyclePlanDeps extends EventReadsDeps {
  actions: Pick<ActionStore, 'list'>
  cohorts: Pick<CohortStore, 'list'>
}

/** The action its series names (another project's is a 400) and the cohorts its filters name. */
export const lifecycleDefinitions = (deps: Pick<LifecyclePlanDeps, 'actions' | 'cohorts'>, project: Project, request: LifecycleRequest) =>
  queryDefinitions(deps, project, { ...request, entities: [request.series], attr: 'series', breakdownType: 'event' })

export interface LifecyclePlan {
  request: LifecycleRequest
  tz: string
  weekStartDay: number
  range: DateRange
  /** The buckets answered: the range's (with an explicit date_from, those starting before it are left out). */
  buckets: Date[]
  /** The series' display name: its event ('All events' for any), or its action's name. */
  name: string
  actions: Map<number, Action>
  reads: EventReads
  /**
   * Rows of (actor_id, k, status): each actor's status in period k, as its index in STATUSES (UInt8); `listed`: with
   * event_count and event_distinct_ids.
   */
  statuses(listed: boolean): string
  settings: string
}

/** The key of a bucket of the plan's range. */
export const keyOf = (plan: Pick<LifecyclePlan, 'range' | 'tz' | 'weekStartDay'>, bucket: Date) =>
  periodKey(bucket, plan.range.interval, plan.tz, plan.weekStartDay)

export async function planLifecycle(
  deps: LifecyclePlanDeps,
  project: Project,
  request: LifecycleRequest,
  opts: { now: Date; viewer?: PersonalApiKey },
): Promise<LifecyclePlan> {
  const tz = project.timezone || 'UTC'
  const weekStartDay = weekStartOf(project)
  const definitions = await lifecycleDefinitions(deps, project, request)
  const rangeInput = await rangeInputOf(deps.clickhouse, project.id, request, request.interval)
  const range = resolveRange(rangeInput, opts.now, tz, weekStartDay)
  const reads = await eventReads(deps, project, definitions, { now: opts.now, viewer: opts.viewer, tz, weekStartDay, rangeInput })
  const { params } = reads
  const { interval } = range
  const first = range.buckets[0]
  const last = range.buckets[range.buckets.length - 1]
  const shift = (w: Date, n: number) =>
    interval === 'hour'
      ? new Date(w.getTime() + n * 3_600_000)
      : interval === 'month'
        ? addMonths(w, n)
        : addDays(w, interval === 'week' ? 7 * n : n)
  const tzParam = params.add('String', tz)
  // ClickHouse's own UInt32 period numbers and statuses as UInt8 codes: each actor's arrays hold small numbers,
  // not Int64s and strings (a lifecycle of 10 M events: see bench/results/).
  const key = (expr: string) => periodNumberSql(expr, interval, tzParam, weekStartDay)
  const [NEW, RETURNING, RESURRECTING, DORMANT] = (['new', 'returning', 'resurrecting', 'dormant'] as const).map((s) => STATUSES.indexOf(s))
  const step = PERIOD_STEP[interval]

  let actor = reads.personId.sql
  const conditions: string[] = []
  if (request.aggregationGroup !== null) {
    actor = `\`$group_${request.aggregationGroup}\``
    conditions.push(`${actor} != ''`)
  }
  // One period before the range (is the first one returning?) to one after (is the last one's next dormant?).
  const from = reads.instant(shift(first, -1))
  const to = reads.instant(shift(last, 1))
  const where = allOf([
    reads.team,
    `timestamp >= ${from}`,
    `timestamp < ${to}`,
    // Events sent with $process_person_profile false are the ones ingestion gave no full person (persons/rules.ts).
    `person_mode = 'full'`,
    reads.entity(request.series),
    reads.where(definitions.globalProperties),
    reads.visible,
    ...conditions,
  ])
  const source = reads.source({ from, to })
  // The actors' own rows (persons listed) carry their event count and distinct ids; the counts need neither.
  const statuses = (listed: boolean) => {
    const extra = listed ? ', event_count, event_distinct_ids' : ''
    let perActor = `SELECT ${actor} AS actor_id, min(person_created_at) AS created_at, groupUniqArray(${key('timestamp')}) AS periods
        ${listed ? ', count() AS event_count, groupUniqArray(100)(distinct_id) AS event_distinct_ids' : ''}
      FROM ${source.from} WHERE ${where} GROUP BY actor_id`
    // A group's creation is the group's own (its first $groupidentify), not its persons'.
    if (request.aggregationGroup !== null)
      perActor = `SELECT a.actor_id AS actor_id, g.created_at AS created_at, a.periods AS periods
          ${listed ? ', a.event_count AS event_count, a.event_distinct_ids AS event_distinct_ids' : ''}
        FROM (${perActor}) AS a LEFT JOIN (
          SELECT group_key, min(created_at) AS created_at FROM groups
          WHERE ${reads.team} AND group_type_index = ${request.aggregationGroup} GROUP BY group_key
        ) AS g ON a.actor_id = g.group_key`
    return `SELECT actor_id, pair.1 AS k, pair.2 AS status${extra} FROM (
        SELECT actor_id${extra}, arraySort(periods) AS active,
          arrayPopBack(arrayPushFront(active, ${key('created_at')})) AS previous,
          arrayPopFront(arrayPushBack(active, toUInt32(0))) AS following,
          arrayMap((p, c, i) -> toUInt8(if(p = c, ${NEW}, if(c - ${step} = p AND i != 1, ${RETURNING}, ${RESURRECTING}))),
            previous, active, arrayEnumerate(active)) AS initial,
          arrayMap(c -> c + ${step}, arrayFilter((c, f) -> c + ${step} != f, active, following)) AS dormant,
          arrayConcat(arrayZip(active, initial), arrayMap(d -> (d, toUInt8(${DORMANT})), dormant)) AS pairs
        FROM (${perActor}))
      ARRAY JOIN pairs AS pair`
  }
  const buckets = request.explicitDate ? range.buckets.filter((b) => b.getTime() >= range.from.getTime()) : range.buckets
  const series = request.series
  const name =
    series.kind === 'actions' ? definitions.actions.get(Number(series.id))!.name : series.id === null ? 'All events' : String(series.id)
  return {
    request,
    tz,
    weekStartDay,
    range,
    buckets,
    name,
    actions: definitions.actions,
    reads,
    statuses,
    settings: source.settings,
  }
}

/** The SQL with its SETTINGS clause, when the query needs one. */
export const withSettings = (sql: string, plan: LifecyclePlan) => (plan.settings ? `${sql} SETTINGS ${plan.settings}` : sql)
