// Rows as ClickHouse insert bodies. Pure and free of the client (and of chDB): the ingestion worker
// (ingestion/compute-worker.ts) encodes its rows with it on its own thread.

/**
 * Most characters one insert's body carries. chDB builds an insert's statement as one string, and V8
 * refuses strings past ~512 Mi characters: a batch of wide rows (person properties are copied onto every
 * event) is written as several inserts below that.
 */
export const MAX_INSERT_CHARS = 32 << 20

/**
 * Rows as JSONEachRow bodies of at most `maxChars` characters each (a bigger row goes alone), in order.
 * A value that is an object or array for a String column is stored as its JSON text (inserts read objects
 * as strings): `properties: {...}` costs one JSON encoding, where a pre-encoded string is escaped again.
 * Pure, no I/O: it may run on another thread than the insert (the ingestion worker, ingestion/compute-worker.ts).
 */
export function encodeRows(rows: readonly object[], maxChars = MAX_INSERT_CHARS): string[] {
  return joinLines(
    rows.map((row) => JSON.stringify(row) + '\n'),
    maxChars,
  )
}

/** JSONEachRow lines (each ending in a newline), joined into bodies of at most `maxChars` characters each (a bigger line goes alone), in order. */
export function joinLines(lines: readonly string[], maxChars = MAX_INSERT_CHARS): string[] {
  const chunks: string[] = []
  let first = 0
  let chars = 0
  for (let i = 0; i < lines.length; i++) {
    if (i > first && chars + lines[i].length > maxChars) {
      chunks.push(lines.slice(first, i).join(''))
      first = i
      chars = 0
    }
    chars += lines[i].length
  }
  if (lines.length > first) chunks.push(lines.slice(first).join(''))
  return chunks
}

/**
 * The latest version of each row of a project's versioned configuration table (actions, cohorts, insights,
 * dashboards: every write is a whole new version of the row): `columns` as of the highest version, and that
 * version as `latest_version`. Takes the parameter `team`.
 */
export function latestVersionsSql(table: string, columns: readonly string[]): string {
  const latest = columns.map((c) => `argMax(${c}, version) AS ${c}`).join(', ')
  return `SELECT id, team_id, ${latest}, max(version) AS latest_version FROM ${table} WHERE team_id = {team:Int64} GROUP BY team_id, id`
}

/** Rows of JSONEachRow bodies: their lines (a JSON string escapes its own line breaks). */
export function encodedRows(bodies: ReadonlyArray<Uint8Array>): number {
  let n = 0
  for (const body of bodies) for (const byte of body) if (byte === 10) n++
  return n
}
