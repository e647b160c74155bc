// A query inside another: a kind that reads another kind's SQL (an ActorsQuery its source's actors, paths a
// funnel's actors) embeds it with its parameters renamed apart, and says which of its own fields a nested
// query's 400 is about.
import { WrenError } from '../../platform/errors'
import type { SqlParams } from '../../platform/clickhouse/params'

/**
 * `inner`'s SQL, to embed in a query whose parameters are `params`: each of its parameters renamed with
 * `prefix` (`{p3:String}` → `{s_p3:String}`), their values added to `params`. User input only enters SQL as
 * parameters, so the text holds no `{name:` but theirs.
 */
export function embedSql(inner: { sql: string; params: Record<string, unknown> }, params: SqlParams, prefix: string): string {
  for (const [k, v] of Object.entries(inner.params)) params.values[prefix + k] = v
  return inner.sql.replace(/\{(\w+):/g, (whole: string, name: string) => (Object.hasOwn(inner.params, name) ? `{${prefix}${name}:` : whole))
}

/**
 * Runs `fn`; a 400 it throws is thrown again with its attr as `rename` gives it: a nested query's field named as
 * the outer query's, so the caller reads which of its own fields was wrong.
 */
export async function nestedAttrs<T>(rename: (attr: string | null) => string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (err) {
    throw renamed(err, rename)
  }
}

/** The same, for a function that does not wait. */
export function nestedAttrsSync<T>(rename: (attr: string | null) => string, fn: () => T): T {
  try {
    return fn()
  } catch (err) {
    throw renamed(err, rename)
  }
}

function renamed(err: unknown, rename: (attr: string | null) => string): unknown {
  if (!(err instanceof WrenError) || err.status !== 400) return err
  return new WrenError(err.code, err.message, rename(err.attr), { headers: err.headers, status: err.status })
}
