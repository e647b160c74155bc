// What one query Wren runs may use in ClickHouse (WREN_QUERY_*), as settings of the query itself: on chDB
// a `SET` would stay on the one session that ingestion's inserts share, so the bounds go into the query's
// own SETTINGS clause, which ClickHouse applies to the whole query (subqueries and every part of a UNION).

/** Each bound is ClickHouse's own setting; 0 is no bound. */
export interface QueryLimits {
  /** max_execution_time, seconds. */
  maxSeconds: number
  /** max_memory_usage, bytes. */
  maxMemoryBytes: number
  /** max_result_rows: rows of the result (not of subqueries). */
  maxResultRows: number
  /** max_result_bytes: uncompressed bytes of the result. */
  maxResultBytes: number
}

/** The defaults of WREN_QUERY_* (services/platform/config/table.ts). */
export const DEFAULT_QUERY_LIMITS: QueryLimits = {
  maxSeconds: 60,
  maxMemoryBytes: 512 << 20,
  maxResultRows: 1_000_000,
  maxResultBytes: 512 << 20,
}

/**
 * The SETTINGS of a query bounded by `limits`: past a bound ClickHouse stops the query with an error. Under a
 * memory bound, a GROUP BY or ORDER BY that outgrows half of it goes on on disk (ClickHouse's external
 * aggregation and sort) instead of failing: a funnel over 10 M events groups each person's events, 570 MiB
 * in memory, and answers in 5 s spilling instead of stopping at the 512 MiB bound.
 */
export function limitSettings(limits: QueryLimits): Record<string, number | string> {
  const spill = Math.floor(limits.maxMemoryBytes / 2)
  return {
    max_execution_time: limits.maxSeconds,
    max_memory_usage: limits.maxMemoryBytes,
    ...(spill > 0 ? { max_bytes_before_external_group_by: spill, max_bytes_before_external_sort: spill } : {}),
    max_result_rows: limits.maxResultRows,
    max_result_bytes: limits.maxResultBytes,
    result_overflow_mode: 'throw',
  }
}

// A SETTINGS clause at the very end of a query: names, numbers and quoted words only (Wren's queries put
// user input in parameters, never in their text).
const TRAILING_SETTINGS = /\bSETTINGS\s+[A-Za-z_]\w*\s*=\s*(?:\d+|'[^']*')(?:\s*,\s*[A-Za-z_]\w*\s*=\s*(?:\d+|'[^']*'))*\s*$/i

/** `sql` with `settings` added to its trailing SETTINGS clause, or in a clause of their own. */
export function withSettings(sql: string, settings: Record<string, number | string>): string {
  const entries = Object.entries(settings).map(([k, v]) => `${k} = ${typeof v === 'number' ? v : `'${v.replace(/'/g, "''")}'`}`)
  if (entries.length === 0) return sql
  const body = sql.trimEnd().replace(/;$/, '')
  return TRAILING_SETTINGS.test(body) ? `${body}, ${entries.join(', ')}` : `${body}\nSETTINGS ${entries.join(', ')}`
}
