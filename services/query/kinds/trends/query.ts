// The trend as one ClickHouse query: one SELECT per (series, period) joined by UNION ALL, each returning
// rows of (series, period, bucket, breakdown, value); a breakdown keeps one page of its values per series
// and sums the rest into "Other" in the query (pageOfBreakdowns). Zero-filling, cumulative sums and formulas
// happen afterwards on these few rows (shape.ts). User input only enters as parameters.
import { wrenError } from '../../../platform/errors'
import type { SqlParams } from '../../../platform/clickhouse/params'
import { bucketKey, instantParam, type DateRange, type Interval } from '../../common/dates'
import type { EventPersonId } from '../../../analytics/sql/persons-sql'
import { compileGroup, type FilterContext } from '../../../analytics/property-filters/sql'
import type { PropertyGroup } from '../../../analytics/property-filters/parse'
import { SESSION_JOIN_SETTINGS, type SessionColumns } from '../../../analytics/sql/sessions'
import { eventsSource } from '../../../analytics/sql/events-source'
import { COUNT_PER_ACTOR_MATHS, PROPERTY_MATHS, type MathType, type SeriesEntity } from '../../common/series'
import type { TrendRequest } from './request'
import { NULL_LABEL, OTHER_LABEL, type BreakdownPlan } from '../../common/breakdown-sql'

export interface ResolvedSeries {
  entity: SeriesEntity
  /** SQL matching the series' events: the event name, an action's steps, or '1' for all events. */
  condition: string
}

export interface TrendRow {
  series: number
  period: number
  bucket: string
  breakdown: string
  value: number
}

export interface QueryInput {
  teamId: number
  request: TrendRequest
  series: ResolvedSeries[]
  periods: DateRange[]
  totalValue: boolean
  cumulative: boolean
  params: SqlParams
  filters: FilterContext
  /** The global filter group, with test-account filters ANDed in when asked for. */
  globalProperties: PropertyGroup
  /** Which events the caller may see ('1': all); hidden persons' events are left out (platform/http/hidden-persons.ts). */
  visible: string
  breakdown: BreakdownPlan | null
  /** Compiles a HogQL expression (math_hogql; analytics/sql/hogql.ts). */
  hogql(expr: string): string
  sessions: SessionColumns
  /** How every events row's person is read (chosen by the caller from the project's merges). */
  personId: EventPersonId
}

const QUANTILES: Record<string, number> = { median: 0.5, p75: 0.75, p90: 0.9, p95: 0.95, p99: 0.99 }

/** Weekly/monthly active become dau once the interval is as long as their window. */
export function effectiveMath(math: MathType, interval: Interval, totalValue: boolean): MathType {
  if (totalValue) return math
  if (math === 'weekly_active' && (interval === 'week' || interval === 'month')) return 'dau'
  if (math === 'monthly_active' && interval === 'month') return 'dau'
  return math
}

export function buildTrendQuery(input: QueryInput): string {
  const selects: string[] = []
  input.periods.forEach((range, period) => {
    // Series with plain aggregates share one scan (conditional aggregates); the rest get their own.
    const shared = input.series.map((series, index) => ({ series, index })).filter(({ series }) => sharesScan(input, series, range))
    if (shared.length > 1) selects.push(sharedSelect(input, shared, period, range))
    input.series.forEach((series, index) => {
      if (shared.length > 1 && shared.some((s) => s.index === index)) return
      selects.push(seriesSelect(input, series, index, period, range))
    })
  })
  const rows = `SELECT * FROM (${selects.map((s) => `(${s})`).join('\nUNION ALL\n')})`
  // On a cluster the session subquery reads each shard's own events (a session lives on one shard).
  return `${input.breakdown ? pageOfBreakdowns(rows, input) : rows} SETTINGS ${SESSION_JOIN_SETTINGS}`
}

/**
 * The rows of one page of a breakdown's values per series and period, and the values ranked after it summed
 * into "Other" (OTHER_LABEL; present whenever any value ranks after the page): at most `breakdown_limit + 1`
 * values per series reach Wren, however many the events hold. PostHog's ranking: real values, then null
 * (a multi-breakdown with any null part), then "Other"; each by its total descending, then the value
 * ascending. The total is what the series draws, summed (shape.ts orders the page by the same): each bucket
 * of the range once, a cumulative line's bucket once for itself and for every bucket after it; a total-value
 * display's one number. Smoothing is left out of the total (a moving average's floors are not a sum).
 * Values before the page (`offset`) are left out, as PostHog pages them.
 */
function pageOfBreakdowns(rows: string, input: QueryInput): string {
  const { request } = input
  const start = request.breakdownOffset
  const end = start + request.breakdownLimit
  return `SELECT series, period, bucket, breakdown, sum(value) AS value FROM (
    SELECT series, period, if(r <= ${end}, bd, '${OTHER_LABEL}') AS breakdown, pt.1 AS bucket, pt.2 AS value FROM (${rankedBreakdowns(rows, input)})
    ARRAY JOIN pts AS pt WHERE r > ${start})
  GROUP BY series, period, bucket, breakdown`
}

/** Per series, period and breakdown value (`bd`): its points (`pts`) and its rank (`r`, from 1) as pageOfBreakdowns ranks them. */
function rankedBreakdowns(rows: string, input: QueryInput): string {
  let weight = '1'
  if (!input.totalValue) {
    // Literals, not parameters: Wren's own date-times (no user input), and hundreds of them would make the
    // URL of a request to a ClickHouse server too long.
    const keys = `[${input.periods.map((p) => `[${p.buckets.map((b) => `'${wallDateTimeLiteral(bucketKey(b))}'`).join(',')}]`).join(', ')}]`
    const at = `indexOf(arrayElement(${keys}, period + 1), bucket)`
    weight = `if(${at} = 0, 0, ${input.cumulative ? `length(arrayElement(${keys}, period + 1)) - ${at} + 1` : '1'})`
  }
  const nullPart = `position(concat(char(31), bd, char(31)), concat(char(31), '${NULL_LABEL}', char(31))) > 0`
  const rank = `multiIf(bd = '${OTHER_LABEL}', 2, ${nullPart}, 1, 0)`
  return `SELECT series, period, bd, pts, row_number() OVER (PARTITION BY series, period ORDER BY ${rank}, total DESC, bd) AS r FROM (
      SELECT series, period, breakdown AS bd, groupArray((bucket, value)) AS pts, sum(value * ${weight}) AS total
      FROM (${rows}) GROUP BY series, period, bd)`
}

const SHAREABLE = new Set<string>(['total', 'dau', 'unique_session', 'unique_group', ...PROPERTY_MATHS])

function sharesScan(input: QueryInput, series: ResolvedSeries, range: DateRange): boolean {
  const math = effectiveMath(series.entity.math, range.interval, input.totalValue)
  if (!SHAREABLE.has(math) || series.entity.mathProperty === '$session_duration') return false
  return !(input.cumulative && !input.totalValue && (math === 'dau' || math === 'unique_group'))
}

/** Several series in one pass: one -If aggregate per series, unpivoted; series without hits drop out. */
function sharedSelect(
  input: QueryInput,
  members: Array<{ series: ResolvedSeries; index: number }>,
  period: number,
  range: DateRange,
): string {
  return withSource(sharedSelectBody(input, members, period, range), input, range)
}

function sharedSelectBody(
  input: QueryInput,
  members: Array<{ series: ResolvedSeries; index: number }>,
  period: number,
  range: DateRange,
): string {
  const { params, totalValue } = input
  const tz = params.add('String', range.tz)
  const bucketKey = totalValue ? '0' : bucketExpr(`toTimeZone(timestamp, ${tz})`, range.interval, range.weekStartDay)
  const bucketOut = totalValue ? `'' AS bucket` : `formatDateTime(b, '%Y-%m-%d %H:%i:%S') AS bucket`
  const bd = input.breakdown ? (input.breakdown.multi ? `arrayJoin(${input.breakdown.expr})` : input.breakdown.expr) : `''`
  const conditions = members.map(({ series }) => {
    const e = series.entity
    const math = effectiveMath(e.math, range.interval, totalValue)
    const parts = [series.condition, compileGroup(e.properties, input.filters)]
    if (e.mathGroupTypeIndex !== null && ['dau', 'unique_group'].includes(math)) parts.push(`\`$group_${e.mathGroupTypeIndex}\` != ''`)
    const real = parts.filter((c) => c !== '1')
    return real.length ? `(${real.join(' AND ')})` : '1'
  })
  const aggregates = members.map(({ series }, i) => {
    const e = series.entity
    const math = effectiveMath(e.math, range.interval, totalValue)
    const actor = () =>
      e.mathGroupTypeIndex !== null && ['dau', 'unique_group'].includes(math) ? `\`$group_${e.mathGroupTypeIndex}\`` : input.personId.sql
    return `toFloat64(${conditionalAggregate(math, e, actor, params, conditions[i])})`
  })
  const team = `team_id = ${params.add('Int64', input.teamId)}`
  const from = `timestamp >= toDateTime64(${params.add('String', instantParam(range.from, range.tz))}, 6, 'UTC')`
  const to = `timestamp <= toDateTime64(${params.add('String', instantParam(range.to, range.tz))}, 6, 'UTC')`
  const global = globalCondition(input)
  const any = conditions.includes('1') ? '1' : `(${conditions.join(' OR ')})`
  const where = [team, from, to, global, any].filter((c) => c !== '1').join(' AND ')
  const events = EVENTS_SOURCE
  const indexes = `[${members.map((m) => m.index).join(', ')}]`
  return `SELECT t.1 AS series, ${period} AS period, ${bucketOut}, bd AS breakdown, t.2 AS value FROM (
    SELECT ${bucketKey} AS b, ${bd} AS bd, [${aggregates.join(', ')}] AS vals, [${conditions.map((c) => `countIf(${c})`).join(', ')}] AS hits
    FROM ${events} WHERE ${where} GROUP BY b, bd)
    ARRAY JOIN arrayFilter(x -> x.3 > 0, arrayZip(${indexes}, vals, hits)) AS t`
}

/** `actor`: read only by the maths that count actors (reading the person id may add a join). */
function conditionalAggregate(math: MathType, entity: SeriesEntity, actor: () => string, params: SqlParams, condition: string): string {
  switch (math) {
    case 'total':
      return `countIf(${condition})`
    case 'dau':
    case 'unique_group':
      return `uniqExactIf(${actor()}, ${condition})`
    case 'unique_session':
      return `uniqExactIf(\`$session_id\`, \`$session_id\` != '' AND ${condition})`
  }
  const column = entity.mathPropertyType === 'person_properties' ? 'person_properties' : 'properties'
  const value = `toFloat64OrNull(JSONExtract(${column}, ${params.add('String', entity.mathProperty ?? '')}, 'Nullable(String)'))`
  const fn = math in QUANTILES ? `quantileIf(${QUANTILES[math]})` : `${math}If`
  return `ifNull(${fn}(${value}, ${condition}), 0)`
}

/** What every event read of the trend must satisfy: the global filters, and only events the caller may see. */
function globalCondition(input: QueryInput): string {
  const parts = [compileGroup(input.globalProperties, input.filters), input.visible].filter((c) => c !== '1')
  return parts.length ? parts.join(' AND ') : '1'
}

const EVENTS_SOURCE = '__wren_events_source__'

/** The events table of one select, with the session and person-override joins the query turned out to need. */
function withSource(sql: string, input: QueryInput, range: DateRange): string {
  const team = `team_id = ${input.params.add('Int64', input.teamId)}`
  const instant = (d: Date) => `toDateTime64(${input.params.add('String', instantParam(d, range.tz))}, 6, 'UTC')`
  const bounds = input.sessions.used ? { from: instant(range.from), to: instant(range.to) } : {}
  const { from } = eventsSource(team, input, bounds)
  return sql.split(EVENTS_SOURCE).join(from)
}

function seriesSelect(input: QueryInput, series: ResolvedSeries, index: number, period: number, range: DateRange): string {
  return withSource(seriesSelectBody(input, series, index, period, range), input, range)
}

/** One point of the trend, as an InsightActorsQuery names it (kind.ts ActorsPoint), resolved against the plan. */
export interface TrendPoint {
  series: number
  period: number
  /** The bucket's `YYYY-MM-DD hh:mm:ss` (a wall time in the project's timezone); null: the whole range (a total value). */
  bucket: string | null
  /** The breakdown value as the trend's rows hold it (a multi-property one joined by MULTI_SEPARATOR); null: none. */
  breakdown: string | null
}

/**
 * The group type a series counts (its actors are groups): a math of distinct actors (unique_group, the active
 * users of a day, week or month) with a math_group_type_index; null when it counts persons or events.
 */
export function groupActorOf(entity: { math: string; mathGroupTypeIndex: number | null }): number | null {
  return entity.mathGroupTypeIndex !== null && ['dau', 'weekly_active', 'monthly_active', 'unique_group'].includes(entity.math)
    ? entity.mathGroupTypeIndex
    : null
}

/**
 * The persons behind one point: the events the series counts there (the same series, global and breakdown
 * conditions as its number, over the same range and bucket; a weekly or monthly active point's window), one row
 * per actor with `event_count` and `event_distinct_ids` (kind.ts ActorsSql): a person, or a group for a group math
 * (groupActorOf); "Other" is every value the series summed into it. A first-time math is a 400 naming the field.
 */
export function actorsSelect(input: QueryInput, point: TrendPoint): string {
  const { params, totalValue } = input
  const series = input.series[point.series]
  const range = input.periods[point.period]
  const entity = series.entity
  const math = effectiveMath(entity.math, range.interval, totalValue)
  const group = groupActorOf(entity)
  if (group === null && entity.mathGroupTypeIndex !== null)
    throw wrenError('unsupported', `The actors behind a point of math '${math}' by groups are not computed: only persons.`, 'series')
  if (math === 'first_time_for_user' || math === 'first_matching_event_for_user')
    throw wrenError('unsupported', `The actors behind a point of math '${math}' are not computed yet.`, 'series')
  if (point.breakdown !== null && !input.breakdown) throw wrenError('invalid_input', 'The trend has no breakdown.', 'breakdown')
  const tz = params.add('String', range.tz)
  const local = `toTimeZone(timestamp, ${tz})`
  const team = `team_id = ${params.add('Int64', input.teamId)}`
  const instant = (d: Date) => `toDateTime64(${params.add('String', instantParam(d, range.tz))}, 6, 'UTC')`
  const conditions = [team, `timestamp <= ${instant(range.to)}`]
  conditions.push(series.condition, globalCondition(input), compileGroup(entity.properties, input.filters))
  // A group math's actors are the groups (their keys), as its counts are.
  const actor = group === null ? input.personId.sql : `\`$group_${group}\``
  if (group !== null) conditions.push(`${actor} != ''`)
  const active = math === 'weekly_active' ? 7 : math === 'monthly_active' ? 30 : 0
  if (active && totalValue) conditions.push(`timestamp >= ${instant(new Date(range.to.getTime() - active * 86_400_000 + 1))}`)
  else conditions.push(`timestamp >= ${instant(new Date(range.from.getTime() - active * 86_400_000))}`)
  if (point.bucket !== null && !totalValue) {
    const bucket = params.add('String', wallDateTimeLiteral(point.bucket))
    if (active) {
      // Counted in the buckets of the window's days (or hours) after each active day (seriesSelectBody).
      const unit = range.interval === 'hour' ? 'hour' : 'day'
      const start = unit === 'hour' ? `toStartOfHour(${local})` : `toStartOfDay(${local})`
      conditions.push(
        `dateDiff('${unit}', ${start}, toDateTime(${bucket}, ${tz})) BETWEEN 0 AND ${unit === 'hour' ? active * 24 - 1 : active - 1}`,
      )
    } else {
      const key = `formatDateTime(${bucketExpr(local, range.interval, range.weekStartDay)}, '%Y-%m-%d %H:%i:%S')`
      conditions.push(input.cumulative ? `${key} <= ${bucket}` : `${key} = ${bucket}`)
    }
  }
  if (point.breakdown === OTHER_LABEL && input.breakdown) {
    // "Other": the values the series summed into it, those ranked after the page (pageOfBreakdowns).
    const end = input.request.breakdownOffset + input.request.breakdownLimit
    const rows = seriesSelect(input, series, point.series, point.period, range)
    const others = `(SELECT groupArray(bd) FROM (${rankedBreakdowns(rows, input)}) WHERE r > ${end})`
    conditions.push(input.breakdown.multi ? `hasAny(${input.breakdown.expr}, ${others})` : `has(${others}, ${input.breakdown.expr})`)
  } else if (point.breakdown !== null && input.breakdown) {
    const value = params.add('String', point.breakdown)
    conditions.push(input.breakdown.multi ? `has(${input.breakdown.expr}, ${value})` : `${input.breakdown.expr} = ${value}`)
  }
  const where = conditions.filter((c) => c !== '1').join(' AND ')
  const sql = `SELECT ${actor} AS actor_id, count() AS event_count, groupUniqArray(100)(distinct_id) AS event_distinct_ids
    FROM ${EVENTS_SOURCE} WHERE ${where} GROUP BY actor_id`
  return withSource(sql, input, range)
}

function seriesSelectBody(input: QueryInput, series: ResolvedSeries, index: number, period: number, range: DateRange): string {
  const { params, totalValue } = input
  const entity = series.entity
  const math = effectiveMath(entity.math, range.interval, totalValue)
  const tz = params.add('String', range.tz)
  const local = (column: string) => `toTimeZone(${column}, ${tz})`
  const bucketOf = (column: string) => bucketExpr(local(column), range.interval, range.weekStartDay)
  const head = `${index} AS series, ${period} AS period`
  const bucketOut = totalValue ? `'' AS bucket` : `formatDateTime(b, '%Y-%m-%d %H:%i:%S') AS bucket`
  const bd = input.breakdown ? (input.breakdown.multi ? `arrayJoin(${input.breakdown.expr})` : input.breakdown.expr) : `''`
  const groupActor = groupActorOf(entity) !== null
  const actor = () => (groupActor ? `\`$group_${entity.mathGroupTypeIndex}\`` : input.personId.sql)

  const team = `team_id = ${params.add('Int64', input.teamId)}`
  const filters = [series.condition, globalCondition(input), compileGroup(entity.properties, input.filters)].filter((c) => c !== '1')
  if (math === 'unique_group' || groupActor) filters.push(`${actor()} != ''`)
  const match = filters.length ? filters.join(' AND ') : '1'
  const from = (r: DateRange, extraDays = 0) => {
    const w = new Date(r.from.getTime() - extraDays * 86_400_000)
    return `timestamp >= toDateTime64(${params.add('String', instantParam(w, r.tz))}, 6, 'UTC')`
  }
  const to = `timestamp <= toDateTime64(${params.add('String', instantParam(range.to, range.tz))}, 6, 'UTC')`
  const where = (fromSql: string) => `${team} AND ${fromSql} AND ${to} AND ${match}`
  const sessionDuration = entity.mathProperty === '$session_duration' && (PROPERTY_MATHS as readonly string[]).includes(math)
  if (sessionDuration) input.sessions.value('$session_duration')
  const events = EVENTS_SOURCE
  const bucketKey = totalValue ? '0' : bucketOf('timestamp')

  // Active users over a sliding window: each (actor, day) counts in the buckets of the next N days.
  if (math === 'weekly_active' || math === 'monthly_active') {
    const days = math === 'weekly_active' ? 7 : 30
    if (totalValue) {
      const windowFrom = `timestamp >= toDateTime64(${params.add('String', instantParam(new Date(range.to.getTime() - days * 86_400_000 + 1), range.tz))}, 6, 'UTC')`
      return `SELECT ${head}, '' AS bucket, bd AS breakdown, toFloat64(uniqExact(a)) AS value FROM (SELECT ${actor()} AS a, ${bd} AS bd FROM ${events} WHERE ${where(windowFrom)}) GROUP BY bd`
    }
    const hourly = range.interval === 'hour'
    const unitStart = hourly ? `toStartOfHour(${local('timestamp')})` : `toStartOfDay(${local('timestamp')})`
    const shift = hourly ? `toIntervalHour(i)` : `toIntervalDay(i)`
    const steps = hourly ? days * 24 : days
    return `SELECT ${head}, ${bucketOut}, bd AS breakdown, toFloat64(uniqExact(a)) AS value FROM (
      SELECT a, bd, d + ${shift} AS b FROM (SELECT DISTINCT ${actor()} AS a, ${bd} AS bd, ${unitStart} AS d FROM ${events} WHERE ${where(from(range, days))})
      ARRAY JOIN range(${steps}) AS i) GROUP BY b, bd`
  }

  if (math === 'first_time_for_user' || math === 'first_matching_event_for_user') {
    if (input.breakdown?.multi)
      throw wrenError('unsupported', `math '${math}' cannot be combined with a cohort breakdown yet.`, 'breakdown')
    const extra = [globalCondition(input), compileGroup(entity.properties, input.filters)].filter((c) => c !== '1')
    const ok = extra.length ? extra.join(' AND ') : '1'
    const seriesOnly = math === 'first_time_for_user' ? series.condition : match
    const firstBucket = totalValue ? '0' : bucketOf('first_ts')
    return `SELECT ${head}, ${bucketOut}, bd AS breakdown, toFloat64(count()) AS value FROM (
      SELECT ${firstBucket} AS b, bd FROM (
        SELECT ${input.personId.sql} AS a, min(timestamp) AS first_ts, argMin(${ok}, timestamp) AS ok, argMin(${bd}, timestamp) AS bd
        FROM ${events} WHERE ${team} AND ${to} AND ${seriesOnly} GROUP BY a)
      WHERE ok AND first_ts >= toDateTime64(${params.add('String', instantParam(range.from, range.tz))}, 6, 'UTC')) GROUP BY b, bd`
  }

  if ((COUNT_PER_ACTOR_MATHS as readonly string[]).includes(math)) {
    const fn = math.replace('_count_per_actor', '')
    const agg = fn in QUANTILES ? `quantile(${QUANTILES[fn]})(c)` : `${fn}(c)`
    return `SELECT ${head}, ${bucketOut}, bd AS breakdown, toFloat64(${agg}) AS value FROM (
      SELECT ${bucketKey} AS b, ${bd} AS bd, ${actor()} AS a, count() AS c FROM ${events} WHERE ${where(from(range))} GROUP BY b, bd, a) GROUP BY b, bd`
  }

  // dau/unique_group drawn cumulatively: each actor counts once, in its first bucket.
  if (input.cumulative && !totalValue && (math === 'dau' || math === 'unique_group')) {
    return `SELECT ${head}, ${bucketOut}, bd AS breakdown, toFloat64(count()) AS value FROM (
      SELECT ${actor()} AS a, ${bd} AS bd, min(${bucketKey}) AS b FROM ${events} WHERE ${where(from(range))} GROUP BY a, bd) GROUP BY b, bd`
  }

  // Session duration: once per session and bucket, then the math across sessions.
  if (sessionDuration) {
    const fn = math in QUANTILES ? `quantile(${QUANTILES[math]})` : math
    return `SELECT ${head}, ${bucketOut}, bd AS breakdown, toFloat64(ifNull(${fn}(d), 0)) AS value FROM (
      SELECT ${bucketKey} AS b, ${bd} AS bd, \`$session_id\` AS sid, any(session_duration) AS d FROM ${events} WHERE ${where(from(range))} AND sid != '' GROUP BY b, bd, sid) GROUP BY b, bd`
  }

  const agg = aggregate(math, entity, actor, params, input.hogql)
  return `SELECT ${head}, ${bucketOut}, bd AS breakdown, value FROM (
    SELECT ${bucketKey} AS b, ${bd} AS bd, toFloat64(${agg}) AS value FROM ${events} WHERE ${where(from(range))} GROUP BY b, bd)`
}

function aggregate(math: MathType, entity: SeriesEntity, actor: () => string, params: SqlParams, hogql: (expr: string) => string): string {
  switch (math) {
    case 'total':
      return 'count()'
    case 'dau':
    case 'unique_group':
      return `uniqExact(${actor()})`
    case 'unique_session':
      return "uniqExactIf(`$session_id`, `$session_id` != '')"
    case 'hogql':
      return hogql(entity.mathHogql ?? '')
  }
  if ((PROPERTY_MATHS as readonly string[]).includes(math)) {
    const column = entity.mathPropertyType === 'person_properties' ? 'person_properties' : 'properties'
    const value = `toFloat64OrNull(JSONExtract(${column}, ${params.add('String', entity.mathProperty ?? '')}, 'Nullable(String)'))`
    const fn = math in QUANTILES ? `quantile(${QUANTILES[math]})` : math
    return `ifNull(${fn}(${value}), 0)`
  }
  throw wrenError('invalid_input', `Unknown math '${math}'.`, 'math')
}

function bucketExpr(local: string, interval: Interval, weekStartDay: number): string {
  switch (interval) {
    case 'hour':
      return `toStartOfHour(${local})`
    case 'day':
      return `toStartOfDay(${local})`
    case 'week':
      return `toStartOfWeek(${local}, ${weekStartDay === 1 ? 3 : 0})`
    case 'month':
      return `toStartOfMonth(${local})`
  }
}

/** A bucket's `YYYY-MM-DD hh:mm:ss`, checked to be only that before it is put into SQL text. */
function wallDateTimeLiteral(key: string): string {
  if (!/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(key)) throw new Error(`not a bucket date-time: ${key}`)
  return key
}
