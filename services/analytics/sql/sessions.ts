// The session of an events row: its properties computed per `$session_id` from all of the session's events,
// joined into an events query only when something reads them (sessionJoin). One definition serves trends
// (session filters, breakdowns and the $session_duration math), the events and recordings lists (session
// filters), and HogQL's `session.<field>` on any events row (hogql.ts). The names are PostHog's session
// fields (posthog/hogql/database/schema/sessions_v2.py: LAZY_SESSIONS_FIELDS), a subset of them.
import { wrenError } from '../../platform/errors'

/** What a field is in HogQL: PostHog's $session_duration and counts are integers, urls strings, timestamps DateTimes. */
type SessionKind = 'number' | 'string' | 'datetime'

export const SESSION_PROPERTIES: Record<string, { column: string; sql: string; kind: SessionKind }> = {
  $session_duration: { column: 'session_duration', sql: "dateDiff('second', min(timestamp), max(timestamp))", kind: 'number' },
  $entry_current_url: {
    column: 'session_entry_url',
    sql: "argMinIf(JSONExtractString(properties, '$current_url'), timestamp, JSONHas(properties, '$current_url'))",
    kind: 'string',
  },
  $end_current_url: {
    column: 'session_exit_url',
    sql: "argMaxIf(JSONExtractString(properties, '$current_url'), timestamp, JSONHas(properties, '$current_url'))",
    kind: 'string',
  },
  // The url's path without its query string or fragment, as PostHog's path(entry_url) / path(end_url).
  $entry_pathname: {
    column: 'session_entry_pathname',
    sql: "path(argMinIf(JSONExtractString(properties, '$current_url'), timestamp, JSONHas(properties, '$current_url')))",
    kind: 'string',
  },
  $end_pathname: {
    column: 'session_end_pathname',
    sql: "path(argMaxIf(JSONExtractString(properties, '$current_url'), timestamp, JSONHas(properties, '$current_url')))",
    kind: 'string',
  },
  $pageview_count: { column: 'session_pageview_count', sql: "countIf(event = '$pageview')", kind: 'number' },
  $autocapture_count: { column: 'session_autocapture_count', sql: "countIf(event = '$autocapture')", kind: 'number' },
  $screen_count: { column: 'session_screen_count', sql: "countIf(event = '$screen')", kind: 'number' },
  $start_timestamp: { column: 'session_start', sql: 'min(timestamp)', kind: 'datetime' },
  $end_timestamp: { column: 'session_end', sql: 'max(timestamp)', kind: 'datetime' },
}
/** PostHog's other names of the same fields (sessions_v2 keeps v1's $exit_* names as aliases of its $end_*). */
const ALIASES: Record<string, string> = { $exit_current_url: '$end_current_url', $exit_pathname: '$end_pathname' }

function property(key: string): (typeof SESSION_PROPERTIES)[string] | undefined {
  const name = Object.hasOwn(ALIASES, key) ? ALIASES[key] : key
  return Object.hasOwn(SESSION_PROPERTIES, name) ? SESSION_PROPERTIES[name] : undefined
}

/** The session fields a filter can name, for messages. */
export const SESSION_FIELD_NAMES = [...Object.keys(SESSION_PROPERTIES), ...Object.keys(ALIASES)]

/** The session properties one events query reads; `used` tells its builder to add sessionJoin. */
export class SessionColumns {
  used = false

  /** A session property of the current event's session as Nullable(String) (filters, breakdowns); NULL for events without one. */
  value(key: string): string {
    const p = property(key)
    if (!p)
      throw wrenError('invalid_input', `Unknown session property '${key}'. Use one of ${SESSION_FIELD_NAMES.join(', ')}.`, 'properties')
    this.used = true
    const text = p.kind === 'datetime' ? `formatDateTime(${p.column}, '%Y-%m-%d %H:%i:%S', 'UTC')` : `toString(${p.column})`
    return `if(session_key = '', NULL, ${text})`
  }

  /** HogQL's `session.<key>` with its type (NULL for events without a session, and for a session without that url); undefined for an unknown key. */
  field(key: string): { sql: string; kind: 'number' | 'string' | 'any' } | undefined {
    const p = property(key)
    if (!p) return undefined
    this.used = true
    const sql = `if(session_key = '', NULL, ${p.kind === 'string' ? `nullIf(${p.column}, '')` : p.column})`
    return { sql, kind: p.kind === 'datetime' ? 'any' : p.kind }
  }
}

/**
 * The LEFT JOIN that gives each events row its session's properties (to follow `FROM events`): sessions with
 * an event within a day of [from, to] (a session lasts at most a day; SQL DateTime64 expressions, either may be
 * absent), one row per session. `team`: the condition on team_id. On a cluster the query needs
 * `distributed_product_mode = 'local'` (a session's events live on one shard).
 */
export function sessionJoin(team: string, bounds: { from?: string; to?: string } = {}): string {
  const columns = Object.values(SESSION_PROPERTIES)
    .map((p) => `${p.sql} AS ${p.column}`)
    .join(', ')
  const where = [
    team,
    "`$session_id` != ''",
    bounds.from ? `timestamp >= ${bounds.from} - toIntervalDay(1)` : '',
    bounds.to ? `timestamp <= ${bounds.to} + toIntervalDay(1)` : '',
  ].filter(Boolean)
  return `LEFT JOIN (SELECT \`$session_id\` AS session_key, ${columns} FROM events
    WHERE ${where.join(' AND ')}
    GROUP BY session_key) AS sessions ON \`$session_id\` = sessions.session_key`
}

/** What a query that joins sessions adds (see sessionJoin). */
export const SESSION_JOIN_SETTINGS = "distributed_product_mode = 'local'"
