// Retention as ClickHouse SQL, in one pass over the events: each actor's events (per breakdown value) are
// grouped into the intervals its cohort starts in (every interval with a target event, or for first-time
// retention the interval of its first one) and the intervals it came back in; each (actor, cohort interval)
// becomes the list of intervals after the cohort's it returned in (PostHog's intervals_from_base: 0 for the
// cohort itself, then 1 … totalIntervals-1), or for cumulative retention every interval up to the last it
// returned in. Counts, the ranking of breakdown values and their "Other" are aggregated in SQL too; only the
// cells of the answer reach Wren. User input only enters as parameters.
import type { RetentionType } from './model'

export interface RetentionSqlInput {
  /** The events table with its joins (analytics/sql/events-source.ts). */
  from: string
  /** The WHERE of every event read: team, time bounds, global filters, visibility, the entities' event names. */
  where: string
  /** The actor of an event (a person's uuid, a group key). */
  actor: string
  /** An event's interval: its index from the range's first (negative before it). */
  bucket: string
  /** The intervals of the range (cohort rows): an event counts when 0 <= bucket < count. */
  count: number
  /** Return intervals per cohort, the cohort's own included. */
  lookahead: number
  /** SQL matching a target event (with its properties). */
  start: string
  /** First-ever occurrence: SQL matching the target event without its properties; else null. */
  firstEver: string | null
  /** SQL matching a return event. */
  returning: string
  type: RetentionType
  cumulative: boolean
  /**
   * PostHog's 24-hour windows: each actor's periods counted from its first target event (t0), `count` units of
   * `diff` (SQL of the units between two times) long; `start` gives t0's cohort from the range's start.
   */
  windows: { diff(from: string, to: string): string; count: number; start(t0: string): string } | null
  /**
   * Per event, the property aggregationType sums (Float64, 0 when missing); `distinct`: the target and return
   * entities differ (then interval 0 also sums the return events after the cohort's first target event).
   */
  aggregation: { value: string; distinct: boolean } | null
  /** Custom brackets' sizes (in intervals): a return counts in the bracket its distance from the cohort falls in. */
  brackets: number[] | null
  minimumOccurrences: number
  /** Per event: its breakdown value (String), or for cohorts an Array(String) to arrayJoin; null: none. */
  breakdown: { expr: string; cohort: boolean } | null
  /** Also gather each actor's distinct ids (the actors query lists them). */
  distinctIds: boolean
}

/**
 * Rows of (actor, pv, s, ks, events, distinct_ids): per actor, breakdown value ('' without one) and cohort
 * interval s, the intervals from s it counts in (0 first), how many of its events were read, and (when asked)
 * its distinct ids.
 */
export function actorRowsSql(input: RetentionSqlInput): string {
  if (input.windows) return windowRowsSql(input, input.windows)
  const { count: n, lookahead: L } = input
  const first = input.type !== 'retention_recurring'
  const inRange = `b >= 0 AND b < ${n}`
  // A first-time cohort's breakdown value is that of the actor's first target event (one bucket per actor);
  // a recurring one's, each value of the actor's events (its start and return events with that value).
  const cohort = input.breakdown?.cohort === true
  const eventValue = input.breakdown ? (cohort ? `arrayJoin(${input.breakdown.expr})` : input.breakdown.expr) : `''`
  const anchor = input.firstEver ? 'is_first' : 'is_start'
  // Without a breakdown, each actor is one group (its value '').
  const byValue = input.breakdown !== null && (!first || cohort)
  const pv = !input.breakdown ? `'' AS pv` : byValue ? 'pv' : `argMinIf(ev, timestamp, ${anchor}) AS pv`
  const groupBy = byValue ? 'actor, pv' : 'actor'
  let starts: string
  if (!first) starts = intervalSet(n, `is_start AND ${inRange}`)
  else {
    const valid = input.firstEver
      ? `countIf(is_start) > 0 AND minIf(timestamp, is_first) = minIf(timestamp, is_start)`
      : `countIf(is_start) > 0`
    const at = `argMinIf(b, timestamp, ${anchor})`
    starts = `if(${valid} AND ${at} >= 0 AND ${at} < ${n}, [${at}], CAST([] AS Array(Int64)))`
  }
  // The same target and return events (PostHog's default, $pageview both): one condition, and for recurring
  // retention the return intervals are the start intervals.
  const sameEvents = input.start === input.returning
  const isReturn = sameEvents ? 'is_start' : 'is_return'
  const returned =
    !first && sameEvents && input.minimumOccurrences === 1
      ? 'starts'
      : input.minimumOccurrences > 1
        ? `arrayFilter(x -> countEqual(rs, x) >= ${input.minimumOccurrences}, arrayDistinct(groupArrayIf(b, ${isReturn} AND ${inRange}) AS rs))`
        : intervalSet(n, `${isReturn} AND ${inRange}`)
  let base = `arrayConcat([0], arrayFilter(k -> k > 0 AND k < ${L}, arrayMap(r -> r - s, returns)))`
  if (input.brackets) {
    let end = 0
    const bracket = input.brackets.map((size, i) => `r - s <= ${(end += size)}, ${i + 1}`).join(', ')
    base = `arrayConcat([0], arrayDistinct(arrayFilter(k -> k > 0, arrayMap(r -> multiIf(r - s <= 0, -1, ${bracket}, -1), returns))))`
  }
  const ks = input.cumulative ? `range(0, arrayMax(${base}) + 1)` : base
  // Only the columns a part of the query reads (the timestamp for first times, the distinct ids for actors).
  const columns = [
    `${input.actor} AS actor`,
    ...(!input.breakdown ? [] : [byValue ? `${eventValue} AS pv` : `${eventValue} AS ev`]),
    ...(first || input.aggregation ? ['timestamp'] : []),
    ...(input.aggregation ? [`${input.aggregation.value} AS v`] : []),
    ...(input.distinctIds ? ['distinct_id'] : []),
    `toInt64(${input.bucket}) AS b`,
    `(${input.start}) AS is_start`,
    ...(sameEvents ? [] : [`(${input.returning}) AS is_return`]),
    ...(input.firstEver ? [`(${input.firstEver}) AS is_first`] : []),
  ]
  const events = `SELECT ${columns.join(', ')} FROM ${input.from} WHERE ${input.where}`
  // A sum of a property: per interval from the cohort's, the values of its target (0) or return events.
  let values = 'CAST([] AS Array(Float64))'
  let data = ''
  if (input.aggregation) {
    data = `groupArrayIf((b, v, timestamp), is_start AND ${inRange}) AS sd, groupArrayIf((b, v, timestamp), ${isReturn} AND ${inRange}) AS rd, `
    const sum = (list: string, where: string) => `arraySum(arrayMap(x -> x.2, arrayFilter(x -> ${where}, ${list})))`
    const after = input.aggregation.distinct
      ? ` + ${sum('rd', 'x.1 = s AND x.3 > arrayMin(arrayMap(y -> y.3, arrayFilter(y -> y.1 = s, sd)))')}`
      : ''
    values = `arrayMap(k -> if(k = 0, ${sum('sd', 'x.1 = s')}${after}, ${sum('rd', 'x.1 = s + k')}), ks)`
  }
  const rows = `SELECT actor, pv, s, ${ks} AS ks, ${input.aggregation ? 'sd, rd' : `${values} AS vs`}, events, distinct_ids FROM (
    SELECT actor, ${pv}, ${starts} AS starts, ${returned} AS returns, ${data}count() AS events,
      ${input.distinctIds ? 'groupUniqArray(distinct_id)' : 'CAST([] AS Array(String))'} AS distinct_ids
    FROM (${events}) GROUP BY ${groupBy})
  ARRAY JOIN starts AS s`
  // The values are read from the intervals (ks), so a sum of a property is one level up.
  return input.aggregation ? `SELECT actor, pv, s, ks, ${values} AS vs, events, distinct_ids FROM (${rows})` : rows
}

/**
 * The set of intervals (0 … n-1) of an actor's events matching `cond`, as a sorted Array(Int64). Gathered for up
 * to 64 intervals as the bits of a UInt64: a hash set's state per actor (groupUniqArray) made the aggregation of
 * 200,000 actors outgrow the bound past which ClickHouse spills it to disk, and a weekly retention over 10 M
 * events took 1.2 s instead of 0.5 s.
 */
function intervalSet(n: number, cond: string): string {
  if (n > 64) return `groupUniqArrayIf(b, ${cond})`
  return `arrayMap(i -> toInt64(i), arrayFilter(i -> bitTest(groupBitOrIf(bitShiftLeft(toUInt64(1), toUInt8(b)), ${cond}), i), range(${n})))`
}

/**
 * The same rows with PostHog's 24-hour windows (its actor_query_24h_window): an actor's windows start at its first
 * target event t0 (of the range; for first-time retention, ever), which gives its one cohort; each breakdown value
 * of its events from t0 on is a row, counted in window 0 and in each window with a return event of that value.
 */
function windowRowsSql(input: RetentionSqlInput, windows: NonNullable<RetentionSqlInput['windows']>): string {
  const { count: n, lookahead: L } = input
  const cohort = input.breakdown?.cohort === true
  const value = input.breakdown ? (cohort ? `arrayJoin(${input.breakdown.expr})` : input.breakdown.expr) : `''`
  const sameEvents = input.start === input.returning
  const columns = [
    `${input.actor} AS actor`,
    `${value} AS pv`,
    'timestamp',
    ...(input.distinctIds ? ['distinct_id'] : []),
    `(${input.start}) AS is_start`,
    ...(sameEvents ? [] : [`(${input.returning}) AS is_return`]),
    ...(input.firstEver ? [`(${input.firstEver}) AS is_first`] : []),
  ]
  const events = `SELECT ${columns.join(', ')} FROM ${input.from} WHERE ${input.where}`
  const groups = `SELECT actor, pv, if(countIf(is_start) > 0, minIf(timestamp, is_start), NULL) AS st,
      ${input.firstEver ? 'if(countIf(is_first) > 0, minIf(timestamp, is_first), NULL)' : 'NULL'} AS fe,
      groupArrayIf(timestamp, ${sameEvents ? 'is_start' : 'is_return'}) AS rts, max(timestamp) AS last, count() AS events,
      ${input.distinctIds ? 'groupUniqArray(distinct_id)' : 'CAST([] AS Array(String))'} AS distinct_ids
    FROM (${events}) GROUP BY actor, pv`
  const t0 = input.firstEver
    ? `if(min(fe) OVER (PARTITION BY actor) = min(st) OVER (PARTITION BY actor), min(st) OVER (PARTITION BY actor), NULL)`
    : `min(st) OVER (PARTITION BY actor)`
  const inWindows = `arrayFilter(x -> x >= 0, arrayMap(t -> if(t >= t0, toInt64(floor(${windows.diff('t0', 't')} / ${windows.count})), -1), rts))`
  const returned =
    input.minimumOccurrences > 1
      ? `arrayFilter(x -> countEqual(ws, x) >= ${input.minimumOccurrences}, arrayDistinct(${inWindows} AS ws))`
      : `arrayDistinct(${inWindows})`
  const ks = `arrayDistinct(arrayConcat([0], arrayFilter(k -> k < ${L}, ${returned})))`
  return `SELECT actor, pv, s, ${ks} AS ks, CAST([] AS Array(Float64)) AS vs, events, distinct_ids FROM (
      SELECT *, toInt64(floor(${windows.start('t0')})) AS s FROM (SELECT *, ${t0} AS t0 FROM (${groups})))
    WHERE t0 IS NOT NULL AND last >= t0 AND s >= 0 AND s < ${n}`
}

/**
 * The cells of the answer (s, k, value, c, rank): per breakdown value, cohort interval s and interval k, the actors counted. With a
 * breakdown, values are ranked as PostHog ranks them (largest cohorts, summed over the range, first; then by
 * value) and past `limit` summed into `other`; `rank` orders them.
 */
export function cellsSql(
  actorRows: string,
  breakdown: { limit: number; other: string } | null,
  aggregation: 'sum' | 'avg' | null = null,
): string {
  // With a sum of a property: its sum over the cell's actors (avg: per actor), as `agg`.
  const agg = aggregation === 'avg' ? 'sum(v) / count()' : aggregation === 'sum' ? 'sum(v)' : '0'
  const cells = `SELECT s, k, pv, count() AS c, ${agg} AS agg FROM (${actorRows}) ARRAY JOIN ks AS k${aggregation ? ', vs AS v' : ''} GROUP BY s, k, pv`
  if (!breakdown) return `SELECT s, k, pv AS value, c, agg, 1 AS rank FROM (${cells})`
  const ranked = `SELECT s, k, pv, c, agg, dense_rank() OVER (ORDER BY total DESC, pv) AS r FROM (
      SELECT s, k, pv, c, agg, sum(if(k = 0, c, 0)) OVER (PARTITION BY pv) AS total FROM (${cells}))`
  const other = (v: string) => `if(r <= ${breakdown.limit}, ${v}, ${breakdown.other})`
  // "Other" sums its values' counts and aggregation values alike (PostHog's format_results).
  return `SELECT s, k, ${other('pv')} AS value, sum(c) AS c, sum(agg) AS agg, min(r) AS rank FROM (${ranked}) GROUP BY s, k, value`
}
