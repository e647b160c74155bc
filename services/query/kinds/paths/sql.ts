// Paths as ClickHouse SQL, in one pass over the events, following PostHog's paths query
// (paths_query_runner.py): each event becomes a path item (its URL, screen name, event name or HogQL value,
// cleaned and grouped); each person's items, in time order, are split into sessions where 30 minutes pass
// between two events; a session's repeats of one item collapse into one step (the last), its path is cut at
// the start and end points and to the step limit, and each step after the first is an edge from the step
// before. Edges are counted (one per session that took it) with the average seconds between their steps;
// only the answer's rows reach Wren. User input only enters as parameters.

/** Seconds of quiet after which PostHog starts a new session of a person's path. */
export const SESSION_GAP_SECONDS = 30 * 60

/** Everything the per-step rows are built from, resolved by the plan. */
export interface StepRowsInput {
  /** The events table with its joins (analytics/sql/events-source.ts). */
  from: string
  /** The WHERE of every event read: team, range, filters, event types, visibility. */
  where: string
  /** The person of an event. */
  actor: string
  /** An event's path item (String), cleaned and grouped. */
  item: string
  /** SQL conditions on the finished item (`item` in it is the item): the excluded events. */
  itemWhere: string | null
  /** Parameters (SQL) of the start and end points: as asked, and the single target stripped of a trailing slash. */
  start: string | null
  end: string | null
  target: string | null
  stepLimit: number
  /**
   * Paths from a funnel's step: the funnel's actors (rows of actor_id, target_time, previous_time, window_end, in
   * µs) and which of an actor's events are read (`ts` the event's time, `funnel_actors` the actor's row).
   */
  funnel: { sql: string; condition: string } | null
}

/**
 * Rows of (actor, step, path_key, last_path_key, dropoff_key, conversion_time): one per step of each session's
 * limited path; `last_path_key` is null on a path's first step; `conversion_time` the seconds from the step
 * before (0 on the first); `dropoff_key` the session path's last step.
 */
export function stepRowsSql(input: StepRowsInput): string {
  const gap = `${SESSION_GAP_SECONDS}000000`
  const limit = input.stepLimit
  const half = Math.floor(limit / 2)
  // Per session: its items and times, a run of one item kept as its last event.
  const compact = `arrayMap(x -> x.2, session) AS items, arrayMap(x -> x.1, session) AS times,
      arrayMap((x, y) -> x != y, items, arrayPushBack(arrayPopFront(items), '')) AS keep,
      arrayFilter((x, k) -> k, items, keep) AS compact_path, arrayFilter((x, k) -> k, times, keep) AS compact_times`
  let cut: string
  let where = ''
  if (input.start && input.end) {
    // Both points: from the first start, up to the first end after it; a longer path keeps its first and last
    // halves of the step limit around a '...' step (PostHog's).
    const middle = (arr: string, filler: string) =>
      `if(length(${arr}) > ${limit}, arrayConcat(arraySlice(${arr}, 1, ${half}), [${filler}], arraySlice(${arr}, ${-half}, ${half})), ${arr})`
    cut = `indexOf(compact_path, ${input.start}) AS start_index,
      if(start_index > 0, arraySlice(compact_path, start_index), compact_path) AS start_path,
      if(start_index > 0, arraySlice(compact_times, start_index), compact_times) AS start_times,
      indexOf(start_path, ${input.end}) AS end_index,
      if(end_index > 0, arrayResize(start_path, end_index), start_path) AS filtered_path,
      if(end_index > 0, arrayResize(start_times, end_index), start_times) AS filtered_times,
      ${middle('filtered_path', "'...'")} AS path, ${middle('filtered_times', `filtered_times[${1 + half}]`)} AS path_times`
    where = 'WHERE start_index > 0 AND end_index > 0'
  } else if (input.end) {
    // An end point: the path up to its first occurrence, its last steps.
    cut = `indexOf(compact_path, ${input.target}) AS target_index,
      arraySlice(arrayResize(compact_path, target_index), ${-limit}) AS path,
      arraySlice(arrayResize(compact_times, target_index), ${-limit}) AS path_times`
    where = 'WHERE target_index > 0'
  } else if (input.start) {
    cut = `indexOf(compact_path, ${input.target}) AS target_index,
      arraySlice(compact_path, target_index, ${limit}) AS path, arraySlice(compact_times, target_index, ${limit}) AS path_times`
    where = 'WHERE target_index > 0'
  } else cut = `arraySlice(compact_path, 1, ${limit}) AS path, arraySlice(compact_times, 1, ${limit}) AS path_times`

  let events = `SELECT ${input.actor} AS actor, toUnixTimestamp64Micro(timestamp) AS ts, ${input.item} AS item
    FROM ${input.from} WHERE ${input.where}${input.itemWhere ? ` AND ${input.itemWhere}` : ''}`
  if (input.funnel)
    events = `SELECT actor, ts, item FROM (${events}) AS ev
    INNER JOIN (${input.funnel.sql}) AS funnel_actors ON funnel_actors.actor_id = ev.actor WHERE ${input.funnel.condition}`
  const sessions = `SELECT actor, arraySort(groupArray((ts, item))) AS evs FROM (${events}) GROUP BY actor`
  const paths = `SELECT actor, ${compact}, ${cut},
      concat(toString(length(path)), '_', path[-1]) AS dropoff_key, arrayDifference(path_times) AS diffs
    FROM (${sessions})
    ARRAY JOIN arraySplit((x, d) -> d >= ${gap}, evs, arrayDifference(arrayMap(x -> x.1, evs))) AS session
    ${where}`
  return `SELECT actor, step, concat(toString(step), '_', path_item) AS path_key,
      if(step > 1, concat(toString(step - 1), '_', prev_item), NULL) AS last_path_key, dropoff_key, diff / 1e6 AS conversion_time
    FROM (${paths})
    ARRAY JOIN path AS path_item, arrayEnumerate(path) AS step, diffs AS diff, arrayPopBack(arrayPushFront(path, '')) AS prev_item`
}

/**
 * The edges (PostHog's order: most sessions first, then source and target), with the weights asked for,
 * at most `limit` of them; average seconds between their steps.
 */
export function edgesSql(stepRows: string, opts: { limit: number; min: number | null; max: number | null }): string {
  const having = [opts.min !== null ? `value >= ${opts.min}` : null, opts.max !== null ? `value <= ${opts.max}` : null].filter(Boolean)
  return `SELECT last_path_key AS source, path_key AS target, count() AS value, avg(conversion_time) AS average_time
    FROM (${stepRows}) WHERE step > 1
    GROUP BY source, target${having.length ? ` HAVING ${having.join(' AND ')}` : ''}
    ORDER BY value DESC, source ASC, target ASC LIMIT ${opts.limit}`
}
