// Planning retention: the request resolved against the project — its intervals (PostHog's
// QueryDateRangeWithIntervals, in the project's timezone and week start), the actions and cohorts it names,
// the persons the viewer may not see — into the SQL of its per-actor rows (sql.ts), which the answer's cells
// and the actors behind one cell aggregate differently.
import type { SqlParams } from '../../../platform/clickhouse/params'
import { wrenError } from '../../../platform/errors'
import type { PersonalApiKey, Project } from '../../../platform/tenancy'
import type { ActionStore } from '../../../actions/store'
import type { Cohort, CohortStore } from '../../../cohorts/store'
import { jsonValue } from '../../../analytics/property-filters/sql'
import { parseDate } from '../../../analytics/time/date-params'
import { addDays, addMonths, endOfDay, endOfHour, fromWall, toWall } from '../../../analytics/time/wall-time'
import { bucketStart, earliestEvent, weekStartOf, type Interval } from '../../common/dates'
import { allOf, eventReads, type EventReadsDeps } from '../../common/event-reads'
import { breakdownExpr, NULL_LABEL } from '../../common/breakdown-sql'
import type { SeriesEntity } from '../../common/series'
import { queryDefinitions } from '../../common/definitions'
import { actorRowsSql } from './sql'
import type { RetentionRequest } from './model'

export interface RetentionPlanDeps extends EventReadsDeps {
  actions: Pick<ActionStore, 'list'>
  cohorts: Pick<CohortStore, 'list'>
}

/** The actions and cohorts a retention query names; another project's action is a 400. */
export const retentionDefinitions = (deps: Pick<RetentionPlanDeps, 'actions' | 'cohorts'>, project: Project, request: RetentionRequest) =>
  queryDefinitions(deps, project, {
    ...request,
    entities: [request.targetEntity, request.returningEntity],
    attr: 'retentionFilter',
    breakdownType: request.breakdown === null ? '' : request.breakdownType,
  })

/** The intervals of a retention query, as wall times of the project's timezone. */
export interface RetentionRange {
  interval: Interval
  tz: string
  /** The first cohort interval's start. */
  from: Date
  /** The end (exclusive): the start of the interval after date_to's. */
  to: Date
  /** Each cohort interval's start. */
  starts: Date[]
}

/** The most cells (cohort intervals × return intervals) an answer has. */
const MAX_CELLS = 250_000

function addIntervals(w: Date, interval: Interval, n: number, tz: string): Date {
  switch (interval) {
    case 'hour':
      return toWall(new Date(fromWall(w, tz).getTime() + n * 3_600_000), tz)
    case 'day':
      return addDays(w, n)
    case 'week':
      return addDays(w, 7 * n)
    case 'month':
      return addMonths(w, n)
  }
}

/**
 * PostHog's QueryDateRangeWithIntervals: date_to (now without one) to the end of its day (its hour, for hourly
 * periods with a relative or no date_to), plus one interval, at that interval's start; date_from at the start of
 * its interval, or without one totalIntervals intervals before date_to.
 */
export function retentionRange(
  request: RetentionRequest,
  now: Date,
  tz: string,
  weekStartDay: number,
  earliest: Date | null,
): RetentionRange {
  const interval = request.period
  const nowWall = toWall(now, tz)
  const start = (w: Date) => bucketStart(w, interval, weekStartDay)
  let to = nowWall
  let relative = true
  if (request.dateTo) {
    const parsed = parseDate(request.dateTo, nowWall, tz, true, 'dateRange.date_to')
    to = parsed.wall
    relative = parsed.relative
  }
  if (interval !== 'hour') to = endOfDay(to)
  else if (relative) to = endOfHour(to)
  to = start(addIntervals(to, interval, 1, tz))
  let from: Date
  if (request.dateFrom === 'all') from = start(earliest ? toWall(earliest, tz) : nowWall)
  else if (request.dateFrom) from = start(parseDate(request.dateFrom, nowWall, tz, true, 'dateRange.date_from').wall)
  else from = start(addIntervals(to, interval, -request.totalIntervals, tz))
  const starts: Date[] = []
  for (let w = from; w.getTime() < to.getTime(); w = addIntervals(from, interval, starts.length, tz)) {
    starts.push(w)
    if (starts.length * request.totalIntervals > MAX_CELLS)
      throw wrenError(
        'too_many_buckets',
        `This date range has too many ${interval} cohorts for ${request.totalIntervals} intervals each; choose a longer period or a shorter range.`,
        'dateRange',
      )
  }
  return { interval, tz, from, to, starts }
}

export interface RetentionPlan {
  request: RetentionRequest
  range: RetentionRange
  cohorts: Map<number, Cohort>
  params: SqlParams
  /** The per-actor rows (sql.ts actorRowsSql). */
  actorRows: string
  /** The SETTINGS clause's content the query needs ('' when none). */
  settings: string
  /** How the actor column reads: 'persons' (a person's uuid) or 'groups'. */
  actorKind: 'persons' | 'groups'
}

export async function planRetention(
  deps: RetentionPlanDeps,
  project: Project,
  request: RetentionRequest,
  opts: { now: Date; viewer?: PersonalApiKey; distinctIds?: boolean },
): Promise<RetentionPlan> {
  const { clickhouse } = deps
  const tz = project.timezone || 'UTC'
  const weekStartDay = weekStartOf(project)
  const definitions = await retentionDefinitions(deps, project, request)
  const { actions, cohorts } = definitions
  const earliest = request.dateFrom === 'all' ? await earliestEvent(clickhouse, project.id) : null
  const range = retentionRange(request, opts.now, tz, weekStartDay, earliest)
  const reads = await eventReads(deps, project, definitions, {
    now: opts.now,
    viewer: opts.viewer,
    tz,
    weekStartDay,
    filterDate: (v) => parseDate(v, toWall(opts.now, tz), tz, true, 'properties').wall,
  })
  const { params } = reads
  const from = reads.instant(range.from)
  const to = reads.instant(range.to)

  let actor = reads.personId.sql
  let actorKind: RetentionPlan['actorKind'] = 'persons'
  const conditions: string[] = []
  if (request.aggregationGroup !== null) {
    actor = `\`$group_${request.aggregationGroup}\``
    actorKind = 'groups'
    conditions.push(`${actor} != ''`)
  }

  const start = reads.entity(request.targetEntity)
  // The same entity (PostHog's default, $pageview both) is the same SQL: the query reads it once.
  const same = (a: SeriesEntity, b: SeriesEntity) =>
    a.kind === b.kind && a.id === b.id && JSON.stringify(a.properties) === JSON.stringify(b.properties)
  const returning = same(request.targetEntity, request.returningEntity) ? start : reads.entity(request.returningEntity)
  const firstEver = request.retentionType === 'retention_first_ever_occurrence' ? reads.named(request.targetEntity) : null
  // Recurring retention reads the range only; first-time retention every earlier event too (to find the first).
  if (request.retentionType === 'retention_recurring') conditions.push(`timestamp >= ${from}`, `timestamp < ${to}`)
  else conditions.push(`timestamp < ${to}`)
  // Only the entities' events are read (any event: all of them).
  const names = (e: SeriesEntity): Array<string | null> =>
    e.kind === 'actions' ? actions.get(Number(e.id))!.steps.map((s) => s.event || null) : [e.id === null ? null : String(e.id)]
  const eventNames = [...names(request.targetEntity), ...names(request.returningEntity)]
  if (!eventNames.includes(null)) conditions.push(`event IN ${params.add('Array(String)', [...new Set(eventNames as string[])].sort())}`)
  else if (request.retentionType !== 'retention_first_ever_occurrence' && start !== '1' && returning !== '1')
    conditions.push(`((${start}) OR (${returning}))`)

  // PostHog's retention breaks down by the first of several breakdowns only.
  const single = { ...request, breakdowns: request.breakdowns ? request.breakdowns.slice(0, 1) : null }
  const breakdown = breakdownExpr(single, reads.breakdown)
  const breakdownSql = breakdown
    ? {
        expr: breakdown.multi
          ? `arrayMap(x -> if(x = 'all', '0', x), ${breakdown.expr})`
          : `ifNull(nullIf(${breakdown.expr}, '${NULL_LABEL}'), '')`,
        cohort: breakdown.multi,
      }
    : null

  const where = allOf([reads.team, ...conditions, reads.where(definitions.globalProperties), reads.visible])
  const localDate = `toDate(timestamp, ${params.add('String', tz)})`
  const fromDate = () => params.add('Date', range.from.toISOString().slice(0, 10))
  const bucket = {
    hour: () =>
      `floor((toUnixTimestamp(timestamp) - ${params.add('Int64', Math.floor(fromWall(range.from, tz).getTime() / 1000))}) / 3600)`,
    day: () => `dateDiff('day', ${fromDate()}, ${localDate})`,
    week: () => `floor(dateDiff('day', ${fromDate()}, ${localDate}) / 7)`,
    month: () => `toYear(${localDate}) * 12 + toMonth(${localDate}) - ${range.from.getUTCFullYear() * 12 + range.from.getUTCMonth() + 1}`,
  }[range.interval]()

  // 24-hour windows (PostHog's actor_query_24h_window): hours for Hour and Day periods, days for Week and Month.
  const tzName = params.add('String', tz)
  const windowUnits = { hour: ['hour', 1], day: ['hour', 24], week: ['day', 7], month: ['day', 30] } as const
  const [windowUnit, windowCount] = windowUnits[range.interval]
  const diff = (a: string, b: string) => `dateDiff('${windowUnit}', toTimeZone(${a}, ${tzName}), toTimeZone(${b}, ${tzName}))`
  const windows =
    request.timeWindowMode === '24_hour_windows'
      ? { diff, count: windowCount, start: (t0: string) => `${diff(from, t0)} / ${windowCount}` }
      : null

  const SOURCE = '__wren_retention_events__'
  const sql = actorRowsSql({
    from: SOURCE,
    where,
    actor,
    bucket,
    count: range.starts.length,
    lookahead: request.totalIntervals,
    start,
    firstEver,
    returning,
    type: request.retentionType,
    cumulative: request.cumulative,
    brackets: request.customBrackets,
    windows,
    aggregation: request.aggregation && {
      value: `ifNull(toFloat64OrNull(${
        request.aggregation.propertyType === 'person'
          ? jsonValue('person_properties', request.aggregation.property, params)
          : jsonValue('properties', request.aggregation.property, params, reads.filters.columns.materialized)
      }), 0)`,
      // PostHog tells the entities apart by type and id (their properties aside).
      distinct: request.targetEntity.kind !== request.returningEntity.kind || request.targetEntity.id !== request.returningEntity.id,
    },
    minimumOccurrences: request.minimumOccurrences,
    breakdown: breakdownSql,
    distinctIds: opts.distinctIds === true,
  })
  const source = reads.source({ from, to })
  return {
    request,
    range,
    cohorts,
    params,
    actorRows: sql.split(SOURCE).join(source.from),
    settings: source.settings,
    actorKind,
  }
}
